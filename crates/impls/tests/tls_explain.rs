//! The explanation of a handshake by its primitives, checked against what rustls did: the
//! catalog's key share sizes (data in `tls::work`) against the bytes the real handshakes wrote
//! into the in-memory transport, for every group; and the explanation's sum and residual on a
//! run record holding a handshake's sides and the primitive cells they are priced from.

use cryptospeed_catalog::tls::work::{key_share_bytes, side, End};
use cryptospeed_catalog::{lookup, Algorithm};
use cryptospeed_impls::tls::explain::{explain_side, section_of};
use cryptospeed_impls::tls::rustls::checked_flights;
use cryptospeed_model::{CellSpec, Measurement, Op, Status, Summary, VariantMeasurement};

#[test]
fn the_catalogs_share_sizes_are_what_rustls_put_on_the_wire() {
    let base = checked_flights(
        "rustls-aws-lc-rs",
        lookup("tls13-x25519-ecdsa-p256").unwrap(),
    )
    .unwrap();
    for id in [
        "tls13-x25519mlkem768-ecdsa-p256",
        "tls13-secp256r1mlkem768-ecdsa-p256",
        "tls13-mlkem768-ecdsa-p256",
    ] {
        let p = lookup(id).unwrap();
        let Algorithm::Tls13Handshake { group, .. } = p.algorithm else {
            panic!("{id}")
        };
        let (client, server) = key_share_bytes(group).unwrap();
        let f = checked_flights("rustls-aws-lc-rs", p).unwrap();
        // The ClientHello differs in the share alone (and its group id: same length).
        assert_eq!(f[0] - base[0], client as usize - 32, "{id} ClientHello");
        // The server's flight also holds two DER ECDSA signatures, each 70 to 72 bytes.
        let grew = f[1] as i64 - base[1] as i64 - (server as i64 - 32);
        assert!(
            grew.abs() <= 4,
            "{id} server's flight {f:?} against {base:?}"
        );
    }
}

fn cell(
    variant: &str,
    imp: &str,
    primitive: &str,
    op: Op,
    bytes: Option<u64>,
    us: f64,
) -> VariantMeasurement {
    VariantMeasurement {
        variant: variant.into(),
        implementation: imp.into(),
        measurement: Measurement {
            cell: CellSpec {
                primitive: primitive.into(),
                op,
                bytes,
                misalign: 0,
            },
            status: Status::Ok,
            reason: None,
            summary: Some(Summary {
                n: 10,
                median: us * 1e3,
                ci_lo: us * 1e3 * 0.99,
                ci_hi: us * 1e3 * 1.01,
                mad: 0.0,
                outliers: 0,
                min: us * 1e3,
                max: us * 1e3,
            }),
            tsc_per_op: None,
            cpu_fraction: None,
            samples: Vec::new(),
            elapsed_s: 1.0,
            reported_rate: None,
            disturbances: Vec::new(),
            flights: Vec::new(),
        },
        definition: None,
    }
}

#[test]
fn a_side_is_its_primitives_sum_and_a_residual() {
    let id = "tls13-x25519mlkem768-ecdsa-p256";
    let hs = |op, us| cell("rustls-aws-lc-rs", "rustls-aws-lc-rs", id, op, None, us);
    let prim = |p, op, b, us| cell("aws-lc-rs", "aws-lc-rs", p, op, b, us);
    let mut ms = vec![
        hs(Op::HandshakeServer, 85.0),
        hs(Op::HandshakeClient, 194.0),
    ];
    ms.extend([
        prim("ml-kem-768", Op::EncapsParse, None, 20.0),
        prim("x25519", Op::Derive, None, 30.0),
        prim("ecdsa-p256", Op::Sign, None, 10.0),
        prim("hmac-sha256", Op::Mac, Some(64), 0.5),
        prim("sha256", Op::Hash, Some(1024), 1.0),
    ]);
    let server = explain_side(&ms, &ms[0], End::Server, 3000).unwrap();
    let (sum, complete) = server.sum();
    // encaps 20 + two X25519 30 + one sign 10 + 22 HMAC 0.5 + 3 KiB of transcript at 1.0.
    assert!(complete);
    assert!(
        (sum.us - (20.0 + 60.0 + 10.0 + 11.0 + 3.0)).abs() < 1e-9,
        "{}",
        sum.us
    );
    assert_eq!(server.measured.unwrap().us, 85.0);
    // The client's keygen, decaps and verify are not in the record: no residual claimed.
    let client = explain_side(&ms, &ms[1], End::Client, 3000).unwrap();
    assert!(!client.sum().1);
    let text = section_of(&ms);
    // The section counts the transcript from the real flights (3165 bytes: 4 KiB pieces).
    assert!(text.contains("residual -20.0"), "{text}");
    assert!(
        text.contains("ml-kem-768 decaps x1: not in this run"),
        "{text}"
    );
    assert!(text.contains("ClientHello 1376"), "{text}");
    assert_eq!(side("X25519", "Ed25519", End::Client, 1).unwrap().len(), 5);
}

