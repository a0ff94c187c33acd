//! wolfCrypt's `benchmark` output (wolfcrypt/benchmark/benchmark.c): a `wolfCrypt Benchmark
//! (block bytes 1024, min 1.0 sec each)` header, then symmetric lines `AES-128-CBC-enc  10 MB
//! took 1.002 seconds,  9.819 MB/s` and public-key lines `RSA  2048 public  222 ops took 1.007
//! sec, avg 4.536 ms, 220.457 ops/sec` (newer versions add cycle columns after the rate). The
//! figure is the printed rate: MB/s and KB/s (MiB/s, KiB/s in 5.6+) are binary (2^20, 2^10:
//! benchmark.c's default `base2`) at the header's block size; ops/sec as printed. Known names
//! map onto the catalog (`RSA public`/`private` are wolfCrypt's default public encrypt / private
//! decrypt, `sign` and `verify` with `-rsa-sign`); the rest keep their names, less a trailing
//! verb that names the operation (`FALCON 1 sign`, `FRODOKEM 640 SHAKE 128 key gen`, `-kg`).
//! A public-key row's `Cycles/op` is its cycles per call (the rate stays the printed one; the
//! clock, where none is printed, is worked out from them: lib.rs `clock_from_cycles`).

use crate::names::{self, Mapped};
use crate::{
    number, numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat,
    ParsedLog,
};
use cryptospeed_model::Op;

pub struct WolfCrypt;

impl LogFormat for WolfCrypt {
    fn name(&self) -> &'static str {
        "wolfcrypt-benchmark"
    }

    fn sniff(&self, text: &str) -> bool {
        text.contains("wolfCrypt Benchmark") || text.lines().any(|l| rate_line(l).is_some())
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut block = 1024;
        let mut run: Option<ImportedRun> = None;
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if let Some(b) = block_bytes(t) {
                block = b;
                if run.as_ref().is_some_and(|r| !r.results.is_empty()) {
                    log.runs.extend(run.take());
                }
            } else if let Some(version) = t.strip_prefix("wolfSSL version ") {
                new_run(&mut run, n).set("version", version.trim());
            } else if let Some((name, rate, per_op)) = rate_line(t) {
                // A public-key row naming no operation (`kyber_level1-ed`) costs that row, said.
                match result(n, &name, rate, per_op, block) {
                    Some(mut res) => {
                        res.cycles = cycles_per_op(t).filter(|_| per_op);
                        let r = new_run(&mut run, n);
                        r.last_line = n;
                        r.results.push(res);
                    }
                    None => {
                        log.warnings.push(format!(
                            "line {n}: wolfCrypt row `{name}` names no operation this importer \
                             knows (encaps and decaps timed together?): that line is skipped"
                        ));
                        log.skipped.push((n, line.to_string()));
                    }
                }
            } else if !(t.is_empty() || t.starts_with("---") || t == "Benchmark complete") {
                log.skipped.push((n, line.to_string()));
            }
        }
        log.runs.extend(run.filter(|r| !r.results.is_empty()));
        for run in &mut log.runs {
            crate::clock_from_cycles(run, "Cycles/op");
        }
        Ok(log)
    }
}

fn new_run(run: &mut Option<ImportedRun>, n: usize) -> &mut ImportedRun {
    run.get_or_insert_with(|| ImportedRun {
        format: "wolfcrypt-benchmark".into(),
        implementation: "wolfssl".into(),
        first_line: n,
        last_line: n,
        ..Default::default()
    })
}

