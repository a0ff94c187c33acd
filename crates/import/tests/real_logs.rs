//! Imports every real `openssl speed` / `bssl speed` output in tests/real (copied from blog posts,
//! issue threads, course notes and vendor guides; see tests/real/INDEX.toml for where each comes
//! from) and checks every value read by hand from the source, to its printed digits. The corpus,
//! not hand-made fixtures, is what proves "any output since 0.9.x".

use cryptospeed_import::{read, ImportOptions, ImportedRun, ParsedLog};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Index {
    log: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    file: String,
    source: String,
    version: String,
    platform: String,
    modes: Vec<String>,
    spots: Vec<Spot>,
}

/// A value read by hand: a cell's figure, or a header field, as printed.
#[derive(Deserialize)]
struct Spot {
    #[serde(default)]
    run: usize,
    primitive: Option<String>,
    op: Option<String>,
    bytes: Option<u64>,
    field: Option<String>,
    value: String,
    /// `op`: a bssl figure printed in ops/sec for a sized cell.
    per: Option<String>,
    /// `false`: a primitive the catalog does not hold (a pre-standard KEM), kept as one
    /// primitive with its operations but marked as not in the catalog.
    #[serde(default = "in_catalog")]
    catalog: bool,
}

fn in_catalog() -> bool {
    true
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/real")
}

