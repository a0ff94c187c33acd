//! Log files as runs: reading a file (or standard input) completely, with a clear error for one
//! that is not text, and the run record each output in it becomes when it is stored or compared.

use crate::{ImportOptions, ImportedResult, ImportedRun, ParsedLog};
use cryptospeed_model::{
    CellSpec, ImportSource, Machine, MeasureConfig, Measurement, RunInfo, RunRecord, RunStatus,
    Sample, Status, Variant, VariantMeasurement,
};
use std::io::Read;

/// Reads a log file (or stdin for `-`) and parses every output in it.
pub fn read_file(
    file: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Result<ParsedLog, String> {
    let bytes = if file == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        b
    } else {
        std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        format!("{file}: line {line}: not UTF-8 text (a binary file?)")
    })?;
    crate::read(&text, format, options).map_err(|e| format!("{file}: {e}"))
}

/// The default label of a file: its name without directory and extension.
pub fn file_label(file: &str) -> String {
    if file == "-" {
        return "stdin".into();
    }
    let p = std::path::Path::new(file);
    p.file_stem()
        .or(p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

/// The run record an imported output becomes: an unknown machine, a variant named after the
/// version it printed, one measurement per figure with the printed rate kept exactly.
pub fn record(run: &ImportedRun, file: &str, label: &str, id: i64) -> RunRecord {
    let version = run.field("version").unwrap_or("").to_string();
    let short = version
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or("")
        .to_string();
    let variant_label = if short.is_empty() {
        run.implementation.clone()
    } else {
        format!("{}-{short}", run.implementation)
    };
    let build_info: Vec<String> = ["built on", "options", "compiler", "platform", "timing"]
        .iter()
        .filter_map(|k| run.field(k).map(|v| format!("{k}: {v}")))
        .collect();
    let variant = Variant {
        label: variant_label.clone(),
        implementation: run.implementation.clone(),
        version,
        library: format!("imported from {}", file_label(file)),
        build_info,
        capabilities: run.field("CPUINFO").unwrap_or("").to_string(),
        feature_mask: String::new(),
    };
    let machine = machine_of(run);
    let measurements = run
        .results
        .iter()
        .map(|r| measurement_of(r, run, &variant_label))
        .collect();
    RunRecord {
        run: RunInfo {
            id,
            label: Some(label.to_string()),
            started_at: String::new(),
            finished_at: None,
            command: format!("cryptospeed import {file}"),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            status: RunStatus::Complete,
            config: MeasureConfig::default(),
            imported: Some(ImportSource {
                file: file.to_string(),
                first_line: run.first_line,
                last_line: run.last_line,
                format: run.format.clone(),
                header: run.header.clone(),
            }),
            uid: None,
            conditions: None,
        },
        machine,
        variants: vec![variant],
        measurements,
    }
}

/// The machine an imported log describes: what it printed of the CPU and the clock, if anything.
/// The store keeps one machine per fingerprint (host, CPU, flags, kernel), whose clock is the one
/// it first saw; a log names no host, so the clock goes into the host name: two logs of one CPU
/// model at different clocks (or of unknown CPUs, each clock worked out or given) are two
/// machines, and each keeps its own clock for `--normalize` (before, the second log's clock was
/// dropped and its cycles read by the first's).
fn machine_of(run: &ImportedRun) -> Machine {
    // The clock the log printed (or the user gave): rates per GHz divide by it.
    let ghz = run
        .field(crate::CLOCK_GHZ)
        .and_then(|g| g.parse::<f64>().ok())
        .filter(|g| g.is_finite() && *g > 0.0);
    Machine {
        hostname: ghz.map_or_else(String::new, |g| format!("imported log, clock {g} GHz")),
        cpu_model: run
            .field(crate::CPU_MODEL)
            .unwrap_or("unknown (imported log)")
            .to_string(),
        arch: run.field("platform").unwrap_or("").to_string(),
        tsc_hz: ghz.map_or(0.0, |g| g * 1e9),
        ..Default::default()
    }
}

/// One printed figure as a measurement of the variant, the rate kept exactly; repetitions
/// (`go test -count N`) become its samples, cycles its cycles per operation.
fn measurement_of(r: &ImportedResult, run: &ImportedRun, variant: &str) -> VariantMeasurement {
    let cell = CellSpec {
        primitive: r.primitive.clone(),
        op: r.op,
        bytes: r.bytes,
        misalign: 0,
    };
    let rate = rate_of(r, run);
    let mut measurement = if rate > 0.0 {
        Measurement::imported(cell, rate)
    } else {
        // openssl speed prints 0.00 for a cell it did not run: n/a, never 0.
        let why = format!("the log prints 0 at line {}: not run", r.line);
        Measurement::not_timed(cell, Status::Unavailable, why)
    };
    if rate > 0.0 {
        measurement.tsc_per_op = r.cycles;
        // Timings printed in cycles (SUPERCOP) keep them as each sample's TSC count.
        let ghz = r.cycles.map(|_| clock_ghz(run));
        add_samples(&mut measurement, &r.samples, ghz);
    }
    VariantMeasurement {
        variant: variant.to_string(),
        implementation: run.implementation.clone(),
        measurement,
        definition: None,
    }
}

/// The printed rate, or for a figure printed in cycles the rate those cycles make at the
/// machine's clock (the log's or `--clock-ghz`; without one a nominal 1 GHz, so that
/// `compare --normalize cycles` gives the printed cycles back). A log that prints both a rate
/// and cycles (liboqs: `rate from`) keeps its rate. A count of 0 cycles is nothing counted
/// (mlkem-native built without a cycle counter prints `keypair cycles = 0`): rate 0, stored as
/// not run, never an infinite rate.
pub fn rate_of(r: &ImportedResult, run: &ImportedRun) -> f64 {
    let Some(cycles) = r.cycles else {
        return r.rate;
    };
    if run.field("rate from").is_some() {
        return r.rate;
    }
    if cycles.is_nan() || cycles <= 0.0 {
        return 0.0;
    }
    clock_ghz(run) * 1e9 / cycles * r.bytes.unwrap_or(1) as f64
}

/// The clock of a log's cycle counts: its own or `--clock-ghz`, else a nominal 1 GHz.
fn clock_ghz(run: &ImportedRun) -> f64 {
    run.field(crate::CLOCK_GHZ)
        .and_then(|g| g.parse::<f64>().ok())
        .filter(|g| g.is_finite() && *g > 0.0)
        .unwrap_or(1.0)
}

/// Repetitions as samples, one bout each, and the summary (median and interval) made from them;
/// with `cycles_ghz` (timings printed in cycles at that clock) each sample's TSC count too, so
/// `show --percentiles` reads them as it reads measured ones.
fn add_samples(m: &mut Measurement, samples: &[(u64, f64)], cycles_ghz: Option<f64>) {
    if samples.len() < 2 {
        return;
    }
    let per_op = m.cell.bytes.unwrap_or(1) as f64;
    let ns: Vec<f64> = samples
        .iter()
        .map(|(_, rate)| 1e9 * per_op / rate)
        .collect();
    m.samples = samples
        .iter()
        .zip(&ns)
        .enumerate()
        .map(|(bout, ((iters, _), ns))| {
            let iters = (*iters).max(1);
            Sample {
                iters,
                wall_ns: (ns * iters as f64).round() as u64,
                cpu_ns: 0,
                tsc: cycles_ghz.map_or(0, |g| (ns * g * iters as f64).round() as u64),
                bout: bout as u32,
            }
        })
        .collect();
    m.summary = cryptospeed_stats::summarize(&ns);
    m.reported_rate = None;
}
