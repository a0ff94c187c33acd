//! Google Benchmark console output: BoringSSL's benchmark today is `bssl_bench` (Google Benchmark,
//! `BM_SpeedAEAD/seal_aes_128_gcm/InputSize:16   80.4 ns   80.2 ns   866505 bytes_per_second=…`),
//! and AWS-LC, mlkem-native and many crypto projects publish such logs. This file reads the
//! console form and holds what the JSON form (`gbench_json.rs`) shares with it: `bssl_bench`'s
//! names, and other projects' `NAME/BYTES` benchmarks of a catalog hash or cipher, mapped onto
//! catalog cells (any other name kept, lowercased with dashes), repetitions
//! as outputs and the `_mean` aggregate checked against them.
//!
//! The figure is the `Time` column (wall time per iteration, as `openssl speed`, `bssl speed` and
//! `go test -bench` time), not `CPU`. With `--benchmark_repetitions=N` the k-th repetition of every
//! benchmark goes to output k (the outputs pool as runs of one label); `_median`, `_stddev`, `_cv`
//! are skipped and `_mean` must agree with the repetitions' mean, or, printed alone
//! (`--benchmark_report_aggregates_only`), is the one figure kept.

use crate::names::{self, Mapped};
use crate::{
    number, numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat,
    ParsedLog, CLOCK_GHZ,
};
use cryptospeed_model::Op;

pub struct GbenchConsole;

/// One printed benchmark row, console or JSON.
pub(crate) struct Row {
    pub name: String,
    pub line: usize,
    /// Wall time per iteration in nanoseconds.
    pub real_ns: f64,
    /// `mean`, `median`, `stddev`, `cv` for an aggregate row.
    pub aggregate: Option<String>,
}

impl LogFormat for GbenchConsole {
    fn name(&self) -> &'static str {
        "google-benchmark"
    }

    fn sniff(&self, text: &str) -> bool {
        let header = text.lines().any(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() >= 4 && w[..4] == ["Benchmark", "Time", "CPU", "Iterations"]
        });
        // Rows pasted without their header (a README, an issue comment): every line one.
        let rows = || {
            let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
            lines.peek().is_some()
                && lines.all(|l| matches!(console_row(0, l.trim_end()), Ok(Some(_))))
        };
        header || rows()
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut context: Vec<(String, String)> = Vec::new();
        let mut rows = Vec::new();
        for (n, line) in numbered_lines(text) {
            let t = line.trim_end();
            if let Some(row) = console_row(n, t)? {
                rows.push(row);
            } else if !context_line(t, &mut context) {
                log.skipped.push((n, line.to_string()));
            }
        }
        log.runs = assemble(self.name(), rows, &context, 0.006)?;
        Ok(log)
    }
}

/// The lines Google Benchmark prints around its table (stderr, merged by `2>&1`): the date,
/// `Running PATH`, `Run on (2 X 2596.13 MHz CPU s)`, caches, load, warnings, the table header.
fn context_line(t: &str, context: &mut Vec<(String, String)>) -> bool {
    let s = t.trim();
    if let Some(exe) = s.strip_prefix("Running ") {
        context.push(("executable".into(), exe.trim().into()));
    } else if let Some(inner) = s.strip_prefix("Run on (").and_then(|r| r.strip_suffix(')')) {
        let w: Vec<&str> = inner.split_whitespace().collect();
        if let (Some(cpus), Some(mhz)) = (w.first(), w.get(2).and_then(|m| number(m))) {
            context.push(("num_cpus".into(), cpus.to_string()));
            context.push((CLOCK_GHZ.into(), format!("{}", mhz / 1000.0)));
        }
    } else if s.len() >= 19 && s.as_bytes()[4] == b'-' && s.as_bytes()[10] == b'T' {
        context.push(("date".into(), s.into()));
    } else {
        let known = s.is_empty()
            || s.chars().all(|c| c == '-')
            || s.starts_with("CPU Caches:")
            || s.starts_with("L1 ")
            || s.starts_with("L2 ")
            || s.starts_with("L3 ")
            || s.starts_with("Load Average:")
            || s.starts_with("***WARNING***")
            || s.starts_with("Benchmark ");
        return known;
    }
    true
}