fn index() -> Index {
    let text = std::fs::read_to_string(dir().join("INDEX.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

fn import(file: &str) -> ParsedLog {
    let text = std::fs::read_to_string(dir().join(file)).unwrap();
    read(&text, None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The rate a printed figure stands for and half a unit of its last digit, in the same unit.
fn printed(value: &str) -> (f64, f64) {
    let (digits, scale) = match value.strip_suffix('k') {
        Some(d) => (d, 1000.0),
        None => (value, 1.0),
    };
    let decimals = digits.split_once('.').map(|(_, d)| d.len()).unwrap_or(0) as i32;
    let v: f64 = digits.parse().unwrap();
    (v * scale, 0.5 * 10f64.powi(-decimals) * scale)
}

fn check_spot(file: &str, runs: &[ImportedRun], spot: &Spot) {
    let run = runs
        .get(spot.run)
        .unwrap_or_else(|| panic!("{file}: no run {} (found {})", spot.run, runs.len()));
    if let Some(field) = &spot.field {
        assert_eq!(
            run.field(field),
            Some(spot.value.as_str()),
            "{file}: {field}"
        );
        return;
    }
    let primitive = spot
        .primitive
        .as_deref()
        .expect("a spot names a primitive or a field");
    let op = spot.op.as_deref().expect("a cell spot names its operation");
    // 3.2+ prints some cells twice (RSA in the classic and the signature table): any may match.
    let candidates: Vec<_> = run
        .results
        .iter()
        .filter(|r| r.primitive == primitive && r.op.as_str() == op && r.bytes == spot.bytes)
        .collect();
    assert!(
        !candidates.is_empty(),
        "{file}: no {primitive} {op} {:?} in run {}: {:?}",
        spot.bytes,
        spot.run,
        run.results
            .iter()
            .map(|r| format!("{} {} {:?}", r.primitive, r.op, r.bytes))
            .collect::<Vec<_>>()
    );
    let (value, half) = printed(&spot.value);
    let rates: Vec<f64> = candidates
        .iter()
        .map(|r| {
            assert_eq!(
                r.mapped, spot.catalog,
                "{file}: {primitive}: in the catalog should be {}",
                spot.catalog
            );
            if spot.per.as_deref() == Some("op") {
                r.rate / r.bytes.unwrap_or(1) as f64
            } else {
                r.rate
            }
        })
        .collect();
    assert!(
        rates
            .iter()
            .any(|rate| (rate - value).abs() <= half * (1.0 + 1e-9) + 1e-9 * value),
        "{file}: {primitive} {op} {:?}: read {rates:?}, printed {}",
        spot.bytes,
        spot.value
    );
}

#[test]
fn every_real_log_is_read_and_every_spot_value_matches_its_printed_digits() {
    let index = index();
    for entry in &index.log {
        assert!(
            entry.spots.len() >= 3,
            "{}: at least three spot values",
            entry.file
        );
        assert!(
            !entry.source.is_empty() && !entry.version.is_empty() && !entry.platform.is_empty()
        );
        let log = import(&entry.file);
        for spot in &entry.spots {
            check_spot(&entry.file, &log.runs, spot);
        }
    }
}

#[test]
fn the_index_lists_every_file_once() {
    let listed: Vec<String> = index().log.into_iter().map(|e| e.file).collect();
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), listed.len(), "a file is listed twice");
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    assert_eq!(on_disk, listed.iter().cloned().collect::<BTreeSet<_>>());
    assert!(listed.len() >= 40, "the corpus holds {} logs", listed.len());
}

#[test]
fn the_corpus_covers_every_family_and_mode() {
    let index = index();
    let has = |pred: &dyn Fn(&Entry) -> bool| index.log.iter().any(pred);
    for family in ["0.9.", "1.0.", "1.1.", "3."] {
        assert!(
            has(&|e| e.version.contains(family) && e.file.starts_with("openssl")),
            "no {family}x log"
        );
    }
    for mode in [
        "mr-progress",
        "multi",
        "evp",
        "elapsed",
        "partial",
        "kem-table",
        "signature-table",
        "boringssl",
        "aws-lc",
    ] {
        assert!(
            has(&|e| e.modes.iter().any(|m| m == mode)),
            "no log with {mode}"
        );
    }
    for platform in ["Windows", "macOS", "FreeBSD", "aarch64", "ARMv", "RISC-V"] {
        assert!(has(&|e| e.platform.contains(platform)), "no {platform} log");
    }
}

#[test]
fn foreign_lines_are_skipped_and_listed_with_their_line_numbers() {
    let log = import("openssl-0.9.8e-freebsd-i386-alix-cryptodev.txt");
    assert_eq!(
        log.skipped,
        vec![(2, "  engine \"cryptodev\" set.".to_string())]
    );
    let log = import("openssl-3.0.11-riscv64-starfive-perf.txt");
    let lines: Vec<usize> = log.skipped.iter().map(|(n, _)| *n).collect();
    assert!(
        lines.contains(&12),
        "the wrapped '2.84s' is skipped: {lines:?}"
    );
    assert!(
        lines.contains(&14),
        "the wrapped '2.42s' is skipped: {lines:?}"
    );
    assert!(lines.contains(&21), "'/////////' is skipped: {lines:?}");
    assert_eq!(log.runs[0].field("command"), Some("openssl speed rsa2048"));
    let log = import("openssl-3.0.2-ubuntu-x86_64-rsa-then-version.txt");
    assert_eq!(log.runs.len(), 2);
    assert!(log
        .skipped
        .iter()
        .any(|(_, l)| l.starts_with("OPENSSLDIR:")));
    // stderr merged by 2>&1: an error message and an OpenSSL error-stack line.
    let log = import("openssl-3.4.0-oqsprovider-docker-x86_64-all-tail.txt");
    let texts: Vec<&str> = log.skipped.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(log.skipped[0].0, 28);
    assert_eq!(texts[0], "Error initializing keygen ctx for DSA-SHA1.");
    assert!(texts[1].starts_with("286B721FD37F0000:error:0308010C:"));
    assert_eq!(log.skipped.len(), 2, "{texts:?}");
    let log = import("openssl-1.0.1f-ubuntu-armv7-utilite.txt");
    assert_eq!(log.skipped.len(), 1);
    assert!(log.skipped[0].1.starts_with(" -D_FORTIFY_SOURCE=2"));
}

#[test]
fn a_real_row_altered_beyond_rounding_is_an_error_naming_its_line() {
    // 3.0.13 printed `rsa 2048 bits 0.000697s 0.000032s   1435.1  31037.8`; 1/1435.1 = 0.00069682.
    let text =
        std::fs::read_to_string(dir().join("openssl-3.0.13-ubuntu-x86_64-rsa2048.txt")).unwrap();
    assert!(read(&text, None, &ImportOptions::default()).is_ok());
    // 1/1445.1 = 0.00069199: no time that prints as 0.000697s goes with it.
    let garbled = text.replace("   1435.1  31037.8", "   1445.1  31037.8");
    let e = read(&garbled, None, &ImportOptions::default()).unwrap_err();
    assert_eq!(e.line, 10, "{e}");
    assert!(e.message.contains("beyond rounding"), "{e}");
    // Within rounding is not an error: 1435.0 … 1435.3 all print the time 0.000697s.
    let rounded = text.replace("   1435.1  31037.8", "   1435.3  31037.8");
    assert!(read(&rounded, None, &ImportOptions::default()).is_ok());
}

#[test]
fn every_prefix_of_every_real_log_reads_or_fails_at_a_line_without_panicking() {
    // What the fuzz targets check, over the real corpus cut after each line: a cut log is either
    // read (the cut fell between outputs) or an error inside the input; skipped lines are
    // lines of the input, each once, in order.
    for entry in index().log {
        let text = std::fs::read_to_string(dir().join(&entry.file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for n in 1..=lines.len() {
            let cut = lines[..n].join("\n") + "\n";
            match read(&cut, None, &ImportOptions::default()) {
                Ok(log) => {
                    assert!(log.skipped.iter().all(|(l, _)| *l >= 1 && *l <= n));
                    assert!(
                        log.skipped.windows(2).all(|w| w[0].0 < w[1].0),
                        "{}",
                        entry.file
                    );
                    assert!(log.runs.iter().all(|r| r
                        .results
                        .iter()
                        .all(|x| x.rate.is_finite() && x.rate >= 0.0)));
                }
                Err(e) => assert!(e.line <= n, "{} cut at {n}: {e}", entry.file),
            }
        }
    }
}
