//! SUPERCOP's measurement database (`bench/HOST/data`, what eBACS's tables are made from): one
//! record a line, `VERSION HOST ABI DATE OPERATION PRIMITIVE KIND …`. Read: the `crypto_hash`
//! `cycles LEN MEDIAN T1 … Tn` records of SUPERCOP before 2020.08 (the median of n timings of one
//! call at LEN bytes, then the timings; each length is measured in several loops, one record
//! each). Each length of 1 byte or more is a cell; its timings, pooled over its records, are its
//! samples and their median its cycles. The clock is `cpucycles_persecond`; `implementation`,
//! `compiler`, `cpuid`, `cpucycles_implementation` and `outputbytes` go in the header. One output
//! per (host, ABI, date, operation, primitive). Build records (`try`, `objsize`, `namespace`,
//! `fromcompiler`, `tryfails`) are skipped; so are the newer delta-encoded records (`sha256/
//! timingleaks … 1805 +3316+75…`) and the KEM and signature kinds (`keypair_cycles`,
//! `enc_cycles` …): no real file of those was at hand to read them against.
use crate::names;
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
    CLOCK_GHZ,
};

pub struct Supercop;

/// The seven fields every record starts with, when `line` is one.
fn record(line: &str) -> Option<Vec<&str>> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let date = |s: &str| s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
    (f.len() >= 7 && date(f[0]) && date(f[3]) && f[4].starts_with("crypto_")).then_some(f)
}

impl LogFormat for Supercop {
    fn name(&self) -> &'static str {
        "supercop-data"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines().take(5).any(|l| record(l).is_some())
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        for (n, line) in numbered_lines(text) {
            let Some(f) = record(line) else {
                if !line.trim().is_empty() {
                    log.skipped.push((n, line.to_string()));
                }
                continue;
            };
            let run = run_for(&mut log.runs, &f, n);
            run.last_line = n;
            match f[6] {
                "cycles" if f[4] == "crypto_hash" => timings(run, &f, n)?,
                "implementation"
                | "compiler"
                | "cpuid"
                | "cpucycles_implementation"
                | "outputbytes" => run.set(f[6], f[7..].join(" ")),
                "cpucycles_persecond" => clock(run, &f, n)?,
                _ => log.skipped.push((n, line.to_string())),
            }
        }
        for run in &mut log.runs {
            finish(run);
        }
        log.runs.retain(|r| !r.results.is_empty());
        Ok(log)
    }
}

/// The output of a record's (host, ABI, date, operation, primitive), made at its first record.
fn run_for<'a>(runs: &'a mut Vec<ImportedRun>, f: &[&str], n: usize) -> &'a mut ImportedRun {
    let key = f[1..6].join(" ");
    if let Some(i) = runs.iter().position(|r| r.field("supercop") == Some(&key)) {
        return &mut runs[i];
    }
    let mut run = ImportedRun {
        format: "supercop-data".into(),
        implementation: "supercop".into(),
        first_line: n,
        ..Default::default()
    };
    run.set("supercop", key);
    run.set("version", format!("SUPERCOP {}", f[0]));
    run.set("host", f[1]);
    run.set("abi", f[2]);
    run.set("date", f[3]);
    run.set(
        "cycles",
        "median of every timing at a length (SUPERCOP's cpucycles; 1 call each)",
    );
    runs.push(run);
    runs.last_mut().expect("just pushed")
}

/// `cpucycles_persecond 3800000000`: the clock of the cycle counts.
fn clock(run: &mut ImportedRun, f: &[&str], n: usize) -> Result<(), ImportError> {
    let hz: f64 = f
        .get(7)
        .and_then(|v| v.parse().ok())
        .filter(|v: &f64| *v > 0.0)
        .ok_or_else(|| ImportError::at(n, "cpucycles_persecond is not a positive number"))?;
    run.set(CLOCK_GHZ, format!("{}", hz / 1e9));
    Ok(())
}

/// `cycles LEN MEDIAN T1 … Tn`: the timings join the length's cell (length 0 has no bytes to
/// count and is left out).
fn timings(run: &mut ImportedRun, f: &[&str], n: usize) -> Result<(), ImportError> {
    let numbers: Option<Vec<u64>> = f[7..].iter().map(|v| v.parse().ok()).collect();
    let numbers = numbers
        .filter(|v| v.len() >= 3)
        .ok_or_else(|| ImportError::at(n, "expected 'cycles LENGTH MEDIAN TIMINGS…'"))?;
    let (len, times) = (numbers[0], &numbers[2..]);
    if len == 0 {
        return Ok(());
    }
    let (m, op) = names::symmetric(f[5], false);
    let cell = run
        .results
        .iter_mut()
        .find(|r| r.bytes == Some(len) && r.primitive == m.primitive);
    let cell = match cell {
        Some(c) => c,
        None => {
            run.results.push(ImportedResult {
                primitive: m.primitive.clone(),
                op,
                bytes: Some(len),
                rate: 0.0,
                printed_name: f[5].to_string(),
                mapped: m.mapped,
                line: n,
                samples: Vec::new(),
                cycles: None,
            });
            run.results.last_mut().expect("just pushed")
        }
    };
    // Cycles for now; made rates at the clock in `finish`.
    cell.samples.extend(times.iter().map(|t| (1, *t as f64)));
    Ok(())
}

/// Each cell's median cycles, and its timings as rates at the run's clock (bytes per second).
fn finish(run: &mut ImportedRun) {
    let hz = run
        .field(CLOCK_GHZ)
        .and_then(|g| g.parse::<f64>().ok())
        .unwrap_or(1.0)
        * 1e9;
    for r in &mut run.results {
        let mut cycles: Vec<f64> = r.samples.iter().map(|s| s.1).collect();
        cycles.sort_by(f64::total_cmp);
        let n = cycles.len();
        let median = (cycles[(n - 1) / 2] + cycles[n / 2]) / 2.0;
        let bytes = r.bytes.unwrap_or(1) as f64;
        r.cycles = Some(median);
        r.rate = hz / median * bytes;
        for s in &mut r.samples {
            s.1 = hz / s.1.max(1.0) * bytes;
        }
    }
}
