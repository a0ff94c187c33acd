//! SUPERCOP `crypto_kem` tables beside a cryptospeed run: `compare --normalize cycles --raw`
//! prints ML-KEM-768's cycles per operation side by side, the imported side as the file's
//! timings give them. First a file in SUPERCOP's record format made on the development VM around
//! mlkem-native (`mlkem768`; crates/import/tests/fixtures/COMMANDS says how), then a real one:
//! SUPERCOP 20221122's round-3 `kyber768` on a Skylake laptop (formosa-crypto/formosa-mlkem,
//! crates/import/tests/real-more/INDEX.toml), read as ML-KEM-768 with `import --as`, across
//! machines. The measured side is the `rustcrypto` column's from-bytes operations, the ones
//! SUPERCOP's crypto_kem/measure.c times.

mod common;

use common::{bin, ok, quick};

const FIXTURE: &str =
    "crates/import/tests/fixtures/supercop-format-kem-mlkem-native-d1b2fe78-vm.txt";

/// The `c/op` figures of a row of `compare --normalize cycles --raw`.
fn cycles_in(line: &str) -> Vec<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[1] == "c/op")
        .map(|w| w[0].parse().unwrap())
        .collect()
}

/// A rustcrypto ML-KEM-768 run of the from-bytes operations, labelled `here`, into `db`, and
/// `compare ebacs here --normalize cycles --raw` of it against the imported `ebacs`.
fn beside_a_measured_run(db: &std::path::Path) -> String {
    ok(bin()
        .args([
            "run",
            "--impl",
            "rustcrypto",
            "-a",
            "ml-kem-768",
            "--label",
            "here",
        ])
        .args(["--ops", "keygen+encode,encaps+parse,decaps+parse"])
        .args(quick(db)));
    ok(bin()
        .args([
            "compare",
            "ebacs",
            "here",
            "--normalize",
            "cycles",
            "--raw",
            "--db",
        ])
        .arg(db))
}

#[test]
fn an_ebacs_kem_table_compares_in_cycles_beside_a_measured_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let dbs = db.to_str().unwrap();
    ok(bin().args(["import", "--db", dbs, "--label", "ebacs", FIXTURE]));
    let text = beside_a_measured_run(&db);
    // Python's statistics.median of each operation's 96 timings in the file; compare's figure
    // is the mean rate over the calls (its bout estimator), within 0.1% of the median here.
    for (op, median) in [
        ("keygen+encode", 25948.0),
        ("encaps+parse", 26754.0),
        ("decaps+parse", 33930.0),
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("ml-kem-768 {op} ")))
            .unwrap_or_else(|| panic!("no ml-kem-768 {op} row in:\n{text}"));
        let c = cycles_in(line);
        assert_eq!(c.len(), 2, "both sides in cycles: {line}");
        assert!((c[0] / median - 1.0).abs() < 0.001, "{line}");
        assert!(
            c[1] > 1000.0,
            "the measured side in cycles per operation: {line}"
        );
    }

    // The file's timings are samples in cycles: eBACS's quartiles come back in `show`'s JSON
    // (type-7 quantiles of each operation's 96 timings, worked out with Python here).
    let json = ok(bin().args(["show", "ebacs", "--format", "json", "--db", dbs]));
    let cells: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    for (op, quartiles) in [
        ("keygen+encode", [25896.0, 25948.0, 26000.0]),
        ("encaps+parse", [26728.0, 26754.0, 26780.0]),
        ("decaps+parse", [33904.0, 33930.0, 33982.0]),
    ] {
        let cell = cells.iter().find(|c| c["op"] == op).unwrap();
        let p = &cell["cycle_percentiles"];
        assert_eq!(
            (p["of"].as_str(), p["samples"].as_u64()),
            (Some("samples"), Some(96))
        );
        let at = |level: u64| {
            p["levels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["p"] == level)
                .unwrap()["cycles"]
                .as_f64()
                .unwrap()
        };
        assert_eq!([at(25), at(50), at(75)], quartiles, "{op}");
    }
}

const REAL: &str =
    "crates/import/tests/real-more/supercop-20221122-formosa-mlkem-skylake-l46o-kyber768-avx2.txt";

/// The real Skylake table (round-3 Kyber768, pq-crystals AVX2, 2.5 GHz TSC) read as ML-KEM-768
/// at the user's word, beside this machine's measured ML-KEM-768, both in cycles per operation.
#[test]
fn a_real_kyber768_table_read_as_ml_kem_768_compares_in_cycles_across_machines() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let dbs = db.to_str().unwrap();
    let said = ok(bin().args(["import", "--db", dbs, "--label", "skylake", REAL]));
    assert!(
        said.contains("not in the catalog, kept under their own names: kyber768"),
        "{said}"
    );
    // Without --as the table is kyber-768's; an --as that matches nothing stores nothing.
    let text = ok(bin().args(["show", "skylake", "--format", "json", "--db", dbs]));
    assert!(
        text.contains("\"kyber-768\"") && !text.contains("ml-kem-768"),
        "{text}"
    );
    bin()
        .args(["import", "--db", dbs, "--as", "x25519=ml-kem-768", REAL])
        .assert()
        .failure();
    let said = ok(bin()
        .args(["import", "--db", dbs, "--label", "ebacs"])
        .args(["--as", "kyber-768=ml-kem-768", REAL]));
    assert!(
        said.contains("read as: kyber-768 (printed kyber768) stored as ml-kem-768"),
        "{said}"
    );
    let text = beside_a_measured_run(&db);
    assert!(
        text.contains("ebacs: kyber-768 (printed kyber768) stored as ml-kem-768"),
        "the imported side's figures carry their --as as a footnote:\n{text}"
    );
    // The authors' medians (bench/results/skylake-i76500u/supercop/macros.tex); compare's
    // figure is its bout estimator over the eleven single calls, within 0.5% of the median.
    for (op, median) in [
        ("keygen+encode", 41732.0),
        ("encaps+parse", 55404.0),
        ("decaps+parse", 44492.0),
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("ml-kem-768 {op} ")))
            .unwrap_or_else(|| panic!("no ml-kem-768 {op} row in:\n{text}"));
        let c = cycles_in(line);
        assert_eq!(c.len(), 2, "both sides in cycles: {line}");
        assert!((c[0] / median - 1.0).abs() < 0.005, "{line}");
        assert!(
            c[1] > 1000.0,
            "the measured side in cycles per operation: {line}"
        );
    }
}
