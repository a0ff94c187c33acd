//! Handshakes over real TCP between two network namespaces with an emulated 5 ms each way
//! (`tls::net`, `tls::link`): every fetch takes at least the round trips TCP and TLS need (a
//! floor no clock error can beat), the server's window when the request comes is the initial
//! window grown by the handshake segments acknowledged, and nothing is left behind.

use cryptospeed_catalog::lookup;
use cryptospeed_impls::tls::net::{predicted_rtts, series, Case, Link, Path};
use std::process::Command;

#[test]
#[ignore = "needs root"]
fn fetches_take_the_predicted_round_trips_and_leave_no_namespace() {
    let ids = ["tls13-x25519-ecdsa-p256", "tls13-x25519mlkem768-ecdsa-p256"];
    let cases: Vec<Case> = ids
        .iter()
        .map(|id| Case::new("rustls-aws-lc-rs", lookup(id).unwrap()).unwrap())
        .collect();
    let path = Path {
        delay_ms: 5.0,
        loss_pct: 0.0,
    };
    let link = Link::new("cs51t", path).unwrap();
    let got = series(&link, &cases, &[1024], 2, Some("reno")).unwrap();
    drop(link);
    for (c, id) in ids.iter().enumerate() {
        for f in &got[c][0] {
            // ClientHello and the server's flight fit an initial window: 3 round trips.
            assert_eq!(predicted_rtts(1725, 1024, 1448, 10), 3);
            let ms = f.last_byte.as_secs_f64() * 1e3;
            assert!(ms >= 3.0 * 10.0, "{id}: {ms} ms beats 3 round trips");
            assert!(f.handshake.as_secs_f64() * 1e3 >= 2.0 * 10.0, "{id}");
            assert!(f.server_cwnd >= 10, "{id}: window {}", f.server_cwnd);
        }
    }
    let left = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let left = String::from_utf8_lossy(&left.stdout);
    assert!(!left.contains("cs51t-"), "namespaces left behind: {left}");
}
