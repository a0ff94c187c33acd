//! CPU-feature masks end to end: `run --mask` starts one worker per mask with OPENSSL_ia32cap set,
//! each mask is its own variant, and the capability vector the library reports is stored.

mod common;

use common::{bin, ok, quick};
use rusqlite::Connection;

#[test]
fn masked_and_unmasked_variants_are_measured_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let stdout = ok(bin()
        .args([
            "run",
            "--impl",
            "openssl,openssl-cli",
            "--mask",
            "none",
            "--mask",
            "no-aesni,no-avx2",
        ])
        .args(["-a", "aes-128-cbc", "-b", "1024", "--format", "json"])
        .args(quick(&db)));
    let v: serde_json::Value = serde_json::from_slice(stdout.as_bytes()).unwrap();
    let variants: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(variants.len(), 4, "{variants:?}");
    assert!(
        variants
            .iter()
            .any(|l| l.starts_with("openssl-") && l.ends_with("+no-aesni+no-avx2")),
        "{variants:?}"
    );
    assert!(
        variants
            .iter()
            .any(|l| l.starts_with("cli-openssl-") && l.ends_with("+no-aesni+no-avx2")),
        "{variants:?}"
    );
    let c = Connection::open(&db).unwrap();
    let (caps, mask): (String, String) = c
        .query_row("SELECT capabilities, feature_mask FROM variant WHERE implementation = 'openssl' AND label LIKE '%no-aesni%'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    // OPENSSL_ia32cap(3): AES-NI is bit 57 of the first word, AVX2 bit 5 of the second, VAES 41.
    assert_eq!(mask, "OPENSSL_ia32cap=~0x200000000000000:~0x20000000020");
    assert!(
        caps.contains("env:~0x200000000000000:~0x20000000020"),
        "{caps}"
    );
    // The effective first word has the AES-NI bit cleared.
    let word0 = caps
        .trim_start_matches("OPENSSL_ia32cap=0x")
        .split(':')
        .next()
        .unwrap();
    let word0 = u64::from_str_radix(word0, 16).unwrap();
    assert_eq!(word0 & (1 << 57), 0, "{caps}");
    let unmasked: String = c
        .query_row("SELECT feature_mask FROM variant WHERE implementation = 'openssl' AND label NOT LIKE '%+%'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(unmasked, "");
}

#[test]
fn implementations_that_cannot_honour_a_mask_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = bin()
        .args([
            "run",
            "--impl",
            "ring",
            "--mask",
            "no-aesni",
            "-a",
            "aes-128-gcm",
            "-b",
            "16",
        ])
        .args(quick(&db))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'ring' cannot honour the CPU-feature mask no-aesni"),
        "{err}"
    );
    let out = bin()
        .args(["run", "--mask", "no-sse9", "-a", "md5"])
        .args(quick(&db))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown CPU feature mask 'no-sse9'") && err.contains("no-avx512"),
        "{err}"
    );
}
