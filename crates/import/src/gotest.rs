//! `go test -bench` output, the Go world's benchmark format (and what `benchstat` reads):
//! `goos:`/`goarch:`/`pkg:`/`cpu:` lines, then `BenchmarkHash8K/New-2  123  456.7 ns/op
//! 17.9 MB/s  0 B/op  0 allocs/op`. With `-count N` each benchmark prints N lines: they are N
//! samples of one cell (as benchstat reads them), its figure their median, its interval theirs.
//! The standard library's `crypto/...` benchmarks map onto catalog cells (`crypto/mlkem`'s onto
//! ML-KEM-768's operations, see [`mlkem`]); any other name is kept as `go-<package>-<name>`,
//! listed as not in the catalog.

use crate::names::{self, Mapped};
use crate::{
    cpu_line, number, numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun,
    LogFormat, ParsedLog, CLOCK_GHZ, CPU_MODEL,
};
use cryptospeed_model::Op;

pub struct GoTest;

impl LogFormat for GoTest {
    fn name(&self) -> &'static str {
        "go-test-bench"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines()
            .any(|l| l.starts_with("Benchmark") && l.split_whitespace().any(|w| w == "ns/op"))
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut config: Vec<(String, String)> = Vec::new();
        let mut pkg = String::new();
        // `show --format gobench` writes `variant: LABEL` above each variant's lines.
        let mut variant: Option<String> = None;
        for (n, line) in numbered_lines(text) {
            let t = line.trim_end();
            if let Some((key, value)) = config_line(t) {
                match key.as_str() {
                    "pkg" => pkg = value.clone(),
                    "variant" => {
                        variant = Some(value);
                        continue;
                    }
                    _ => {}
                }
                if !config.iter().any(|(k, v)| *k == key && *v == value) {
                    config.push((key, value));
                }
            } else if t.starts_with("Benchmark") {
                // A garbled or cut line (a paste ending mid-line) costs that line, said.
                match benchmark_line(n, t, &pkg) {
                    Ok(result) => place(&mut log.runs, result, n, variant.as_deref()),
                    Err(e) => {
                        log.warnings.push(format!("{e}: that line is skipped"));
                        log.skipped.push((n, line.to_string()));
                    }
                }
            } else if !is_go_noise(t) {
                log.skipped.push((n, line.to_string()));
            }
        }
        for run in &mut log.runs {
            finish(run, &config);
        }
        Ok(log)
    }
}

/// `goos: linux`, `pkg: crypto/sha256`, `cpu: Intel(R) Xeon(R) CPU @ 2.20GHz` (any
/// `key: value` line before the benchmarks, as benchstat reads them).
fn config_line(t: &str) -> Option<(String, String)> {
    let (key, value) = t.split_once(": ")?;
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    plain.then(|| (key.to_string(), value.trim().to_string()))
}

/// `PASS`, `ok  crypto/sha256 20.9s`, `FAIL`, `--- BENCH:` and its indented log lines.
fn is_go_noise(t: &str) -> bool {
    t.is_empty()
        || t == "PASS"
        || t.starts_with("ok  \t")
        || t.starts_with("ok ")
        || t.starts_with("? ")
}

/// A repeated benchmark (`-count N`) adds a sample to the cell its first line made; each
/// `variant:` of cryptospeed's own export is an output of its own.
fn place(runs: &mut Vec<ImportedRun>, result: ImportedResult, n: usize, variant: Option<&str>) {
    let implementation = variant.unwrap_or("go");
    let k = match runs.iter().position(|r| r.implementation == implementation) {
        Some(k) => k,
        None => {
            runs.push(ImportedRun {
                format: "go-test-bench".into(),
                implementation: implementation.into(),
                first_line: n,
                ..Default::default()
            });
            runs.len() - 1
        }
    };
    let run = &mut runs[k];
    run.last_line = n;
    let same = |r: &&mut ImportedResult| {
        r.primitive == result.primitive
            && r.op == result.op
            && r.bytes == result.bytes
            && r.printed_name == result.printed_name
    };
    match run.results.iter_mut().find(same) {
        Some(first) => first.samples.extend(result.samples),
        None => run.results.push(result),
    }
}

/// A cell's figure is the median of its repetitions; a single line is one figure, no samples.
fn settle_samples(run: &mut ImportedRun) {
    for r in &mut run.results {
        if r.samples.len() < 2 {
            r.samples.clear();
            continue;
        }
        // benchstat's median is of the printed time per operation; the rate is its inverse
        // (as the stored figure, the median of the samples' ns, is).
        let mut rates: Vec<f64> = r.samples.iter().map(|(_, rate)| *rate).collect();
        rates.sort_by(f64::total_cmp);
        let n = rates.len();
        r.rate = match n % 2 {
            1 => rates[n / 2],
            // The mean of the two middle times, as a rate: their rates' harmonic mean.
            _ => {
                let (a, b) = (rates[n / 2 - 1], rates[n / 2]);
                2.0 * a * b / (a + b)
            }
        };
    }
}

