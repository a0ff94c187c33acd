//! End-to-end tests of the AES modes beyond CBC/CTR/GCM (ECB, CCM, OCB, XTS, GCM-SIV), SM3 and
//! SM4 (issue 20): every implementation that offers one passes its published vectors and agrees
//! with the others byte for byte, and each times encryption and decryption (the AEADs that are
//! not counter-mode based included) without a failed cell. No test asserts a speed.

mod common;

use common::{bin, ok, quick};

const IDS: [&str; 13] = [
    "aes-128-ecb",
    "aes-256-ecb",
    "aes-128-ccm",
    "aes-256-ccm",
    "aes-128-ocb",
    "aes-256-ocb",
    "aes-128-xts",
    "aes-256-xts",
    "aes-128-gcm-siv",
    "aes-256-gcm-siv",
    "sm3",
    "sm4-cbc",
    "sm4-ecb",
];

/// The row of `id` in a verify table.
fn row<'a>(table: &'a str, id: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no {id} row in\n{table}"))
}

#[test]
fn the_c_libraries_and_rustcrypto_pass_every_vector_and_agree_with_the_system_libcrypto() {
    let out = ok(bin().args([
        "verify",
        "--impl",
        "openssl,rustcrypto,libgcrypt,mbedtls,nettle,wolfssl",
        "-a",
        &IDS.join(","),
    ]));
    assert!(out.contains(" 0 problems"), "{out}");
    for id in IDS {
        let r = row(&out, id);
        assert!(r.matches("agrees").count() >= 2, "{r}");
        assert!(!r.contains("FAIL") && !r.contains("differs"), "{r}");
    }
    // OpenSSL 3.0 has every one of them but GCM-SIV (3.2+); rustcrypto and libgcrypt all.
    for id in IDS.iter().filter(|id| !id.ends_with("gcm-siv")) {
        let r = row(&out, id);
        assert!(r.matches("agrees").count() >= 3, "{r}");
    }
    // Mbed TLS, Nettle and wolfCrypt have ECB, CCM and XTS; Nettle SM3 too.
    for id in ["aes-128-ecb", "aes-256-ccm", "aes-128-xts", "aes-256-xts"] {
        let r = row(&out, id);
        assert_eq!(r.matches("agrees").count(), 6, "{r}");
    }
    assert_eq!(row(&out, "sm3").matches("agrees").count(), 4);
}

#[test]
fn encryption_and_decryption_are_timed_in_each_implementation() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    // The quick options with a smaller budget: 150 cells, none of them asserted on for speed.
    let mut options = quick(&db);
    let at = options.iter().position(|o| o == "--max-time").unwrap();
    options[at + 1] = "0.05".into();
    let out = ok(bin()
        .args(["run", "--impl", "openssl,rustcrypto,libgcrypt", "-a"])
        .arg(IDS.join(","))
        .args(["-b", "17,1024", "--ops", "all", "--format", "csv"])
        .args(options));
    // Every cell has exactly one row: timed (a rate above zero) in every library, both
    // directions of every cipher, except the one set the system OpenSSL 3.0 lacks (GCM-SIV is
    // 3.2+), which is unavailable with the reason.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.splitn(15, ',').collect())
        .collect();
    let mut expected = 0;
    for implementation in ["openssl", "rustcrypto", "libgcrypt"] {
        for id in IDS {
            let ops: &[&str] = if id == "sm3" {
                &["hash"]
            } else {
                &["encrypt", "decrypt"]
            };
            for op in ops {
                for bytes in ["17", "1024"] {
                    expected += 1;
                    let cell: Vec<&Vec<&str>> = rows
                        .iter()
                        .filter(|r| {
                            r[1] == implementation && r[3] == id && r[4] == *op && r[5] == bytes
                        })
                        .collect();
                    assert_eq!(cell.len(), 1, "{implementation} {id} {op} {bytes}:\n{out}");
                    let r = cell[0];
                    if implementation == "openssl" && id.ends_with("gcm-siv") {
                        assert_eq!(r[13], "unavailable", "{r:?}");
                        assert!(r[14].contains("GCM-SIV"), "{r:?}");
                    } else {
                        assert!(r[13] == "ok" || r[13] == "imprecise", "{r:?}");
                        assert!(r[7].parse::<f64>().is_ok_and(|v| v > 0.0), "{r:?}");
                    }
                }
            }
        }
    }
    assert_eq!(rows.len(), expected, "{out}");
}

#[test]
fn openssl_3_5_passes_gcm_siv_ccm_xts_and_ecb_and_agrees_with_rustcrypto() {
    // The very build tests/pq.rs makes (same source and options), so the suite's cache serves
    // both; it leaves OCB, SM3 and SM4 out.
    let tmp = tempfile::tempdir().unwrap();
    let (_, lib) = common::pq_variant(tmp.path());
    let ids = "aes-128-gcm-siv,aes-256-gcm-siv,aes-128-ccm,aes-256-ccm,aes-128-xts,aes-256-xts,\
               aes-128-ecb,aes-256-ecb";
    let out = ok(bin().args([
        "verify",
        "--impl",
        &format!("rustcrypto,openssl:{}", lib.display()),
        "-a",
        ids,
    ]));
    for id in ids.split(',') {
        assert_eq!(
            row(&out, id).matches("agrees").count(),
            2,
            "{}",
            row(&out, id)
        );
    }
}

#[test]
fn aws_lc_and_boringssl_pass_and_time_the_modes_they_have() {
    for name in ["aws-lc", "boringssl"] {
        // Built once into the default cache (tests/boringssl_family.rs builds the same).
        let out = bin()
            .args(["variant", "build-library", name])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let ids = "aes-128-ecb,aes-256-ecb,aes-128-ccm,aes-256-ccm,aes-256-xts,aes-128-gcm-siv,\
               aes-256-gcm-siv";
    let verified = ok(bin().args(["verify", "--impl", "aws-lc,boringssl,rustcrypto", "-a", ids]));
    assert!(verified.contains(" 0 problems"), "{verified}");
    for id in ["aes-128-ecb", "aes-256-xts", "aes-256-gcm-siv"] {
        let r = row(&verified, id);
        assert_eq!(r.matches("agrees").count(), 3, "{r}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut options = quick(&tmp.path().join("r.db"));
    let at = options.iter().position(|o| o == "--max-time").unwrap();
    options[at + 1] = "0.05".into();
    // XTS there takes one data unit per IV: the loop sets it again before each call.
    let out = ok(bin()
        .args(["run", "--impl", "aws-lc,boringssl", "-a", ids])
        .args(["-b", "16,1024", "--ops", "all", "--format", "csv"])
        .args(options));
    let rows: Vec<&str> = out.lines().filter(|l| l.contains(",aes-")).collect();
    assert!(rows
        .iter()
        .any(|r| r.contains(",boringssl,") && r.contains(",aes-256-xts,")));
    assert!(!rows.iter().any(|r| r.contains("failed")), "{rows:?}");
}