/// The server's side of `tls13-x25519-ecdsa-p256` priced so that every primitive costs `us`:
/// two X25519 derives, one sign, 22 HMACs, the transcript's KiB.
fn libssl_build(variant: &str, us: f64) -> Vec<VariantMeasurement> {
    let at = |p, op, b| cell(variant, "openssl", p, op, b, us);
    vec![
        at("tls13-x25519-ecdsa-p256", Op::HandshakeServer, None),
        at("x25519", Op::Derive, None),
        at("ecdsa-p256", Op::Sign, None),
        at("hmac-sha256", Op::Mac, Some(64)),
        at("sha256", Op::Hash, Some(1024)),
    ]
}

#[test]
fn two_builds_of_one_library_are_each_priced_from_their_own_cells() {
    // `--impl openssl:A,openssl:B`: B's label is made distinct (`#2`), its implementation not.
    let mut ms = libssl_build("openssl-3.5.5", 1.0);
    ms.extend(libssl_build("openssl-3.5.5#2", 2.0));
    // 2 derives + 1 sign + 22 HMACs + 1 KiB of transcript = 26 calls at each build's price.
    for (at, us) in [(0, 1.0), (5, 2.0)] {
        let e = explain_side(&ms, &ms[at], End::Server, 1024).unwrap();
        assert_eq!(e.priced_from.as_deref(), Ok(ms[at].variant.as_str()));
        let (sum, complete) = e.sum();
        assert!(complete);
        assert!(
            (sum.us - 26.0 * us).abs() < 1e-9,
            "{}: {}",
            ms[at].variant,
            sum.us
        );
    }
    let text = section_of(&ms);
    assert!(text.contains("primitives from openssl-3.5.5#2"), "{text}");
}

#[test]
fn a_rustls_column_with_two_matching_providers_is_ambiguous_not_priced() {
    let id = "tls13-x25519-ecdsa-p256";
    let hs = |v: &str| cell(v, "rustls-aws-lc-rs", id, Op::HandshakeServer, None, 80.0);
    let prim = |v: &str, us| cell(v, "aws-lc-rs", "ecdsa-p256", Op::Sign, None, us);
    // A masked rustls column takes the provider column with the same mask, not the plain one.
    let ms = vec![
        hs("rustls-aws-lc-rs+no-avx2"),
        prim("aws-lc-rs", 10.0),
        prim("aws-lc-rs+no-avx2", 20.0),
    ];
    let e = explain_side(&ms, &ms[0], End::Server, 1024).unwrap();
    assert_eq!(e.priced_from.as_deref(), Ok("aws-lc-rs+no-avx2"));
    let sign = e
        .lines
        .iter()
        .find(|l| l.work.primitive == "ecdsa-p256")
        .unwrap();
    assert_eq!(sign.each.unwrap().us, 20.0);
    // Two provider builds that both match: neither is picked.
    let ms = vec![
        hs("rustls-aws-lc-rs"),
        prim("aws-lc-rs-a", 10.0),
        prim("aws-lc-rs-b", 20.0),
    ];
    let e = explain_side(&ms, &ms[0], End::Server, 1024).unwrap();
    let why = e.priced_from.as_ref().unwrap_err();
    assert!(why.contains("ambiguous"), "{why}");
    assert!(e.lines.iter().all(|l| l.each.is_none()));
    assert!(!e.sum().1);
    assert!(section_of(&ms).contains("ambiguous"));
}