fn finish(run: &mut ImportedRun, config: &[(String, String)]) {
    settle_samples(run);
    if run
        .results
        .iter()
        .any(|r| r.printed_name.starts_with("crypto/mlkem "))
    {
        run.set("definitions", MLKEM_DEFINITIONS);
    }
    for (k, v) in config {
        match run.field(k) {
            Some(old) if old != v => {
                let joined = format!("{old}, {v}");
                run.set(k, joined);
            }
            Some(_) => {}
            None => run.set(k, v.clone()),
        }
    }
    if let Some((model, ghz)) = run.field("cpu").and_then(cpu_line) {
        run.set(CLOCK_GHZ, format!("{ghz}"));
        run.set(CPU_MODEL, model);
    } else if let Some(cpu) = run.field("cpu").map(str::to_string) {
        run.set(CPU_MODEL, cpu);
    }
    if let Some(arch) = run.field("goarch").map(str::to_string) {
        run.set("platform", arch);
    }
}

/// One result line: the name, the iteration count, then value-unit pairs; the rate comes from
/// `ns/op` (bytes/s for a cell with a size).
fn benchmark_line(n: usize, t: &str, pkg: &str) -> Result<ImportedResult, ImportError> {
    let tokens: Vec<&str> = t.split_whitespace().collect();
    let bad = |what: &str| {
        ImportError::at(
            n,
            format!("expected 'BenchmarkNAME  N  V ns/op …' ({what}), found '{t}'"),
        )
    };
    if tokens.len() < 4 || !tokens.len().is_multiple_of(2) {
        return Err(bad("a name, an iteration count and value-unit pairs"));
    }
    let iters = tokens[1]
        .parse::<u64>()
        .map_err(|_| bad("an iteration count"))?;
    let mut ns = None;
    for pair in tokens[2..].chunks(2) {
        let v = number(pair[0]).ok_or_else(|| bad(&format!("'{}' is not a number", pair[0])))?;
        if pair[1] == "ns/op" {
            ns = Some(v);
        }
    }
    let ns = ns
        .filter(|v| *v > 0.0)
        .ok_or_else(|| bad("a positive ns/op"))?;
    let name = strip_procs(tokens[0]);
    let (m, op, bytes) = map_name(pkg, name);
    let rate = 1e9 / ns * bytes.unwrap_or(1) as f64;
    Ok(ImportedResult {
        primitive: m.primitive,
        op,
        bytes,
        rate,
        // Without a `pkg:` line the name alone, not a leading space.
        printed_name: format!("{pkg} {name}").trim_start().to_string(),
        mapped: m.mapped,
        line: n,
        samples: vec![(iters, rate)],
        cycles: None,
    })
}

/// `BenchmarkHash8K/New-2` → `BenchmarkHash8K/New` (the `-GOMAXPROCS` suffix).
fn strip_procs(name: &str) -> &str {
    match name.rsplit_once('-') {
        Some((head, procs)) if procs.chars().all(|c| c.is_ascii_digit()) && !procs.is_empty() => {
            head
        }
        _ => name,
    }
}

/// The catalog cell of a standard-library benchmark, else the name kept.
fn map_name(pkg: &str, name: &str) -> (Mapped, Op, Option<u64>) {
    let bare = name.strip_prefix("Benchmark").unwrap_or(name);
    let found = digest(pkg, bare)
        .or_else(|| public_key(pkg, bare))
        .or_else(|| mlkem(pkg, bare))
        .or_else(|| own_export(pkg, bare));
    if let Some(found) = found {
        return found;
    }
    let kept = names::slug(&format!(
        "go {} {bare}",
        pkg.rsplit('/').next().unwrap_or(pkg)
    ));
    let m = Mapped {
        primitive: kept,
        mapped: false,
    };
    (m, guess_op(bare), None)
}

