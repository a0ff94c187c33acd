//! `bssl speed` (BoringSSL, and AWS-LC's copy of it) text output:
//! `Did 1234 AES-128-GCM (16 bytes) seal operations in 1000123us (1233.8 ops/sec): 19.7 MB/s`.
//! The rate is computed from the call count and microseconds, which the line prints exactly.

use crate::names::{self, Mapped};
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
};
use cryptospeed_model::Op;

pub struct BsslText;

impl LogFormat for BsslText {
    fn name(&self) -> &'static str {
        "bssl-speed"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines()
            .any(|l| l.trim_start().starts_with("Did ") && l.contains(" operations in "))
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut run = self.new_run();
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            if let Some(cmd) = command(t) {
                if !run.results.is_empty() {
                    log.runs.push(std::mem::replace(&mut run, self.new_run()));
                }
                run.set("command", cmd);
                continue;
            }
            let Some(rest) = t.strip_prefix("Did ") else {
                // Not a result line: a prompt, build output, a heading pasted with the log.
                log.skipped.push((n, line.to_string()));
                continue;
            };
            let result = did_line(n, t, rest)?;
            if run.results.iter().any(|r| {
                r.primitive == result.primitive && r.op == result.op && r.bytes == result.bytes
            }) {
                log.runs.push(std::mem::replace(&mut run, self.new_run()));
            }
            if run.results.is_empty() {
                run.first_line = n;
            }
            run.last_line = n;
            run.results.push(result);
        }
        if !run.results.is_empty() {
            log.runs.push(run);
        }
        Ok(log)
    }
}

impl BsslText {
    fn new_run(&self) -> ImportedRun {
        ImportedRun {
            format: self.name().into(),
            implementation: "boringssl".into(),
            ..Default::default()
        }
    }
}

/// The command of a `$ bssl speed …` or `./tool/bssl speed -filter X` line.
fn command(t: &str) -> Option<&str> {
    if let Some(cmd) = t.strip_prefix("$ ").or_else(|| t.strip_prefix("# ")) {
        return Some(cmd.trim());
    }
    let at = t.find("bssl speed")?;
    let start = t[..at]
        .rfind(char::is_whitespace)
        .map(|i| i + 1)
        .unwrap_or(0);
    Some(t[start..].trim())
}

/// `Did 1234 AES-128-GCM (16 bytes) seal operations in 1000123us (1233.8 ops/sec): 19.7 MB/s`
fn did_line(n: usize, t: &str, rest: &str) -> Result<ImportedResult, ImportError> {
    let (calls, rest) = rest.split_once(' ').ok_or_else(|| shape(n, t))?;
    let calls: u64 = calls.parse().map_err(|_| shape(n, t))?;
    let (description, rest) = rest
        .rsplit_once(" operations in ")
        .ok_or_else(|| shape(n, t))?;
    let (us, _) = rest.split_once("us").ok_or_else(|| shape(n, t))?;
    let us: u64 = us.trim().parse().map_err(|_| shape(n, t))?;
    if us == 0 {
        return Err(ImportError::at(n, "zero microseconds: the line is garbled"));
    }
    if !rest.contains("ops/sec)") {
        return Err(ImportError::at(
            n,
            format!("the line ends before '(R ops/sec)' — truncated? found '{t}'"),
        ));
    }
    let (m, op, bytes) = describe(description);
    let ops_per_s = calls as f64 / us as f64 * 1e6;
    check_printed_rate(n, t, ops_per_s)?;
    Ok(ImportedResult {
        primitive: m.primitive,
        op,
        bytes,
        rate: ops_per_s * bytes.unwrap_or(1) as f64,
        printed_name: description.to_string(),
        mapped: m.mapped,
        line: n,
        samples: Vec::new(),
        cycles: None,
    })
}