/// `NAME  80.4 ns  80.2 ns  866505 [counters]`; the name may hold spaces, so the row is found at
/// the first `value unit value unit count` run of tokens. `None` for a line that is no row.
fn console_row(n: usize, t: &str) -> Result<Option<Row>, ImportError> {
    let w: Vec<&str> = t.split_whitespace().collect();
    let at = (1..w.len().saturating_sub(4)).find(|&i| {
        number(w[i]).is_some()
            && (unit_ns(w[i + 1]).is_some() || w[i + 1] == "%")
            && number(w[i + 2]).is_some()
            && w[i + 4].bytes().all(|b| b.is_ascii_digit())
    });
    let Some(i) = at else { return Ok(None) };
    let name = w[..i].join(" ");
    let (base, aggregate) = split_aggregate(&name);
    if aggregate.as_deref() == Some("cv") {
        return Ok(Some(Row {
            name: base,
            line: n,
            real_ns: 0.0,
            aggregate,
        }));
    }
    let per = unit_ns(w[i + 1])
        .ok_or_else(|| ImportError::at(n, format!("'{}' is not a time unit in '{t}'", w[i + 1])))?;
    let real_ns = number(w[i]).unwrap() * per;
    Ok(Some(Row {
        name: base,
        line: n,
        real_ns,
        aggregate,
    }))
}

fn unit_ns(unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(1.0),
        "us" => Some(1e3),
        "ms" => Some(1e6),
        "s" => Some(1e9),
        _ => None,
    }
}

/// `BM_x/threads:1_mean` → (`BM_x/threads:1`, `mean`).
pub(crate) fn split_aggregate(name: &str) -> (String, Option<String>) {
    for agg in ["mean", "median", "stddev", "cv"] {
        if let Some(base) = name.strip_suffix(&format!("_{agg}")) {
            return (base.to_string(), Some(agg.to_string()));
        }
    }
    (name.to_string(), None)
}

/// Rows into outputs: the k-th repetition of each benchmark into output k, every `_mean` checked
/// against its repetitions (relative `tolerance`: the console rounds to three digits) or kept
/// when it was printed alone.
pub(crate) fn assemble(
    format: &str,
    rows: Vec<Row>,
    context: &[(String, String)],
    tolerance: f64,
) -> Result<Vec<ImportedRun>, ImportError> {
    let mut runs: Vec<ImportedRun> = Vec::new();
    for row in rows.iter().filter(|r| r.aggregate.is_none()) {
        place(&mut runs, format, result(row)?);
    }
    for mean in rows
        .iter()
        .filter(|r| r.aggregate.as_deref() == Some("mean"))
    {
        let reps: Vec<f64> = rows
            .iter()
            .filter(|r| r.aggregate.is_none() && r.name == mean.name)
            .map(|r| r.real_ns)
            .collect();
        if reps.is_empty() {
            let mut kept = result(mean)?;
            kept.printed_name = format!("{}_mean", mean.name);
            place(&mut runs, format, kept);
            continue;
        }
        let avg = reps.iter().sum::<f64>() / reps.len() as f64;
        if (mean.real_ns - avg).abs() > tolerance * avg {
            return Err(ImportError::at(mean.line, format!(
                "'{}_mean' is {} ns but its {} repetitions average {avg:.1} ns: a repetition is missing or garbled",
                mean.name, mean.real_ns, reps.len())));
        }
    }
    for run in &mut runs {
        for (k, v) in context {
            run.set(k, v.clone());
        }
        if run.implementation == "boringssl" {
            run.set("version", "bssl_bench");
        }
    }
    Ok(runs)
}