/// `wolfCrypt Benchmark (block bytes 1024, min 1.0 sec each)` → 1024.
fn block_bytes(t: &str) -> Option<u64> {
    let rest = t.split_once("(block bytes ")?.1;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A result line: the name, the rate (bytes/s, or ops/s for `per_op`).
fn rate_line(t: &str) -> Option<(String, f64, bool)> {
    if let Some((head, tail)) = t.split_once(" ops took ") {
        let rate = tail.split(',').find_map(|f| {
            let f = f.trim();
            number(f.strip_suffix(" ops/sec")?.trim())
        })?;
        let (name, _count) = head.trim().rsplit_once(char::is_whitespace)?;
        return Some((squeeze(name), rate, true));
    }
    symmetric_line(t)
}

/// `…, 2555478000 cycles  5110956.0 Cycles/op` after a public-key row's rate: the cycles per op.
fn cycles_per_op(t: &str) -> Option<f64> {
    let head = t.strip_suffix("Cycles/op")?.trim_end();
    let value = head.rsplit(char::is_whitespace).next()?;
    number(value).filter(|c| *c > 0.0)
}

/// `AES-128-CBC-enc  10 MB took 1.002 seconds,  9.819 MB/s`: the name and bytes per second.
fn symmetric_line(t: &str) -> Option<(String, f64, bool)> {
    let (head, tail) = t.split_once(" took ")?;
    let rate_field = tail.split(',').nth(1)?.trim();
    let (value, unit) = rate_field.split_once(' ')?;
    let scale = match unit.trim() {
        // wolfSSL 5.6+ says KiB/MiB/GiB for the same binary units.
        "KB/s" | "KiB/s" => 1024.0,
        "MB/s" | "MiB/s" => 1048576.0,
        "GB/s" | "GiB/s" => 1073741824.0,
        _ => return None,
    };
    let mut words: Vec<&str> = head.split_whitespace().collect();
    words.truncate(words.len().checked_sub(2)?); // the amount and its unit
    Some((words.join(" "), number(value)? * scale, false))
}

/// `RSA     2048 public` → `RSA 2048 public`.
fn squeeze(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The row as a result; `None` for a public-key row whose operation is not known.
fn result(n: usize, name: &str, rate: f64, per_op: bool, block: u64) -> Option<ImportedResult> {
    let (m, op, bytes) = if per_op {
        let (m, op) = public_key(name).or_else(|| kept_operation(name))?;
        (m, op, None)
    } else {
        let (m, op) = symmetric(name);
        (m, op, Some(block))
    };
    Some(ImportedResult {
        primitive: m.primitive,
        op,
        bytes,
        rate,
        printed_name: name.to_string(),
        mapped: m.mapped,
        line: n,
        samples: Vec::new(),
        cycles: None,
    })
}

/// A public-key row the catalog does not know (`FALCON 1 sign`, `FRODOKEM 640 SHAKE 128 key
/// gen`, `kyber_level1-kg`): its trailing verb is the operation, the rest the kept name, so the
/// rows of one scheme share a primitive. A row with no verb known (`kyber_level1-ed`, encaps and
/// decaps together) is `None`: no one operation is timed, so the caller skips it with a warning.
fn kept_operation(name: &str) -> Option<(Mapped, Op)> {
    let lower = name.to_ascii_lowercase();
    let verbs: [(&str, Op); 9] = [
        (" key gen", Op::Keygen),
        (" keygen", Op::Keygen),
        ("-kg", Op::Keygen),
        (" encap", Op::Encaps),
        (" decap", Op::Decaps),
        (" sign", Op::Sign),
        (" verify", Op::Verify),
        ("-sign", Op::Sign),
        ("-verify", Op::Verify),
    ];
    for (verb, op) in verbs {
        if let Some(base) = lower.strip_suffix(verb) {
            return Some(kept(&name[..base.len()], op));
        }
    }
    None
}

fn kept(name: &str, op: Op) -> (Mapped, Op) {
    let m = Mapped {
        primitive: names::slug(&format!("wolfcrypt {name}")),
        mapped: false,
    };
    (m, op)
}

/// `AES-128-CBC-enc`, `SHA-256`, `HMAC-SHA256`, `CHA-POLY` in openssl's spellings.
fn symmetric(name: &str) -> (Mapped, Op) {
    let lower = name.to_ascii_lowercase();
    let (base, decrypt) = match (lower.strip_suffix("-enc"), lower.strip_suffix("-dec")) {
        (Some(b), _) => (b.to_string(), false),
        (_, Some(b)) => (b.to_string(), true),
        _ => (lower.clone(), false),
    };
    let spelled = match base.as_str() {
        "sha" => "sha1".to_string(),
        "chacha" => "chacha20".to_string(),
        "cha-poly" => "chacha20-poly1305".to_string(),
        b if b.starts_with("hmac-") => format!("hmac({})", digest(&b[5..])),
        b => digest(b),
    };
    let (m, op) = names::symmetric(&spelled, decrypt);
    if m.mapped {
        (m, op)
    } else {
        kept(name, op)
    }
}

/// `sha-256` → `sha256`, `sha` → `sha1`, `sha3-256` unchanged.
fn digest(d: &str) -> String {
    match d {
        "sha" => "sha1".into(),
        d if d.starts_with("sha-") => format!("sha{}", &d[4..]),
        d => d.into(),
    }
}

/// `RSA 2048 public`, `ECDHE 256 agree`, `ECDSA 256 sign`, `ED 25519 verify`,
/// `ML-KEM 768 128 key gen`, `ML-DSA 65 sign`.
fn public_key(name: &str) -> Option<(Mapped, Op)> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let (family, size) = (*words.first()?, *words.get(1)?);
    let what = words[2..].join(" ");
    let what = what.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    let op = match what {
        "public" => Op::Encrypt,
        "private" => Op::Decrypt,
        "sign" => Op::Sign,
        "verify" => Op::Verify,
        "key gen" => Op::Keygen,
        "agree" => Op::Derive,
        "encap" => Op::Encaps,
        "decap" => Op::Decaps,
        _ => return None,
    };
    let m = match family {
        "RSA" => names::sized("rsa", size.parse().ok()?),
        "ECDHE" => names::curve("ecdh", &format!("p{size}")),
        "ECDSA" => names::curve("ecdsa", &format!("p{size}")),
        "ED" if size == "25519" => names::named_scheme("ed25519"),
        "ML-KEM" => names::named_scheme(&format!("ml-kem-{size}")),
        "ML-DSA" => names::named_scheme(&format!("ml-dsa-{size}")),
        _ => return None,
    };
    m.mapped.then_some((m, op))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of wolfSSL 5.0.1's `benchmark -pq` (wolfSSL/wolfssl pull 4607, stored in
    /// tests/real-more/wolfssl-pr4607-pq.txt): `-ed` times encaps and decaps together.
    const PQ: &str = "wolfCrypt Benchmark (block bytes 1048576, min 1.0 sec each)
kyber_level1-kg     126329 ops took 1.000 sec, avg 0.008 ms, 126328.127 ops/sec
kyber_level1-ed      52600 ops took 1.000 sec, avg 0.019 ms, 52596.213 ops/sec
FALCON     1 sign         4900 ops took 1.005 sec, avg 0.205 ms, 4876.147 ops/sec
";

    #[test]
    fn a_row_naming_no_operation_is_skipped_with_a_warning_naming_it() {
        let log = WolfCrypt.parse(PQ, &ImportOptions::default()).unwrap();
        let results = &log.runs[0].results;
        let got: Vec<(&str, Op)> = results
            .iter()
            .map(|r| (r.printed_name.as_str(), r.op))
            .collect();
        assert_eq!(
            got,
            [("kyber_level1-kg", Op::Keygen), ("FALCON 1 sign", Op::Sign)]
        );
        assert_eq!(log.warnings.len(), 1, "{:?}", log.warnings);
        assert!(log.warnings[0].starts_with("line 3: wolfCrypt row `kyber_level1-ed`"));
        assert!(log.warnings[0].ends_with("that line is skipped"));
        assert_eq!(log.skipped.len(), 1);
        assert_eq!(log.skipped[0].0, 3);
        assert!(log.skipped[0].1.starts_with("kyber_level1-ed"));
    }
}
