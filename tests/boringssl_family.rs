//! End-to-end tests of the `aws-lc` and `boringssl` columns: AWS-LC's and BoringSSL's libcrypto,
//! built with cmake from the trees the aws-lc-sys and boring-sys crates carry, each loaded in its
//! own worker and driven by the `openssl` module's EVP calls. They exist to show that both
//! libraries offer what the issue asks (≥ 40 and ≥ 35 primitives), pass every known-answer test
//! and agree byte for byte with OpenSSL, have a number in every cell they offer, that BoringSSL's
//! figures agree with its own `bssl_bench` on the same build (five to ten alternating rounds
//! judged by the crosscheck's rule against 3%), that BoringSSL's ML-KEM, ML-DSA
//! and X25519MLKEM768 (its own non-EVP API) pass their vectors and agree, and that a machine without cmake
//! gets an "unavailable" column with the reason instead of a failure.
//!
//! The first test to need a library builds it (`cryptospeed variant build-library`, into the
//! default cache, once: about a minute for AWS-LC, several for BoringSSL on two busy cores).

mod common;

use common::{bin, quick};
use cryptospeed_crosscheck::rounds::Pairs;
use cryptospeed_crosscheck::rule::{self, Verdict};
use std::path::PathBuf;

/// The tests of this file run one at a time: the oracle test compares timings, and the builds
/// are shared.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Builds (or finds) a library; its paths: the library, then its programs.
fn built(name: &str) -> Vec<PathBuf> {
    let out = bin()
        .args(["variant", "build-library", name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let paths: Vec<PathBuf> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .collect();
    assert!(paths.iter().all(|p| p.is_file()), "{paths:?}");
    paths
}

fn offered(list: &str, name: &str) -> usize {
    let line = list
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no summary line for {name}: {list}"));
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"))
}

#[test]
fn aws_lc_and_boringssl_offer_most_of_the_catalog() {
    let _one = serial();
    built("aws-lc");
    built("boringssl");
    let out = bin()
        .args(["list", "--impl", "aws-lc,boringssl,openssl"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let aws = offered(&text, "aws-lc");
    let boring = offered(&text, "boringssl");
    assert!(aws >= 40, "aws-lc offers {aws}: {text}");
    assert!(boring >= 35, "boringssl offers {boring}: {text}");
    // Legacy algorithms reached through accessors the name tables lack, and the AEAD BoringSSL
    // offers only through EVP_AEAD.
    for row in [
        " cast-cbc ",
        " ripemd160 ",
        " chacha20-poly1305 ",
        " hmac-sha256 ",
    ] {
        let line = text.lines().find(|l| l.starts_with(row)).unwrap();
        assert!(line.matches("yes").count() >= 2, "{line}");
    }
}

#[test]
fn both_pass_known_answers_and_agree_with_openssl() {
    let _one = serial();
    built("aws-lc");
    built("boringssl");
    let out = bin()
        .args(["verify", "--impl", "aws-lc,boringssl,openssl"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(", 0 problems across 3 implementations"),
        "{text}"
    );
    for row in [
        " sha256 ",
        " aes-128-gcm ",
        " hmac-sha256 ",
        " ghash ",
        " x25519 ",
    ] {
        let line = text.lines().find(|l| l.starts_with(row)).unwrap();
        assert_eq!(line.matches("agrees").count(), 3, "{line}");
    }
    // Their ECDSA signatures verify in the other libraries.
    let line = text
        .lines()
        .find(|l| l.starts_with(" ecdsa-p256 "))
        .unwrap();
    assert_eq!(line.matches("agrees").count(), 3, "{line}");
}

#[test]
fn every_offered_cell_has_a_number() {
    let _one = serial();
    built("aws-lc");
    built("boringssl");
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "run",
            "--impl",
            "aws-lc,boringssl,openssl",
            "-a",
            "sha256,aes-128-gcm,chacha20-poly1305,ed25519,ecdsa-p256,rsa2048",
            "-b",
            "8192",
            "--format",
            "json",
        ])
        .args(quick(&dir.path().join("r.db")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for r in &rows {
        let implementation = r["impl"].as_str().unwrap_or("");
        assert!(
            r["ns_per_op"].as_f64().is_some_and(|v| v > 0.0),
            "no number: {r}"
        );
        seen.insert((implementation.to_string(), r["primitive"].to_string()));
    }
    // Every library offers all six here, so 3 × 6 (primitive, implementation) pairs are timed.
    assert_eq!(seen.len(), 18, "{seen:?}");
}

#[test]
fn without_cmake_the_columns_are_unavailable_with_the_reason() {
    let _one = serial();
    let cache = tempfile::tempdir().unwrap();
    let out = bin()
        .env("PATH", "/nonexistent")
        .env("CRYPTOSPEED_CACHE", cache.path())
        .args(["list", "--impl", "aws-lc,boringssl,openssl"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for name in ["aws-lc", "boringssl"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap();
        assert!(
            line.contains("not available") && line.contains("needs cmake"),
            "{line}"
        );
    }
    assert!(offered(&text, "openssl") >= 40, "{text}");
}

/// `bssl_bench` (Google Benchmark) on the benchmarks `filter` matches: CPU nanoseconds per
/// iteration. Its CPU time, not its wall time: a bout's figure in cryptospeed is the time per
/// call over the samples its thread ran through (docs/measuring.md), and Google Benchmark's wall
/// time is a plain mean that holds every moment the process waited for a CPU. On an idle machine
/// the two are the same (docs/PERFORMANCE.md shows both, within 0.1%); beside a build they are
/// not.
fn bssl_bench(bench: &std::path::Path, filter: &str) -> Vec<(String, f64)> {
    let out = std::process::Command::new(bench)
        .args(["-t", "1", "-i", "8192"])
        .arg(format!("--benchmark_filter={filter}"))
        .args(["--benchmark_format=json", "--benchmark_min_time=0.3s"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let scale = match b["time_unit"].as_str() {
                Some("us") => 1e3,
                Some("ms") => 1e6,
                _ => 1.0,
            };
            (
                b["name"].as_str().unwrap().to_string(),
                b["cpu_time"].as_f64().unwrap() * scale,
            )
        })
        .collect()
}

/// An oracle cell: cryptospeed's cell and operation, bssl_bench's benchmark, and the ratio
/// (cryptospeed / bssl_bench, ns per op) the two harnesses should give, with why where it is not 1.
struct OracleCell {
    cell: &'static str,
    op: &'static str,
    bench: &'static str,
    expected: f64,
    why: &'static str,
}

const ORACLE_CELLS: [OracleCell; 3] = [
    OracleCell {
        cell: "sha256@8192",
        op: "hash",
        bench: "BM_SpeedHash/sha256/InputSize:8192/threads:1",
        expected: 1.0,
        why: "the same digest calls",
    },
    OracleCell {
        cell: "aes-128-gcm@8192",
        op: "encrypt",
        bench: "BM_SpeedAEAD/seal_aes_128_gcm/InputSize:8192",
        // Not the harnesses but the two APIs (docs/PERFORMANCE.md): bssl_bench times
        // EVP_AEAD_CTX_seal, cryptospeed the EVP_CIPHER calls `openssl speed` makes, and one plain
        // C loop of each against the same libcrypto.so (scripts/bssl-gcm-apis.c) puts the
        // EVP_CIPHER calls 2.5% faster (0.965-0.985); bench-vs-bssl read 0.969-0.972.
        expected: 0.975,
        why: "EVP_CIPHER against EVP_AEAD: 2.5% faster in a plain C loop of each",
    },
    OracleCell {
        cell: "ecdsa-p256",
        op: "sign",
        bench: "BM_SpeedECDSASign/p256/threads:1",
        expected: 1.0,
        why: "the same signing call",
    },
];

/// Alternating rounds of the oracle test: each times every cell with both harnesses, the one
/// that goes first alternating, so the machine's drift hits both sides alike. Five first; ten
/// when a cell is still undecided (the crosscheck's own looks).
const ROUNDS: usize = 5;
const MAX_ROUNDS: usize = 10;

#[test]
fn boringssl_figures_agree_with_bssl_bench_of_the_same_build() {
    // The same library timed by cryptospeed (through the boringssl worker) and by BoringSSL's
    // own Google Benchmark harness, alternately, five to ten rounds, judged by the crosscheck's
    // own rule (crates/crosscheck/src/rule.rs: the trimmed interval of the per-round ratios,
    // each divided by what the two harnesses should read, against ±3%): no cell may be
    // unexplained. A harness that added work per call, miscounted its iterations or misread
    // its clocks by more than 3% reads as a narrow interval outside ±3%; a cell still undecided
    // after ten rounds (the full suite runs beside it) is printed, not failed. A median of five
    // rounds failed here once on a disturbed machine (ecdsa-p256 rounds 0.825-0.990); a cell
    // unexplained is confirmed by a second set of rounds before it fails.
    // scripts/bench-vs-bssl makes the same comparison by hand (docs/PERFORMANCE.md). Ratios of
    // figures taken side by side, never absolute speeds, so a build beside it slows both sides.
    let _one = serial();
    let paths = built("boringssl");
    let bench = paths
        .iter()
        .find(|p| p.ends_with("bssl_bench"))
        .unwrap()
        .clone();
    let dir = tempfile::tempdir().unwrap();
    let first = oracle_rounds(&bench, dir.path(), "a");
    let suspects: Vec<String> = unexplained(&first)
        .iter()
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect();
    if suspects.is_empty() {
        return;
    }
    // A confirming second set of rounds, as the gate confirms a regression: a harness cost is
    // there again; a host that ran one side in its slow state for most of ten rounds (CI read
    // aes-128-gcm@8192 at 1.130, 1.039-1.226, on a runner that took 2.6x its usual time) is not.
    eprintln!("cryptospeed / bssl_bench: confirming {suspects:?} with a second set of rounds");
    let again = unexplained(&oracle_rounds(&bench, dir.path(), "b"));
    let failed: Vec<&String> = suspects
        .iter()
        .filter(|cell| {
            again
                .iter()
                .any(|line| line.starts_with(&format!("{cell} ")))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "cells outside ±3% by the crosscheck's rule in two sets of rounds: {failed:#?}"
    );
}

/// One set of alternating rounds of every oracle cell (five, ten while a cell is undecided):
/// per cell, our rates and bssl_bench's, each of ours divided by the expected ratio.
fn oracle_rounds(bench: &std::path::Path, dir: &std::path::Path, set: &str) -> Vec<Pairs> {
    let filter = format!(
        "^({})$",
        ORACLE_CELLS
            .iter()
            .map(|c| c.bench)
            .collect::<Vec<_>>()
            .join("|")
    );
    let mut pairs: Vec<Pairs> = (0..ORACLE_CELLS.len()).map(|_| Pairs::default()).collect();
    for round in 0..MAX_ROUNDS {
        if round == ROUNDS && pairs.iter().all(|p| judge(p).1.decided()) {
            break;
        }
        let db = dir.join(format!("{set}{round}.db"));
        let (theirs, rows) = if round % 2 == 0 {
            let theirs = bssl_bench(bench, &filter);
            (theirs, ours_round(&db))
        } else {
            let rows = ours_round(&db);
            (bssl_bench(bench, &filter), rows)
        };
        for (c, pair) in ORACLE_CELLS.iter().zip(&mut pairs) {
            let id = c.cell.split('@').next().unwrap();
            let row = rows
                .iter()
                .find(|r| r["primitive"] == id && r["op"] == c.op)
                .unwrap_or_else(|| panic!("no {} {}", c.cell, c.op));
            let mine = row["ns_per_op"].as_f64().unwrap();
            // The figure over every bout, none set aside for its canary, as ns per op.
            let per_op = row["bytes"].as_f64().unwrap_or(1.0);
            let every = row["set_aside"]["every_bout_mean"]
                .as_f64()
                .map_or(mine, |rate| per_op * 1e9 / rate);
            let oracle = theirs
                .iter()
                .find(|(n, _)| n == c.bench)
                .unwrap_or_else(|| panic!("bssl_bench ran no {}: {theirs:?}", c.bench))
                .1;
            // Rates, as the rule takes them, ours divided by what the APIs should read.
            pair.ours.push(c.expected / mine);
            pair.ours_every_bout.push(c.expected / every);
            pair.oracle.push(1.0 / oracle);
        }
    }
    pairs
}

/// cryptospeed's round: every oracle cell, timed as the oracle beside it is (no quiet canary
/// reference divided out); its JSON rows.
fn ours_round(db: &std::path::Path) -> Vec<serde_json::Value> {
    let out = common::ok(
        bin()
            .env("CRYPTOSPEED_QUIET_CANARY", "off")
            .args(["run", "--impl", "boringssl", "--cells"])
            .arg(ORACLE_CELLS.map(|c| c.cell).join(","))
            .args(["--ops", "hash,encrypt,sign", "--format", "json"])
            .args(["--max-time", "1", "--precision", "0.02"])
            .arg("--db")
            .arg(db),
    );
    serde_json::from_str(&out).unwrap()
}

/// Prints each cell's ratio to the expected, its interval and verdict; the lines of the cells
/// the crosscheck's rule calls unexplained (each starts with the cell's name).
fn unexplained(pairs: &[Pairs]) -> Vec<String> {
    let mut failed = Vec::new();
    for (c, pair) in ORACLE_CELLS.iter().zip(pairs) {
        let j = rule::judge_rounds(pair, None);
        let every = j.every_bout.map_or(String::new(), |(r, ci)| {
            format!(" [every bout {r:.3} ({:.3}-{:.3})]", ci[0], ci[1])
        });
        let line = format!(
            "{:18} ratio to the expected {:.3} ({:.3}-{:.3}){every} {:?} after {} rounds \
             (expected cryptospeed/bssl_bench ns per op {:.3}: {})",
            c.cell,
            j.ratio,
            j.ci[0],
            j.ci[1],
            j.verdict,
            pair.ours.len(),
            c.expected,
            c.why
        );
        eprintln!("cryptospeed / bssl_bench: {line}");
        if j.verdict == Verdict::Unexplained {
            failed.push(line);
        }
    }
    failed
}

/// The ratio, its interval and the crosscheck's verdict with no declared difference.
/// A cell the canary's set-aside moved away from bssl_bench while every bout agrees with it is
/// [`Verdict::Host`] (a two-state host: the canary kept the fast state's bouts, bssl_bench
/// averages over both), not a harness cost.
fn judge(pair: &Pairs) -> ((f64, [f64; 2]), Verdict) {
    let j = rule::judge_rounds(pair, None);
    ((j.ratio, j.ci), j.verdict)
}

#[test]
fn a_column_not_built_yet_says_how_to_build_it() {
    let _one = serial();
    let cache = tempfile::tempdir().unwrap();
    let out = bin()
        .env("CRYPTOSPEED_CACHE", cache.path())
        .args(["list", "--impl", "aws-lc,openssl"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let line = text.lines().find(|l| l.starts_with("aws-lc: ")).unwrap();
    assert!(
        line.contains("is not built yet")
            && line.contains("cryptospeed variant build-library aws-lc"),
        "{line}"
    );
    // Nothing was built or started in that cache: no build directory, no build's log (a
    // detached build would have written its log before `list` returned), and the reason says no
    // build is under way.
    assert!(!line.contains("background"), "{line}");
    let variants = cache.path().join("variants");
    std::thread::sleep(std::time::Duration::from_secs(1));
    let started: Vec<_> = std::fs::read_dir(&variants)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(
        started
            .iter()
            .all(|p| !p.is_dir() && p.extension().is_none_or(|x| x != "log")),
        "{started:?}"
    );
}

/// The one SLH-DSA set BoringSSL's slhdsa.h offers of the catalog's three.
const SLH: &str = "slh-dsa-sha2-128s";

#[test]
fn boringssl_runs_ml_kem_ml_dsa_and_the_hybrid_through_its_own_api() {
    // BoringSSL has them only outside EVP (mlkem.h, mldsa.h, slhdsa.h): crates/impls/src/boringssl/ (pq.rs, dsa.rs,
    // slh.rs; the hybrid composed from its ML-KEM-768, crates/impls/src/hybrid_kem.rs).
    // Their vectors run through its seeded calls and the BCM entry points it exports; a
    // ciphertext or signature from it is checked by AWS-LC and RustCrypto, and theirs by it.
    let _one = serial();
    built("aws-lc");
    built("boringssl");
    let pq = "ml-kem-768,ml-kem-1024,ml-dsa-44,ml-dsa-65,ml-dsa-87,x25519-mlkem768";
    let out = bin()
        .args(["verify", "--impl", "boringssl,aws-lc,rustcrypto", "-a"])
        .arg(format!("{pq},{SLH},ml-kem-512,slh-dsa-sha2-128f"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(", 0 problems across 3 implementations"),
        "{text}"
    );
    for id in pq.split(',') {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!(" {id} ")))
            .unwrap_or_else(|| panic!("no {id} row in\n{text}"));
        assert_eq!(row.matches("agrees").count(), 3, "{row}");
    }
    // AWS-LC has no SLH-DSA: BoringSSL's agrees with RustCrypto's.
    let row = text
        .lines()
        .find(|l| l.starts_with(" slh-dsa-sha2-128s "))
        .unwrap();
    assert_eq!(row.matches("agrees").count(), 2, "{row}");
    // BoringSSL has no ML-KEM-512 and of the SLH-DSA sets only SHA2-128s, and says so.
    let list = bin()
        .args(["list", "--impl", "boringssl"])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    let row = list
        .lines()
        .find(|l| l.starts_with(" ml-kem-512 "))
        .unwrap();
    assert!(row.contains("BoringSSL has no ML-KEM-512"), "{row}");
    let row = list
        .lines()
        .find(|l| l.starts_with(" slh-dsa-sha2-128f "))
        .unwrap();
    assert!(row.contains("BoringSSL has no SLH-DSA-SHA2-128f"), "{row}");
    // A short run has a number in each of their cells.
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "--impl", "boringssl", "-a", &format!("{pq},{SLH}")])
        .args(["--format", "json"])
        .args(quick(&dir.path().join("r.db")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    for r in &rows {
        assert_ne!(r["status"], "failed", "{r}");
        assert!(r["ns_per_op"].as_f64().is_some_and(|v| v > 0.0), "{r}");
    }
    // Three operations for each of the seven primitives.
    assert_eq!(rows.len(), 21, "{rows:?}");
}
