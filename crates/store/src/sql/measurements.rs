//! Measurements and their samples: written one at a time as a run goes, read back a run at once.

use super::{now, one, returned_id, SqlStore};
use crate::db::{Db, Value};
use crate::params;
use crate::StoredDefinition;
use anyhow::{bail, Result};
use cryptospeed_model::*;

/// `kind/operation vVERSION`: the catalog's definition of what a measured cell times, as this
/// build defines it; `None` for an imported cell, a cell with no figure (unavailable, failed, or
/// a log's "not run") or one the catalog does not define.
pub(super) fn definition_of(m: &Measurement) -> Option<String> {
    if !has_definition(m) {
        return None;
    }
    let p = cryptospeed_catalog::lookup(&m.cell.primitive)?;
    let d = p.definition(m.cell.op)?;
    Some(format!("{} v{}", d.id, d.version))
}

/// The definition a copied or imported measurement is stored under: the one its record carries
/// (the source store's), never this build's; none for an imported cell or a cell with no figure.
pub(super) fn carried(m: &VariantMeasurement) -> Option<&str> {
    m.definition
        .as_deref()
        .filter(|_| has_definition(&m.measurement))
}

/// A measurement's per-bout disturbances as stored: JSON, or NULL when it has none.
fn disturbances_json(m: &Measurement) -> Option<String> {
    (!m.disturbances.is_empty())
        .then(|| serde_json::to_string(&m.disturbances).expect("disturbances serialise"))
}

/// A handshake cell's bytes per flight as stored: JSON, or NULL where none were counted.
fn flights_json(m: &Measurement) -> Option<String> {
    (!m.flights.is_empty()).then(|| serde_json::to_string(&m.flights).expect("flights serialise"))
}

/// Whether a measurement times a cryptospeed loop, so a definition applies to it.
fn has_definition(m: &Measurement) -> bool {
    m.reported_rate.is_none() && m.status.has_numbers()
}

