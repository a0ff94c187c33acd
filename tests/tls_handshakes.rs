//! TLS 1.3 handshake cells end to end: `verify` runs each column's checks (the handshake
//! completes, group and signature scheme as asked, the exporter agrees), and one short `run`
//! times a whole handshake, each side's steps and a resumed handshake in fresh worker processes,
//! stored and printed like any cell. Each side's time is a part of the handshake's, so its rate
//! must be higher.

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
        .args([
            "--ops",
            "handshake,handshake-client,handshake-server,handshake-resumed",
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
    // A resumed handshake verifies and signs nothing; its tickets, one per call, are minted
    // outside the clock, as the column's declared deviation says.
    assert!(median("handshake-resumed") > whole, "{out}");
    let row = |op: &str| rows.iter().find(|r| r["op"] == op).unwrap();
    let deviation = row("handshake-resumed")["deviation"].as_str().unwrap_or("");
    assert!(deviation.contains("minted before the batch"), "{out}");
    // The bytes on the wire come from the worker's check (of a full handshake: not the
    // resumed cell's), ClientHello through the client's Finished.
    let wire = &row("handshake")["wire_bytes"];
    let flights: Vec<u64> = serde_json::from_value(wire["flights"].clone()).unwrap();
    assert_eq!(wire["total"].as_u64(), Some(flights.iter().sum()), "{out}");
    assert!(flights[0] > 1216 && flights[1] > 1120, "{out}");
    assert!(
        row("handshake-resumed").get("wire_bytes").is_none(),
        "{out}"
    );
    // The store keeps them: `show` of the stored run reports the bytes `run` reported.
    let shown = ok(bin()
        .args(["show", "1", "--format", "json", "--db"])
        .arg(&db));
    let shown: Vec<serde_json::Value> = serde_json::from_str(&shown).unwrap();
    let stored = shown.iter().find(|r| r["op"] == "handshake").unwrap();
    assert_eq!(stored["wire_bytes"], *wire, "{shown:?}");
}
