//! The OpenSSL family's libssl as TLS 1.3 handshake columns, end to end: an OpenSSL 3.5 variant
//! that keeps TLS (its shared library holds libssl too), BoringSSL's and AWS-LC's cmake builds
//! (libssl.so beside libcrypto). `verify` runs each cell's checks against the real libraries
//! (the handshake completes, the group and signature scheme are the ones asked for, both ends'
//! RFC 8446 exporter agrees, the chain verified, TLS_AES_128_GCM_SHA256 negotiated), and a short
//! `run` times resumed handshakes, whose set-up checks that both ends say they resumed.

mod common;

use common::{bin, build_aws_lc_and_boringssl, ok, quick, small_build_keeping, OPENSSL_CRATE};
use common::{test_cache, PQ_KEEPS};

/// The small OpenSSL 3.5 build of the post-quantum tests with TLS kept (built once into the
/// suite's cache): its library.
fn openssl_with_libssl() -> String {
    let mut keep = PQ_KEEPS.to_vec();
    keep.push("no-tls");
    let mut build = bin();
    build
        .args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--label", "cs-test-tls-{key}"])
        .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small_build_keeping(&keep) {
        build.args(["--configure-arg", o]);
    }
    let built = ok(&mut build);
    assert!(built.contains("status    ready"), "{built}");
    built
        .lines()
        .find_map(|l| l.strip_prefix("library "))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| panic!("no library in {built}"))
}

/// The verify row of a primitive.
fn row<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no {id} in {out}"))
}

#[test]
fn openssl_3_5_libssl_passes_every_handshake_check() {
    let library = openssl_with_libssl();
    let out = ok(bin().args([
        "verify",
        "--impl",
        &format!("openssl:{library}"),
        "-a",
        "tls13-handshake",
    ]));
    // All four groups and all four certificate kinds: OpenSSL 3.5 offers every cell.
    assert!(out.contains("10 passed, 0 failed, 0 unavailable"), "{out}");
}

#[test]
fn boringssl_and_aws_lc_libssl_pass_their_checks_and_say_what_they_lack() {
    build_aws_lc_and_boringssl();
    let cells =
        "tls13-x25519-ed25519,tls13-x25519mlkem768-mldsa65,tls13-secp256r1mlkem768-ecdsa-p256";
    let boring = ok(bin().args(["verify", "--impl", "boringssl", "-a", cells]));
    assert!(
        boring.contains("2 passed, 0 failed, 1 unavailable"),
        "{boring}"
    );
    assert!(
        row(&boring, "tls13-secp256r1mlkem768-ecdsa-p256").contains("n/a"),
        "{boring}"
    );
    let aws = ok(bin().args(["verify", "--impl", "aws-lc", "-a", cells]));
    assert!(aws.contains("3 passed, 0 failed, 0 unavailable"), "{aws}");
}

#[test]
fn resumed_handshakes_resume_and_cost_less_than_full_ones() {
    build_aws_lc_and_boringssl();
    let library = openssl_with_libssl();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = ok(bin()
        .args([
            "run",
            "--impl",
            &format!("openssl:{library},boringssl,aws-lc"),
        ])
        .args(["-a", "tls13-x25519mlkem768-ecdsa-p256"])
        .args(["--ops", "handshake,handshake-resumed", "--format", "json"])
        .args(quick(&db)));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    for column in ["openssl", "boringssl", "aws-lc"] {
        let median = |op: &str| {
            let r = rows
                .iter()
                .find(|r| r["op"] == op && r["variant"].as_str().unwrap_or("").starts_with(column))
                .unwrap_or_else(|| panic!("no {column} {op} in {out}"));
            assert!(
                matches!(r["status"].as_str(), Some("ok" | "imprecise")),
                "{r}"
            );
            r["median"].as_f64().unwrap()
        };
        // Handshakes per second: a resumed handshake signs and verifies nothing.
        let (full, resumed) = (median("handshake"), median("handshake-resumed"));
        assert!(
            resumed > full,
            "{column}: resumed {resumed}/s, full {full}/s: {out}"
        );
    }
}