/// The printed `(R ops/sec)` must be calls/µs to its printed digits (one decimal).
fn check_printed_rate(n: usize, t: &str, ops_per_s: f64) -> Result<(), ImportError> {
    let Some(open) = t.rfind('(') else {
        return Ok(());
    };
    let Some(printed) = t[open + 1..].split_whitespace().next() else {
        return Ok(());
    };
    let Some(value) = crate::number(printed) else {
        return Err(ImportError::at(
            n,
            format!("'{printed}' is not a rate in ops/sec"),
        ));
    };
    let half = crate::rounding::half_unit(printed);
    if (ops_per_s - value).abs() > half * 1.000_001 + 1e-9 * value.abs() {
        return Err(ImportError::at(
            n,
            format!("the call count and microseconds give {ops_per_s:.1} ops/sec but the line prints {printed}: the line is garbled"),
        ));
    }
    Ok(())
}

fn shape(n: usize, t: &str) -> ImportError {
    ImportError::at(
        n,
        format!("expected 'Did N DESCRIPTION operations in Tus (R ops/sec)', found '{t}'"),
    )
}

/// Maps a `bssl speed` description onto a primitive, an operation and a size:
/// `AES-128-GCM (16 bytes) seal`, AWS-LC's `EVP-AES-128-GCM Encrypt (16 bytes)` and
/// `AEAD-AES-128-GCM seal (16 bytes)`, `SHA-256 (8192 bytes)`, `RSA 2048 signing`,
/// `RSA 2048 verify (fresh key)`, `ECDSA P-256 verify`, `Ed25519 key generation`,
/// `Curve25519 arbitrary point multiplication`, `MLKEM768 decap`.
pub(crate) fn describe(description: &str) -> (Mapped, Op, Option<u64>) {
    let (name, bytes) = split_size(description);
    let fallback = |op: Op| {
        (
            Mapped {
                primitive: names::slug(description),
                mapped: false,
            },
            op,
            bytes,
        )
    };
    if bytes.is_some() {
        return sized(&name, bytes).unwrap_or_else(|| fallback(Op::Encrypt));
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    let lower = name.to_ascii_lowercase();
    match words.as_slice() {
        ["RSA", bits, rest @ ..] => {
            let op = match rest.join(" ").as_str() {
                "signing" => Op::Sign,
                "verify (same key)" | "verify" => Op::Verify,
                "verify (fresh key)" => Op::VerifyFreshKey,
                _ => return fallback(verb_op(&lower)),
            };
            match bits.parse::<u32>() {
                Ok(b) => (names::sized("rsa", b), op, None),
                Err(_) => fallback(op),
            }
        }
        ["ECDSA", curve, verb] => {
            let op = match *verb {
                "signing" => Op::Sign,
                "verify" => Op::Verify,
                _ => return fallback(Op::Sign),
            };
            (names::curve("ecdsa", curve), op, None)
        }
        ["ECDH", curve] => (names::curve("ecdh", curve), Op::Derive, None),
        ["Ed25519", "signing"] => (names::named_scheme("Ed25519"), Op::Sign, None),
        ["Ed25519", "verify"] => (names::named_scheme("Ed25519"), Op::Verify, None),
        ["Ed25519", "key", "generation"] => (names::named_scheme("Ed25519"), Op::Keygen, None),
        ["Kyber", bits, verb] if bits.parse::<u32>().is_ok() => match kem_op(verb) {
            Some(op) => (pre_standard(&format!("kyber-{bits}")), op, None),
            None => fallback(verb_op(&lower)),
        },
        ["HRSS", verb] => match kem_op(verb) {
            Some(op) => (pre_standard("hrss"), op, None),
            None => fallback(verb_op(&lower)),
        },
        _ if lower == "curve25519 arbitrary point multiplication" => {
            (names::curve("ecdh", "X25519"), Op::Derive, None)
        }
        _ if lower == "curve25519 base-point multiplication" => {
            (names::curve("ecdh", "X25519"), Op::Keygen, None)
        }
        [scheme, ..] if !lower.contains(" init") => {
            let m =
                names::table_scheme(scheme, !lower.contains("sign") && !lower.contains("verif"));
            if m.mapped {
                (m, verb_op(&lower), None)
            } else {
                fallback(verb_op(&lower))
            }
        }
        _ => fallback(verb_op(&lower)),
    }
}

/// The operation a pre-standard KEM row names: AWS-LC's `Kyber 512 keygen` / `encapsulate` /
/// `decapsulate`, BoringSSL's `HRSS generate` / `encap` / `decap`.
fn kem_op(verb: &str) -> Option<Op> {
    match verb {
        "keygen" | "generate" => Some(Op::Keygen),
        "encapsulate" | "encap" => Some(Op::Encaps),
        "decapsulate" | "decap" => Some(Op::Decaps),
        _ => None,
    }
}

/// A KEM from before the standard (Kyber round 3, NTRU-HRSS): a primitive of its own, with its
/// keygen / encaps / decaps, marked as not in the catalog.
fn pre_standard(primitive: &str) -> Mapped {
    Mapped {
        primitive: primitive.to_string(),
        mapped: false,
    }
}

/// The name without its `(N bytes)` and the size; the verb stays in the name.
fn split_size(description: &str) -> (String, Option<u64>) {
    match (description.find(" ("), description.find(" bytes)")) {
        (Some(open), Some(close)) if open < close => {
            let size = description[open + 2..close].trim().parse::<u64>().ok();
            let name = format!(
                "{} {}",
                description[..open].trim(),
                description[close + 7..].trim()
            );
            (name.trim().to_string(), size)
        }
        _ => (description.trim().to_string(), None),
    }
}

/// A sized cell: `AES-128-GCM seal`, `AEAD-AES-128-GCM open`, `EVP-AES-128-GCM Encrypt`,
/// `SHA-256`. AWS-LC prefixes the API (`AEAD-`, `EVP-`) it timed the primitive through.
fn sized(name: &str, bytes: Option<u64>) -> Option<(Mapped, Op, Option<u64>)> {
    let mut words: Vec<&str> = name.split_whitespace().collect();
    let verb = match words.last().map(|w| w.to_ascii_lowercase()) {
        Some(v) if matches!(v.as_str(), "seal" | "encrypt") => Some(Op::Encrypt),
        Some(v) if matches!(v.as_str(), "open" | "decrypt") => Some(Op::Decrypt),
        _ => None,
    };
    if verb.is_some() {
        words.pop();
    }
    let primitive = words.join(" ");
    let primitive = primitive
        .strip_prefix("AEAD-")
        .or_else(|| primitive.strip_prefix("EVP-"))
        .unwrap_or(&primitive);
    let (m, default_op) = names::symmetric(primitive, verb == Some(Op::Decrypt));
    if !m.mapped || words.len() != 1 {
        return None;
    }
    Some((m, verb.unwrap_or(default_op), bytes))
}

/// The operation a description's verb names.
pub(crate) fn verb_op(lower: &str) -> Op {
    if lower.contains("verif") {
        Op::Verify
    } else if lower.contains("sign") {
        Op::Sign
    } else if lower.contains("decap") {
        Op::Decaps
    } else if lower.contains("encap") {
        Op::Encaps
    } else if lower.contains("generat") || lower.contains("keygen") {
        Op::Keygen
    } else if lower.contains("open") || lower.contains("decrypt") {
        Op::Decrypt
    } else if lower.contains("seal") || lower.contains("encrypt") {
        Op::Encrypt
    } else {
        Op::Derive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_map_onto_the_catalog() {
        let d = |s| {
            let (m, op, b) = describe(s);
            (m.primitive, op, b, m.mapped)
        };
        assert_eq!(
            d("AES-128-GCM (16 bytes) seal"),
            ("aes-128-gcm".into(), Op::Encrypt, Some(16), true)
        );
        assert_eq!(
            d("AES-256-GCM (8192 bytes) open"),
            ("aes-256-gcm".into(), Op::Decrypt, Some(8192), true)
        );
        assert_eq!(
            d("ChaCha20-Poly1305 (1350 bytes) seal"),
            ("chacha20-poly1305".into(), Op::Encrypt, Some(1350), true)
        );
        assert_eq!(
            d("SHA-256 (8192 bytes)"),
            ("sha256".into(), Op::Hash, Some(8192), true)
        );
        assert_eq!(
            d("RSA 2048 signing"),
            ("rsa-2048".into(), Op::Sign, None, true)
        );
        assert_eq!(
            d("RSA 2048 verify (same key)"),
            ("rsa-2048".into(), Op::Verify, None, true)
        );
        assert_eq!(
            d("RSA 2048 verify (fresh key)"),
            ("rsa-2048".into(), Op::VerifyFreshKey, None, true)
        );
        assert!(!d("RSA 2048 private key parse").3);
        assert_eq!(
            d("EVP-AES-128-GCM Encrypt (16 bytes)"),
            ("aes-128-gcm".into(), Op::Encrypt, Some(16), true)
        );
        assert_eq!(
            d("AEAD-AES-128-GCM open (1350 bytes)"),
            ("aes-128-gcm".into(), Op::Decrypt, Some(1350), true)
        );
        assert_eq!(
            d("AEAD-AES-128-GCM (16 bytes) seal"),
            ("aes-128-gcm".into(), Op::Encrypt, Some(16), true)
        );
        assert!(!d("AEAD-AES-128-GCM seal init").3);
        assert_eq!(
            d("MLKEM768 decap"),
            ("ml-kem-768".into(), Op::Decaps, None, true)
        );
        assert_eq!(
            d("ML-DSA-65 signing"),
            ("ml-dsa-65".into(), Op::Sign, None, true)
        );
        assert_eq!(
            d("ECDSA P-256 signing"),
            ("ecdsa-p256".into(), Op::Sign, None, true)
        );
        assert_eq!(
            d("ECDH P-384"),
            ("ecdh-p384".into(), Op::Derive, None, true)
        );
        assert_eq!(
            d("Curve25519 arbitrary point multiplication"),
            ("x25519".into(), Op::Derive, None, true)
        );
        assert_eq!(
            d("Ed25519 signing"),
            ("ed25519".into(), Op::Sign, None, true)
        );
    }

    /// The pre-standard KEM rows as `bssl speed` printed them: AWS-LC's `SpeedKEM` (Kyber) and
    /// BoringSSL's `SpeedHRSS` (`results.Print("HRSS generate")`, `"HRSS encap"`,
    /// `"HRSS decap"` in tool/speed.cc): one primitive each, three operations, not in the catalog.
    #[test]
    fn pre_standard_kems_are_one_primitive_with_three_operations() {
        let d = |s: &str| {
            let (m, op, b) = describe(s);
            (m.primitive, op, b, m.mapped)
        };
        for (row, op) in [
            ("Kyber 512 keygen", Op::Keygen),
            ("Kyber 512 encapsulate", Op::Encaps),
            ("Kyber 512 decapsulate", Op::Decaps),
        ] {
            assert_eq!(d(row), ("kyber-512".into(), op, None, false), "{row}");
        }
        assert_eq!(d("Kyber 768 keygen").0, "kyber-768");
        for (row, op) in [
            ("HRSS generate", Op::Keygen),
            ("HRSS encap", Op::Encaps),
            ("HRSS decap", Op::Decaps),
        ] {
            assert_eq!(d(row), ("hrss".into(), op, None, false), "{row}");
        }
        // Anything else under those names stays whole, under its own name.
        assert_eq!(d("HRSS parse").0, "hrss-parse");
    }
}
