//! Post-quantum primitives end to end: ML-KEM-512/768/1024, ML-DSA-44/65/87, SLH-DSA-SHA2-128s/128f,
//! SLH-DSA-SHAKE-128f and the TLS hybrid X25519MLKEM768 pass NIST's ACVP vectors (the hybrid's:
//! ACVP ML-KEM-768 cases joined with RFC 7748's X25519 keys) (seeded key generation; derandomised encapsulation and decapsulation of a modified
//! ciphertext; deterministic internal-interface signing and verification) in every implementation
//! that offers them before a cell is timed, implementations agree with each other, a broken known
//! answer fails the cell, the run prints OpenSSL 3.5's KEM and signature tables, a real OpenSSL
//! 3.5 KEM table compares with a run, and the aws-lc column runs them through AWS-LC's own EVP API.

mod common;

use common::{bin, ok, pq_variant, quick, test_cache};

/// The primitives added after ML-KEM and ML-DSA.
const SLH_AND_HYBRID: [&str; 4] = [
    "slh-dsa-sha2-128s",
    "slh-dsa-sha2-128f",
    "slh-dsa-shake-128f",
    "x25519-mlkem768",
];

const REAL_35: &str = "crates/import/tests/real/openssl-3.5-dev-linux-x86_64-mlkem-table.txt";

#[test]
fn ml_dsa_passes_nist_vectors_and_prints_openssl_3_5s_signature_table() {
    let out = ok(bin().args([
        "verify",
        "--impl",
        "rustcrypto",
        "-a",
        "ml-dsa-44,ml-dsa-65,ml-dsa-87",
    ]));
    assert!(out.contains("3 passed, 0 failed"), "{out}");
    assert!(
        out.contains("ML-DSA-sigGen-FIPS204 (deterministic) tcId 30"),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let table = ok(bin()
        .args(["run", "--impl", "rustcrypto", "-a", "ml-dsa-65"])
        .args(quick(&dir.path().join("pq.db"))));
    assert!(
        table.contains("                               keygen     signs    verify keygens/s    sign/s  verify/s\n"),
        "{table}"
    );
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("ML-DSA-65 "))
        .unwrap();
    let rates: Vec<f64> = row
        .split_whitespace()
        .skip(4)
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(rates.len() == 3 && rates.iter().all(|r| *r > 0.0), "{row}");
}

/// The numbers of one `openssl` format row: name, then three times, then three rates.
fn rates_of(table: &str, name: &str) -> Vec<f64> {
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} row in\n{table}"));
    row.split_whitespace()
        .skip(4)
        .map(|x| x.parse().unwrap())
        .collect()
}

#[test]
fn slh_dsa_and_the_hybrid_pass_their_vectors_and_print_openssl_3_5s_tables() {
    let out = ok(bin()
        .args(["verify", "--impl", "rustcrypto", "-a"])
        .arg(SLH_AND_HYBRID.join(",")));
    assert!(out.contains("4 passed, 0 failed"), "{out}");
    for source in [
        "SLH-DSA-sigGen-FIPS205 (deterministic, internal) tcId 121",
        "SLH-DSA-sigVer-FIPS205 (internal) tcIds 211 (valid), 212 (rejected)",
        "encapsulation tcId 26 ‖ RFC 7748 section 6.1 (Bob to Alice)",
    ] {
        assert!(out.contains(source), "{source} in\n{out}");
    }
    let dir = tempfile::tempdir().unwrap();
    let table = ok(bin()
        .args([
            "run",
            "--impl",
            "rustcrypto",
            "-a",
            "slh-dsa-shake-128f,x25519mlkem768",
        ])
        .args(quick(&dir.path().join("pq.db"))));
    for name in ["SLH-DSA-SHAKE-128f", "X25519MLKEM768"] {
        let rates = rates_of(&table, name);
        assert!(
            rates.len() == 3 && rates.iter().all(|r| *r > 0.0),
            "{name}: {rates:?}"
        );
    }
    // SLH-DSA's "f" sets sign slowly and verify fast; keygen is one hypertree layer.
    let slh = rates_of(&table, "SLH-DSA-SHAKE-128f");
    assert!(slh[2] > slh[1], "verify faster than sign: {slh:?}");
}

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

