//! The store itself, written once over the [`Db`] adapter: every query, every row mapping and every
//! transaction boundary, so SQLite and PostgreSQL behave the same by construction.

use crate::db::{Db, Row, Value};
use crate::liveness::{judge, Pulse};
use crate::schema::MIGRATIONS;
use crate::{
    params, MachineRow, RunIdentity, RunRow, RunStart, ShardClaim, ShardRow, Store, SweepRow,
    SyncOutcome, STALE_CLAIM_S,
};
use anyhow::{anyhow, bail, Context, Result};
use cryptospeed_model::*;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicU64, Ordering};

pub struct SqlStore<D: Db> {
    pub(crate) db: D,
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Applies the missing migrations in one transaction that first takes the schema lock, so two
/// processes opening a new store at once do not both create the tables: the second waits and then
/// sees the first one's schema. (Written here rather than with rusqlite_migration or refinery:
/// those read the version before locking, and neither serves both engines from one list.)
pub(crate) fn migrate<D: Db>(db: &D) -> Result<()> {
    db.begin()?;
    let result = (|| {
        db.lock_schema()?;
        let version = db.schema_version()?;
        if version > MIGRATIONS.len() {
            bail!(
                "the store has schema version {version}, newer than this cryptospeed knows ({}); upgrade cryptospeed",
                MIGRATIONS.len()
            );
        }
        for sql in &MIGRATIONS[version..] {
            db.batch(&db.dialect().render(sql))?;
        }
        if version != MIGRATIONS.len() {
            db.set_schema_version(MIGRATIONS.len())?;
        }
        Ok(())
    })();
    finish_tx(db, result)
}

/// Commits when `result` is Ok, rolls back otherwise.
fn finish_tx<D: Db, T>(db: &D, result: Result<T>) -> Result<T> {
    match result {
        Ok(v) => {
            db.commit()?;
            Ok(v)
        }
        Err(e) => {
            let _ = db.rollback();
            Err(e)
        }
    }
}

fn hex_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// A fresh run identity: unique across machines (machine, time to the nanosecond, process, and a
/// counter within the process).
pub fn new_uid(machine: &Machine) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    hex_sha256(&format!(
        "{}|{nanos}|{}|{}",
        machine.fingerprint(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))[..32]
        .to_string()
}

/// The identity of a run stored before runs had one (schema < 4): derived from what the run is,
/// so every store holding a copy derives the same one.
fn derived_uid(machine_fingerprint: &str, started_at: &str, command: &str, label: &str) -> String {
    hex_sha256(&format!(
        "{machine_fingerprint}|{started_at}|{command}|{label}"
    ))[..32]
        .to_string()
}

/// The columns a run's liveness is judged from, for a query over `run r JOIN machine m`.
const PULSE_COLUMNS: &str = "r.status, r.heartbeat_at, r.heartbeat_s, r.pid, m.hostname";

/// The judged status of a row holding [`PULSE_COLUMNS`] from column `at` on.
fn judged_status(r: &Row, at: usize) -> Result<RunStatus> {
    let stored = RunStatus::parse(&r.text(at)?).unwrap_or(RunStatus::Failed);
    let pulse = Pulse {
        heartbeat_at: r.opt_text(at + 1)?,
        heartbeat_s: r.opt_f64(at + 2)?,
        pid: r.opt_i64(at + 3)?,
        host: r.text(at + 4)?,
    };
    Ok(judge(stored, &pulse))
}

fn one<T>(rows: Vec<Row>, f: impl FnOnce(&Row) -> Result<T>) -> Result<Option<T>> {
    rows.first().map(f).transpose()
}

/// The id in the first row (of an `INSERT … RETURNING id` or a lookup just after an insert).
fn returned_id(rows: Vec<Row>, what: &str) -> Result<i64> {
    one(rows, |r| r.i64(0))?.ok_or_else(|| anyhow!("the store returned no id for the new {what}"))
}

impl<D: Db> SqlStore<D> {
    fn in_tx<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.db.begin()?;
        let result = f();
        finish_tx(&self.db, result)
    }