fn result(row: &Row) -> Result<ImportedResult, ImportError> {
    if !(row.real_ns > 0.0 && row.real_ns.is_finite()) {
        return Err(ImportError::at(
            row.line,
            format!("'{}': the time must be positive", row.name),
        ));
    }
    let (m, op, bytes) = bench_name(&row.name);
    Ok(ImportedResult {
        primitive: m.primitive,
        op,
        bytes,
        rate: 1e9 / row.real_ns * bytes.unwrap_or(1) as f64,
        printed_name: row.name.clone(),
        mapped: m.mapped,
        line: row.line,
        samples: Vec::new(),
        cycles: None,
    })
}

/// The k-th row of a cell goes to output k (its k-th repetition).
fn place(runs: &mut Vec<ImportedRun>, format: &str, result: ImportedResult) {
    let same = |r: &ImportedResult| r.printed_name == result.printed_name;
    let k = runs
        .iter()
        .position(|run| !run.results.iter().any(same))
        .unwrap_or(runs.len());
    if k == runs.len() {
        runs.push(ImportedRun {
            format: format.into(),
            implementation: "google-benchmark".into(),
            first_line: result.line,
            ..Default::default()
        });
    }
    let run = &mut runs[k];
    if result.printed_name.starts_with("BM_Speed") {
        run.implementation = "boringssl".into();
    }
    run.first_line = run.first_line.min(result.line);
    run.last_line = run.last_line.max(result.line);
    run.results.push(result);
}

/// A benchmark name onto a cell: `bssl_bench`'s `BM_Speed…` names (`/threads:1` dropped; with
/// more threads the figure is per thread and kept as `ID-threads-N`), any other name kept.
pub(crate) fn bench_name(name: &str) -> (Mapped, Op, Option<u64>) {
    let mut parts: Vec<&str> = name.split('/').collect();
    let threads = match parts.last().and_then(|p| p.strip_prefix("threads:")) {
        Some(t) => {
            parts.pop();
            t.to_string()
        }
        None => "1".to_string(),
    };
    let bytes = parts
        .iter()
        .find_map(|p| p.strip_prefix("InputSize:"))
        .and_then(|s| s.parse::<u64>().ok());
    let (known, bytes) = match name.strip_prefix("BM_Speed") {
        Some(_) => (bssl_bench(&parts, bytes), bytes),
        None => match sized_bulk(&parts) {
            Some(found) => (Some(found), sized_arg(&parts)),
            None => (None, bytes),
        },
    };
    let (m, op) = known.unwrap_or_else(|| kept(&parts.join("/"), bytes.is_some()));
    if threads == "1" {
        return (m, op, bytes);
    }
    let m = Mapped {
        primitive: format!("{}-threads-{threads}", m.primitive),
        mapped: false,
    };
    (m, op, bytes)
}

fn kept(name: &str, sized: bool) -> (Mapped, Op) {
    let lower = name.to_ascii_lowercase();
    let op = if lower.contains("open") || lower.contains("decrypt") {
        Op::Decrypt
    } else if ["sha", "md5", "hash", "blake"]
        .iter()
        .any(|h| lower.contains(h))
    {
        Op::Hash
    } else if sized || lower.contains("seal") || lower.contains("encrypt") {
        Op::Encrypt
    } else {
        crate::bssl::verb_op(&lower)
    };
    let m = Mapped {
        primitive: names::slug(
            name.strip_prefix("BM_Speed")
                .or_else(|| name.strip_prefix("BM_"))
                .unwrap_or(name),
        ),
        mapped: false,
    };
    (m, op)
}

/// Another project's benchmark of a catalog hash, MAC or cipher with one numeric argument
/// (`bench_sha3::sha3_256/64`, `BM_SHA256/1024`): the argument is read as the message size in
/// bytes, as such benchmarks use it (`state.range(0)` bytes per iteration). Names with more
/// arguments (`shake128/IN/OUT`) or a name the catalog does not know are kept whole.
fn sized_bulk(parts: &[&str]) -> Option<(Mapped, Op)> {
    sized_arg(parts)?;
    let base = parts[0].rsplit("::").next().unwrap_or(parts[0]);
    let base = base.strip_prefix("BM_").unwrap_or(base);
    let (m, op) = names::symmetric(&names::slug(base), false);
    let bulk = matches!(op, Op::Hash | Op::Mac | Op::Encrypt | Op::Decrypt);
    (m.mapped && bulk).then_some((m, op))
}

