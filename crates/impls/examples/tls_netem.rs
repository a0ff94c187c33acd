//! Time to last byte of a small and a 200 KiB response over TLS 1.3 between two network
//! namespaces with netem delay (and loss), X25519 against X25519MLKEM768, beside the round
//! trips TCP's initial window and slow start predict (crates/impls `tls::net`). Needs root.
//!
//! cargo run --release -p cryptospeed-impls --example tls_netem -- [ROUNDS] [DELAY_MS] [LOSS_PCT] [CC]
//!
//! CC is the congestion control both ends use (`cubic`, `reno`, `bbr`; default the host's).

use cryptospeed_catalog::lookup;
use cryptospeed_impls::tls::net::{predicted_rtts, series, Case, Fetch, Link, Path};
use cryptospeed_impls::tls::rustls::checked_flights;

const COLUMN: &str = "rustls-aws-lc-rs";
const CELLS: [&str; 2] = ["tls13-x25519-ecdsa-p256", "tls13-x25519mlkem768-ecdsa-p256"];
const SIZES: [usize; 2] = [1024, 200 << 10];

fn arg(i: usize, default: f64) -> f64 {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn quantile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// The median of paired differences and a 95% bootstrap interval of it.
fn paired(a: &[Fetch], b: &[Fetch]) -> (f64, f64, f64) {
    let mut d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| ms(y.last_byte) - ms(x.last_byte))
        .collect();
    let mid = quantile(&mut d, 0.5);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut medians: Vec<f64> = (0..2000)
        .map(|_| {
            let mut s: Vec<f64> = (0..d.len())
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    d[(seed % d.len() as u64) as usize]
                })
                .collect();
            quantile(&mut s, 0.5)
        })
        .collect();
    (
        mid,
        quantile(&mut medians, 0.025),
        quantile(&mut medians, 0.975),
    )
}

fn main() -> Result<(), String> {
    let rounds = arg(1, 40.0) as usize;
    let path = Path {
        delay_ms: arg(2, 25.0),
        loss_pct: arg(3, 0.0),
    };
    let rtt = 2.0 * path.delay_ms;
    let mut cases = Vec::new();
    let mut flights = Vec::new();
    for id in CELLS {
        let p = lookup(id).ok_or(id)?;
        cases.push(Case::new(COLUMN, p)?);
        flights.push(checked_flights(COLUMN, p)?);
    }
    let link = Link::new("cs51", path)?;
    let cc = std::env::args().nth(4);
    let got = series(&link, &cases, &SIZES, rounds, cc.as_deref())?;
    drop(link);
    println!(
        "{COLUMN}, ECDSA P-256, RTT {rtt} ms, loss {}%, congestion control {}, {rounds} rounds (cases interleaved)",
        path.loss_pct,
        cc.as_deref().unwrap_or("the host's")
    );
    println!("cell                              response  hs median  TTLB p10  median    p90  cwnd  predicted");
    for (c, id) in CELLS.iter().enumerate() {
        for (k, &n) in SIZES.iter().enumerate() {
            let f = &got[c][k];
            let mut hs: Vec<f64> = f.iter().map(|x| ms(x.handshake)).collect();
            let mut last: Vec<f64> = f.iter().map(|x| ms(x.last_byte)).collect();
            let rtts = predicted_rtts(flights[c][1] as u64, n as u64, 1448, 10);
            let mut w: Vec<f64> = f.iter().map(|x| x.server_cwnd as f64).collect();
            println!(
                "{id:33} {n:8}  {:9.2}  {:8.2} {:7.2} {:6.2}  {:4}  {} RTT = {} ms",
                quantile(&mut hs, 0.5),
                quantile(&mut last, 0.1),
                quantile(&mut last, 0.5),
                quantile(&mut last, 0.9),
                quantile(&mut w, 0.5),
                rtts,
                rtts as f64 * rtt
            );
        }
    }
    for (k, &n) in SIZES.iter().enumerate() {
        let (mid, lo, hi) = paired(&got[0][k], &got[1][k]);
        println!(
            "X25519MLKEM768 - X25519 at {n} bytes: median paired difference {mid:+.3} ms (95% {lo:+.3} to {hi:+.3})"
        );
    }
    println!(
        "bytes written (ClientHello, server's flight, client's Finished): {:?} and {:?}",
        &flights[0][..3],
        &flights[1][..3]
    );
    Ok(())
}
