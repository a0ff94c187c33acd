//! What the report and its charts are drawn from: the selected runs split into series (one per
//! variant of a run), the baseline and chart size chosen, and the stored profiles read back as
//! [`ProfileDocument`]s. The HTML page and every figure kind depend on this module, not on each
//! other.

use anyhow::Result;
use cryptospeed_compare::{cell_key, CellKey};
use cryptospeed_model::{Measurement, Op, ProfileRecord, RunRecord};
use cryptospeed_sim::profile::ProfileDocument;
use std::collections::BTreeSet;

/// What a report is drawn from.
#[derive(Debug, Clone, Default)]
pub struct ReportInput {
    pub title: String,
    pub records: Vec<RunRecord>,
    /// Stored profiles with the id of the run that holds them.
    pub profiles: Vec<(i64, ProfileRecord)>,
    /// The series the speedup chart divides by (a series name or a variant label); default the
    /// first series.
    pub baseline: Option<String>,
    /// Message size of the speedup and cycles/byte charts; default 8192 when every series has
    /// it, else the largest size they share.
    pub bytes: Option<u64>,
    /// "cryptospeed 0.1.0, 2026-11-21 10:00 UTC": the footer (fixed in tests).
    pub generated_by: String,
    /// The declared deviations of the runs' cells, by implementation (crate::footnotes).
    pub deviations: crate::Footnotes,
    /// Each cell's run-to-run noise on the runs' machines (`cryptospeed_compare::run_noise` of
    /// their history), added where series from different runs are compared, as `compare` does;
    /// empty when none is known.
    pub noise:
        std::collections::BTreeMap<cryptospeed_compare::CellKey, cryptospeed_compare::RunNoise>,
}

/// A report's title when none is given: the runs it shows.
pub fn default_title(records: &[RunRecord]) -> String {
    let names: Vec<String> = records
        .iter()
        .map(|r| match &r.run.label {
            Some(l) => format!("{l} (run {})", r.run.id),
            None => format!("run {}", r.run.id),
        })
        .collect();
    format!("cryptospeed report: {}", names.join(", "))
}

/// One line of the throughput charts: a variant of a run.
pub struct SeriesRef<'a> {
    pub name: String,
    pub record: &'a RunRecord,
    pub variant: &'a str,
}

impl SeriesRef<'_> {
    pub fn measurements(&self) -> impl Iterator<Item = &Measurement> {
        self.record
            .measurements
            .iter()
            .filter(|m| m.variant == self.variant)
            .map(|m| &m.measurement)
            .filter(|m| m.status.has_numbers() && m.cell.misalign == 0)
    }

    pub fn find(&self, primitive: &str, op: Op, bytes: Option<u64>) -> Option<&Measurement> {
        self.measurements()
            .find(|m| m.cell.primitive == primitive && m.cell.op == op && m.cell.bytes == bytes)
    }
}

pub struct Profiled {
    /// `aes-128-cbc · openssl-3.0.19 (run 12)`.
    pub name: String,
    pub run: i64,
    pub variant: String,
    pub doc: ProfileDocument,
}

/// The input, arranged for the charts.
pub struct ReportData<'a> {
    pub input: &'a ReportInput,
    pub series: Vec<SeriesRef<'a>>,
    pub baseline: usize,
    pub profiles: Vec<Profiled>,
    /// Size of the speedup and cycles/byte charts.
    pub size: Option<u64>,
}

impl<'a> ReportData<'a> {
    /// Every series against the baseline, as `cryptospeed compare` of the same sides would
    /// compute it with its defaults (5% level, no smallest effect, run-to-run noise across
    /// runs), at `bytes` or every size.
    pub fn comparison(&self, bytes: Option<u64>) -> cryptospeed_compare::Comparison {
        let sides: Vec<cryptospeed_compare::SideInput> = self
            .series
            .iter()
            .map(|s| {
                let mut side = cryptospeed_compare::SideInput {
                    name: s.name.clone(),
                    ..Default::default()
                };
                side.add_run(s.record, Some(s.variant));
                side
            })
            .collect();
        let filter = cryptospeed_compare::Filter {
            bytes,
            primitives: None,
        };
        cryptospeed_compare::compare_with_noise(
            &sides,
            self.baseline,
            0.05,
            0.0,
            &filter,
            &self.input.noise,
        )
    }

