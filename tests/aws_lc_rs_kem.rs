//! The aws-lc-rs column's ML-KEM (`aws_lc_rs::kem`) end to end: NIST's ACVP vectors pass before
//! a cell is timed, its keys and ciphertexts agree with RustCrypto's `ml-kem` (another library,
//! written apart from AWS-LC), every operation of the definition table is timed, from-bytes ones
//! included, and its declared deviations reach `list --json` and the run's output. Its key
//! generation is timed many calls per sample: the first key generation of a process seeds
//! AWS-LC's random generator (about 32 ms), which calibration must not see.

mod common;

use common::{bin, ok, quick};

const ML_KEM: [&str; 3] = ["ml-kem-512", "ml-kem-768", "ml-kem-1024"];

fn row<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no {id} row in\n{out}"))
}

#[test]
fn aws_lc_rs_passes_the_ml_kem_vectors_and_agrees_with_rustcrypto() {
    let all = ML_KEM.join(",");
    let kats = ok(bin().args(["verify", "--impl", "aws-lc-rs", "-a", &all]));
    assert!(kats.contains("3 passed, 0 failed"), "{kats}");
    for (id, tc) in ML_KEM.iter().zip(["1", "26", "51"]) {
        let row = row(&kats, id);
        assert!(row.contains(&format!("keyGen-FIPS203 tcId {tc}")), "{row}");
        assert!(row.contains("decapsulation (modified ciphertext)"), "{row}");
    }
    let agreed = ok(bin().args(["verify", "--impl", "aws-lc-rs,rustcrypto", "-a", &all]));
    for id in ML_KEM {
        assert_eq!(row(&agreed, id).matches("agrees").count(), 2, "{agreed}");
    }
    assert!(agreed.contains(", 0 problems"), "{agreed}");
}

#[test]
fn every_ml_kem_operation_is_timed_with_its_deviations_stated() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = ok(bin()
        .args([
            "run",
            "--impl",
            "aws-lc-rs",
            "-a",
            "ml-kem-768",
            "--ops",
            "all",
        ])
        .args(["--format", "json"])
        .args(quick(&db)));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let mut ops: Vec<&str> = Vec::new();
    for r in &rows {
        assert!(
            matches!(r["status"].as_str(), Some("ok" | "imprecise")),
            "{r}"
        );
        assert!(r["median"].as_f64().unwrap() > 0.0, "{r}");
        let op = r["op"].as_str().unwrap();
        // The library's own per-call work is said where it departs (version 2 of the
        // definitions: keygen writes both encodings, keygen+encode's key_bytes allocates its
        // buffers, the from-bytes calls import per call): every operation of this API departs.
        assert!(r.get("deviation").is_some(), "{r}");
        ops.push(op);
    }
    ops.sort_unstable();
    let want = [
        "decaps",
        "decaps+parse",
        "encaps",
        "encaps+parse",
        "keygen",
        "keygen+encode",
    ];
    assert_eq!(ops, want);

    let list: serde_json::Value =
        serde_json::from_str(&ok(bin().args(["list", "--impl", "aws-lc-rs", "--json"]))).unwrap();
    let entry = list.as_array().unwrap().iter();
    let entry = entry
        .clone()
        .find(|p| p["primitive"] == "ml-kem-768")
        .unwrap();
    let column = &entry["implementations"]["aws-lc-rs"];
    assert_eq!(column["available"], true, "{column}");
    assert_eq!(
        column["operations"]["keygen+encode"]["states"],
        serde_json::json!(["context-per-call"]),
        "{column}"
    );
    let keygen = &column["operations"]["keygen"]["states"];
    assert_eq!(
        keygen,
        &serde_json::json!(["encodes-public", "encodes-private"]),
        "{column}"
    );
    let decaps = column["operations"]["decaps"].to_string();
    assert!(decaps.contains("EVP_PKEY_CTX"), "{column}");
}

#[test]
fn key_generation_is_timed_many_calls_per_sample_after_the_generator_is_seeded() {
    // Key generation alone, so its first call is the worker's first use of AWS-LC's random
    // generator (the known-answer tests generate from a seed). Calibrated on that call, every
    // sample of every bout was one ~20 µs call against a 2 ms sample time.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    ok(bin()
        .args(["run", "--impl", "aws-lc-rs", "-a", "ml-kem-768"])
        .args(["--ops", "keygen"])
        .args(quick(&db)));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT s.iters, s.wall_ns FROM sample s JOIN measurement m ON m.id = s.measurement_id \
             WHERE m.primitive = 'ml-kem-768' AND m.op = 'keygen'",
        )
        .unwrap();
    let samples: Vec<(u64, u64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(samples.len() >= 6, "{samples:?}");
    assert!(samples.iter().all(|&(iters, _)| iters > 1), "{samples:?}");
    // And none of them holds the seeding: each call well under a millisecond.
    assert!(
        samples
            .iter()
            .all(|&(iters, wall)| wall / iters < 1_000_000),
        "{samples:?}"
    );
}
