//! JSON: one record per cell, in the units people compare (bytes/s for symmetric cells,
//! ops/s for public key), with the confidence interval, sample count, cycles and status, and
//! the column's declared deviation from the operation's definition where it has one; public-key
//! and KEM cells carry their cycle percentiles (`show --percentiles`'s table) whenever their
//! samples or the imported log give them.

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
    /// A TLS handshake cell whose column counted them: the bytes on the wire of the handshake
    /// its worker checked before timing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wire_bytes: Option<WireBytes<'a>>,
    /// Public-key and KEM cells: TSC cycles per call at the 1st … 99th percentiles, from the
    /// stored samples (each with its 95% interval) or as an imported log printed them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_percentiles: Option<CyclePercentilesJson>,
    /// How this column's timed call departs from the catalog's definition (crate::footnotes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<&'a str>,
}

/// Bytes each step of a checked handshake wrote, in order (ClientHello, the server's flight,
/// the client's Finished, the server's tickets: 0 when it sends none), and their sum.
#[derive(Serialize)]
pub struct WireBytes<'a> {
    pub flights: &'a [u64],
    pub total: u64,
}

/// The host's part removed from a cell (cryptospeed_stats::host): samples left out, samples
/// corrected to their thread's CPU time, bouts left out whole because their canary ran slow, and
/// bouts divided by their canary's slowdown over the machine's quiet reference.
#[derive(Serialize)]
pub struct SetAside {
    pub samples: usize,
    pub corrected: usize,
    pub of: usize,
    pub slow_bouts: usize,
    pub canary_bouts: usize,
    /// The machine's quiet canary reference the run judged against (ns); null without one.
    pub canary_reference_ns: Option<u64>,
    /// How far the kept bouts' canaries sat above it (percent, 25%-trimmed mean); null without
    /// a reference.
    pub canary_shift_pct: Option<f64>,
    /// Bouts divided by their canary's ratio to the reference (0 unless the shift passed the
    /// floor).
    pub canary_divided_bouts: usize,
    /// Where the canary set bouts aside or divided them: the cell's rate (the unit of
    /// `median`) from the plain mean of every bout's time per call, none left out or divided for
    /// its canary; null where the canary changed nothing. What a benchmark that averages one
    /// process over time reads on a host that runs at two speeds, where `median` is the figure
    /// of the bouts the canary kept.
    pub every_bout_mean: Option<f64>,
    /// Where the host ran the canary at more than one speed over the run
    /// (`cryptospeed_stats::host_states`): the share of the cell's kept bouts that ran in the
    /// fast state (1: its figure is the fast state's, 0: the slow one's). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_state_share: Option<f64>,
    /// Where the cell's canaries ran at two speeds (`cryptospeed_stats::canary_floor`): the
    /// floor judged against, how many bouts ran at it, and whether only they count (`reached`;
    /// where not, the figure is the slowed host's, judged by the quartile rule). Absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canary_floor: Option<FloorJson>,
    pub rule: String,
}

/// `show --percentiles`'s table as data: what the figures are of, and one entry per level.
#[derive(Serialize)]
pub struct CyclePercentilesJson {
    /// `samples` (computed here) or `log` (printed by the imported log, no interval).
    pub of: &'static str,
    pub samples: Option<usize>,
    pub set_aside: Option<usize>,
    /// Calls per sample, least and most: a percentile is of means over this many calls.
    pub calls_per_sample: Option<[u64; 2]>,
    pub levels: Vec<Level>,
}

#[derive(Serialize)]
pub struct Level {
    pub p: u32,
    pub cycles: f64,
    /// The 95% interval's bounds; a bound is null where the samples are too few for it.
    pub ci95: Option<[Option<f64>; 2]>,
}

