//! End-to-end tests of the implementations side by side: every test starts real worker
//! processes for real libraries (system libcrypto, Debian's libsodium, libgcrypt, nettle, mbedtls,
//! wolfSSL, the openssl executable, and ring, aws-lc and RustCrypto linked in). The oracles are the
//! published vectors in the catalog and the other libraries' outputs; no test asserts a speed.

mod common;

use common::{bin, build_aws_lc_and_boringssl, quick};
use rusqlite::Connection;

#[test]
fn list_shows_a_matrix_of_at_least_ten_implementations() {
    build_aws_lc_and_boringssl();
    let out = bin().args(["list", "--impl", "all"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap();
    let columns: Vec<&str> = header.split_whitespace().skip(1).collect();
    assert!(columns.len() >= 10, "{header}");
    // Every implementation offers something on this machine (all its libraries are installed):
    // each column has its summary line, and none offers nothing or is unavailable.
    let summaries: Vec<&str> = text
        .lines()
        .filter(|l| columns.iter().any(|c| l.starts_with(&format!("{c}: "))))
        .collect();
    assert_eq!(summaries.len(), columns.len(), "{text}");
    let of_all = format!(" of {} primitives", cryptospeed_catalog::all().len());
    for line in summaries {
        assert!(line.contains(&of_all) && !line.contains(": 0 of"), "{line}");
    }
    let sha256 = text.lines().find(|l| l.starts_with(" sha256 ")).unwrap();
    assert!(sha256.matches("yes").count() >= 9, "{sha256}");
}

#[test]
fn verify_all_passes_known_answers_and_agreement() {
    build_aws_lc_and_boringssl();
    let out = bin().args(["verify", "--impl", "all"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(", 0 problems across 15 implementations"),
        "{text}"
    );
    // AES-GCM is offered by many libraries, and they all computed the same bytes.
    let gcm = text
        .lines()
        .find(|l| l.starts_with(" aes-128-gcm "))
        .unwrap();
    assert!(gcm.matches("agrees").count() >= 7, "{gcm}");
    // ECDSA signatures of each library verified in the others.
    let ecdsa = text
        .lines()
        .find(|l| l.starts_with(" ecdsa-p256 "))
        .unwrap();
    assert!(ecdsa.matches("agrees").count() >= 4, "{ecdsa}");
}

#[test]
fn a_corrupted_implementation_is_caught_by_kat_and_agreement_and_not_timed() {
    // The fault hook corrupts ring's sha256: its KAT fails and its agreement output differs.
    let out = bin()
        .env("CRYPTOSPEED_FAULT", "kat:sha256")
        .args([
            "verify",
            "--impl",
            "openssl,ring,rustcrypto",
            "-a",
            "sha256,sha512",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let row = text.lines().find(|l| l.starts_with(" sha256 ")).unwrap();
    assert_eq!(row.matches("KAT FAIL").count(), 3, "{row}");
    let row = text.lines().find(|l| l.starts_with(" sha512 ")).unwrap();
    assert_eq!(row.matches("agrees").count(), 3, "{row}");

    // And in a run: the corrupted cells are failed and never timed; the others are measured.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = bin()
        .env("CRYPTOSPEED_FAULT", "kat:sha256")
        .args([
            "run",
            "--impl",
            "ring,rustcrypto",
            "-a",
            "sha256,sha512",
            "-b",
            "64",
        ])
        .args(quick(&db))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let recs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in recs.as_array().unwrap() {
        let sha256 = r["primitive"] == "sha256";
        assert_eq!(r["status"] == "failed", sha256, "{r}");
        if sha256 {
            assert!(
                r["reason"].as_str().unwrap().contains("known-answer"),
                "{r}"
            );
        }
    }
    let c = Connection::open(&db).unwrap();
    let timed_sha256: i64 = c
        .query_row(
            "SELECT count(*) FROM sample s JOIN measurement m ON s.measurement_id = m.id \
             WHERE m.primitive = 'sha256'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(timed_sha256, 0);
}

#[test]
fn matrix_has_numbers_for_every_implementation_that_offers_the_primitive() {
    build_aws_lc_and_boringssl();
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "run",
            "--impl",
            "all",
            "-a",
            "sha256,aes-128-gcm,chacha20-poly1305,ed25519",
            "-b",
            "8192",
        ])
        .args(quick(&dir.path().join("m.db")))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("MB/s at 8192 bytes"), "{text}");
    for row in [" sha256 ", " aes-128-gcm ", " chacha20-poly1305 "] {
        let line = text.lines().find(|l| l.starts_with(row)).unwrap();
        assert_eq!(line.matches(" *").count(), 1, "one fastest: {line}");
        assert!(!line.contains("FAILED"), "{line}");
        assert!(!line.contains(" 0 ") && !line.contains(" 0.00 "), "{line}");
    }
    let sign = text
        .lines()
        .find(|l| l.starts_with(" ed25519 ") && l.contains("sign"))
        .unwrap();
    assert!(
        sign.contains("n/a"),
        "mbedtls and others lack ed25519: {sign}"
    );
    assert!(text.contains('†'), "openssl-cli numbers are marked: {text}");
}

#[test]
fn a_crashing_worker_costs_only_its_cells_and_the_others_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let out = bin()
        .env("CRYPTOSPEED_FAULT", "crash:sha256")
        .args([
            "run",
            "--impl",
            "libsodium,nettle",
            "-a",
            "sha256,sha512",
            "-b",
            "64",
        ])
        .args(quick(&db))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("SIGSEGV"), "{stderr}");
    let recs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let recs = recs.as_array().unwrap();
    assert_eq!(recs.len(), 4);
    for r in recs {
        if r["primitive"] == "sha256" {
            assert_eq!(r["status"], "failed");
            assert!(r["reason"].as_str().unwrap().contains("SIGSEGV"), "{r}");
        } else {
            assert!(r["status"] == "ok" || r["status"] == "imprecise", "{r}");
        }
    }
}
