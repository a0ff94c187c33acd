//! Writers for one run (`run --format`, `show --format`): the table `openssl speed` prints, its
//! `-mr` lines, JSON, CSV, Markdown and the implementation matrix. Each format is one file with
//! a `FORMAT` entry and one line in [`FORMATS`]; the helpers below are what
//! the tabular writers share.

mod csv;
mod gobench;
mod json;
mod markdown;
mod matrix;
mod mr;
pub(crate) mod openssl;

use crate::registry::{self, OutputFormat};
use cryptospeed_catalog::{Primitive, SpeedRow};
use cryptospeed_model::{Measurement, Op, RunRecord, VariantMeasurement};

/// Every format `run --format` accepts, in the order `--help` lists them.
pub const FORMATS: &[OutputFormat<RunRecord, Options>] = &[
    openssl::FORMAT,
    mr::FORMAT,
    json::FORMAT,
    csv::FORMAT,
    markdown::FORMAT,
    matrix::FORMAT,
    gobench::FORMAT,
];

const NAMES: [&str; FORMATS.len()] = registry::names(FORMATS);

/// A run format chosen by name (`Format::parse("csv")`).
#[derive(Clone, Copy)]
pub struct Format(&'static OutputFormat<RunRecord, Options>);

impl Format {
    /// The names `--format` accepts (aliases left out).
    pub const NAMES: &'static [&'static str] = &NAMES;

    /// The format called `name` or one of its aliases (`text` is `openssl`, `md` `markdown`).
    pub fn parse(name: &str) -> Option<Format> {
        registry::find(FORMATS, name).map(Format)
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Format {}

/// What to show beyond the numbers `openssl speed` prints.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Show the 95% confidence interval as ±% of the median.
    pub ci: bool,
    /// Show TSC cycles per byte (symmetric) or per operation (public key).
    pub cycles: bool,
    /// Show percentiles of TSC cycles per call of public-key and KEM cells (crate::percentiles).
    pub percentiles: bool,
    /// The declared deviations of the run's cells, by implementation (crate::footnotes).
    pub footnotes: crate::Footnotes,
}

pub fn render(record: &RunRecord, format: Format, options: &Options) -> String {
    (format.0.write)(record, options)
}

/// The message sizes of a run's symmetric cells, ascending.
pub(crate) fn sizes(ms: &[&VariantMeasurement]) -> Vec<u64> {
    let mut s: Vec<u64> = ms.iter().filter_map(|m| m.measurement.cell.bytes).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// Measurements grouped by variant label, in first-seen order.
pub(crate) fn by_variant(record: &RunRecord) -> Vec<(String, Vec<&VariantMeasurement>)> {
    let mut out: Vec<(String, Vec<&VariantMeasurement>)> = Vec::new();
    for m in &record.measurements {
        match out.iter_mut().find(|(v, _)| *v == m.variant) {
            Some((_, list)) => list.push(m),
            None => out.push((m.variant.clone(), vec![m])),
        }
    }
    out
}

/// Primitives present in a group, in catalog order, with their catalog entry.
pub(crate) fn primitives_in(ms: &[&VariantMeasurement]) -> Vec<&'static Primitive> {
    cryptospeed_catalog::all()
        .iter()
        .filter(|p| ms.iter().any(|m| m.measurement.cell.primitive == p.id))
        .collect()
}

/// The measurement of a primitive/op/size in a group, if any.
pub(crate) fn find<'a>(
    ms: &[&'a VariantMeasurement],
    primitive: &str,
    op: Op,
    bytes: Option<u64>,
) -> Option<&'a Measurement> {
    ms.iter()
        .map(|m| &m.measurement)
        .find(|m| m.cell.primitive == primitive && m.cell.op == op && m.cell.bytes == bytes)
}

/// Operations per second of a public-key cell with numbers.
pub(crate) fn ops(ms: &[&VariantMeasurement], primitive: &str, op: Op) -> Option<f64> {
    find(ms, primitive, op, None)
        .filter(|m| m.status.has_numbers())
        .and_then(Measurement::ops_per_s)
}

