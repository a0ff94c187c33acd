//! The CRYSTALS reference code's speed test (pq-crystals/kyber and pq-crystals/dilithium,
//! `test/test_speed.c` through `test/speed_print.c`): per measured function a `NAME:` line,
//! `median: N cycles/ticks` and `average: N cycles/ticks` (the median and the mean of NTESTS
//! single calls, cpucycles() with its overhead taken off). The program names no parameter set:
//! the scheme is the last label above the block that names one (`Dilithium2`, `kyber768`,
//! `ML-KEM-768`, `test_speed768`), else none (`kyber`, `dilithium`, kept). The figure is the
//! median in cycles per call (a nominal 1 GHz without a clock, as mlkem-native's); the mean goes
//! in the header. The whole-scheme calls become cells, the byte-string API as the bench calls it:
//! `kyber_keypair` (crypto_kem_keypair, randomness drawn inside) = keygen+encode, `kyber_encaps`
//! = encaps+parse, `kyber_decaps` = decaps+parse, `Keypair` = keygen+encode, `Sign` = sign,
//! `Verify` = verify+parse; the `_derand` calls (coins given) are kept under their own names, and
//! the component rows (`gen_a`, `NTT`, `poly_*` …) are skipped.

use crate::names::{self, Mapped};
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
};
use cryptospeed_model::Op;

pub struct PqCrystals;

impl LogFormat for PqCrystals {
    fn name(&self) -> &'static str {
        "pq-crystals-speed"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines().any(|l| figure(l, "median").is_some())
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut run = new_run();
        let (mut scheme, mut name): (Option<String>, Option<(usize, String)>) = (None, None);
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if let Some(median) = figure(t, "median") {
                let Some((at, called)) = name.take() else {
                    log.skipped.push((n, line.to_string()));
                    continue;
                };
                match cell(scheme.as_deref(), &called) {
                    Some((m, op)) => {
                        let printed = format!("{} {called}", scheme.as_deref().unwrap_or(""));
                        push(&mut run, at, printed.trim_start(), m, op, median)
                    }
                    None => {
                        log.skipped.push((at, called));
                        log.skipped.push((n, line.to_string()));
                    }
                }
            } else if let Some(avg) = figure(t, "average") {
                match run.results.last().filter(|r| r.line + 1 == n) {
                    Some(r) => {
                        let key = format!("{} {} average cycles", r.primitive, r.op);
                        run.set(&key, format!("{avg}"));
                    }
                    None => log.skipped.push((n, line.to_string())),
                }
            } else if let Some(s) = scheme_in(t) {
                // A label (`Dilithium2`, `Kyber768:`): the blocks below are its.
                scheme = Some(s);
                log.skipped.push((n, line.to_string()));
            } else if let Some(called) = t.strip_suffix(':').filter(|c| is_name(c)) {
                name = Some((n, called.trim().to_string()));
            } else if !t.is_empty() {
                log.skipped.push((n, line.to_string()));
            }
        }
        if !run.results.is_empty() {
            log.runs.push(run);
        }
        Ok(log)
    }
}

fn new_run() -> ImportedRun {
    let mut run = ImportedRun {
        format: "pq-crystals-speed".into(),
        implementation: "pq-crystals".into(),
        ..Default::default()
    };
    run.set(
        "cycles",
        "median of NTESTS single calls (median: … cycles/ticks)",
    );
    run.set("timed", TIMED);
    run
}

const TIMED: &str = "kyber_keypair / Keypair = keygen+encode (crypto_kem_keypair / \
    crypto_sign_keypair: keys written as bytes, randomness drawn inside the call), kyber_encaps = \
    encaps+parse (crypto_kem_enc: pk parsed from bytes), kyber_decaps = decaps+parse \
    (crypto_kem_dec: sk parsed from bytes), Sign = sign (crypto_sign on a CRHBYTES message: sk \
    unpacked in each call), Verify = verify+parse (crypto_sign_verify: pk unpacked in each call)";

/// `median: 688550 cycles/ticks` → 688550.
fn figure(line: &str, which: &str) -> Option<f64> {
    let rest = line.trim().strip_prefix(which)?.strip_prefix(':')?;
    let value = rest.trim().strip_suffix("cycles/ticks")?.trim();
    value.parse::<u64>().ok().map(|v| v as f64)
}

