//! The last mile of importing (issue 50), end to end through the binary: `import --help` names
//! every log format; Go's crypto/mlkem `-count 5` log becomes ML-KEM-768 cells with five
//! samples and an interval, written back by `show --format gobench` one line per repetition;
//! a single imported figure has no interval in JSON (null, not 0); a progress-only openssl log
//! imports its KEM figures marked partial; pqm4's cycles come back as cycles per operation.

mod common;

use common::{bin, ok};
use std::path::{Path, PathBuf};

fn data(dir: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/import/tests")
        .join(dir)
        .join(file)
}

fn json(db: &Path, run: &str) -> Vec<serde_json::Value> {
    let out = ok(bin()
        .args(["show", run, "--format", "json", "--db"])
        .arg(db));
    serde_json::from_str(&out).unwrap()
}

fn record<'a>(
    records: &'a [serde_json::Value],
    primitive: &str,
    op: &str,
) -> &'a serde_json::Value {
    records
        .iter()
        .find(|r| r["primitive"] == primitive && r["op"] == op)
        .unwrap_or_else(|| panic!("{primitive} {op} in {records:?}"))
}

#[test]
fn import_help_names_every_format() {
    let help = ok(bin().args(["import", "--help"]));
    for format in cryptospeed_import::FORMATS {
        assert!(
            help.contains(format.name()),
            "{} missing from:\n{help}",
            format.name()
        );
    }
}

#[test]
fn go_mlkem_repetitions_are_samples_with_an_interval_and_export_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = data("fixtures", "go-1.26.8-crypto-mlkem-count5-benchmem.txt");
    let out = ok(bin().args(["import", "--db"]).arg(&db).arg(&log));
    assert_eq!(out.matches("as run").count(), 1, "{out}");
    let records = json(&db, "1");
    let decaps = record(&records, "ml-kem-768", "decaps");
    assert_eq!(decaps["n"], 5);
    assert!(decaps["ci95_pct"].as_f64().unwrap() > 0.0, "{decaps}");
    // The median of the five printed ns/op (63119 67739 78882 79464 85670).
    assert!((decaps["median"].as_f64().unwrap() - 1e9 / 78882.0).abs() < 1e-6);
    record(&records, "ml-kem-768", "encaps+parse");
    let gobench = ok(bin()
        .args(["show", "1", "--format", "gobench", "--db"])
        .arg(&db));
    let decaps_lines = gobench
        .lines()
        .filter(|l| l.starts_with("Benchmarkml-kem-768/decaps "))
        .count();
    assert_eq!(decaps_lines, 5, "{gobench}");
}

#[test]
fn single_figures_have_no_interval_and_progress_lines_import_as_partial() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = data(
        "real-more",
        "openssl-3.5-pypi-mlkem-readme-progress-only-kem.txt",
    );
    let out = bin()
        .args(["import", "--db"])
        .arg(&db)
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("taken from the progress lines"), "{stderr}");
    let records = json(&db, "1");
    assert_eq!(records.len(), 9);
    let keygen = record(&records, "ml-kem-768", "keygen");
    assert!(keygen["ci95_pct"].is_null(), "{keygen}");
    assert!(keygen["ci95"].is_null(), "{keygen}");
    assert!((keygen["median"].as_f64().unwrap() - 28874.0 / 0.98).abs() < 1e-6);
}

#[test]
fn pqm4_cycles_come_back_as_cycles_per_operation() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = data("real-more", "pqm4-cc2c1b9-benchmarks.md");
    let out = ok(bin().args(["import", "--db"]).arg(&db).arg(&log));
    assert!(out.contains("pqm4-m4fspeed"), "{out}");
    let runs = ok(bin().args(["runs", "--db"]).arg(&db));
    let id = runs
        .lines()
        .find(|l| l.contains("pqm4-clean"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{runs}"))
        .to_string();
    let records = json(&db, &id);
    // crypto_kem_keypair writes pk and sk as bytes: keygen+encode.
    let keygen = record(&records, "ml-kem-768", "keygen+encode");
    // 988,722 cycles at pqm4's 24 MHz.
    assert!((keygen["median"].as_f64().unwrap() - 24e6 / 988722.0).abs() < 1e-9);
    assert_eq!(keygen["cycles_per_op"].as_f64(), Some(988722.0));
}

#[test]
fn mlkem_native_percentile_rows_come_back_in_json_on_its_from_bytes_operations() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = data(
        "real-more",
        "mlkem-native-issue429-ec2-x86_64-pmu-no-opt.txt",
    );
    ok(bin()
        .args(["import", "--db"])
        .arg(&db)
        .arg(&log)
        .args(["--label", "mlkn"]));
    let records = json(&db, "mlkn");
    // The bench times mlk_kem_dec on the encoded key: decaps+parse. Its ML-KEM-768 decaps row,
    // read by hand from mlkem-native issue 429: p1=77047 p50=77840 p99=80447, no interval.
    let p = &record(&records, "ml-kem-768", "decaps+parse")["cycle_percentiles"];
    assert_eq!(p["of"], "log");
    let levels = p["levels"].as_array().unwrap();
    let at = |level: u64| levels.iter().find(|l| l["p"] == level).unwrap();
    assert_eq!(at(1)["cycles"].as_f64(), Some(77047.0));
    assert_eq!(at(50)["cycles"].as_f64(), Some(77840.0));
    assert_eq!(at(99)["cycles"].as_f64(), Some(80447.0));
    assert!(at(50)["ci95"].is_null());
    assert!(records
        .iter()
        .all(|r| r["op"] != "keygen" && r["op"] != "decaps"));
}

