//! liboqs `speed_kem` / `speed_sig` tables, the reference benchmark of post-quantum schemes:
//! a `Configuration info` block, then `Operation | Iterations | Total time (s) | Time (us): mean |
//! pop. stdev | CPU cycles: mean | pop. stdev`, an algorithm row (`ML-KEM-768 | | …`) followed by
//! its operations (`keygen`/`encaps`/`decaps`, `keypair`/`sign`/`verify`). The rate is iterations
//! over total time (liboqs sums whole microseconds per call, and its mean is that total over the
//! iterations: the two must agree to their printed digits, else the row is garbled). Names the
//! catalog knows (`ML-KEM-768`, `ML-DSA-65`, `SLH_DSA_PURE_SHA2_128S`) map onto it; the rest
//! (`Kyber768`, `FrodoKEM-640-AES`, `ML-DSA-65-extmu`) keep their names. speed_kem/speed_sig
//! time the byte-string API (`OQS_KEM_keypair/encaps/decaps`, `OQS_SIG_keypair/sign/verify`), so
//! the operations are the from-bytes ones; the header's `timed` says each.

use crate::names::{self, Mapped};
use crate::{
    number, numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat,
    ParsedLog,
};
use cryptospeed_model::Op;

pub struct LiboqsSpeed;

impl LogFormat for LiboqsSpeed {
    fn name(&self) -> &'static str {
        "liboqs-speed"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines().any(is_table_header)
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut run = new_run();
        let mut algorithm: Option<String> = None;
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if t.starts_with("Configuration info") && !run.results.is_empty() {
                log.runs.push(std::mem::replace(&mut run, new_run()));
            }
            let cells: Vec<&str> = t.split('|').map(str::trim).collect();
            if cells.len() >= 4 && !is_table_header(t) && !cells[1].starts_with('-') {
                if cells[1..].iter().all(|c| c.is_empty()) {
                    algorithm = Some(cells[0].to_string());
                } else {
                    let alg = algorithm.as_deref().ok_or_else(|| {
                        ImportError::at(n, format!("'{}' comes before any algorithm row", cells[0]))
                    })?;
                    push(&mut run, operation_row(n, alg, &cells)?);
                }
            } else if !header_line(t, &mut run) {
                log.skipped.push((n, line.to_string()));
            }
        }
        if !run.results.is_empty() {
            log.runs.push(run);
        }
        for run in &mut log.runs {
            crate::clock_from_cycles(run, "CPU cycles: mean");
        }
        Ok(log)
    }
}

fn new_run() -> ImportedRun {
    ImportedRun {
        format: "liboqs-speed".into(),
        implementation: "liboqs".into(),
        header: vec![("timed".into(), TIMED.into())],
        ..Default::default()
    }
}

/// What tests/speed_kem.c and tests/speed_sig.c time (TIME_OPERATION_SECONDS around one call),
/// in cryptospeed's operations: byte strings in and out, randomness drawn inside each call.
const TIMED: &str = "keygen/keypair = keygen+encode (OQS_KEM_keypair / OQS_SIG_keypair: pk and \
    sk written as bytes, randombytes inside the call), encaps = encaps+parse (OQS_KEM_encaps: pk \
    parsed from bytes in each call), decaps = decaps+parse (OQS_KEM_decaps: sk parsed from bytes \
    in each call), sign = sign (OQS_SIG_sign: sk unpacked in each call; there is no sign+parse), \
    verify = verify+parse (OQS_SIG_verify: pk unpacked in each call)";

fn push(run: &mut ImportedRun, r: ImportedResult) {
    if run.results.is_empty() {
        run.first_line = r.line;
    }
    run.last_line = r.line;
    run.results.push(r);
}

fn is_table_header(l: &str) -> bool {
    l.starts_with("Operation") && l.contains("| Iterations |") && l.contains("Total time (s)")
}

/// `OQS version:      0.16.0 (major: 0, …)`, `Target platform:`, `Compiler:`, `Started at …`, the
/// separator and the banners; anything else is foreign (returns false).
fn header_line(t: &str, run: &mut ImportedRun) -> bool {
    if t.is_empty()
        || is_table_header(t)
        || t.chars().all(|c| c == '=' || c == '-')
        || ["Configuration info", "Speed test", "Ended at"].contains(&t)
        || t.starts_with("---")
        || t.starts_with("Ended at ")
    {
        return true;
    }
    if let Some(date) = t.strip_prefix("Started at ") {
        run.set("date", date.trim());
        return true;
    }
    let Some((key, value)) = t.split_once(':') else {
        return false;
    };
    let field = match key.trim() {
        "OQS version" => "version",
        "Target platform" => "platform",
        "Compiler" => "compiler",
        "Compile options" => "options",
        "CPU exts active" | "CPU exts compile-time" => "CPUINFO",
        "Git commit" | "OpenSSL enabled" | "AES" | "SHA-2" | "SHA-3" | "OQS build flags" => {
            key.trim()
        }
        _ => return false,
    };
    let value = value.trim();
    let value = match field {
        "version" => value.split_whitespace().next().unwrap_or(value),
        _ => value,
    };
    run.set(field, value);
    true
}

