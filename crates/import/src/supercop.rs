//! SUPERCOP's measurement database (`bench/HOST/data`, what eBACS's tables are made from): one
//! record a line, `VERSION HOST ABI DATE OPERATION PRIMITIVE KIND …`. Read:
//! - `crypto_hash` `cycles LEN MEDIAN T1 … Tn` records (the median of n timings of one call at
//!   LEN bytes, then the timings; each length is measured in several loops, one record each).
//!   Each length of 1 byte or more is a cell; its timings, pooled over its records, are its
//!   samples and their median its cycles.
//! - `crypto_kem` `keypair_cycles - MEDIAN T1 … Tn`, `enc_cycles …`, `dec_cycles …` (the form
//!   of measure-anything.c's printentry before 2020.08, `-` for "no message length"), and the
//!   later delta form `keypair_cycles - BASE +d1-d2…` (each timing BASE plus or minus its delta;
//!   the primitive may carry a `/timingleaks` or `/constbranchindex` suffix, kept in the header).
//!   A record of one timing prints that figure alone (`keypair_cycles - 41742`: measure-anything.c's
//!   printentry prints the timings only when there are several), as in the SUPERCOP 20221122
//!   data files of formosa-crypto/formosa-mlkem (one record per loop, eleven loops); it is one
//!   sample, and a `cycles LEN T` hash record the same. crypto_kem/measure.c times
//!   `crypto_kem_keypair(pk,sk)`, `crypto_kem_enc(c,k,pk)`, `crypto_kem_dec(t,c,sk)` on
//!   byte strings, so they are `keygen+encode`, `encaps+parse` and `decaps+parse`. `mlkem768`
//!   is `ml-kem-768`; `kyber768` (round-3 Kyber) is `kyber-768`, kept under its own name as
//!   every importer keeps pre-standard Kyber.
//!
//! The clock is `cpucycles_persecond`; `implementation`, `compiler`, `cpuid`,
//! `cpucycles_implementation` and the `…bytes` sizes go in the header. One output per (host,
//! ABI, date, operation, primitive). Build records (`try`, `objsize`, `namespace`,
//! `fromcompiler`, `tryfails`) and the `…_randombytes`/`…_randomcalls` counts are skipped. A
//! record whose numbers do not read is skipped with a warning naming its line; the file's other
//! records still import. Signature kinds (`crypto_sign`) are not read yet.
use crate::names;
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
    CLOCK_GHZ,
};
use cryptospeed_model::Op;

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
            let read = match f[6] {
                "cycles" if f[4] == "crypto_hash" => timings(run, &f, n),
                "keypair_cycles" | "enc_cycles" | "dec_cycles" if f[4] == "crypto_kem" => {
                    kem_timings(run, &f, n)
                }
                "implementation"
                | "compiler"
                | "cpuid"
                | "cpucycles_implementation"
                | "outputbytes"
                | "publickeybytes"
                | "secretkeybytes"
                | "ciphertextbytes" => {
                    run.set(f[6], f[7..].join(" "));
                    Ok(())
                }
                "cpucycles_persecond" => clock(run, &f, n),
                _ => {
                    log.skipped.push((n, line.to_string()));
                    Ok(())
                }
            };
            if let Err(e) = read {
                log.warnings.push(format!("{e}; that record is skipped"));
                log.skipped.push((n, line.to_string()));
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
    let (primitive, mode) = f[5].split_once('/').unwrap_or((f[5], ""));
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
    run.set("operation", f[4]);
    run.set("primitive", primitive);
    if !mode.is_empty() {
        run.set("measurement mode", mode);
    }
    run.set(
        "cycles",
        "median of every timing of a cell, pooled over its records (SUPERCOP's cpucycles; 1 call \
         each)",
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

/// `cycles LEN MEDIAN T1 … Tn` or `cycles LEN T` (one timing): the timings join the length's
/// cell (length 0 has no bytes to count and is left out).
fn timings(run: &mut ImportedRun, f: &[&str], n: usize) -> Result<(), ImportError> {
    let numbers: Option<Vec<u64>> = f[7..].iter().map(|v| v.parse().ok()).collect();
    let numbers = numbers
        .filter(|v| v.len() >= 2)
        .ok_or_else(|| ImportError::at(n, "expected 'cycles LENGTH MEDIAN [TIMINGS…]'"))?;
    // One timing is printed alone, as its own median.
    let (len, times) = (numbers[0], &numbers[(numbers.len() - 1).min(2)..]);
    if len == 0 {
        return Ok(());
    }
    let (m, op) = names::symmetric(f[5], false);
    let cell = cell_for(run, m, op, Some(len), f[5], n);
    // Cycles for now; made rates at the clock in `finish`.
    cell.samples.extend(times.iter().map(|t| (1, *t as f64)));
    Ok(())
}

/// `keypair_cycles - MEDIAN T1 … Tn`, `keypair_cycles - BASE +d1-d2…` or `keypair_cycles -
/// T` (one timing): the timings join the operation's cell.
fn kem_timings(run: &mut ImportedRun, f: &[&str], n: usize) -> Result<(), ImportError> {
    let bad = || {
        ImportError::at(
            n,
            format!(
                "expected '{} - MEDIAN [TIMINGS…]' or '{} - BASE +d-d…'",
                f[6], f[6]
            ),
        )
    };
    if f.get(7) != Some(&"-") || f.len() < 9 {
        return Err(bad());
    }
    let times = if f.len() == 9 {
        // printentry prints the timings only when there are more than one: the lone figure.
        vec![f[8].parse::<u64>().map_err(|_| bad())?]
    } else if f.len() == 10 && f[9].starts_with(['+', '-']) {
        let base: i64 = f[8].parse().map_err(|_| bad())?;
        deltas(base, f[9]).ok_or_else(bad)?
    } else {
        f[8].parse::<u64>().map_err(|_| bad())?;
        let v: Option<Vec<u64>> = f[9..].iter().map(|v| v.parse().ok()).collect();
        v.ok_or_else(bad)?
    };
    let op = match f[6] {
        "keypair_cycles" => Op::KeygenEncode,
        "enc_cycles" => Op::EncapsParse,
        _ => Op::DecapsParse,
    };
    let printed = f[5].split('/').next().unwrap_or(f[5]);
    let cell = cell_for(run, kem_name(printed), op, None, printed, n);
    cell.samples.extend(times.iter().map(|t| (1, *t as f64)));
    Ok(())
}

/// `+3316+75-20`: BASE plus or minus each delta, in order.
fn deltas(base: i64, encoded: &str) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    let mut rest = encoded;
    while !rest.is_empty() {
        let sign = if rest.starts_with('+') { 1 } else { -1 };
        rest = rest.strip_prefix(['+', '-'])?;
        let end = rest.find(['+', '-']).unwrap_or(rest.len());
        let d: i64 = rest[..end].parse().ok()?;
        out.push(u64::try_from(base + sign * d).ok()?);
        rest = &rest[end..];
    }
    Some(out)
}

/// `mlkem768` is the catalog's `ml-kem-768`; round-3 `kyber768` is `kyber-768`, not in it.
fn kem_name(printed: &str) -> names::Mapped {
    match printed.strip_prefix("kyber") {
        Some(bits) if bits.parse::<u32>().is_ok() => names::Mapped {
            primitive: format!("kyber-{bits}"),
            mapped: false,
        },
        _ => names::table_scheme(printed, true),
    }
}

/// The run's cell of (primitive, operation, length), made at its first record.
fn cell_for<'a>(
    run: &'a mut ImportedRun,
    m: names::Mapped,
    op: Op,
    bytes: Option<u64>,
    printed: &str,
    n: usize,
) -> &'a mut ImportedResult {
    let found = run
        .results
        .iter()
        .position(|r| r.bytes == bytes && r.primitive == m.primitive && r.op == op);
    let i = found.unwrap_or_else(|| {
        run.results.push(ImportedResult {
            primitive: m.primitive,
            op,
            bytes,
            rate: 0.0,
            printed_name: printed.to_string(),
            mapped: m.mapped,
            line: n,
            samples: Vec::new(),
            cycles: None,
        });
        run.results.len() - 1
    });
    &mut run.results[i]
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