    fn resolve(&self, selector: &str) -> Result<i64> {
        if let Ok(id) = selector.parse::<i64>() {
            if !self
                .db
                .query("SELECT 1 FROM run WHERE id = ?1", params![id])?
                .is_empty()
            {
                return Ok(id);
            }
        }
        one(
            self.db.query(
                "SELECT id FROM run WHERE label = ?1 ORDER BY id DESC LIMIT 1",
                params![selector],
            )?,
            |r| r.i64(0),
        )?
        .ok_or_else(|| {
            anyhow!("no run with id or label '{selector}' ('cryptospeed runs' lists them)")
        })
    }

    /// The id of a machine row, inserting it on first sight.
    fn machine_id(&self, m: &Machine) -> Result<i64> {
        self.row_by_fingerprint(
            "machine",
            "fingerprint, hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch",
            params![m.fingerprint(), &m.hostname, &m.cpu_model, m.cpu_flags.join(" "), m.cores, m.threads, serde_json::to_string(&m.caches)?, m.tsc_hz, m.constant_tsc, &m.kernel, &m.os, &m.arch],
        )
    }

    /// The id of a variant row, inserting it on first sight.
    fn variant_row(&self, v: &Variant) -> Result<i64> {
        self.row_by_fingerprint(
            "variant",
            "fingerprint, label, implementation, version, library, build_info, capabilities, feature_mask",
            params![v.fingerprint(), &v.label, &v.implementation, &v.version, &v.library, serde_json::to_string(&v.build_info)?, &v.capabilities, &v.feature_mask],
        )
    }

    /// Inserts a row keyed by its unique fingerprint (the first of `values`) unless one exists,
    /// and returns the row's id either way.
    fn row_by_fingerprint(&self, table: &str, columns: &str, values: &[Value]) -> Result<i64> {
        let placeholders: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        self.db.execute(
            &format!(
                "INSERT INTO {table} ({columns}) VALUES ({}) ON CONFLICT (fingerprint) DO NOTHING",
                placeholders.join(", ")
            ),
            values,
        )?;
        returned_id(
            self.db.query(
                &format!("SELECT id FROM {table} WHERE fingerprint = ?1"),
                &values[..1],
            )?,
            table,
        )
    }