#[test]
fn openssl_3_5_passes_the_ml_kem_and_ml_dsa_vectors_and_agrees_with_rustcrypto() {
    let tmp = tempfile::tempdir().unwrap();
    let (label, lib) = pq_variant(tmp.path());
    let lib = lib.to_str().unwrap();
    let verified = ok(bin().args(["verify", "--impl", &format!("rustcrypto,openssl:{lib}")]));
    let ml = [
        "ml-kem-512",
        "ml-kem-768",
        "ml-kem-1024",
        "ml-dsa-44",
        "ml-dsa-65",
        "ml-dsa-87",
    ];
    // OpenSSL's own X25519MLKEM768 decapsulates rustcrypto's composed one and the reverse.
    for id in ml.iter().chain(SLH_AND_HYBRID.iter()) {
        let row = verified
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no {id} row in\n{verified}"));
        assert_eq!(row.matches("agrees").count(), 2, "{row}");
    }
    assert!(verified.contains(", 0 problems"), "{verified}");
    // And its cells are timed like any other implementation's.
    let db = tmp.path().join("r.db");
    let table = ok(bin()
        .args([
            "run",
            "--variant",
            &label,
            "--impl",
            "rustcrypto",
            "-a",
            "ml-kem-768,ml-dsa-65",
        ])
        .args(quick(&db))
        .env("CRYPTOSPEED_CACHE", test_cache()));
    for id in ["ml-kem-768", "ml-dsa-65"] {
        let row = table.lines().find(|l| l.contains(id)).unwrap();
        assert!(!row.contains("FAILED") && !row.contains("n/a"), "{table}");
    }
}

#[test]
#[ignore = "needs Go ≥ 1.26 on PATH (scripts/test runs it when there is one)"]
fn go_passes_the_pq_vectors_and_agrees_with_rustcrypto_and_openssl_3_5() {
    // ML-KEM-768/1024 and the hybrid are Go's crypto/mlkem; ML-KEM-512, ML-DSA and SLH-DSA are
    // CIRCL's. Each column decapsulates the others' ciphertexts and verifies their signatures.
    let tmp = tempfile::tempdir().unwrap();
    let (_, lib) = pq_variant(tmp.path());
    let openssl = format!("openssl:{}", lib.to_str().unwrap());
    let ml = [
        "ml-kem-512",
        "ml-kem-768",
        "ml-kem-1024",
        "ml-dsa-44",
        "ml-dsa-65",
        "ml-dsa-87",
    ];
    let out = ok(bin()
        .args(["verify", "--impl", &format!("go,rustcrypto,{openssl}")])
        .args([
            "-a",
            &ml.iter()
                .chain(SLH_AND_HYBRID.iter())
                .copied()
                .collect::<Vec<_>>()
                .join(","),
        ]));
    for id in ml.iter().chain(SLH_AND_HYBRID.iter()) {
        let row = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no {id} row in\n{out}"));
        assert_eq!(row.matches("agrees").count(), 3, "{row}");
    }
    assert!(out.contains(", 0 problems"), "{out}");
    // ML-KEM-512's decapsulation vector runs as published (CIRCL parses the expanded key).
    let kats = ok(bin().args(["verify", "--impl", "go", "-a", "ml-kem-512,ml-dsa-65"]));
    assert!(kats.contains("2 passed, 0 failed"), "{kats}");
    assert!(
        kats.contains("decapsulation (modified ciphertext) tcId 77"),
        "{kats}"
    );
    // `list` names the package that serves each primitive, with its module's version.
    let listed = ok(bin().args(["list", "--impl", "go"]));
    let row = |id: &str| {
        listed
            .lines()
            .find(|l| l.starts_with(&format!(" {id} ")))
            .unwrap_or_else(|| panic!("no {id} row in\n{listed}"))
            .to_string()
    };
    assert!(
        row("ml-kem-512")
            .contains("available: github.com/cloudflare/circl/kem/mlkem/mlkem512 (v1."),
        "{listed}"
    );
    assert!(
        row("ml-dsa-65").contains("available: github.com/cloudflare/circl/sign/mldsa/mldsa65 (v1."),
        "{listed}"
    );
    assert!(
        row("ml-kem-768").contains("available: crypto/mlkem (go1."),
        "{listed}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(bin().args(["list", "--impl", "go", "--json"]))).unwrap();
    let entry = json
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["primitive"] == "ml-dsa-65")
        .unwrap();
    let go = &entry["implementations"]["go"];
    assert!(
        go["library"]
            .as_str()
            .unwrap()
            .starts_with("github.com/cloudflare/circl/sign/mldsa/mldsa65 (v"),
        "{go}"
    );
    assert_eq!(go["operations"]["verify+parse"], "conforms", "{go}");
}