/// The single numeric argument of `NAME/N`, if that is the name's shape.
fn sized_arg(parts: &[&str]) -> Option<u64> {
    match parts {
        [_, n] => n.parse().ok(),
        _ => None,
    }
}

/// `bssl_bench`'s families (BoringSSL bench/*.cc) whose timed call is the catalog operation.
fn bssl_bench(parts: &[&str], bytes: Option<u64>) -> Option<(Mapped, Op)> {
    let family = parts[0].strip_prefix("BM_Speed")?;
    let arg = parts.get(1).copied().unwrap_or("");
    let extra = parts.len() > 2 + usize::from(bytes.is_some());
    if extra {
        return None; // BM_SpeedAEAD…/IOVecFirst:…: the scatter-gather variant, kept.
    }
    let found = match family {
        "Hash" => (names::symmetric(arg, false).0, Op::Hash),
        "AEAD" => aead(arg)?,
        _ => return public_key(family, arg).or_else(|| pre_standard_kem(family)),
    };
    found.0.mapped.then_some(found)
}

/// HRSS (BoringSSL's pre-standard NTRU-HRSS KEM, not in the catalog): one primitive, `hrss`,
/// with keygen, encaps and decaps, as `bssl speed`'s `HRSS generate/encap/decap` rows.
fn pre_standard_kem(family: &str) -> Option<(Mapped, Op)> {
    let op = match family {
        "HRSSGenerate" => Op::Keygen,
        "HRSSEncap" => Op::Encaps,
        "HRSSDecap" => Op::Decaps,
        _ => return None,
    };
    let m = Mapped {
        primitive: "hrss".into(),
        mapped: false,
    };
    Some((m, op))
}

/// `seal_aes_128_gcm`, `open_chacha20_poly1305` (with a 13-byte TLS AD, as `bssl speed`).
fn aead(arg: &str) -> Option<(Mapped, Op)> {
    let (verb, cipher) = arg.split_once('_')?;
    let op = match verb {
        "seal" => Op::Encrypt,
        "open" => Op::Decrypt,
        _ => return None,
    };
    let (m, _) = names::symmetric(&cipher.replace('_', "-"), op == Op::Decrypt);
    Some((m, op))
}

fn public_key(family: &str, arg: &str) -> Option<(Mapped, Op)> {
    let bits = || arg.parse::<u32>().ok();
    Some(match family {
        "RSASign" => (names::sized("rsa", bits()?), Op::Sign),
        "RSAVerify" => (names::sized("rsa", bits()?), Op::Verify),
        // RSA_new_public_key + RSA_verify per call: `bssl speed`'s "verify (fresh key)".
        "RSAImportKeyAndVerify" => (names::sized("rsa", bits()?), Op::VerifyFreshKey),
        "ECDSASign" => (names::curve("ecdsa", arg), Op::Sign),
        "ECDSAVerify" => (names::curve("ecdsa", arg), Op::Verify),
        "ECDHComputeKey" => (names::curve("ecdh", arg), Op::Derive),
        "Ed25519" => (names::named_scheme("Ed25519"), Op::Keygen),
        "Ed25519Sign" => (names::named_scheme("Ed25519"), Op::Sign),
        "Ed25519Verify" => (names::named_scheme("Ed25519"), Op::Verify),
        "Curve25519BasePointMultiply" => (names::curve("ecdh", "X25519"), Op::Keygen),
        "Curve25519ArbitraryPointMultiply" => (names::curve("ecdh", "X25519"), Op::Derive),
        "MLDSAKeyGen" => (names::named_scheme(arg), Op::Keygen),
        "MLDSASign" => (names::named_scheme(arg), Op::Sign),
        "MLDSAVerify" => (names::named_scheme(arg), Op::Verify),
        // bench/slhdsa.cc times SLH-DSA-SHA2-128s only.
        "SLHDSA" => (names::named_scheme("SLH-DSA-SHA2-128s"), Op::Keygen),
        "SLHDSASign" => (names::named_scheme("SLH-DSA-SHA2-128s"), Op::Sign),
        "SLHDSAVerify" => (names::named_scheme("SLH-DSA-SHA2-128s"), Op::Verify),
        _ => return mlkem(family),
    })
    .filter(|(m, _)| m.mapped)
}