    /// Inserts one measurement and its samples; the caller owns the transaction.
    fn insert_measurement(&self, run: i64, variant: i64, m: &Measurement) -> Result<()> {
        let s = m.summary;
        let unit = if m.cell.bytes.is_some() {
            "bytes/s"
        } else {
            "ops/s"
        };
        let rows = self.db.query(
            "INSERT INTO measurement (run_id, variant_id, primitive, op, bytes, misalign, status, reason, unit, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, created_at, reported_rate)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) RETURNING id",
            params![
                run, variant, &m.cell.primitive, m.cell.op.as_str(), m.cell.bytes, m.cell.misalign as i64,
                m.status.as_str(), m.reason.clone(), unit, s.map(|s| s.n), s.map(|s| s.median), s.map(|s| s.ci_lo),
                s.map(|s| s.ci_hi), s.map(|s| s.mad), s.map(|s| s.min), s.map(|s| s.max), s.map(|s| s.outliers),
                m.tsc_per_op, m.cpu_fraction, m.elapsed_s, now(), m.reported_rate
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

    fn insert_profile(&self, run: i64, variant: i64, p: &ProfileRecord) -> Result<()> {
        self.db.execute(
            "INSERT INTO profile (run_id, variant_id, primitive, bytes, document, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run, variant, &p.primitive, p.bytes, &p.document, now()],
        )?;
        Ok(())
    }

    /// Stores a whole run with its measurements and profiles; the caller owns the transaction.
    fn insert_record(
        &self,
        record: &RunRecord,
        profiles: &[ProfileRecord],
        started_at: &str,
        finished_at: Option<&str>,
        status: RunStatus,
        uid: &str,
    ) -> Result<i64> {
        let machine = self.machine_id(&record.machine)?;
        let source = record
            .run
            .imported
            .as_ref()
            .map(serde_json::to_string)
            .transpose()?;
        let rows = self.db.query(
            "INSERT INTO run (label, started_at, finished_at, command, tool_version, status, machine_id, config, source, uid, conditions)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
            params![
                record.run.label.clone(),
                started_at,
                finished_at,
                &record.run.command,
                &record.run.tool_version,
                status.as_str(),
                machine,
                serde_json::to_string(&record.run.config)?,
                source,
                uid,
                record
                    .run
                    .conditions
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()?
            ],
        )?;
        let run = returned_id(rows, "run")?;
        let mut ids = Vec::new();
        for v in &record.variants {
            ids.push((v.label.clone(), self.variant_row(v)?));
        }
        let find = |label: &str, what: &str| -> Result<i64> {
            ids.iter()
                .find(|(l, _)| l == label)
                .map(|(_, id)| *id)
                .ok_or_else(|| {
                    anyhow!("{what} names variant '{label}', which the run does not carry")
                })
        };
        for vm in &record.measurements {
            let vid = find(
                &vm.variant,
                &format!("measurement of {}", vm.measurement.cell.primitive),
            )?;
            self.insert_measurement(run, vid, &vm.measurement)?;
        }
        for p in profiles {
            let vid = find(&p.variant, &format!("profile of {}", p.primitive))?;
            self.insert_profile(run, vid, p)?;
        }
        Ok(run)
    }

    /// `copy_run` of a run this store already holds under `id`: when it holds only the beginning
    /// (its store failed mid-run; the copy comes from the spool), adds the rest and takes the
    /// copy's status. A complete run is never reopened; a copy that disagrees with what is stored
    /// is refused. The caller owns the transaction.
    fn complete_run(&self, id: i64, record: &RunRecord) -> Result<SyncOutcome> {
        let status = one(
            self.db
                .query("SELECT status FROM run WHERE id = ?1", params![id])?,
            |r| r.text(0),
        )?
        .unwrap_or_default();
        let stored: Vec<(String, String, Option<i64>, String)> = self
            .db
            .query(
                "SELECT m.primitive, m.op, m.bytes, v.label FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE m.run_id = ?1 ORDER BY m.id",
                params![id],
            )?
            .iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.opt_i64(2)?, r.text(3)?)))
            .collect::<Result<_>>()?;
        let k = stored.len();
        let same_status = status == record.run.status.as_str();
        if status == RunStatus::Complete.as_str()
            || k > record.measurements.len()
            || (k == record.measurements.len() && same_status)
        {
            return Ok(SyncOutcome::AlreadyThere(id));
        }
        for (i, (here, there)) in stored.iter().zip(&record.measurements).enumerate() {
            let c = &there.measurement.cell;
            let key = (
                c.primitive.clone(),
                c.op.as_str().to_string(),
                c.bytes.map(|b| b as i64),
                there.variant.clone(),
            );
            if *here != key {
                bail!(
                    "run {id} here and the copy differ at measurement {}: cannot complete it",
                    i + 1
                );
            }
        }
        let mut ids = Vec::new();
        for v in &record.variants {
            ids.push((v.label.clone(), self.variant_row(v)?));
        }
        for vm in &record.measurements[k..] {
            let Some((_, vid)) = ids.iter().find(|(l, _)| *l == vm.variant) else {
                bail!(
                    "a measurement names variant '{}', which the run does not carry",
                    vm.variant
                );
            };
            self.insert_measurement(id, *vid, &vm.measurement)?;
        }
        self.db.execute(
            "UPDATE run SET status = ?1, finished_at = ?2, conditions = ?3 WHERE id = ?4",
            params![
                record.run.status.as_str(),
                record.run.finished_at.clone(),
                record
                    .run
                    .conditions
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()?,
                id
            ],
        )?;
        Ok(SyncOutcome::Completed {
            id,
            added: record.measurements.len() - k,
        })
    }

