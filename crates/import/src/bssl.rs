//! `bssl speed` (BoringSSL, and AWS-LC's copy of it) text output:
//! `Did 1234 AES-128-GCM (16 bytes) seal operations in 1000123us (1233.8 ops/sec): 19.7 MB/s`.
//! The rate is computed from the call count and microseconds, which the line prints exactly.

use crate::names::{self, Mapped};
use crate::{numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat};
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

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<Vec<ImportedRun>, ImportError> {
        let mut run = ImportedRun {
            format: self.name().into(),
            implementation: "boringssl".into(),
            ..Default::default()
        };
        let mut runs = Vec::new();
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            if let Some(cmd) = t.strip_prefix("$ ").or_else(|| t.strip_prefix("# ")) {
                if !run.results.is_empty() {
                    runs.push(std::mem::take(&mut run));
                    run.format = self.name().into();
                    run.implementation = "boringssl".into();
                }
                run.set("command", cmd.trim());
                continue;
            }
            let Some(rest) = t.strip_prefix("Did ") else {
                return Err(ImportError::at(
                    n,
                    format!(
                        "expected 'Did N DESCRIPTION operations in Tus (R ops/sec)', found '{t}'"
                    ),
                ));
            };
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
            if run.results.is_empty() && run.first_line == 0 {
                run.first_line = n;
            }
            let (m, op, bytes) = describe(description);
            let ops_per_s = calls as f64 / us as f64 * 1e6;
            let rate = ops_per_s * bytes.unwrap_or(1) as f64;
            if run
                .results
                .iter()
                .any(|r| r.primitive == m.primitive && r.op == op && r.bytes == bytes)
            {
                runs.push(std::mem::take(&mut run));
                run.format = self.name().into();
                run.implementation = "boringssl".into();
                run.first_line = n;
            }
            run.last_line = n;
            run.results.push(ImportedResult {
                primitive: m.primitive,
                op,
                bytes,
                rate,
                printed_name: description.to_string(),
                mapped: m.mapped,
                line: n,
            });
        }
        if !run.results.is_empty() {
            runs.push(run);
        }
        Ok(runs)
    }
}

fn shape(n: usize, t: &str) -> ImportError {
    ImportError::at(
        n,
        format!("expected 'Did N DESCRIPTION operations in Tus (R ops/sec)', found '{t}'"),
    )
}

/// Maps a `bssl speed` description onto a primitive, an operation and a size:
/// `AES-128-GCM (16 bytes) seal`, `SHA-256 (8192 bytes)`, `RSA 2048 signing`,
/// `ECDSA P-256 verify`, `Ed25519 key generation`, `Curve25519 arbitrary point multiplication`.
pub(crate) fn describe(description: &str) -> (Mapped, Op, Option<u64>) {
    let (name, bytes, tail) = match (description.find(" ("), description.find(" bytes)")) {
        (Some(open), Some(close)) if open < close => {
            let size = description[open + 2..close].trim().parse::<u64>().ok();
            (
                description[..open].trim(),
                size,
                description[close + 7..].trim(),
            )
        }
        _ => (description.trim(), None, ""),
    };
    let words: Vec<&str> = name.split_whitespace().collect();
    let lower = name.to_ascii_lowercase();
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
    // Sized primitives: AEADs and ciphers seal/open (encrypt/decrypt), hashes have no verb.
    if bytes.is_some() {
        let op_from_tail = match tail {
            "seal" | "encrypt" => Some(Op::Encrypt),
            "open" | "decrypt" => Some(Op::Decrypt),
            "" => None,
            _ => return fallback(Op::Encrypt),
        };
        let (m, default_op) = names::symmetric(name, op_from_tail == Some(Op::Decrypt));
        if !m.mapped {
            return fallback(op_from_tail.unwrap_or(default_op));
        }
        return (m, op_from_tail.unwrap_or(default_op), bytes);
    }
    match words.as_slice() {
        ["RSA", bits, rest @ ..] => {
            let op = match rest.join(" ").as_str() {
                "signing" => Op::Sign,
                "verify (same key)" | "verify" => Op::Verify,
                _ => return fallback(Op::Sign),
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
        _ if lower == "curve25519 arbitrary point multiplication" => {
            (names::curve("ecdh", "X25519"), Op::Derive, None)
        }
        _ if lower == "curve25519 base-point multiplication" => {
            (names::curve("ecdh", "X25519"), Op::Keygen, None)
        }
        _ => {
            let op = if lower.contains("verify") {
                Op::Verify
            } else if lower.contains("sign") {
                Op::Sign
            } else if lower.contains("decap") {
                Op::Decaps
            } else if lower.contains("encap") {
                Op::Encaps
            } else if lower.contains("generat") || lower.contains("keygen") {
                Op::Keygen
            } else {
                Op::Derive
            };
            fallback(op)
        }
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
        assert!(!d("RSA 2048 verify (fresh key)").3);
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
}
