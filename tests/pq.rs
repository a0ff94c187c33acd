//! Post-quantum KEMs end to end: ML-KEM-512/768/1024 pass NIST's ACVP vectors (seeded key
//! generation, derandomised encapsulation, decapsulation of a modified ciphertext) in every
//! implementation that offers them before a cell is timed, a broken known answer fails the cell,
//! the run prints OpenSSL 3.5's KEM table, and a real OpenSSL 3.5 KEM table compares with a run.

mod common;

use common::{bin, ok, quick};

const REAL_35: &str = "crates/import/tests/real/openssl-3.5-dev-linux-x86_64-mlkem-table.txt";

#[test]
fn ml_kem_passes_nist_vectors_and_prints_openssl_3_5s_kem_table() {
    let out = ok(bin().args([
        "verify",
        "--impl",
        "rustcrypto",
        "-a",
        "ml-kem-512,ml-kem-768,ml-kem-1024",
    ]));
    assert!(out.contains("3 passed, 0 failed"), "{out}");
    assert!(
        out.contains("decapsulation (modified ciphertext) tcId 86"),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pq.db");
    let table = ok(bin()
        .args([
            "run",
            "--impl",
            "rustcrypto",
            "-a",
            "ml-kem-512,ml-kem-768,ml-kem-1024",
        ])
        .args(quick(&db)));
    assert!(
        table.contains("                               keygen    encaps    decaps keygens/s  encaps/s  decaps/s\n"),
        "{table}"
    );
    for name in ["ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"] {
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} row in\n{table}"));
        let rates: Vec<f64> = row
            .split_whitespace()
            .skip(4)
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(rates.len(), 3, "{row}");
        assert!(rates.iter().all(|r| *r > 0.0), "{row}");
    }
}

#[test]
fn a_failed_ml_kem_known_answer_fails_its_cells_untimed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pq.db");
    let out = bin()
        .args([
            "run",
            "--impl",
            "rustcrypto",
            "-a",
            "ml-kem-768",
            "--format",
            "json",
        ])
        .args(quick(&db))
        .env("CRYPTOSPEED_FAULT", "kat:ml-kem-768")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 3, "keygen, encaps, decaps");
    for r in &rows {
        assert_eq!(r["status"], "failed", "{r}");
        assert!(r["median"].is_null(), "a failed cell has no number: {r}");
    }
}

#[test]
fn a_real_openssl_3_5_kem_table_compares_with_a_measured_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pq.db");
    let dbs = db.to_str().unwrap();
    ok(bin().args(["import", REAL_35, "--label", "real-3.5", "--db", dbs]));
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
        .args(quick(&db)));
    let out = ok(bin().args(["compare", "real-3.5", "here", "--db", dbs]));
    for op in ["keygen", "encaps", "decaps"] {
        assert!(
            out.lines()
                .any(|l| l.contains("ml-kem-768") && l.contains(op)),
            "no ml-kem-768 {op} row in\n{out}"
        );
    }
}