/// True for primitives printed in `openssl speed`'s symmetric table.
pub(crate) fn is_symmetric(p: &Primitive) -> bool {
    matches!(p.speed, SpeedRow::Symmetric { .. })
}

/// The operation a symmetric row shows: the first one measured.
pub(crate) fn symmetric_op(ms: &[&VariantMeasurement], p: &Primitive) -> Op {
    ms.iter()
        .map(|m| &m.measurement.cell)
        .find(|c| c.primitive == p.id)
        .map(|c| c.op)
        .unwrap_or(p.default_ops()[0])
}

#[cfg(test)]
pub(crate) mod fixture {
    use cryptospeed_model::*;

    /// [`record`] whose rsa-2048 sign holds 400 samples of 4 calls at 1000..1399 cycles per call
    /// (each once): the percentile tables' and JSON's shared input.
    pub fn record_with_sign_percentiles() -> RunRecord {
        let mut record = record();
        let sign = record
            .measurements
            .iter_mut()
            .find(|m| {
                m.measurement.cell.primitive == "rsa-2048" && m.measurement.cell.op == Op::Sign
            })
            .unwrap();
        sign.measurement.samples = (0..400u64)
            .map(|i| Sample {
                iters: 4,
                wall_ns: 1000,
                cpu_ns: 1000,
                tsc: 4 * (1000 + (i * 7) % 400),
                bout: (i / 40) as u32,
            })
            .collect();
        record
    }

    /// A run with md5 at two sizes, an unavailable md2, rsa-2048 and x25519, all numbers exact.
    pub fn record() -> RunRecord {
        let m = |primitive: &str, op: Op, bytes: Option<u64>, ns: f64| VariantMeasurement {
            variant: "openssl-3.0.19".into(),
            implementation: "openssl".into(),
            measurement: Measurement {
                cell: CellSpec {
                    primitive: primitive.into(),
                    op,
                    bytes,
                    misalign: 0,
                },
                status: Status::Ok,
                reason: None,
                summary: Some(Summary {
                    n: 20,
                    median: ns,
                    ci_lo: ns * 0.99,
                    ci_hi: ns * 1.01,
                    mad: ns * 0.005,
                    outliers: 1,
                    min: ns * 0.98,
                    max: ns * 1.1,
                }),
                tsc_per_op: Some(ns * 2.6),
                cpu_fraction: Some(1.0),
                samples: vec![],
                elapsed_s: 0.2,
                reported_rate: None,
                disturbances: Vec::new(),
                flights: Vec::new(),
            },
            definition: None,
        };
        let mut md2 = m("md2", Op::Hash, Some(16), 1.0);
        md2.measurement = Measurement::not_timed(
            md2.measurement.cell.clone(),
            Status::Unavailable,
            "not built",
        );
        RunRecord {
            run: RunInfo {
                id: 7,
                label: Some("fixture".into()),
                started_at: "2026-11-20T00:00:00Z".into(),
                finished_at: None,
                command: "cryptospeed run".into(),
                tool_version: "0.1.0".into(),
                status: RunStatus::Complete,
                config: MeasureConfig::default(),
                imported: None,
                uid: None,
                conditions: None,
            },
            machine: Machine {
                cpu_model: "Test CPU @ 2.60GHz".into(),
                tsc_hz: 2.6e9,
                ..Default::default()
            },
            variants: vec![Variant {
                label: "openssl-3.0.19".into(),
                implementation: "openssl".into(),
                version: "3.0.19".into(),
                library: "libcrypto.so.3".into(),
                build_info: vec![
                    "OpenSSL 3.0.19 27 Jan 2026".into(),
                    "built on: today".into(),
                    "platform: debian-amd64".into(),
                    "compiler: gcc -O2".into(),
                ],
                capabilities: "OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab".into(),
                feature_mask: String::new(),
            }],
            measurements: vec![
                md2,
                m("md5", Op::Hash, Some(16), 160.0),
                m("md5", Op::Hash, Some(8192), 16384.0),
                m("rsa-2048", Op::Sign, None, 250_000.0),
                m("rsa-2048", Op::Verify, None, 16_000.0),
                m("x25519", Op::Derive, None, 32_000.0),
            ],
        }
    }
}
