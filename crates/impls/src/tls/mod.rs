//! TLS 1.3 handshake cells (the catalog's `tls13-handshake` primitives): a library's client and
//! server stepped in turn in one thread through in-memory buffers, so a handshake's cost is pure
//! CPU and each side's steps can be clocked apart. A library supplies [`Ends`] (make a side,
//! step a side, say when both are done, report what was negotiated); this module writes the
//! handshake loop, the checks made before timing and the timed cells once for all of them.

mod certs;
pub mod explain;
pub mod libssl;
mod libssl_ffi;
mod link;
pub mod net;
pub mod rustls;

pub use certs::ServerCert;

use cryptospeed_catalog::{tls::signature_scheme, Algorithm, Primitive};
use cryptospeed_engine::clock::Stamp;
use cryptospeed_engine::Timed;
use cryptospeed_model::{Op, Sample};

/// One end of a handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// What a finished handshake negotiated, as each library reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiated {
    /// The key exchange group as IANA spells it (`X25519MLKEM768`).
    pub group: String,
    /// The signature scheme the client verified, as RFC 8446 spells it (`ed25519`).
    pub scheme: String,
    /// RFC 8446 7.5 exported keying material of each end (label, context and length fixed).
    pub client_export: Vec<u8>,
    pub server_export: Vec<u8>,
}

