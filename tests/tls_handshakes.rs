//! TLS 1.3 handshake cells end to end: `verify` runs each column's checks (the handshake
//! completes, group and signature scheme as asked, the exporter agrees), and one short `run`
//! times a whole handshake and each side's steps in fresh worker processes, stored and printed
//! like any cell. Each side's time is a part of the handshake's, so its rate must be higher.

mod common;

use common::{bin, ok, quick};

#[test]
fn verify_checks_every_rustls_handshake_before_timing() {
    let out = ok(bin().args([
        "verify",
        "--impl",
        "rustls-aws-lc-rs,rustls-ring",
        "-a",
        "tls13-x25519-ed25519,tls13-x25519mlkem768-ed25519",
    ]));
    assert!(out.contains(", 0 problems"), "{out}");
    let hybrid = out
        .lines()
        .find(|l| l.trim_start().starts_with("tls13-x25519mlkem768-ed25519 "))
        .unwrap_or_else(|| panic!("{out}"));
    // aws-lc-rs offers the hybrid; ring does not, and says so rather than failing.
    assert!(hybrid.contains("kat") && hybrid.contains("n/a"), "{hybrid}");
}

#[test]
fn a_handshake_and_each_sides_steps_are_timed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = ok(bin()
        .args([
            "run",
            "--impl",
            "rustls-aws-lc-rs",
            "-a",
            "tls13-x25519mlkem768-ed25519",
        ])
        .args(["--min-bouts", "3", "--format", "json"])
        .args(quick(&db)));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let median = |op: &str| {
        let r = rows
            .iter()
            .find(|r| r["op"] == op)
            .unwrap_or_else(|| panic!("no {op} in {out}"));
        assert!(
            matches!(r["status"].as_str(), Some("ok" | "imprecise")),
            "{r}"
        );
        r["median"].as_f64().unwrap()
    };
    let whole = median("handshake");
    let (client, server) = (median("handshake-client"), median("handshake-server"));
    assert!(client > 0.0 && server > 0.0, "{out}");
    // Rates (handshakes per second): a side's steps take less time than the whole handshake.
    assert!(
        client > whole && server > whole,
        "each side is part of the whole: {out}"
    );
}