/// `crypto/sha256` `Hash8K/Sum224`, `crypto/sha512` `Hash1K/Sum384`, `crypto/md5` `Hash8Bytes`
/// (`…/New` kept as `go-sha256-new`).
fn digest(pkg: &str, bare: &str) -> Option<(Mapped, Op, Option<u64>)> {
    let family = pkg.strip_prefix("crypto/")?;
    if !["md5", "sha1", "sha256", "sha512", "sha3"].contains(&family) {
        return None;
    }
    let (size, variant) = bare.split_once('/').unwrap_or((bare, ""));
    let bytes = match size.strip_prefix("Hash")? {
        "8Bytes" => 8,
        "320Bytes" => 320,
        "1K" => 1024,
        "8K" => 8192,
        "256K" => 262144,
        "1M" => 1 << 20,
        _ => return None,
    };
    if variant == "New" {
        // Through hash.Hash (New, Write, Sum): a second figure of the digest, kept apart from
        // the one-shot Sum that the catalog's cell (and openssl speed) times.
        let m = Mapped {
            primitive: format!("go-{family}-new"),
            mapped: false,
        };
        return Some((m, Op::Hash, Some(bytes)));
    }
    let id = match (family, variant) {
        (_, "Sum224") => "sha224",
        (_, "Sum384") => "sha384",
        (_, "Sum512") | ("sha512", "") => "sha512",
        (_, "Sum256") | ("sha256", "") => "sha256",
        ("md5", "") => "md5",
        ("sha1", "") => "sha1",
        _ => return None,
    };
    Some((names::symmetric(id, false).0, Op::Hash, Some(bytes)))
}

/// `crypto/ecdsa` `Sign/P256`, `Verify/P384`, `GenerateKey/P521`; `crypto/ed25519` `Signing`,
/// `Verification`, `KeyGeneration`.
fn public_key(pkg: &str, bare: &str) -> Option<(Mapped, Op, Option<u64>)> {
    let (what, curve) = bare.split_once('/').unwrap_or((bare, ""));
    let op = match what {
        "Sign" | "Signing" => Op::Sign,
        "Verify" | "Verification" => Op::Verify,
        "GenerateKey" | "KeyGeneration" => Op::Keygen,
        _ => return None,
    };
    let m = match pkg {
        "crypto/ecdsa" if curve.starts_with('P') => names::curve("ecdsa", curve),
        "crypto/ed25519" if curve.is_empty() => names::named_scheme("ed25519"),
        _ => return None,
    };
    m.mapped.then_some((m, op, None))
}

/// What each `crypto/mlkem` benchmark times, in the catalog's words (stored with the run).
const MLKEM_DEFINITIONS: &str = "crypto/mlkem: KeyGen = ml-kem-768 keygen (from one fixed seed, \
the encapsulation key encoded); Encaps = ml-kem-768 encaps+parse; Decaps = ml-kem-768 decaps; \
RoundTrip/Alice and RoundTrip/Bob kept under their own names";

/// `crypto/mlkem` (Go 1.24+), whose benchmarks are all ML-KEM-768 (mlkem_test.go):
/// `KeyGen` is `GenerateKeyInternal768(d, z)` and the encapsulation key's `Bytes()`, i.e. keygen
/// from a seed (fixed across iterations) with the public key encoded: catalog `keygen`;
/// `Encaps` is `NewEncapsulationKey768(bytes)` then `Encapsulate()`: `encaps+parse`; `Decaps`
/// is `Decapsulate(c)` on a key object: `decaps`. `RoundTrip/Alice` (keygen + decaps) and
/// `RoundTrip/Bob` (the same work as `Encaps`) time no single operation: kept by name.
fn mlkem(pkg: &str, bare: &str) -> Option<(Mapped, Op, Option<u64>)> {
    if pkg != "crypto/mlkem" {
        return None;
    }
    let op = match bare {
        "KeyGen" => Op::Keygen,
        "Encaps" => Op::EncapsParse,
        "Decaps" => Op::Decaps,
        _ => return None,
    };
    Some((names::named_scheme("ml-kem-768"), op, None))
}

/// cryptospeed's own `show --format gobench` (`pkg: cryptospeed`): `PRIMITIVE/OP[/BYTES]`.
fn own_export(pkg: &str, bare: &str) -> Option<(Mapped, Op, Option<u64>)> {
    if pkg != "cryptospeed" {
        return None;
    }
    let mut parts = bare.split('/');
    let (primitive, op) = (parts.next()?, Op::parse(parts.next()?)?);
    let bytes = match parts.next() {
        Some(b) => Some(b.parse().ok()?),
        None => None,
    };
    Some((names::named_scheme(primitive), op, bytes))
}

fn guess_op(bare: &str) -> Op {
    let has = |w: &str| bare.to_ascii_lowercase().contains(w);
    if has("verify") {
        Op::Verify
    } else if has("sign") {
        Op::Sign
    } else if has("generatekey") || has("keygen") {
        Op::Keygen
    } else if has("decap") {
        Op::Decaps
    } else if has("encap") {
        Op::Encaps
    } else if has("decrypt") || has("open") {
        Op::Decrypt
    } else if has("encrypt") || has("seal") {
        Op::Encrypt
    } else if has("mac") {
        Op::Mac
    } else {
        Op::Hash
    }
}
