//! The checks every TLS handshake cell passes before it is timed, run against the real rustls
//! (both providers): the handshake completes, the group and signature scheme are the ones asked
//! for, the RFC 8446 7.5 exporter agrees between the ends. The byte counts are checked against
//! draft-ietf-tls-ecdhe-mlkem's share sizes: X25519MLKEM768's client share is 1216 bytes where
//! X25519's is 32, the server's 1120 where X25519's is 32.

use cryptospeed_catalog::{lookup, select, Primitive};
use cryptospeed_impls::tls::rustls::{checked_flights, checked_resumed_flights};
use cryptospeed_impls::{create, ImplOptions};
use cryptospeed_model::{CellSpec, Op};

fn prim(id: &str) -> &'static Primitive {
    lookup(id).unwrap_or_else(|| panic!("{id} is in the catalog"))
}

#[test]
fn every_offered_handshake_completes_with_what_was_asked_for() {
    for column in ["rustls-aws-lc-rs", "rustls-ring"] {
        let mut imp = create(column, &ImplOptions::default()).unwrap();
        let mut offered = 0;
        for p in select(&["tls13-handshake".into()]).unwrap() {
            if let Err(why) = imp.availability(p) {
                println!("{column} {}: not offered: {why}", p.id);
                continue;
            }
            offered += 1;
            imp.known_answer_test(p)
                .unwrap_or_else(|e| panic!("{column} {}: {e}", p.id));
            let flights = checked_flights(column, p).unwrap();
            println!("{column} {}: bytes per flight {flights:?}", p.id);
            assert_eq!(flights.len(), 4, "{column} {}: {flights:?}", p.id);
            assert_eq!(flights[3], 0, "the server sends no tickets");
        }
        let want = if column == "rustls-ring" { 3 } else { 10 };
        assert_eq!(offered, want, "{column}");
    }
}

#[test]
fn the_hybrid_adds_the_drafts_share_sizes_to_the_first_two_flights() {
    // Ed25519 certificates and signatures have fixed lengths, so only the shares differ.
    let classic = checked_flights("rustls-aws-lc-rs", prim("tls13-x25519-ed25519")).unwrap();
    let hybrid = checked_flights("rustls-aws-lc-rs", prim("tls13-x25519mlkem768-ed25519")).unwrap();
    assert_eq!(hybrid[0] - classic[0], 1216 - 32, "ClientHello");
    assert_eq!(hybrid[1] - classic[1], 1120 - 32, "the server's flight");
    assert_eq!(hybrid[2], classic[2], "the client's Finished");
}

#[test]
fn ring_refuses_the_hybrid_with_a_reason() {
    let mut imp = create("rustls-ring", &ImplOptions::default()).unwrap();
    let why = imp
        .availability(prim("tls13-x25519mlkem768-ecdsa-p256"))
        .unwrap_err();
    assert!(why.contains("X25519MLKEM768"), "{why}");
    let why = imp.availability(prim("sha256")).unwrap_err();
    assert!(why.contains("TLS handshakes only"), "{why}");
}

/// Resumed handshakes (RFC 8446 2.2, PSK with (EC)DHE) in both rustls columns: checked to have
/// resumed on both ends with the cell's group; the server's flight carries no Certificate and no
/// CertificateVerify, the ClientHello the pre_shared_key extension (RFC 8446 4.2.11); and every
/// timed batch's handshakes resume, batches of any size, one after another.
#[test]
fn resumed_handshakes_resume_without_the_certificate() {
    let cells = [
        ("rustls-aws-lc-rs", "tls13-x25519mlkem768-ecdsa-p256"),
        ("rustls-ring", "tls13-x25519-ecdsa-p256"),
    ];
    for (column, id) in cells {
        let p = prim(id);
        let full = checked_flights(column, p).unwrap();
        let resumed = checked_resumed_flights(column, p).unwrap();
        println!("{column} {id}: full {full:?}, resumed {resumed:?}");
        // pre_shared_key: extension header 4, identities 2 + 2 + ticket + 4, binders 2 + 1 + 32.
        assert!(
            resumed[0] >= full[0] + 47,
            "{column}: {resumed:?} against {full:?}"
        );
        // The leaf certificate (an rcgen ECDSA P-256 one: over 250 bytes of DER) and the
        // CertificateVerify (a DER ECDSA signature, 70 to 72 bytes) are not sent.
        assert!(
            resumed[1] + 320 <= full[1],
            "{column}: {resumed:?} against {full:?}"
        );
        assert_eq!(resumed[2], full[2], "{column}: the client's Finished");
        let mut imp = create(column, &ImplOptions::default()).unwrap();
        imp.availability(p).unwrap();
        imp.known_answer_test(p).unwrap();
        let cell = CellSpec {
            primitive: id.into(),
            op: Op::HandshakeResumed,
            bytes: None,
            misalign: 0,
        };
        let mut timed = imp.prepare(p, &cell).unwrap();
        for iters in [1, 7, 3, 20] {
            let s = timed.sample(iters).unwrap();
            assert!(s.wall_ns > 0 && s.iters == iters, "{column}: {s:?}");
        }
        timed.run(5).unwrap();
    }
}