fn cycle_percentiles(record: &RunRecord, vm: &VariantMeasurement) -> Option<CyclePercentilesJson> {
    use crate::percentiles::{printed_levels, printed_row, CyclePercentiles};
    let m = &vm.measurement;
    if m.cell.bytes.is_some() || !m.status.has_numbers() {
        return None;
    }
    if let Some(c) = CyclePercentiles::of(m).filter(|c| !c.values.is_empty()) {
        return Some(CyclePercentilesJson {
            of: "samples",
            samples: Some(c.samples),
            set_aside: Some(c.set_aside),
            calls_per_sample: Some([c.calls.0, c.calls.1]),
            levels: c
                .values
                .iter()
                .map(|p| Level {
                    p: p.level,
                    cycles: p.value,
                    ci95: Some([p.lo, p.hi]),
                })
                .collect(),
        });
    }
    let printed = printed_levels(printed_row(record, &m.cell.primitive, m.cell.op)?);
    (!printed.is_empty()).then(|| CyclePercentilesJson {
        of: "log",
        samples: None,
        set_aside: None,
        calls_per_sample: None,
        levels: printed
            .into_iter()
            .map(|(p, cycles)| Level {
                p,
                cycles,
                ci95: None,
            })
            .collect(),
    })
}

/// A cell's standing against the canary's floor (see [`SetAside::canary_floor`]).
#[derive(Serialize)]
pub struct FloorJson {
    pub floor_ns: u64,
    pub at_floor: usize,
    pub bouts: usize,
    pub reached: bool,
}

fn set_aside(m: &cryptospeed_model::Measurement) -> Option<SetAside> {
    let h = cryptospeed_stats::HostPart::of_measurement(m);
    let shift = cryptospeed_stats::canary_shift(&m.disturbances);
    (h.of > 0).then_some(SetAside {
        samples: h.set_aside,
        corrected: h.corrected,
        of: h.of,
        slow_bouts: h.slow_bouts,
        canary_bouts: h.canary_bouts,
        canary_reference_ns: shift.map(|s| s.reference_ns),
        canary_shift_pct: shift.map(|s| 100.0 * s.share()),
        canary_divided_bouts: h.shifted_bouts,
        every_bout_mean: every_bout_mean(m, &h),
        fast_state_share: None,
        canary_floor: cryptospeed_stats::canary_floor::cell_floor(&m.disturbances).map(|f| {
            FloorJson {
                floor_ns: f.floor_ns,
                at_floor: f.at_floor,
                bouts: f.bouts,
                reached: f.reached(),
            }
        }),
        rule: format!(
            "thread CPU time under {:.0}% of the sample's wall time: timed by that CPU time, under {:.0}% set aside; a bout whose canary ran over {:.0}% slower than the cell's lower quartile of canary readings set aside, or, where the cell's median canary ran over {:.0}% above the canary's floor and at least {} bouts within {:.0}% of it, every bout past that; where the kept bouts' canaries sat over {:.1}% above the machine's quiet reference, each kept bout divided by its canary's ratio to it",
            100.0 * cryptospeed_stats::UNDISTURBED_CPU_SHARE,
            100.0 * cryptospeed_stats::MIN_CORRECTABLE_SHARE,
            100.0 * cryptospeed_stats::CANARY_SLOWDOWN,
            100.0 * cryptospeed_stats::canary_floor::TWO_SPEEDS_GAP,
            cryptospeed_stats::canary_floor::MIN_FLOOR_BOUTS,
            100.0 * cryptospeed_stats::canary_floor::FLOOR_BAND,
            100.0 * cryptospeed_stats::CANARY_SHIFT_FLOOR
        ),
    })
}