#[test]
fn gobench_export_imports_back_to_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = data("fixtures", "go-1.26.8-crypto-mlkem-count5-benchmem.txt");
    ok(bin().args(["import", "--db"]).arg(&db).arg(&log));
    let gobench = ok(bin()
        .args(["show", "1", "--format", "gobench", "--db"])
        .arg(&db));
    let file = dir.path().join("export.txt");
    std::fs::write(&file, &gobench).unwrap();
    let out = ok(bin().args(["import", "--db"]).arg(&db).arg(&file));
    assert_eq!(out.matches("as run").count(), 1, "{out}");
    let (before, after) = (json(&db, "1"), json(&db, "2"));
    assert_eq!(before.len(), after.len());
    for b in &before {
        let (p, op) = (b["primitive"].as_str().unwrap(), b["op"].as_str().unwrap());
        let a = record(&after, p, op);
        let (x, y) = (b["median"].as_f64().unwrap(), a["median"].as_f64().unwrap());
        assert!((x / y - 1.0).abs() < 1e-6, "{p} {op}: {x} vs {y}");
        assert_eq!(a["n"], b["n"], "{p} {op}");
    }
}

#[test]
fn json_and_csv_exports_import_back_to_the_same_figures_and_variant() {
    for (format, name) in [("json", "cryptospeed-json"), ("csv", "cryptospeed-csv")] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let log = data("fixtures", "openssl-3.0.19-human.txt");
        ok(bin().args(["import", "--db"]).arg(&db).arg(&log));
        let exported = ok(bin()
            .args(["show", "1", "--format", format, "--db"])
            .arg(&db));
        let file = dir.path().join(format!("export.{format}"));
        std::fs::write(&file, &exported).unwrap();
        let out = ok(bin().args(["import", "--db"]).arg(&db).arg(&file));
        assert!(out.contains(&format!("{name}, openssl-3.0.19")), "{out}");
        same_figures(&json(&db, "1"), &json(&db, "2"));
    }
}

/// Every cell with a figure in `before` is in `after` with the same median and variant.
fn same_figures(before: &[serde_json::Value], after: &[serde_json::Value]) {
    let with_figures: Vec<&serde_json::Value> =
        before.iter().filter(|r| !r["median"].is_null()).collect();
    assert_eq!(after.len(), with_figures.len());
    for b in with_figures {
        let same = after
            .iter()
            .find(|a| {
                a["primitive"] == b["primitive"] && a["op"] == b["op"] && a["bytes"] == b["bytes"]
            })
            .unwrap_or_else(|| panic!("{b}"));
        assert_eq!(same["median"], b["median"], "{b}");
        assert_eq!(same["variant"], b["variant"]);
    }
}

/// A measured run whose cells are all `imprecise` (a precision no time budget reaches): every
/// importable output format writes each cell, and importing the export gives its figure back:
/// to the printed digits for `openssl`/`mr`/`json`/`csv`, and for `gobench` (one line per bout
/// the figure is made from, read back as the bouts' median) inside the cell's own 95% interval.
#[test]
fn every_importable_export_of_imprecise_cells_imports_back_to_their_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    ok(bin()
        .args([
            "run",
            "--impl",
            "rustcrypto",
            "-a",
            "sha256,ml-kem-768",
            "-b",
            "16",
        ])
        .args([
            "--ops",
            "hash,decaps",
            "--max-time",
            "0.2",
            "--precision",
            "0.0001",
        ])
        .args(["--sample-time", "0.002", "--label", "measured", "--db"])
        .arg(&db));
    let measured = json(&db, "measured");
    assert_eq!(measured.len(), 2);
    assert!(
        measured.iter().all(|c| c["status"] == "imprecise"),
        "{measured:?}"
    );
    for (format, tolerance) in [
        ("openssl", 1e-5),
        ("mr", 1e-6),
        ("json", 1e-12),
        ("csv", 1e-12),
        ("gobench", 0.0),
    ] {
        let exported = ok(bin()
            .args(["show", "measured", "--format", format, "--db"])
            .arg(&db));
        let file = dir.path().join(format!("export-{format}.txt"));
        std::fs::write(&file, &exported).unwrap();
        let label = format!("back-{format}");
        ok(bin()
            .args(["import", "--label", &label, "--db"])
            .arg(&db)
            .arg(&file));
        let back = json(&db, &label);
        for m in &measured {
            let (p, op) = (m["primitive"].as_str().unwrap(), m["op"].as_str().unwrap());
            let b = record(&back, p, op);
            let (x, y) = (m["median"].as_f64().unwrap(), b["median"].as_f64().unwrap());
            if format == "gobench" {
                let ci = &m["ci95"];
                let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
                assert!(
                    lo <= y && y <= hi,
                    "{format} {p} {op}: {y} outside [{lo}, {hi}]"
                );
            } else {
                assert!(
                    (y / x - 1.0).abs() <= tolerance,
                    "{format} {p} {op}: {x} vs {y}"
                );
            }
        }
    }
}