/// `keygen | 113107 | 1.000 | 8.841 | 69.600 | 22788 | 177924`.
fn operation_row(n: usize, alg: &str, cells: &[&str]) -> Result<ImportedResult, ImportError> {
    let bad = |what: &str| {
        ImportError::at(
            n,
            format!(
                "expected 'OPERATION | iterations | total s | mean us | …' ({what}), found '{}'",
                cells.join(" | ")
            ),
        )
    };
    let iterations = cells[1]
        .parse::<u64>()
        .map_err(|_| bad("an iteration count"))?;
    let total = number(cells[2]).ok_or_else(|| bad("a total time"))?;
    let mean_us = number(cells[3]).ok_or_else(|| bad("a mean time"))?;
    if iterations == 0 || total <= 0.0 {
        return Err(bad("a positive count and time"));
    }
    // Both are printed with %.3f from one sum of whole microseconds.
    let slack = iterations as f64 * 0.0005 + 500.0 + 1e-6 * total * 1e6;
    if (iterations as f64 * mean_us - total * 1e6).abs() > slack {
        return Err(bad(&format!(
            "{iterations} × {mean_us} us is not {total} s"
        )));
    }
    let (m, op) = cell(alg, cells[0]);
    // `CPU cycles: mean`, where printed (0 or absent: none).
    let cycles = cells.get(5).and_then(|c| number(c)).filter(|c| *c > 0.0);
    Ok(ImportedResult {
        primitive: m.primitive,
        op,
        bytes: None,
        rate: iterations as f64 / total,
        printed_name: format!("{alg} {}", cells[0]),
        mapped: m.mapped,
        line: n,
        samples: Vec::new(),
        cycles,
    })
}

/// The algorithm onto the catalog (a scheme liboqs names differently, e.g. SLH-DSA's
/// `SLH_DSA_PURE_SHA2_128S`, tried as FIPS 205 spells it) and the operation.
fn cell(alg: &str, operation: &str) -> (Mapped, Op) {
    let kem = !matches!(operation, "keypair" | "sign" | "verify");
    let op = match operation {
        "keygen" | "keypair" => Op::KeygenEncode,
        "encaps" => Op::EncapsParse,
        "decaps" => Op::DecapsParse,
        "sign" => Op::Sign,
        "verify" => Op::VerifyParse,
        other => crate::bssl::verb_op(&other.to_ascii_lowercase()),
    };
    let fips = alg.replace("_PURE_", "-").replace('_', "-");
    let m = [alg, fips.as_str()]
        .iter()
        .map(|name| names::table_scheme(name, kem))
        .find(|m| m.mapped)
        .unwrap_or_else(|| names::table_scheme(alg, kem));
    if ["keygen", "keypair", "encaps", "decaps", "sign", "verify"].contains(&operation) {
        return (m, op);
    }
    // `fullcycletest` (speed_kem -f) and the like: kept as a cell of their own.
    let kept = Mapped {
        primitive: format!("{}-{}", m.primitive, names::slug(operation)),
        mapped: false,
    };
    (kept, op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_onto_the_catalog() {
        let c = |a, o| {
            let (m, op) = cell(a, o);
            (m.primitive, op, m.mapped)
        };
        assert_eq!(
            c("ML-KEM-768", "encaps"),
            ("ml-kem-768".into(), Op::EncapsParse, true)
        );
        assert_eq!(
            c("ML-DSA-65", "keypair"),
            ("ml-dsa-65".into(), Op::KeygenEncode, true)
        );
        assert_eq!(
            c("SLH_DSA_PURE_SHA2_128S", "sign"),
            ("slh-dsa-sha2-128s".into(), Op::Sign, true)
        );
        assert!(!c("ML-DSA-65-extmu", "sign").2);
        assert!(!c("FrodoKEM-640-AES", "keygen").2);
        assert!(!c("ML-KEM-768", "fullcycletest").2);
    }

    #[test]
    fn a_garbled_mean_is_refused() {
        let cells = [
            "keygen", "113107", "1.000", "9.841", "69.600", "22788", "177924",
        ];
        assert!(operation_row(5, "ML-KEM-768", &cells).is_err());
        let cells = [
            "keygen", "113107", "1.000", "8.841", "69.600", "22788", "177924",
        ];
        assert!(operation_row(5, "ML-KEM-768", &cells).is_ok());
    }
}