/// The figure of [`SetAside::every_bout_mean`]: the plain mean of every bout's time per call
/// (descheduled samples corrected or set aside as always), as a rate in the cell's unit; `None`
/// where the canary left out or divided no bout.
fn every_bout_mean(
    m: &cryptospeed_model::Measurement,
    h: &cryptospeed_stats::HostPart,
) -> Option<f64> {
    let canary_moved = h.slow_bouts > 0 || h.shifted_bouts > 0;
    if !canary_moved || !m.status.has_numbers() || m.reported_rate.is_some() {
        return None;
    }
    let bouts = cryptospeed_stats::by_bout(&m.samples);
    let ns = cryptospeed_stats::cell_estimate(&bouts, 0.95, cryptospeed_stats::Center::Mean)?;
    Some(1e9 / ns.center * m.cell.bytes.unwrap_or(1) as f64)
}

pub fn records<'a>(record: &'a RunRecord, footnotes: &'a Footnotes) -> Vec<Record<'a>> {
    let states = cryptospeed_stats::host_states::host_states(
        record
            .measurements
            .iter()
            .flat_map(|vm| &vm.measurement.disturbances),
    );
    record
        .measurements
        .iter()
        .map(|vm| {
            let c = &vm.measurement.cell;
            let mut r = Record {
                deviation: footnotes.text(&vm.implementation, &c.primitive, c.op),
                cycle_percentiles: cycle_percentiles(record, vm),
                ..to_record(record.run.id, vm)
            };
            if let (Some(states), Some(a)) = (states, r.set_aside.as_mut()) {
                a.fast_state_share = states.fast_share_kept(&vm.measurement);
            }
            r
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
        wire_bytes: (!m.flights.is_empty()).then(|| WireBytes {
            flights: &m.flights,
            total: m.flights.iter().sum(),
        }),
        cycle_percentiles: None,
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
    fn a_handshake_cell_carries_its_bytes_on_the_wire() {
        let mut record = super::super::fixture::record();
        record.measurements[3].measurement.flights = vec![193, 628, 64, 0];
        let v: serde_json::Value =
            serde_json::from_str(&super::write(&record, &Default::default())).unwrap();
        let wire = &v[3]["wire_bytes"];
        assert_eq!(wire["flights"], serde_json::json!([193, 628, 64, 0]));
        assert_eq!(wire["total"], 885);
        // A cell whose column counted nothing says nothing.
        assert!(v[1].get("wire_bytes").is_none(), "{}", v[1]);
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

    #[test]
    fn public_key_cells_carry_their_cycle_percentiles() {
        let record = super::super::fixture::record_with_sign_percentiles();
        // As run/openssl.rs's table test: rsa-2048 sign, 400 samples of 4 calls, cycles per
        // call 1000..1399 (each once); type-7 p50 = 1199.5, its 95% interval [x(180), x(221)]
        // of 400 (scipy.stats.binom, tests/percentiles_scipy.rs).
        let v: serde_json::Value =
            serde_json::from_str(&super::write(&record, &Default::default())).unwrap();
        let cells = v.as_array().unwrap();
        let rsa = cells
            .iter()
            .find(|c| c["primitive"] == "rsa-2048" && c["op"] == "sign")
            .unwrap();
        let p = &rsa["cycle_percentiles"];
        assert_eq!(p["of"], "samples");
        assert_eq!(
            (p["samples"].as_u64(), p["calls_per_sample"][0].as_u64()),
            (Some(400), Some(4))
        );
        let levels: Vec<u64> = p["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["p"].as_u64().unwrap())
            .collect();
        assert_eq!(levels, [1, 10, 25, 50, 75, 90, 99]);
        let median = &p["levels"][3];
        assert_eq!(median["cycles"].as_f64(), Some(1199.5));
        assert_eq!(median["ci95"][0].as_f64(), Some(1179.0));
        assert_eq!(median["ci95"][1].as_f64(), Some(1220.0));
        assert!((p["levels"][0]["cycles"].as_f64().unwrap() - 1003.99).abs() < 1e-9);
        // Symmetric cells and public-key cells without samples carry none.
        assert!(
            cells
                .iter()
                .filter(|c| c["cycle_percentiles"].is_object())
                .count()
                == 1
        );
    }
}