/// The flights each handshake primitive's check counted in this worker, kept so its
/// measurements carry them to the orchestrator (`Implementation::checked_flights`).
#[derive(Default)]
pub(crate) struct CheckedFlights(std::collections::HashMap<&'static str, Vec<u64>>);

impl CheckedFlights {
    /// Keeps what a passed check counted; a failed check's error is passed on.
    pub(crate) fn keep(
        &mut self,
        p: &Primitive,
        checked: Result<Vec<usize>, String>,
    ) -> Result<(), String> {
        let flights = checked?;
        self.0
            .insert(p.id, flights.into_iter().map(|n| n as u64).collect());
        Ok(())
    }

    pub(crate) fn of(&self, p: &Primitive) -> Vec<u64> {
        self.0.get(p.id).cloned().unwrap_or_default()
    }
}

/// The exporter's label, context and length used by every column's check.
pub const EXPORT_LABEL: &[u8] = b"EXPORTER-cryptospeed-handshake-check";
pub const EXPORT_CONTEXT: &[u8] = b"cryptospeed";
pub const EXPORT_LEN: usize = 32;

/// A library's client and server for one handshake cell, configured before timing.
pub trait Ends {
    /// Makes a fresh end (a client writes its ClientHello into its own buffer).
    fn make(&mut self, side: Side) -> Result<(), String>;
    /// That end reads what the other wrote and writes its answer; returns the bytes written.
    fn step(&mut self, side: Side) -> Result<usize, String>;
    /// Both ends have finished the handshake.
    fn finished(&self) -> bool;
    /// What the finished handshake negotiated.
    fn negotiated(&mut self) -> Result<Negotiated, String>;
    /// Prepares a batch of `iters` handshakes, outside the clock, before it runs (a rustls
    /// resumed-handshake cell: a ticket for each call).
    fn before_batch(&mut self, iters: u64) -> Result<(), String> {
        let _ = iters;
        Ok(())
    }
    /// Checks the batch's last handshake, outside the clock, after every timed batch (a
    /// resumed-handshake cell: both ends resumed); `Err` fails the cell.
    fn after_batch(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// A step of one end, as the handshake loop hands it to a clock.
type Call<'a> = &'a mut dyn FnMut() -> Result<usize, String>;
/// Runs a step of the given end, clocking it or not.
type Clock<'a> = &'a mut dyn FnMut(Side, Call<'_>) -> Result<usize, String>;

/// More steps than a TLS 1.3 full handshake takes (client, server, client, server).
const MAX_STEPS: usize = 8;

/// Runs one handshake: makes both ends, then steps them in turn, the client first, until both
/// are finished. `clock(side, f)` runs each call (a side's clock, or none); the bytes each step
/// wrote go to `flights` when given.
pub(super) fn handshake<E: Ends + ?Sized>(
    ends: &mut E,
    clock: Clock<'_>,
    mut flights: Option<&mut Vec<usize>>,
) -> Result<(), String> {
    clock(Side::Client, &mut || ends.make(Side::Client).map(|_| 0))?;
    clock(Side::Server, &mut || ends.make(Side::Server).map(|_| 0))?;
    for step in 0..MAX_STEPS {
        if ends.finished() {
            return Ok(());
        }
        let side = if step % 2 == 0 {
            Side::Client
        } else {
            Side::Server
        };
        let n = clock(side, &mut || ends.step(side))?;
        if let Some(f) = flights.as_deref_mut() {
            f.push(n);
        }
    }
    Err(format!("the handshake did not finish in {MAX_STEPS} steps"))
}

pub(super) fn unclocked(_: Side, f: Call<'_>) -> Result<usize, String> {
    f()
}

/// The checks made before a handshake cell is timed: one handshake completes, it negotiated the
/// group and signature scheme the primitive names, and both ends export the same keying
/// material. Returns the bytes each end wrote per step (the flights), the last being the
/// server's read of the client's Finished (0 bytes when it sends no tickets).
pub fn check<E: Ends + ?Sized>(ends: &mut E, p: &Primitive) -> Result<Vec<usize>, String> {
    let Algorithm::Tls13Handshake { group, cert } = p.algorithm else {
        return Err(format!("{} is not a TLS handshake", p.id));
    };
    let mut flights = Vec::new();
    handshake(ends, &mut unclocked, Some(&mut flights))?;
    let got = ends.negotiated()?;
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    if !same(&got.group, group) {
        return Err(format!(
            "negotiated group {} where {group} was asked for",
            got.group
        ));
    }
    let scheme = signature_scheme(cert);
    if !same(&got.scheme, scheme) {
        return Err(format!(
            "the server signed with {} where {scheme} was asked for",
            got.scheme
        ));
    }
    if got.client_export.len() != EXPORT_LEN || got.client_export != got.server_export {
        return Err("the ends' exported keying material differs (RFC 8446 7.5)".into());
    }
    Ok(flights)
}

/// A handshake cell ready for timing: every call is one full handshake between fresh ends;
/// `handshake-client` and `handshake-server` clock that side's calls only.
pub struct HandshakeCell<E: Ends> {
    ends: E,
    side: Option<Side>,
}

impl<E: Ends> HandshakeCell<E> {
    pub fn new(ends: E, op: Op) -> Result<Self, String> {
        let side = match op {
            Op::Handshake => None,
            Op::HandshakeClient => Some(Side::Client),
            Op::HandshakeServer => Some(Side::Server),
            _ => return Err(format!("a TLS handshake has no {op} operation")),
        };
        Ok(HandshakeCell { ends, side })
    }
}

impl<E: Ends> Timed for HandshakeCell<E> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        self.ends.before_batch(iters)?;
        for _ in 0..iters {
            handshake(&mut self.ends, &mut unclocked, None)?;
        }
        self.ends.after_batch()
    }

    /// The whole handshake's clocks read around the batch; one side's summed over its calls.
    fn sample(&mut self, iters: u64) -> Result<Sample, String> {
        self.ends.before_batch(iters)?;
        let Some(timed_side) = self.side else {
            let start = Stamp::before_batch();
            for _ in 0..iters {
                handshake(&mut self.ends, &mut unclocked, None)?;
            }
            let sample = Stamp::after_batch().elapsed_since(start, iters);
            self.ends.after_batch()?;
            return Ok(sample);
        };
        let mut total = Sample {
            iters,
            wall_ns: 0,
            cpu_ns: 0,
            tsc: 0,
            bout: 0,
        };
        let mut clock = |side: Side, f: Call<'_>| {
            if side != timed_side {
                return f();
            }
            let start = Stamp::before_batch();
            let r = f();
            let part = Stamp::after_batch().elapsed_since(start, 1);
            total.wall_ns += part.wall_ns;
            total.cpu_ns += part.cpu_ns;
            total.tsc += part.tsc;
            r
        };
        for _ in 0..iters {
            handshake(&mut self.ends, &mut clock, None)?;
        }
        self.ends.after_batch()?;
        total.wall_ns = total.wall_ns.max(1);
        Ok(total)
    }
}