/// `MLKEM768KeyGenOnly`, `EncapOnly`, `DecapOnly` (the other half prepared untimed) and
/// `ParseEncap` (parse the encoded public key, then encapsulate: a TLS client's work).
fn mlkem(family: &str) -> Option<(Mapped, Op)> {
    let rest = family.strip_prefix("MLKEM")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let op = match &rest[digits.len()..] {
        "KeyGenOnly" => Op::Keygen,
        "EncapOnly" => Op::Encaps,
        "DecapOnly" => Op::Decaps,
        "ParseEncap" => Op::EncapsParse,
        _ => return None,
    };
    Some((names::named_scheme(&format!("ML-KEM-{digits}")), op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bssl_bench_names_map_onto_the_catalog() {
        let d = |s| {
            let (m, op, b) = bench_name(s);
            (m.primitive, op, b, m.mapped)
        };
        assert_eq!(
            d("BM_SpeedAEAD/open_aes_128_gcm/InputSize:1350"),
            ("aes-128-gcm".into(), Op::Decrypt, Some(1350), true)
        );
        assert_eq!(
            d("BM_SpeedHash/sha256/InputSize:16/threads:1"),
            ("sha256".into(), Op::Hash, Some(16), true)
        );
        assert_eq!(
            d("BM_SpeedMLKEM768ParseEncap/threads:1"),
            ("ml-kem-768".into(), Op::EncapsParse, None, true)
        );
        assert_eq!(
            d("BM_SpeedMLDSASign/ml_dsa_65/threads:1"),
            ("ml-dsa-65".into(), Op::Sign, None, true)
        );
        assert_eq!(
            d("BM_SpeedECDSAVerify/p256/threads:1"),
            ("ecdsa-p256".into(), Op::Verify, None, true)
        );
        assert_eq!(
            d("BM_SpeedMLKEM768EncapOnly/threads:2"),
            ("ml-kem-768-threads-2".into(), Op::Encaps, None, false)
        );
        let iov =
            d("BM_SpeedAEAD/seal_aes_128_gcm/InputSize:8192/IOVecFirst:1456/IOVecOthers:1456");
        assert!(!iov.3, "{iov:?}");
        // Another project's NAME/BYTES benchmark of a catalog hash maps onto the cell; with two
        // arguments it stays whole.
        assert_eq!(
            d("BM_SHA256/1024"),
            ("sha256".into(), Op::Hash, Some(1024), true)
        );
        assert_eq!(
            d("BM_SHA256/1024/2"),
            ("sha256-1024-2".into(), Op::Hash, None, false)
        );
    }

    #[test]
    fn console_rows_allow_spaces_in_names() {
        let t = "BM_SpeedHashToCurve/hash-to-curve P256_XMD:SHA-256_SSWU_RO_/threads:1   45678 ns   45600 ns   1532";
        let row = console_row(7, t).unwrap().unwrap();
        assert_eq!(
            row.name,
            "BM_SpeedHashToCurve/hash-to-curve P256_XMD:SHA-256_SSWU_RO_/threads:1"
        );
        assert_eq!(row.real_ns, 45678.0);
        assert!(console_row(1, "Benchmark   Time   CPU   Iterations")
            .unwrap()
            .is_none());
    }
}
