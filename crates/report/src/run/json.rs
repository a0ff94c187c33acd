//! JSON: one record per cell, in the units people compare (bytes/s for symmetric cells,
//! ops/s for public key), with the confidence interval, sample count, cycles and status, and
//! the column's declared deviation from the operation's definition where it has one.

use super::Options;
use crate::registry::OutputFormat;
use crate::Footnotes;
use cryptospeed_model::{RunRecord, VariantMeasurement};
use serde::Serialize;

#[derive(Serialize)]
pub struct Record<'a> {
    pub run: i64,
    #[serde(rename = "impl")]
    pub implementation: &'a str,
    pub variant: &'a str,
    pub primitive: &'a str,
    pub op: &'a str,
    pub bytes: Option<u64>,
    pub misalign: u32,
    pub unit: &'static str,
    pub median: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub ci95_pct: Option<f64>,
    pub n: Option<usize>,
    pub mad_ns: Option<f64>,
    pub outliers: Option<usize>,
    pub ns_per_op: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_op: Option<f64>,
    pub cycles_are: &'static str,
    pub cpu_fraction: Option<f64>,
    /// Samples left out of the figure as disturbed by the host, where the cell has samples.
    pub set_aside: Option<SetAside>,
    pub status: &'static str,
    pub reason: Option<&'a str>,
    /// How this column's timed call departs from the catalog's definition (crate::footnotes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<&'a str>,
}

/// The host's part removed from a cell (cryptospeed_stats::host): samples left out, samples
/// corrected to their thread's CPU time, and bouts left out whole because their canary ran slow.
#[derive(Serialize)]
pub struct SetAside {
    pub samples: usize,
    pub corrected: usize,
    pub of: usize,
    pub slow_bouts: usize,
    pub canary_bouts: usize,
    pub rule: String,
}

fn set_aside(m: &cryptospeed_model::Measurement) -> Option<SetAside> {
    let h = cryptospeed_stats::HostPart::of_measurement(m);
    (h.of > 0).then_some(SetAside {
        samples: h.set_aside,
        corrected: h.corrected,
        of: h.of,
        slow_bouts: h.slow_bouts,
        canary_bouts: h.canary_bouts,
        rule: format!(
            "thread CPU time under {:.0}% of the sample's wall time: timed by that CPU time, under {:.0}% set aside; a bout whose canary ran over {:.0}% slower than the cell's fastest set aside",
            100.0 * cryptospeed_stats::UNDISTURBED_CPU_SHARE,
            100.0 * cryptospeed_stats::MIN_CORRECTABLE_SHARE,
            100.0 * cryptospeed_stats::CANARY_SLOWDOWN
        ),
    })
}

pub fn records<'a>(record: &'a RunRecord, footnotes: &'a Footnotes) -> Vec<Record<'a>> {
    record
        .measurements
        .iter()
        .map(|vm| {
            let c = &vm.measurement.cell;
            Record {
                deviation: footnotes.text(&vm.implementation, &c.primitive, c.op),
                ..to_record(record.run.id, vm)
            }
        })
        .collect()
}

fn to_record(run: i64, vm: &VariantMeasurement) -> Record<'_> {
    let m = &vm.measurement;
    let numbers = m.status.has_numbers();
    let keep = |x: Option<f64>| x.filter(|_| numbers);
    let symmetric = m.cell.bytes.is_some();
    // A partial cell of one bout has no honest interval either.
    let several = m.summary.is_some_and(|s| s.n > 1) && m.honest_interval();
    Record {
        run,
        implementation: &vm.implementation,
        variant: &vm.variant,
        primitive: &m.cell.primitive,
        op: m.cell.op.as_str(),
        bytes: m.cell.bytes,
        misalign: m.cell.misalign,
        unit: if symmetric { "bytes/s" } else { "ops/s" },
        median: keep(if symmetric {
            m.bytes_per_s()
        } else {
            m.ops_per_s()
        }),
        // A single figure (an imported one) has no interval: null, not a zero-width one.
        ci95: m
            .rate_ci()
            .filter(|_| numbers && several)
            .map(|(lo, hi)| [lo, hi]),
        ci95_pct: m
            .summary
            .filter(|_| numbers && several)
            .map(|s| s.rel_ci() * 100.0),
        n: m.summary.map(|s| s.n),
        mad_ns: m.summary.map(|s| s.mad),
        outliers: m.summary.map(|s| s.outliers),
        ns_per_op: m.summary.map(|s| s.median),
        cycles_per_byte: if symmetric {
            keep(m.cycles_per_byte())
        } else {
            None
        },
        cycles_per_op: if symmetric {
            None
        } else {
            keep(m.cycles_per_op())
        },
        cycles_are: "TSC reference cycles",
        cpu_fraction: m.cpu_fraction,
        set_aside: set_aside(m),
        status: m.status.as_str(),
        reason: m.reason.as_deref(),
        deviation: None,
    }
}

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "json",
    aliases: &[],
    write,
};

pub fn write(record: &RunRecord, options: &Options) -> String {
    serde_json::to_string_pretty(&records(record, &options.footnotes)).expect("records serialise")
        + "\n"
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cell_says_how_many_samples_it_set_aside_as_disturbed() {
        let mut record = super::super::fixture::record();
        let sample = |cpu_ns| cryptospeed_model::Sample {
            iters: 10,
            wall_ns: 1000,
            cpu_ns,
            tsc: 2600,
            bout: 0,
        };
        // Descheduled for half of one sample and for 80% of another; two ran through.
        record.measurements[1].measurement.samples =
            vec![sample(1000), sample(500), sample(200), sample(995)];
        let v: serde_json::Value =
            serde_json::from_str(&super::write(&record, &Default::default())).unwrap();
        let md5 = &v[1]["set_aside"];
        assert_eq!(
            (
                md5["samples"].as_u64(),
                md5["corrected"].as_u64(),
                md5["of"].as_u64()
            ),
            (Some(1), Some(1), Some(4))
        );
        assert!(md5["rule"].as_str().unwrap().contains("under 90%"));
        // A cell without samples (imported, or not timed) has nothing to say.
        assert!(v[0]["set_aside"].is_null());
    }

    #[test]
    fn json_records_carry_the_required_fields() {
        let v: serde_json::Value = serde_json::from_str(&super::write(
            &super::super::fixture::record(),
            &Default::default(),
        ))
        .unwrap();
        let arr = v.as_array().unwrap();
        assert_eq!(arr.len(), 6);
        let md5 = &arr[1];
        for key in [
            "impl",
            "variant",
            "primitive",
            "op",
            "bytes",
            "unit",
            "median",
            "ci95",
            "n",
            "cycles_per_byte",
            "status",
        ] {
            assert!(md5.get(key).is_some(), "missing {key}");
        }
        assert_eq!(md5["median"].as_f64().unwrap(), 1e8);
        assert_eq!(md5["unit"], "bytes/s");
        let rsa = &arr[3];
        assert!(rsa["bytes"].is_null());
        assert!(rsa["cycles_per_op"].as_f64().unwrap() > 0.0);
        assert_eq!(arr[0]["status"], "unavailable");
        assert!(arr[0]["median"].is_null());
    }
}