    /// The judged status of a run, if it is stored.
    fn run_status(&self, run: i64) -> Result<Option<RunStatus>> {
        one(
            self.db.query(
                &format!("SELECT {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1"),
                params![run],
            )?,
            |r| judged_status(r, 0),
        )
    }

    /// For a shard marked running: `Busy` while its run lives, or, before it named a run, while
    /// its claim is recent; `None` when its runner is gone and the shard may be taken again.
    fn busy_shard(&self, sweep: i64, shard: usize, run: Option<i64>) -> Result<Option<ShardClaim>> {
        let (host, updated_at) = one(
            self.db.query(
                "SELECT host, updated_at FROM sweep_shard WHERE sweep_id = ?1 AND shard = ?2",
                params![sweep, shard],
            )?,
            |r| Ok((r.opt_text(0)?, r.text(1)?)),
        )?
        .unwrap_or_default();
        let alive = match run {
            Some(run) => self.run_status(run)? == Some(RunStatus::Running),
            None => chrono::DateTime::parse_from_rfc3339(&updated_at).is_ok_and(|at| {
                chrono::Utc::now().signed_duration_since(at).num_seconds() < STALE_CLAIM_S
            }),
        };
        Ok(alive.then_some(ShardClaim::Busy { host, run }))
    }

    fn sweep_id(&self, name: &str) -> Result<i64> {
        one(
            self.db
                .query("SELECT id FROM sweep WHERE name = ?1", params![name])?,
            |r| r.i64(0),
        )?
        .ok_or_else(|| anyhow!("no sweep named '{name}' ('cryptospeed sweep status' lists them)"))
    }

    /// The variants a run's measurements and profiles name, with their ids.
    fn run_variants(&self, id: i64) -> Result<Vec<(i64, Variant)>> {
        self
            .db
            .query(
                "SELECT v.id, v.label, v.implementation, v.version, v.library, v.build_info, v.capabilities, v.feature_mask
                 FROM variant v WHERE v.id IN (SELECT variant_id FROM measurement WHERE run_id = ?1 UNION SELECT variant_id FROM profile WHERE run_id = ?1) ORDER BY v.id",
                params![id],
            )?
            .iter()
            .map(|r| {
                Ok((
                    r.i64(0)?,
                    Variant {
                        label: r.text(1)?,
                        implementation: r.text(2)?,
                        version: r.text(3)?,
                        library: r.text(4)?,
                        build_info: serde_json::from_str(&r.text(5)?).unwrap_or_default(),
                        capabilities: r.text(6)?,
                        feature_mask: r.text(7)?,
                    },
                ))
            })
            .collect::<Result<_>>()
    }

    /// All samples of a run in one query, grouped by measurement.
    fn run_samples(&self, id: i64) -> Result<std::collections::HashMap<i64, Vec<Sample>>> {
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
    fn run_measurements(
        &self,
        id: i64,
        variants: &[(i64, Variant)],
    ) -> Result<Vec<VariantMeasurement>> {
        let mut samples = self.run_samples(id)?;
        let mut measurements = Vec::new();
        for r in self.db.query(
            "SELECT id, variant_id, primitive, op, bytes, misalign, status, reason, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, reported_rate
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
                },
            });
        }
        Ok(measurements)
    }
}

fn machine_of(r: &Row, at: usize) -> Result<Machine> {
    Ok(Machine {
        hostname: r.text(at)?,
        cpu_model: r.text(at + 1)?,
        cpu_flags: r
            .text(at + 2)?
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        cores: r.i64(at + 3)? as u32,
        threads: r.i64(at + 4)? as u32,
        caches: serde_json::from_str(&r.text(at + 5)?).unwrap_or_default(),
        tsc_hz: r.f64(at + 6)?,
        constant_tsc: r.i64(at + 7)? != 0,
        kernel: r.text(at + 8)?,
        os: r.text(at + 9)?,
        arch: r.text(at + 10)?,
    })
}