/// A function name as test_speed prints it (`kyber_encaps`, `Keypair`, `poly_getnoise_eta1`).
fn is_name(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A label naming the parameter set: `Dilithium2`, `kyber768`, `ML-KEM-768`, `./test_speed768`.
fn scheme_in(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase().replace(['-', '_'], "");
    for (family, sets) in [
        ("mlkem", &["512", "768", "1024"][..]),
        ("kyber", &["512", "768", "1024"]),
        ("mldsa", &["44", "65", "87"]),
        ("dilithium", &["2", "3", "5"]),
    ] {
        for set in sets {
            let spelled = format!("{family}{set}");
            let next = lower
                .find(&spelled)
                .map(|i| lower[i + spelled.len()..].chars().next());
            if matches!(next, Some(None)) || matches!(next, Some(Some(c)) if !c.is_ascii_digit()) {
                return Some(spelled);
            }
        }
    }
    None
}

/// The cell of a whole-scheme call; `None` for a component row.
fn cell(scheme: Option<&str>, called: &str) -> Option<(Mapped, Op)> {
    let kem = called.starts_with("kyber_");
    let op = match called.trim_end_matches("_derand") {
        "kyber_keypair" | "Keypair" => Op::KeygenEncode,
        "kyber_encaps" => Op::EncapsParse,
        "kyber_decaps" => Op::DecapsParse,
        "Sign" => Op::Sign,
        "Verify" => Op::VerifyParse,
        _ => return None,
    };
    let family = if kem { "kyber" } else { "dilithium" };
    let scheme = scheme.unwrap_or(family);
    let m = match (scheme.strip_prefix("ml"), scheme.strip_prefix("kyber")) {
        (Some(rest), _) => names::table_scheme(&format!("ml-{}-{}", &rest[..3], &rest[3..]), kem),
        // Round-3 Kyber kept as every importer keeps it (`kyber-768`), not the catalog's ML-KEM.
        (_, Some(set)) if !set.is_empty() => Mapped {
            primitive: format!("kyber-{set}"),
            mapped: false,
        },
        _ => names::table_scheme(scheme, kem),
    };
    if called.ends_with("_derand") {
        let kept = format!("{}-{}", m.primitive, names::slug(called));
        return Some((
            Mapped {
                primitive: kept,
                mapped: false,
            },
            op,
        ));
    }
    Some((m, op))
}

fn push(run: &mut ImportedRun, n: usize, called: &str, m: Mapped, op: Op, cycles: f64) {
    if run.results.is_empty() {
        run.first_line = n;
    }
    run.last_line = n + 1;
    run.results.push(ImportedResult {
        primitive: m.primitive,
        op,
        bytes: None,
        rate: 1e9 / cycles.max(1.0),
        printed_name: called.to_string(),
        mapped: m.mapped,
        line: n + 1,
        samples: Vec::new(),
        cycles: Some(cycles),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_parameter_set() {
        assert_eq!(scheme_in("Dilithium2").as_deref(), Some("dilithium2"));
        assert_eq!(
            scheme_in("## ML-KEM-768 (avx2)").as_deref(),
            Some("mlkem768")
        );
        assert_eq!(scheme_in("kyber1024").as_deref(), Some("kyber1024"));
        assert_eq!(scheme_in("Keypair:"), None);
        let (m, op) = cell(Some("mlkem768"), "kyber_decaps").unwrap();
        assert_eq!(
            (m.primitive.as_str(), m.mapped, op),
            ("ml-kem-768", true, Op::DecapsParse)
        );
        assert!(cell(Some("kyber768"), "gen_a").is_none());
    }

    /// Kyber's test_speed prints `kyber_keypair: ` (print_results's `%s\n` of "kyber_keypair: ").
    #[test]
    fn kyber_rows_map_and_derand_and_components_stay_apart() {
        let text = "ML-KEM-768\ngen_a: \nmedian: 9000 cycles/ticks\naverage: 9100 cycles/ticks\n\n\
            kyber_keypair_derand: \nmedian: 30000 cycles/ticks\naverage: 30100 cycles/ticks\n\n\
            kyber_keypair: \nmedian: 31000 cycles/ticks\naverage: 31100 cycles/ticks\n\n\
            kyber_decaps: \nmedian: 40000 cycles/ticks\naverage: 40100 cycles/ticks\n";
        let log = crate::read(text, None, &ImportOptions::default()).unwrap();
        let run = &log.runs[0];
        let got: Vec<(&str, Op, Option<f64>)> = run
            .results
            .iter()
            .map(|r| (r.primitive.as_str(), r.op, r.cycles))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "ml-kem-768-kyber-keypair-derand",
                    Op::KeygenEncode,
                    Some(30000.0)
                ),
                ("ml-kem-768", Op::KeygenEncode, Some(31000.0)),
                ("ml-kem-768", Op::DecapsParse, Some(40000.0)),
            ]
        );
        assert_eq!(
            run.field("ml-kem-768 decaps+parse average cycles"),
            Some("40100")
        );
    }
}
