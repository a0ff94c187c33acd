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
//! `Verify` = verify+parse; the `_derand` calls (coins given) and the component rows (`gen_a`,
//! `NTT`, `poly_*` …) are kept under their own names (the operation a verb in the name says, else
//! `derive`), so a log of components alone still imports.

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
                let (m, op) = cell(scheme.as_deref(), &called);
                let printed = format!("{} {called}", scheme.as_deref().unwrap_or(""));
                push(&mut run, at, printed.trim_start(), m, op, median);
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
    // The binaries' names: kyber's test_speed512/768/1024, dilithium's test_speed2/3/5.
    let bin = lower.find("testspeed").map(|i| &lower[i + 9..])?;
    let digits: String = bin.chars().take_while(char::is_ascii_digit).collect();
    match digits.as_str() {
        "512" | "768" | "1024" => Some(format!("kyber{digits}")),
        "2" | "3" | "5" => Some(format!("dilithium{digits}")),
        _ => None,
    }
}

/// The cell of a row: a whole-scheme call onto its operation, a `_derand` call or a component
/// (`gen_a`, `NTT`, `indcpa_enc`) kept under the scheme's name and its own, the operation its
/// verb names where it names one (else `derive`, as other kept rows).
fn cell(scheme: Option<&str>, called: &str) -> (Mapped, Op) {
    let whole = match called.trim_end_matches("_derand") {
        "kyber_keypair" | "Keypair" => Some(Op::KeygenEncode),
        "kyber_encaps" => Some(Op::EncapsParse),
        "kyber_decaps" => Some(Op::DecapsParse),
        "Sign" => Some(Op::Sign),
        "Verify" => Some(Op::VerifyParse),
        _ => None,
    };
    let kem = called.starts_with("kyber_")
        || scheme.is_some_and(|s| s.contains("kem") || s.starts_with("kyber"));
    let m = match scheme {
        Some(scheme) => scheme_cell(scheme, kem),
        None if whole.is_some() => {
            names::table_scheme(if kem { "kyber" } else { "dilithium" }, kem)
        }
        None => Mapped {
            primitive: "pq-crystals".into(),
            mapped: false,
        },
    };
    match whole {
        Some(op) if !called.ends_with("_derand") => (m, op),
        _ => {
            let op = whole.unwrap_or_else(|| crate::bssl::verb_op(&called.to_ascii_lowercase()));
            let kept = format!("{}-{}", m.primitive, names::slug(called));
            (
                Mapped {
                    primitive: kept,
                    mapped: false,
                },
                op,
            )
        }
    }
}

/// `mlkem768` → the catalog's `ml-kem-768`; round-3 `kyber768` → `kyber-768`, kept as every
/// importer keeps pre-standard Kyber; `dilithium2` as the names module keeps it.
fn scheme_cell(scheme: &str, kem: bool) -> Mapped {
    match (scheme.strip_prefix("ml"), scheme.strip_prefix("kyber")) {
        (Some(rest), _) => names::table_scheme(&format!("ml-{}-{}", &rest[..3], &rest[3..]), kem),
        (_, Some(set)) => Mapped {
            primitive: format!("kyber-{set}"),
            mapped: false,
        },
        _ => names::table_scheme(scheme, kem),
    }
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
        assert_eq!(
            scheme_in("and run \"test_speed512\"").as_deref(),
            Some("kyber512")
        );
        let (m, op) = cell(Some("mlkem768"), "kyber_decaps");
        assert_eq!(
            (m.primitive.as_str(), m.mapped, op),
            ("ml-kem-768", true, Op::DecapsParse)
        );
        let (m, op) = cell(Some("kyber768"), "gen_a");
        assert_eq!(
            (m.primitive.as_str(), m.mapped, op),
            ("kyber-768-gen-a", false, Op::Derive)
        );
    }

    /// Kyber's test_speed prints `kyber_keypair: ` (print_results's `%s\n` of "kyber_keypair: ").
    #[test]
    fn kyber_rows_map_and_derand_and_component_rows_are_kept_apart() {
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
                ("ml-kem-768-gen-a", Op::Derive, Some(9000.0)),
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