const MACHINE_COLUMNS: &str =
    "hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch";

impl<D: Db> Store for SqlStore<D> {
    fn begin_run(&mut self, start: &RunStart) -> Result<i64> {
        self.in_tx(|| {
            if let Some(id) = one(
                self.db
                    .query("SELECT id FROM run WHERE uid = ?1", params![&start.uid])?,
                |r| r.i64(0),
            )? {
                return Ok(id);
            }
            let machine_id = self.machine_id(&start.machine)?;
            let stamp = now();
            let rows = self.db.query(
                "INSERT INTO run (label, started_at, command, tool_version, status, machine_id, config, uid, heartbeat_at, heartbeat_s, pid) VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
                params![start.label.clone(), stamp.clone(), &start.command, &start.tool_version, machine_id, serde_json::to_string(&start.config)?, &start.uid, stamp, start.heartbeat_s, start.pid],
            )?;
            returned_id(rows, "run")
        })
    }

    fn heartbeat(&mut self, run: i64) -> Result<()> {
        self.db.execute(
            "UPDATE run SET heartbeat_at = ?1 WHERE id = ?2",
            params![now(), run],
        )?;
        Ok(())
    }

    fn measurement_count(&self, run: i64) -> Result<usize> {
        let rows = self.db.query(
            "SELECT COUNT(*) FROM measurement WHERE run_id = ?1",
            params![run],
        )?;
        Ok(one(rows, |r| r.i64(0))?.unwrap_or(0) as usize)
    }

    fn variant_id(&mut self, v: &Variant) -> Result<i64> {
        self.variant_row(v)
    }

    fn add_measurement(&mut self, run: i64, variant: i64, m: &Measurement) -> Result<()> {
        self.in_tx(|| self.insert_measurement(run, variant, m))
    }

    fn import_run(&mut self, record: &RunRecord) -> Result<i64> {
        if record.run.imported.is_none() {
            bail!("import_run needs a run with an import source");
        }
        let stamp = now();
        self.in_tx(|| {
            self.insert_record(
                record,
                &[],
                &stamp,
                Some(&stamp),
                RunStatus::Complete,
                &new_uid(&record.machine),
            )
        })
    }

    fn add_profile(&mut self, run: i64, variant: i64, p: &ProfileRecord) -> Result<()> {
        self.insert_profile(run, variant, p)
    }

    fn profiles(&self, run: i64) -> Result<Vec<ProfileRecord>> {
        self.db
            .query(
                "SELECT v.label, p.primitive, p.bytes, p.document FROM profile p JOIN variant v ON v.id = p.variant_id WHERE p.run_id = ?1 ORDER BY p.id",
                params![run],
            )?
            .iter()
            .map(|r| {
                Ok(ProfileRecord {
                    variant: r.text(0)?,
                    primitive: r.text(1)?,
                    bytes: r.opt_i64(2)?.map(|b| b as u64),
                    document: r.text(3)?,
                })
            })
            .collect()
    }

    fn record_conditions(&mut self, run: i64, conditions: &RunConditions) -> Result<()> {
        self.db.execute(
            "UPDATE run SET conditions = ?1 WHERE id = ?2",
            params![serde_json::to_string(conditions)?, run],
        )?;
        Ok(())
    }

    fn finish_run(&mut self, run: i64, status: RunStatus) -> Result<()> {
        self.db.execute(
            "UPDATE run SET status = ?1, finished_at = ?2 WHERE id = ?3",
            params![status.as_str(), now(), run],
        )?;
        Ok(())
    }