    pub fn new(input: &'a ReportInput) -> Result<ReportData<'a>> {
        let series = series_of(&input.records);
        let size = input.bytes.or_else(|| common_size(&series));
        let baseline = match &input.baseline {
            None => default_baseline(&series, size),
            Some(b) => named_baseline(&series, b)?,
        };
        Ok(ReportData {
            input,
            series,
            baseline,
            profiles: profiles_of(&input.profiles)?,
            size,
        })
    }

    /// Symmetric (primitive, op) pairs measured at some size, in catalog order.
    pub fn symmetric_cells(&self) -> Vec<CellKey> {
        let mut keys: BTreeSet<CellKey> = BTreeSet::new();
        for s in &self.series {
            for m in s.measurements() {
                if m.cell.bytes.is_some() {
                    keys.insert(cell_key(&m.cell.primitive, m.cell.op, None));
                }
            }
        }
        keys.into_iter().collect()
    }
}

/// The size the most series measured; among those, 8192 (the classic column) when it is one,
/// else the largest.
fn common_size(series: &[SeriesRef<'_>]) -> Option<u64> {
    let mut count: std::collections::BTreeMap<u64, usize> = Default::default();
    for s in series {
        let sizes: BTreeSet<u64> = s.measurements().filter_map(|m| m.cell.bytes).collect();
        for b in sizes {
            *count.entry(b).or_default() += 1;
        }
    }
    let most = *count.values().max()?;
    if count.get(&8192) == Some(&most) {
        return Some(8192);
    }
    count
        .iter()
        .rev()
        .find(|(_, n)| **n == most)
        .map(|(b, _)| *b)
}

/// One series per variant of each run, in first-seen order; a variant measured in several runs
/// gets the run's label or id beside its name.
fn series_of(records: &[RunRecord]) -> Vec<SeriesRef<'_>> {
    let mut series = Vec::new();
    for record in records {
        let mut seen: Vec<&str> = Vec::new();
        for m in &record.measurements {
            if !seen.contains(&m.variant.as_str()) {
                seen.push(&m.variant);
            }
        }
        for v in seen {
            series.push(SeriesRef {
                name: v.to_string(),
                record,
                variant: v,
            });
        }
    }
    let names: Vec<String> = series.iter().map(|s| s.name.clone()).collect();
    for s in &mut series {
        if names.iter().filter(|n| **n == s.name).count() > 1 {
            s.name = match &s.record.run.label {
                Some(l) => format!("{} · {l} (run {})", s.name, s.record.run.id),
                None => format!("{} · run {}", s.name, s.record.run.id),
            };
        }
    }
    series
}

/// The first series with the most cells at the chart size.
fn default_baseline(series: &[SeriesRef<'_>], size: Option<u64>) -> usize {
    let cells = |s: &SeriesRef<'_>| {
        s.measurements()
            .filter(|m| m.cell.bytes.is_none() || m.cell.bytes == size)
            .count()
    };
    let most = series.iter().map(cells).max().unwrap_or(0);
    series.iter().position(|s| cells(s) == most).unwrap_or(0)
}

/// The series `b` names: by series name, variant label, run label or run id.
fn named_baseline(series: &[SeriesRef<'_>], b: &str) -> Result<usize> {
    series
        .iter()
        .position(|s| s.name == b)
        .or_else(|| series.iter().position(|s| s.variant == b))
        .or_else(|| {
            series
                .iter()
                .position(|s| s.record.run.label.as_deref() == Some(b))
        })
        .or_else(|| series.iter().position(|s| s.record.run.id.to_string() == b))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--baseline '{b}' is none of the report's series ({})",
                series
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The stored profiles read back, each named by its cell (and its run where the same cell was
/// profiled in several). When they span instruction sets, each name says its architecture and
/// the profiles of one primitive stand side by side (x86-64, ppc64le, aarch64, riscv64 in turn).
fn profiles_of(stored: &[(i64, ProfileRecord)]) -> Result<Vec<Profiled>> {
    let name_count = |p: &ProfileRecord| {
        stored
            .iter()
            .filter(|(_, q)| q.primitive == p.primitive && q.variant == p.variant)
            .count()
    };
    let mut profiles = Vec::new();
    for (run, p) in stored {
        let doc = ProfileDocument::from_json(&p.document).map_err(|e| {
            anyhow::anyhow!(
                "the stored profile of {} in run {run} cannot be read: {e}",
                p.primitive
            )
        })?;
        profiles.push(Profiled {
            name: if name_count(p) > 1 {
                format!("{} · {} (run {run})", p.primitive, p.variant)
            } else {
                format!("{} · {}", p.primitive, p.variant)
            },
            run: *run,
            variant: p.variant.clone(),
            doc,
        });
    }
    side_by_side_by_architecture(&mut profiles);
    Ok(profiles)
}

/// With more than one architecture among the profiles: names gain `[ARCH]`, and a primitive's
/// profiles are grouped, in the order the primitives first appear, by architecture within.
fn side_by_side_by_architecture(profiles: &mut [Profiled]) {
    let arch = |p: &Profiled| p.doc.architecture.clone();
    let first = profiles.first().map(arch);
    if profiles.iter().all(|p| Some(arch(p)) == first) {
        return;
    }
    for p in profiles.iter_mut() {
        p.name = format!("{} [{}]", p.name, p.doc.architecture);
    }
    let order: Vec<String> = profiles.iter().map(|p| p.doc.primitive.clone()).collect();
    let rank_of_isa = |a: &str| {
        cryptospeed_sim::isa::Isa::ALL
            .iter()
            .position(|i| i.name() == a)
            .unwrap_or(usize::MAX)
    };
    profiles.sort_by_key(|p| {
        let first_seen = order.iter().position(|o| *o == p.doc.primitive);
        (first_seen, rank_of_isa(&p.doc.architecture))
    });
}

#[cfg(test)]
pub(crate) mod fixture {
    use super::ReportInput;
    use cryptospeed_model::VariantMeasurement;

    /// The fixture run with a second variant, 25% faster, labelled like an attack.
    pub fn report_input() -> ReportInput {
        let mut record = crate::run::fixture::record();
        let evil = "<script>alert('x')</script>";
        let extra: Vec<VariantMeasurement> = record
            .measurements
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.variant = evil.into();
                if let Some(s) = &mut m.measurement.summary {
                    for v in [&mut s.median, &mut s.ci_lo, &mut s.ci_hi] {
                        *v *= 0.8;
                    }
                }
                m.measurement.tsc_per_op = m.measurement.tsc_per_op.map(|t| t * 0.8);
                m
            })
            .collect();
        record.measurements.extend(extra);
        let mut v = record.variants[0].clone();
        v.label = evil.into();
        record.variants.push(v);
        ReportInput {
            title: "fixture <b>report</b>".into(),
            records: vec![record],
            generated_by: "cryptospeed test".into(),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::report_input as input;
    use super::*;

    #[test]
    fn an_unknown_baseline_names_the_series() {
        let mut input = input();
        input.baseline = Some("gcc-99".into());
        let err = ReportData::new(&input).err().unwrap().to_string();
        assert!(
            err.contains("gcc-99") && err.contains("openssl-3.0.19"),
            "{err}"
        );
    }

    #[test]
    fn a_corrupt_profile_is_an_error_naming_it() {
        let mut input = input();
        input.profiles.push((
            7,
            ProfileRecord {
                variant: "openssl-3.0.19".into(),
                primitive: "md5".into(),
                bytes: Some(4096),
                document: "{\"primitive\": ".into(),
            },
        ));
        let err = ReportData::new(&input).err().unwrap().to_string();
        assert!(err.contains("md5") && err.contains("run 7"), "{err}");
    }

    #[test]
    fn profiles_of_several_architectures_stand_side_by_side() {
        let record = |primitive: &str, arch: &str| {
            let mut doc = crate::profile::fixture::document();
            doc.primitive = primitive.into();
            doc.architecture = arch.into();
            ProfileRecord {
                variant: format!("openssl-3.5-{arch}"),
                primitive: primitive.into(),
                bytes: Some(64),
                document: doc.to_json(),
            }
        };
        let mut input = input();
        for (p, a) in [
            ("md5", "riscv64"),
            ("sha1", "x86_64"),
            ("md5", "x86_64"),
            ("sha1", "ppc64le"),
            ("md5", "ppc64le"),
        ] {
            input.profiles.push((1, record(p, a)));
        }
        let data = ReportData::new(&input).unwrap();
        let names: Vec<&str> = data.profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "md5 · openssl-3.5-x86_64 [x86_64]",
                "md5 · openssl-3.5-ppc64le [ppc64le]",
                "md5 · openssl-3.5-riscv64 [riscv64]",
                "sha1 · openssl-3.5-x86_64 [x86_64]",
                "sha1 · openssl-3.5-ppc64le [ppc64le]",
            ]
        );
    }
}