#[test]
fn aws_lc_passes_the_ml_kem_and_ml_dsa_vectors_through_its_own_api_and_agrees_with_rustcrypto() {
    // The same build tests/boringssl_family.rs uses: AWS-LC's libcrypto from the aws-lc-sys
    // crate's tree, built once into the default cache (about a minute the first time).
    let paths = ok(bin().args(["variant", "build-library", "aws-lc"]));
    let lib = paths.lines().next().expect("the library's path");
    assert!(std::path::Path::new(lib).is_file(), "{paths}");
    let verified = ok(bin().args(["verify", "--impl", "rustcrypto,aws-lc"]));
    // X25519MLKEM768: composed from AWS-LC's ML-KEM-768 and X25519 (crates/impls/src/hybrid_kem.rs).
    for id in [
        "ml-kem-512",
        "ml-kem-768",
        "ml-kem-1024",
        "ml-dsa-44",
        "ml-dsa-65",
        "ml-dsa-87",
        "x25519-mlkem768",
    ] {
        let row = verified
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no {id} row in\n{verified}"));
        assert_eq!(row.matches("agrees").count(), 2, "{row}");
    }
    assert!(verified.contains(", 0 problems"), "{verified}");
    // The system OpenSSL 3.0 keeps its own reason: AWS-LC's calls are not asked for there.
    let listed = ok(bin().args(["list", "--impl", "openssl"]));
    let row = listed.lines().find(|l| l.contains("ml-kem-768")).unwrap();
    if row.contains("unavailable") {
        assert!(row.contains("needs OpenSSL ≥ 3.5"), "{row}");
        assert!(!row.contains("AWS-LC"), "{row}");
    }
    // And its cells are timed, keys made before timing.
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let out = ok(bin()
        .args([
            "run",
            "--impl",
            "aws-lc",
            "-a",
            "ml-kem-768,ml-dsa-65",
            "--format",
            "json",
        ])
        .args(quick(&db)));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let mut cells: Vec<String> = rows
        .iter()
        .map(|r| {
            assert_ne!(r["status"], "failed", "{r}");
            assert!(r["median"].as_f64().unwrap() > 0.0, "{r}");
            format!(
                "{} {}",
                r["primitive"].as_str().unwrap(),
                r["op"].as_str().unwrap()
            )
        })
        .collect();
    cells.sort();
    assert_eq!(
        cells,
        [
            "ml-dsa-65 keygen",
            "ml-dsa-65 sign",
            "ml-dsa-65 verify",
            "ml-kem-768 decaps",
            "ml-kem-768 encaps",
            "ml-kem-768 keygen"
        ]
    );
}