impl<D: Db> SqlStore<D> {
    /// Inserts one measurement and its samples, stored as measured under `definition`; the
    /// caller owns the transaction.
    pub(super) fn insert_measurement(
        &self,
        run: i64,
        variant: i64,
        m: &Measurement,
        definition: Option<&str>,
    ) -> Result<()> {
        let s = m.summary;
        let unit = if m.cell.bytes.is_some() {
            "bytes/s"
        } else {
            "ops/s"
        };
        let rows = self.db.query(
            "INSERT INTO measurement (run_id, variant_id, primitive, op, bytes, misalign, status, reason, unit, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, created_at, reported_rate, definition, disturbances, flights)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25) RETURNING id",
            params![
                run, variant, &m.cell.primitive, m.cell.op.as_str(), m.cell.bytes, m.cell.misalign as i64,
                m.status.as_str(), m.reason.clone(), unit, s.map(|s| s.n), s.map(|s| s.median), s.map(|s| s.ci_lo),
                s.map(|s| s.ci_hi), s.map(|s| s.mad), s.map(|s| s.min), s.map(|s| s.max), s.map(|s| s.outliers),
                m.tsc_per_op, m.cpu_fraction, m.elapsed_s, now(), m.reported_rate, definition,
                disturbances_json(m), flights_json(m)
            ],
        )?;
        let id = returned_id(rows, "measurement")?;
        // Many rows per statement: one round trip per 100 samples rather than per sample.
        for (chunk_no, chunk) in m.samples.chunks(100).enumerate() {
            let mut sql = String::from(
                "INSERT INTO sample (measurement_id, idx, iters, wall_ns, cpu_ns, tsc, bout) VALUES ",
            );
            let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 7);
            for (j, smp) in chunk.iter().enumerate() {
                let p = values.len();
                if j > 0 {
                    sql.push_str(", ");
                }
                sql.push_str(&format!(
                    "(?{}, ?{}, ?{}, ?{}, ?{}, ?{}, ?{})",
                    p + 1,
                    p + 2,
                    p + 3,
                    p + 4,
                    p + 5,
                    p + 6,
                    p + 7
                ));
                values.extend([
                    Value::Int(id),
                    Value::from(chunk_no * 100 + j),
                    Value::from(smp.iters),
                    Value::from(smp.wall_ns),
                    Value::from(smp.cpu_ns),
                    Value::from(smp.tsc),
                    Value::from(smp.bout as u64),
                ]);
            }
            self.db.execute(&sql, &values)?;
        }
        Ok(())
    }

    /// All samples of a run in one query, grouped by measurement.
    pub(super) fn run_samples(
        &self,
        id: i64,
    ) -> Result<std::collections::HashMap<i64, Vec<Sample>>> {
        let mut samples: std::collections::HashMap<i64, Vec<Sample>> = Default::default();
        for r in self.db.query(
            "SELECT s.measurement_id, s.iters, s.wall_ns, s.cpu_ns, s.tsc, s.bout FROM sample s JOIN measurement m ON m.id = s.measurement_id WHERE m.run_id = ?1 ORDER BY s.measurement_id, s.idx",
            params![id],
        )? {
            samples.entry(r.i64(0)?).or_default().push(Sample {
                iters: r.i64(1)? as u64,
                wall_ns: r.i64(2)? as u64,
                cpu_ns: r.i64(3)? as u64,
                tsc: r.i64(4)? as u64,
                bout: r.i64(5)? as u32,
            });
        }
        Ok(samples)
    }

    /// A run's measurements, each with its samples, in the order they were stored.
    pub(super) fn run_measurements(
        &self,
        id: i64,
        variants: &[(i64, Variant)],
    ) -> Result<Vec<VariantMeasurement>> {
        let mut samples = self.run_samples(id)?;
        let mut measurements = Vec::new();
        for r in self.db.query(
            "SELECT id, variant_id, primitive, op, bytes, misalign, status, reason, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, reported_rate, definition, disturbances, flights
             FROM measurement WHERE run_id = ?1 ORDER BY id",
            params![id],
        )? {
            let mid = r.i64(0)?;
            let vid = r.i64(1)?;
            let summary = match r.opt_i64(8)? {
                Some(n) => Some(Summary {
                    n: n as usize,
                    median: r.f64(9)?,
                    ci_lo: r.f64(10)?,
                    ci_hi: r.f64(11)?,
                    mad: r.f64(12)?,
                    min: r.f64(13)?,
                    max: r.f64(14)?,
                    outliers: r.i64(15)? as usize,
                }),
                None => None,
            };
            let Some((_, v)) = variants.iter().find(|(i, _)| *i == vid) else {
                bail!("measurement {mid} names a variant that is not stored");
            };
            measurements.push(VariantMeasurement {
                variant: v.label.clone(),
                implementation: v.implementation.clone(),
                measurement: Measurement {
                    cell: CellSpec {
                        primitive: r.text(2)?,
                        op: Op::parse(&r.text(3)?).unwrap_or(Op::Hash),
                        bytes: r.opt_i64(4)?.map(|b| b as u64),
                        misalign: r.i64(5)? as u32,
                    },
                    status: Status::parse(&r.text(6)?).unwrap_or(Status::Failed),
                    reason: r.opt_text(7)?,
                    summary,
                    tsc_per_op: r.opt_f64(16)?,
                    cpu_fraction: r.opt_f64(17)?,
                    samples: samples.remove(&mid).unwrap_or_default(),
                    elapsed_s: r.f64(18)?,
                    reported_rate: r.opt_f64(19)?,
                    disturbances: r
                        .opt_text(21)?
                        .and_then(|j| serde_json::from_str(&j).ok())
                        .unwrap_or_default(),
                    flights: r
                        .opt_text(22)?
                        .and_then(|j| serde_json::from_str(&j).ok())
                        .unwrap_or_default(),
                },
                definition: r.opt_text(20)?,
            });
        }
        Ok(measurements)
    }

    /// The definition each measurement of a run was stored under, in the order they were stored.
    pub(super) fn run_definitions(&self, id: i64) -> Result<Vec<StoredDefinition>> {
        let rows = self.db.query(
            "SELECT v.label, m.primitive, m.op, m.definition FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE m.run_id = ?1 ORDER BY m.id",
            params![id],
        )?;
        rows.iter()
            .map(|r| {
                Ok(StoredDefinition {
                    variant: r.text(0)?,
                    primitive: r.text(1)?,
                    op: Op::parse(&r.text(2)?).unwrap_or(Op::Hash),
                    definition: r.opt_text(3)?,
                })
            })
            .collect()
    }

    /// Stores a measurement in place of the cell's partial one, if any: a partial cell holds
    /// one row (the bouts so far), and a finished cell none. The caller owns the transaction.
    pub(super) fn replace_partial(
        &self,
        run: i64,
        variant: i64,
        m: &Measurement,
        definition: Option<&str>,
    ) -> Result<()> {
        let c = &m.cell;
        let cell = [
            Value::from(run),
            Value::from(variant),
            Value::from(c.primitive.as_str()),
            Value::from(c.op.as_str()),
            Value::from(c.bytes.map_or(-1, |b| b as i64)),
            Value::from(c.misalign as i64),
        ];
        const PARTIAL: &str = "SELECT id FROM measurement WHERE run_id = ?1 AND variant_id = ?2 AND primitive = ?3 AND op = ?4 AND COALESCE(bytes, -1) = ?5 AND misalign = ?6 AND status = 'partial'";
        self.db.execute(
            &format!("DELETE FROM sample WHERE measurement_id IN ({PARTIAL})"),
            &cell,
        )?;
        self.db.execute(
            &format!("DELETE FROM measurement WHERE id IN ({PARTIAL})"),
            &cell,
        )?;
        self.insert_measurement(run, variant, m, definition)
    }

    /// How many finished measurements (not partial ones) the run holds.
    pub(super) fn count_measurements(&self, run: i64) -> Result<usize> {
        let rows = self.db.query(
            "SELECT COUNT(*) FROM measurement WHERE run_id = ?1 AND status <> 'partial'",
            params![run],
        )?;
        Ok(one(rows, |r| r.i64(0))?.unwrap_or(0) as usize)
    }
}