    fn runs(&self) -> Result<Vec<RunRow>> {
        // The variant labels of each run, in the order they were first measured.
        let mut labels: std::collections::HashMap<i64, Vec<String>> = Default::default();
        for r in self.db.query(
            "SELECT x.run_id, v.label, MIN(x.id) AS first FROM measurement x JOIN variant v ON v.id = x.variant_id GROUP BY x.run_id, v.label ORDER BY x.run_id, first",
            &[],
        )? {
            labels.entry(r.i64(0)?).or_default().push(r.text(1)?);
        }
        self.db
            .query(
                &format!("SELECT r.id, r.label, r.started_at, r.status, r.command, m.cpu_model, r.source,
                        (SELECT COUNT(*) FROM measurement x WHERE x.run_id = r.id), r.machine_id, {PULSE_COLUMNS}
                 FROM run r JOIN machine m ON m.id = r.machine_id ORDER BY r.id"),
                &[],
            )?
            .iter()
            .map(|r| {
                let id = r.i64(0)?;
                Ok(RunRow {
                    id,
                    label: r.opt_text(1)?,
                    started_at: r.text(2)?,
                    status: judged_status(r, 9)?,
                    command: r.text(4)?,
                    cpu_model: r.text(5)?,
                    source: r
                        .opt_text(6)?
                        .and_then(|s| serde_json::from_str::<ImportSource>(&s).ok())
                        .map(|s| format!("import:{}", s.file))
                        .unwrap_or_default(),
                    measurements: r.i64(7)?,
                    machine_id: r.i64(8)?,
                    variants: labels.remove(&id).unwrap_or_default().join(","),
                })
            })
            .collect()
    }

    fn machines(&self) -> Result<Vec<MachineRow>> {
        self.db
            .query(
                "SELECT m.id, m.fingerprint, m.hostname, m.cpu_model, m.cores, m.threads, m.tsc_hz, m.arch, m.os, m.kernel,
                        COUNT(r.id), MIN(r.started_at), MAX(r.started_at)
                 FROM machine m LEFT JOIN run r ON r.machine_id = m.id
                 GROUP BY m.id, m.fingerprint, m.hostname, m.cpu_model, m.cores, m.threads, m.tsc_hz, m.arch, m.os, m.kernel
                 ORDER BY m.id",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(MachineRow {
                    id: r.i64(0)?,
                    key: crate::machine_key(&r.text(1)?),
                    fingerprint: r.text(1)?,
                    hostname: r.text(2)?,
                    cpu_model: r.text(3)?,
                    cores: r.i64(4)? as u32,
                    threads: r.i64(5)? as u32,
                    tsc_hz: r.f64(6)?,
                    arch: r.text(7)?,
                    os: r.text(8)?,
                    kernel: r.text(9)?,
                    runs: r.i64(10)?,
                    first_run: r.opt_text(11)?,
                    last_run: r.opt_text(12)?,
                })
            })
            .collect()
    }

    fn latest_run_with_variant(&self, label: &str) -> Result<Option<i64>> {
        Ok(one(
            self.db.query(
                "SELECT MAX(m.run_id) FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE v.label = ?1",
                params![label],
            )?,
            |r| r.opt_i64(0),
        )?
        .flatten())
    }

    fn load_run(&self, selector: &str) -> Result<RunRecord> {
        let id = self.resolve(selector)?;
        let rows = self.db.query(
            &format!("SELECT r.id, r.label, r.started_at, r.finished_at, r.command, r.tool_version, r.status, r.config, r.machine_id, r.source, r.uid, r.conditions, {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1"),
            params![id],
        )?;
        let (run, machine_id) = one(rows, |r| {
            Ok((
                RunInfo {
                    id: r.i64(0)?,
                    label: r.opt_text(1)?,
                    started_at: r.text(2)?,
                    finished_at: r.opt_text(3)?,
                    command: r.text(4)?,
                    tool_version: r.text(5)?,
                    status: judged_status(r, 12)?,
                    config: serde_json::from_str(&r.text(7)?).unwrap_or_default(),
                    imported: r.opt_text(9)?.and_then(|s| serde_json::from_str(&s).ok()),
                    uid: r.opt_text(10)?,
                    conditions: r.opt_text(11)?.and_then(|s| serde_json::from_str(&s).ok()),
                },
                r.i64(8)?,
            ))
        })?
        .ok_or_else(|| anyhow!("run {id} vanished while it was read"))?;
        let machine = one(
            self.db.query(
                &format!("SELECT {MACHINE_COLUMNS} FROM machine WHERE id = ?1"),
                params![machine_id],
            )?,
            |r| machine_of(r, 0),
        )?
        .ok_or_else(|| anyhow!("run {id} names machine {machine_id}, which is not stored"))?;
        let variants = self.run_variants(id)?;
        let measurements = self.run_measurements(id, &variants)?;
        Ok(RunRecord {
            run,
            machine,
            variants: variants.into_iter().map(|(_, v)| v).collect(),
            measurements,
        })
    }

    fn run_identities(&self) -> Result<Vec<RunIdentity>> {
        self.db
            .query(
                &format!("SELECT r.id, r.uid, r.status, r.label, r.started_at, r.command, m.fingerprint, {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id ORDER BY r.id"),
                &[],
            )?
            .iter()
            .map(|r| {
                let label = r.opt_text(3)?.unwrap_or_default();
                Ok(RunIdentity {
                    id: r.i64(0)?,
                    uid: match r.opt_text(1)? {
                        Some(uid) => uid,
                        None => derived_uid(&r.text(6)?, &r.text(4)?, &r.text(5)?, &label),
                    },
                    status: judged_status(r, 7)?,
                    label: (!label.is_empty()).then_some(label),
                })
            })
            .collect()
    }

    fn copy_run(
        &mut self,
        uid: &str,
        record: &RunRecord,
        profiles: &[ProfileRecord],
    ) -> Result<SyncOutcome> {
        self.in_tx(|| {
            if let Some(id) = one(
                self.db
                    .query("SELECT id FROM run WHERE uid = ?1", params![uid])?,
                |r| r.i64(0),
            )? {
                return self.complete_run(id, record);
            }
            // Runs stored before runs had identities: recognise the run by what it is.
            for r in self.db.query(
                "SELECT r.id, r.label, r.started_at, r.command, m.fingerprint FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.uid IS NULL",
                &[],
            )? {
                let label = r.opt_text(1)?.unwrap_or_default();
                if derived_uid(&r.text(4)?, &r.text(2)?, &r.text(3)?, &label) == uid {
                    return Ok(SyncOutcome::AlreadyThere(r.i64(0)?));
                }
            }
            let id = self.insert_record(
                record,
                profiles,
                &record.run.started_at,
                record.run.finished_at.as_deref(),
                record.run.status,
                uid,
            )?;
            Ok(SyncOutcome::Copied(id))
        })
        .with_context(|| format!("cannot copy run {}", record.run.id))
    }

    fn save_sweep(&mut self, name: &str, spec: &str, shards: &[String]) -> Result<bool> {
        self.in_tx(|| {
            if let Some((id, stored)) = one(
                self.db
                    .query("SELECT id, spec FROM sweep WHERE name = ?1", params![name])?,
                |r| Ok((r.i64(0)?, r.text(1)?)),
            )? {
                if stored != spec {
                    bail!("a sweep named '{name}' is already stored with a different plan (sweep {id}); give this one another name");
                }
                return Ok(false);
            }
            let id = returned_id(
                self.db.query(
                    "INSERT INTO sweep (name, spec, shards, created_at) VALUES (?1, ?2, ?3, ?4) RETURNING id",
                    params![name, spec, shards.len(), now()],
                )?,
                "sweep",
            )?;
            for (k, jobs) in shards.iter().enumerate() {
                self.db.execute(
                    "INSERT INTO sweep_shard (sweep_id, shard, jobs, status, attempts, updated_at) VALUES (?1, ?2, ?3, 'pending', 0, ?4)",
                    params![id, k, jobs, now()],
                )?;
            }
            Ok(true)
        })
    }

    fn sweeps(&self) -> Result<Vec<SweepRow>> {
        self.db
            .query(
                "SELECT s.name, s.spec, s.shards, s.created_at,
                        (SELECT COUNT(*) FROM sweep_shard k WHERE k.sweep_id = s.id AND k.status = 'done')
                 FROM sweep s ORDER BY s.id",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(SweepRow {
                    name: r.text(0)?,
                    spec: r.text(1)?,
                    shards: r.i64(2)? as usize,
                    created_at: r.text(3)?,
                    done: r.i64(4)? as usize,
                })
            })
            .collect()
    }

    fn sweep_shards(&self, name: &str) -> Result<Vec<ShardRow>> {
        let id = self.sweep_id(name)?;
        self.db
            .query(
                "SELECT shard, jobs, status, run_id, attempts, host, updated_at FROM sweep_shard WHERE sweep_id = ?1 ORDER BY shard",
                params![id],
            )?
            .iter()
            .map(|r| {
                let mut status = r.text(2)?;
                if let (Some(run), "running") = (r.opt_i64(3)?, status.as_str()) {
                    if self.run_status(run)? == Some(RunStatus::Abandoned) {
                        status = "abandoned".into();
                    }
                }
                Ok(ShardRow {
                    shard: r.i64(0)? as usize,
                    jobs: r.text(1)?,
                    status,
                    run_id: r.opt_i64(3)?,
                    attempts: r.i64(4)? as usize,
                    host: r.opt_text(5)?,
                    updated_at: r.text(6)?,
                })
            })
            .collect()
    }

    fn claim_shard(&mut self, name: &str, shard: usize, host: &str) -> Result<ShardClaim> {
        let id = self.sweep_id(name)?;
        self.in_tx(|| {
            let row = one(
                self.db.query(
                    "SELECT status, run_id, jobs FROM sweep_shard WHERE sweep_id = ?1 AND shard = ?2",
                    params![id, shard],
                )?,
                |r| Ok((r.text(0)?, r.opt_i64(1)?, r.text(2)?)),
            )?;
            let Some((status, run, jobs)) = row else {
                bail!("sweep '{name}' has no shard {shard}");
            };
            if status == "done" {
                return Ok(ShardClaim::AlreadyDone(run.unwrap_or_default()));
            }
            if status == "running" {
                if let Some(busy) = self.busy_shard(id, shard, run)? {
                    return Ok(busy);
                }
            }
            self.db.execute(
                "UPDATE sweep_shard SET status = 'running', attempts = attempts + 1, host = ?1, updated_at = ?2 WHERE sweep_id = ?3 AND shard = ?4",
                params![host, now(), id, shard],
            )?;
            Ok(ShardClaim::Claimed(jobs))
        })
    }

    fn link_shard(&mut self, name: &str, shard: usize, run: i64) -> Result<()> {
        let id = self.sweep_id(name)?;
        self.db.execute(
            "UPDATE sweep_shard SET run_id = ?1, updated_at = ?2 WHERE sweep_id = ?3 AND shard = ?4",
            params![run, now(), id, shard],
        )?;
        Ok(())
    }

    fn finish_shard(
        &mut self,
        name: &str,
        shard: usize,
        run: Option<i64>,
        status: &str,
    ) -> Result<()> {
        let id = self.sweep_id(name)?;
        self.db.execute(
            "UPDATE sweep_shard SET status = ?1, run_id = ?2, updated_at = ?3 WHERE sweep_id = ?4 AND shard = ?5",
            params![status, run, now(), id, shard],
        )?;
        Ok(())
    }
}
