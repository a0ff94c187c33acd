//! TLS handshakes under a network: two network namespaces joined by an emulated path with a
//! fixed delay each way (so a round trip is twice the delay), optionally lossy (`tls::link`); a
//! rustls server in one, a client in the other, over real TCP. The figure is the time to the last byte
//! of a response (connect, handshake, request, response), where the bytes post-quantum key
//! exchange adds meet TCP's initial window and slow start. Needs root (`ip netns`, TUN).
//!
//! The server and client threads enter their namespace with setns(2) (a thread's network
//! namespace is its own), so one process runs both ends and nothing is left behind.

use cryptospeed_catalog::Primitive;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, ServerConfig, ServerConnection, StreamOwned};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use super::link::{Link, Path};

/// The server's address inside its namespace.
pub const SERVER_ADDR: &str = "10.251.51.1:4433";

/// Sets a socket's congestion control (`cubic`, `reno`, `bbr`); `None` keeps the host's.
fn congestion(tcp: &TcpStream, cc: Option<&str>) -> Result<(), String> {
    use std::os::fd::AsRawFd;
    let Some(cc) = cc else { return Ok(()) };
    // SAFETY: the name's bytes outlive the call; the length is theirs.
    let r = unsafe {
        libc::setsockopt(
            tcp.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            cc.as_ptr().cast(),
            cc.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(format!(
            "TCP_CONGESTION {cc}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// The sender's congestion window (segments) as the kernel reports it (TCP_INFO).
fn cwnd(tcp: &TcpStream) -> u32 {
    use std::os::fd::AsRawFd;
    // SAFETY: tcp_info is plain data the kernel fills up to `len`.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let r = libc::getsockopt(
            tcp.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        if r == 0 {
            info.tcpi_snd_cwnd
        } else {
            0
        }
    }
}

/// Serves one connection: handshake, a request line naming the response's size, the response.
/// Returns the server's congestion window (segments) when the request came.
fn serve_one(config: &Arc<ServerConfig>, tcp: TcpStream, cc: Option<&str>) -> Result<u32, String> {
    let e = |e: std::io::Error| e.to_string();
    tcp.set_nodelay(true).map_err(e)?;
    congestion(&tcp, cc)?;
    let conn = ServerConnection::new(config.clone()).map_err(|e| e.to_string())?;
    let mut tls = BufReader::new(StreamOwned::new(conn, tcp));
    let mut line = String::new();
    tls.read_line(&mut line).map_err(e)?;
    let n: usize = line
        .trim()
        .parse()
        .map_err(|_| format!("bad request {line:?}"))?;
    let tls = tls.get_mut();
    let window = cwnd(&tls.sock);
    tls.write_all(&vec![b'x'; n]).map_err(e)?;
    tls.flush().map_err(e)?;
    tls.conn.send_close_notify();
    tls.flush().map_err(e)?;
    Ok(window)
}

/// What one fetch took: connect to handshake done, and connect to the response's last byte;
/// and the server's congestion window (segments) when the request came.
#[derive(Debug, Clone, Copy)]
pub struct Fetch {
    pub handshake: Duration,
    pub last_byte: Duration,
    pub server_cwnd: u32,
}

fn fetch_one(config: &Arc<ClientConfig>, bytes: usize, cc: Option<&str>) -> Result<Fetch, String> {
    let e = |e: std::io::Error| e.to_string();
    let start = Instant::now();
    let tcp = TcpStream::connect(SERVER_ADDR).map_err(e)?;
    tcp.set_nodelay(true).map_err(e)?;
    congestion(&tcp, cc)?;
    let name = ServerName::try_from(super::certs::SERVER_NAME).map_err(|e| e.to_string())?;
    let conn = ClientConnection::new(config.clone(), name).map_err(|e| e.to_string())?;
    let mut tls = StreamOwned::new(conn, tcp);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock).map_err(e)?;
    }
    let handshake = start.elapsed();
    tls.write_all(format!("{bytes}\n").as_bytes()).map_err(e)?;
    let mut got = 0;
    let mut buf = vec![0; 64 << 10];
    while got < bytes {
        match tls.read(&mut buf).map_err(e)? {
            0 => return Err(format!("the response ended after {got} of {bytes} bytes")),
            k => got += k,
        }
    }
    Ok(Fetch {
        handshake,
        last_byte: start.elapsed(),
        server_cwnd: 0,
    })
}

/// One configuration of a series: a cell (group and certificate) of a rustls column.
pub struct Case {
    pub client: Arc<ClientConfig>,
    pub server: Arc<ServerConfig>,
}

impl Case {
    pub fn new(column: &str, p: &Primitive) -> Result<Case, String> {
        let (client, server) = super::rustls::configs(column, p)?;
        Ok(Case { client, server })
    }
}

/// Runs `rounds` rounds over `link`; in each, every case fetches every size once (cases
/// interleaved, so drift in the host hits them alike), with congestion control `cc` on both
/// ends (`None`: the host's). Returns `[case][size]` fetches.
pub fn series(
    link: &Link,
    cases: &[Case],
    sizes: &[usize],
    rounds: usize,
    cc: Option<&str>,
) -> Result<Vec<Vec<Vec<Fetch>>>, String> {
    let servers: Vec<Arc<ServerConfig>> = cases.iter().map(|c| c.server.clone()).collect();
    let total = rounds * cases.len() * sizes.len();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let stop = &AtomicBool::new(false);
    let server = std::thread::scope(|s| {
        let srv = s.spawn(move || -> Result<Vec<u32>, String> {
            link.enter(0)?;
            let listener = TcpListener::bind(SERVER_ADDR).map_err(|e| e.to_string())?;
            listener.set_nonblocking(true).map_err(|e| e.to_string())?;
            let _ = ready_tx.send(());
            let mut windows = Vec::with_capacity(total);
            for i in 0..total {
                let tcp = loop {
                    match listener.accept() {
                        Ok((tcp, _)) => break tcp,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if stop.load(Ordering::Relaxed) {
                                return Ok(windows);
                            }
                            std::thread::sleep(Duration::from_micros(100));
                        }
                        Err(e) => return Err(e.to_string()),
                    }
                };
                tcp.set_nonblocking(false).map_err(|e| e.to_string())?;
                windows.push(serve_one(
                    &servers[(i / sizes.len()) % servers.len()],
                    tcp,
                    cc,
                )?);
            }
            Ok(windows)
        });
        let cli = s.spawn(move || -> Result<Vec<Vec<Vec<Fetch>>>, String> {
            link.enter(1)?;
            ready_rx
                .recv_timeout(Duration::from_secs(10))
                .map_err(|_| "the server did not start".to_string())?;
            let mut out = vec![vec![Vec::with_capacity(rounds); sizes.len()]; cases.len()];
            for _ in 0..rounds {
                for (c, case) in cases.iter().enumerate() {
                    for (k, &n) in sizes.iter().enumerate() {
                        out[c][k].push(fetch_one(&case.client, n, cc)?);
                    }
                }
            }
            Ok(out)
        });
        let got = cli.join().map_err(|_| "the client panicked".to_string());
        stop.store(true, Ordering::Relaxed);
        let served = srv.join().map_err(|_| "the server panicked".to_string());
        (got, served)
    });
    let (got, served) = server;
    let mut got = got??;
    // The server served the connections in the client's order: round, case, size.
    for (i, w) in served??.into_iter().enumerate() {
        let (c, k) = ((i / sizes.len()) % cases.len(), i % sizes.len());
        if let Some(f) = got[c][k].get_mut(i / (sizes.len() * cases.len())) {
            f.server_cwnd = w;
        }
    }
    Ok(got)
}

/// TCP segments of `bytes` of payload at maximum segment size `mss`.
pub fn segments(bytes: u64, mss: u64) -> u64 {
    bytes.div_ceil(mss).max(1)
}

/// The round trips a response takes in slow start (no loss, no receive-window limit): the
/// server's window starts at `iw` segments plus the `acked` segments of its handshake flight
/// the client acknowledged (RFC 5681: one segment per segment acknowledged; Linux's BBR does
/// so, its Reno and CUBIC do not for a window the flight left unfilled) and doubles per round
/// trip.
pub fn response_rounds(response_segments: u64, iw: u64, acked: u64) -> u64 {
    let (mut cwnd, mut sent, mut rounds) = (iw + acked, 0, 0);
    while sent < response_segments {
        sent += cwnd;
        cwnd *= 2;
        rounds += 1;
    }
    rounds
}

/// The time to last byte predicted for a fetch over a fresh connection, in round trips: the
/// TCP handshake, the TLS flight (one round trip, and one more for each initial window the
/// server's flight overflows; a ClientHello fits the client's window), then the response's
/// rounds. `mss` 1448 and `iw` 10 are
/// Linux's on a 1500-byte MTU.
pub fn predicted_rtts(server_flight: u64, response: u64, mss: u64, iw: u64) -> u64 {
    let flight = segments(server_flight, mss);
    let flight_rtts = flight.div_ceil(iw);
    // TLS records of at most 16 KiB, each with a 5-byte header and a 17-byte AEAD expansion.
    let records = response.div_ceil(16384).max(1);
    // Linux's Reno and CUBIC keep a window the handshake did not fill (RFC 7661): no growth.
    let rounds = response_rounds(segments(response + 22 * records, mss), iw, 0);
    1 + flight_rtts + rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flights of a handshake as `tests/tls.rs` counts them (ECDSA P-256 certificate):
    /// neither group's server flight fills an initial window, so both groups take the same round
    /// trips; an ML-DSA-65 certificate's (about 10 KB) does not either, but 15 KB would.
    #[test]
    fn extra_bytes_add_round_trips_only_past_the_initial_window() {
        let small = 1024;
        let big = 200 << 10;
        assert_eq!(predicted_rtts(648, small, 1448, 10), 3);
        assert_eq!(predicted_rtts(1735, small, 1448, 10), 3);
        assert_eq!(predicted_rtts(648, big, 1448, 10), 6);
        assert_eq!(predicted_rtts(1735, big, 1448, 10), 6);
        assert_eq!(predicted_rtts(10098, small, 1448, 10), 3);
        assert_eq!(predicted_rtts(15 * 1448, small, 1448, 10), 4);
        assert_eq!(response_rounds(142, 10, 1), 4);
    }
}
