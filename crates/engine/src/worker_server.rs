//! The worker side of the worker protocol: hosts one [`Implementation`] and answers requests
//! line by line on stdin/stdout. It lives beside its client ([`crate::worker_client`]) so the
//! two ends of the protocol change together; the binary's `cryptospeed worker` only picks the
//! implementation and calls [`serve`]. Every primitive's known-answer tests run (once) before
//! any of its cells is timed or profiled.
//!
//! `CRYPTOSPEED_FAULT` is a test hook: `kat:ID` makes ID's known-answer test fail (and flips a
//! bit of its agreement output), `crash:ID` makes the worker die of SIGSEGV when asked to
//! measure ID, and `slow:F` makes every timed batch take (1 + F) times its CPU time (by spinning
//! after it; `slow-cells:ID@BYTES+ID@BYTES…` narrows it to those cells, so a gate over a whole
//! table can be given a regression in a few named cells), the injected effect the calibration benchmark (scripts/bench-intervals) must
//! detect. It exists so the test suite can show that wrong answers are never timed, that a
//! crashing library costs only its own cells, and how small a slowdown a comparison can see.

use crate::protocol::{AgreementInputs, AvailabilityEntry, Request, Response, PROTOCOL_VERSION};
use crate::{sampler, Implementation, Timed};
use cryptospeed_catalog::agreement::AgreementCase;
use cryptospeed_catalog::Primitive;
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Status};
use std::collections::HashMap;
use std::io::{BufRead, Write};

struct Fault {
    kat: Option<String>,
    crash: Option<String>,
    /// Extra share of every batch's time to burn.
    slow: f64,
    /// The cells `slow` applies to (`ID@BYTES`, or `ID` for every size); all when `None`.
    slow_cells: Option<Vec<String>>,
}

impl Fault {
    /// The share of `cell`'s batches to burn: `slow`, unless `slow-cells` leaves the cell out.
    fn slow_for(&self, cell: &CellSpec) -> f64 {
        let sized = match cell.bytes {
            Some(b) => format!("{}@{b}", cell.primitive),
            None => cell.primitive.clone(),
        };
        match &self.slow_cells {
            Some(cells) if !cells.iter().any(|c| *c == sized || *c == cell.primitive) => 0.0,
            _ => self.slow,
        }
    }
}

/// The faults `CRYPTOSPEED_FAULT` asks for, or why they cannot be applied.
fn fault() -> Result<Fault, String> {
    parse_fault(&std::env::var("CRYPTOSPEED_FAULT").unwrap_or_default())
}

fn parse_fault(spec: &str) -> Result<Fault, String> {
    let mut f = Fault {
        kat: None,
        crash: None,
        slow: 0.0,
        slow_cells: None,
    };
    for part in spec.split(',') {
        match part.split_once(':') {
            Some(("kat", id)) => f.kat = Some(id.to_string()),
            Some(("crash", id)) => f.crash = Some(id.to_string()),
            Some(("slow", share)) => f.slow = slow_share(share),
            Some(("slow-cells", cells)) => {
                f.slow_cells = Some(cells.split('+').map(slow_cell).collect::<Result<_, _>>()?)
            }
            _ => {}
        }
    }
    Ok(f)
}

/// One `slow-cells` entry (`ID@BYTES` or `ID`) in the catalog's own spelling, so an alias
/// matches its cells and a typo is refused rather than silently slowing nothing.
fn slow_cell(entry: &str) -> Result<String, String> {
    let (name, bytes) = match entry.split_once('@') {
        Some((n, b)) => (n, Some(b)),
        None => (entry, None),
    };
    let refuse = |why: &str| format!("CRYPTOSPEED_FAULT slow-cells entry {entry:?}: {why}");
    let p = cryptospeed_catalog::lookup(name).ok_or_else(|| refuse("no such primitive"))?;
    match bytes {
        None => Ok(p.id.to_string()),
        Some(b) => match b.parse::<u64>() {
            Ok(b) => Ok(format!("{}@{b}", p.id)),
            Err(_) => Err(refuse("the size is not a number of bytes")),
        },
    }
}

/// `slow:F` slows every worker; `slow:F@TAG` only the replica `NAME#TAG`.
fn slow_share(spec: &str) -> f64 {
    let (share, tag) = match spec.split_once('@') {
        Some((s, t)) => (s, Some(t)),
        None => (spec, None),
    };
    let mine = std::env::var("CRYPTOSPEED_REPLICA").ok();
    if tag.is_some() && tag != mine.as_deref() {
        return 0.0;
    }
    share.parse().unwrap_or(0.0)
}

fn verify(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    id: &str,
) -> Result<(), String> {
    if let Some(r) = cache.get(id) {
        return r.clone();
    }
    let p = cryptospeed_catalog::lookup(id).ok_or_else(|| format!("unknown primitive {id}"))?;
    let mut r = implementation.known_answer_test(p);
    if fault.kat.as_deref() == Some(id) && r.is_ok() {
        r = Err("known-answer test failed: output corrupted by CRYPTOSPEED_FAULT".into());
    }
    cache.insert(id.to_string(), r.clone());
    r
}

/// Computes the agreement output, after the primitive's known-answer tests (an implementation
/// that fails them has nothing to agree on). The `kat:` fault also corrupts the agreement output,
/// so tests can show a wrong implementation is caught by both checks.
fn agree(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    primitive: &str,
    inputs: &AgreementInputs,
) -> Response {
    let Some(p) = cryptospeed_catalog::lookup(primitive) else {
        return Response::Error {
            message: format!("unknown primitive {primitive}"),
        };
    };
    let field = |name: &str, text: &str| {
        hex::decode(text).map_err(|e| format!("agreement field {name} is not hex: {e}"))
    };
    let case = (|| -> Result<AgreementCase, String> {
        Ok(AgreementCase {
            key: field("key", &inputs.key)?,
            iv: field("iv", &inputs.iv)?,
            msg: field("msg", &inputs.msg)?,
            aad: field("aad", &inputs.aad)?,
            peer: field("peer", &inputs.peer)?,
        })
    })();
    let result = case.and_then(|case| {
        implementation.availability(p)?;
        if fault.kat.as_deref() != Some(p.id) {
            verify(implementation, cache, fault, p.id)?;
        }
        implementation.agree(p, &case)
    });
    match result {
        Ok(mut out) => {
            if fault.kat.as_deref() == Some(p.id) {
                if let Some(b) = out.output.first_mut() {
                    *b ^= 0x01;
                }
            }
            Response::Agreement {
                primitive: p.id.to_string(),
                output: hex::encode(out.output),
                public: hex::encode(out.public),
            }
        }
        Err(message) => Response::Error { message },
    }
}

/// One worker: the implementation it hosts, its known-answer results so far, its faults.
struct Worker {
    implementation: Box<dyn Implementation>,
    verified: HashMap<String, Result<(), String>>,
    fault: Fault,
}

fn unknown(primitive: &str) -> Response {
    Response::Error {
        message: format!("unknown primitive {primitive}"),
    }
}

impl Worker {
    fn handle(&mut self, req: Request) -> Response {
        let implementation = self.implementation.as_mut();
        let (cache, fault) = (&mut self.verified, &self.fault);
        match req {
            Request::Hello { protocol } if protocol != PROTOCOL_VERSION => Response::Error {
                message: format!("worker speaks protocol {PROTOCOL_VERSION}, not {protocol}"),
            },
            Request::Hello { .. } => Response::Hello {
                protocol: PROTOCOL_VERSION,
                variant: implementation.describe(),
                measures: true,
                wants_vectors: false,
            },
            Request::Agree { primitive, inputs } => {
                agree(implementation, cache, fault, &primitive, &inputs)
            }
            Request::CheckSignature {
                primitive,
                public,
                msg,
                signature,
            } => check_signature(implementation, primitive, &public, &msg, &signature),
            Request::Vectors { .. } => Response::Error {
                message: "this worker carries the catalog; it did not ask for vectors".into(),
            },
            Request::Sample { .. } => Response::Error {
                message: "this worker measures cells itself; send measure".into(),
            },
            Request::Availability { primitives } => availability(implementation, primitives),
            Request::Verify { primitive } => {
                let source = cryptospeed_catalog::lookup(&primitive)
                    .map(|p| {
                        let sources: Vec<&str> = p.kats.iter().map(|k| k.source()).collect();
                        sources.join("; ")
                    })
                    .unwrap_or_default();
                let (ok, detail) = match verify(implementation, cache, fault, &primitive) {
                    Ok(()) => (true, source),
                    Err(e) => (false, e),
                };
                Response::Verify {
                    primitive,
                    ok,
                    detail,
                    flights: Vec::new(), // a measuring worker's travel with its measurements
                }
            }
            Request::Measure { cell, config } => {
                let Some(p) = cryptospeed_catalog::lookup(&cell.primitive) else {
                    return unknown(&cell.primitive);
                };
                let mut measurement = measure(implementation, cache, fault, p, cell, &config);
                // What the cell's check counted on the wire (handshake cells), carried with the
                // figure: an optional field older orchestrators skip. The check is of a full
                // handshake, so a resumed-handshake cell carries none.
                let full = measurement.cell.op != cryptospeed_model::Op::HandshakeResumed;
                if measurement.status.has_numbers() && full {
                    measurement.flights = implementation.checked_flights(p);
                }
                Response::Measurement { measurement }
            }
            Request::Profile {
                cell,
                warmup,
                iters,
            } => profile(implementation, cache, fault, cell, warmup, iters),
            Request::Quit => Response::Bye,
        }
    }
}

/// Checks a signature another implementation made.
fn check_signature(
    implementation: &mut dyn Implementation,
    primitive: String,
    public: &str,
    msg: &str,
    signature: &str,
) -> Response {
    let Some(p) = cryptospeed_catalog::lookup(&primitive) else {
        return unknown(&primitive);
    };
    let decoded = (
        hex::decode(public),
        hex::decode(msg),
        hex::decode(signature),
    );
    let (Ok(public), Ok(msg), Ok(signature)) = decoded else {
        return Response::Error {
            message: "check_signature fields must be hex".into(),
        };
    };
    let (ok, detail) = match implementation.check_signature(p, &public, &msg, &signature) {
        Ok(true) => (true, String::new()),
        Ok(false) => (false, "signature rejected".into()),
        Err(e) => (false, e),
    };
    Response::Checked {
        primitive,
        ok,
        detail,
    }
}

fn availability(implementation: &mut dyn Implementation, primitives: Vec<String>) -> Response {
    let entries = primitives
        .into_iter()
        .map(|id| {
            let r = match cryptospeed_catalog::lookup(&id) {
                Some(p) => implementation.availability(p),
                None => Err(format!("unknown primitive {id}")),
            };
            AvailabilityEntry {
                primitive: id,
                available: r.is_ok(),
                reason: r.err(),
                library: None,
            }
        })
        .collect();
    Response::Availability { entries }
}

/// Times one cell, after its primitive's known-answer tests pass.
fn measure(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    p: &'static Primitive,
    cell: CellSpec,
    config: &MeasureConfig,
) -> Measurement {
    if let Err(why) = implementation
        .availability(p)
        .and_then(|()| implementation.offers(p, cell.op))
    {
        return Measurement::not_timed(cell, Status::Unavailable, why);
    }
    if let Err(why) = verify(implementation, cache, fault, p.id) {
        let why = format!("not timed: known-answer test failed: {why}");
        return Measurement::not_timed(cell, Status::Failed, why);
    }
    if fault.crash.as_deref() == Some(p.id) {
        // SAFETY: deliberately ends this process the way a crashing library would (the
        // default action, not Rust's stack-overflow handler, which would return).
        unsafe {
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        }
    }
    if let Some(m) = implementation.measure_whole(p, &cell, config) {
        return m;
    }
    let slow = fault.slow_for(&cell);
    match implementation.prepare(p, &cell) {
        Ok(mut timed) if slow > 0.0 => {
            let mut slowed = Slowed(timed.as_mut(), slow);
            sampler::measure(&mut slowed, cell, config)
        }
        Ok(mut timed) => sampler::measure(timed.as_mut(), cell, config),
        Err(e) => {
            Measurement::not_timed(cell, Status::Failed, format!("cannot set the cell up: {e}"))
        }
    }
}

/// Runs a cell between markers for `cryptospeed profile` (under valgrind, or natively).
fn profile(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    cell: CellSpec,
    warmup: u64,
    iters: u64,
) -> Response {
    use crate::marker;
    let Some(p) = cryptospeed_catalog::lookup(&cell.primitive) else {
        return Response::Error {
            message: format!("unknown primitive {}", cell.primitive),
        };
    };
    if let Err(why) = implementation.availability(p) {
        return Response::Error {
            message: format!("{} does not offer {}: {why}", implementation.name(), p.id),
        };
    }
    if let Err(why) = verify(implementation, cache, fault, p.id) {
        return Response::Error {
            message: format!("not profiled: known-answer test failed: {why}"),
        };
    }
    let mut timed = match implementation.prepare(p, &cell) {
        Ok(t) => t,
        Err(e) => {
            return Response::Error {
                message: format!("cannot set the cell up: {e}"),
            }
        }
    };
    let marked = marker::mark_warmup();
    let mut result = timed.run(warmup);
    marker::mark_measure();
    if result.is_ok() {
        result = timed.run(iters);
    }
    marker::mark_end();
    if let Err(e) = result {
        return Response::Error {
            message: format!("the cell failed while profiled: {e}"),
        };
    }
    Response::Profiled {
        marked,
        marker_addresses: marker::addresses().to_vec(),
        maps: std::fs::read_to_string("/proc/self/maps").unwrap_or_default(),
    }
}

/// The `slow:F` fault: each batch, then spinning for F times the thread CPU time it took. By
/// CPU time, not wall time, so the fault is more work, as a slower build's is: a batch
/// descheduled by the host is not made slower still, and a sample corrected to its thread's CPU
/// time keeps exactly the (1 + F) slowdown.
struct Slowed<'a>(&'a mut dyn Timed, f64);

impl Timed for Slowed<'_> {
    fn run(&mut self, iters: u64) -> std::result::Result<(), String> {
        let start = crate::clock::thread_cpu_ns();
        self.0.run(iters)?;
        spin_cpu(crate::clock::thread_cpu_ns().saturating_sub(start), self.1);
        Ok(())
    }

    /// The inner cell's own sample (a cell may time only part of each call), with the spin's
    /// clocks added to it.
    fn sample(&mut self, iters: u64) -> std::result::Result<cryptospeed_model::Sample, String> {
        let mut sample = self.0.sample(iters)?;
        let start = crate::clock::Stamp::before_batch();
        spin_cpu(sample.cpu_ns, self.1);
        let spin = crate::clock::Stamp::after_batch().elapsed_since(start, 0);
        sample.wall_ns += spin.wall_ns;
        sample.cpu_ns += spin.cpu_ns;
        sample.tsc += spin.tsc;
        Ok(sample)
    }
}

/// Spins for `share` times `spent` nanoseconds of this thread's CPU time.
fn spin_cpu(spent: u64, share: f64) {
    let until = crate::clock::thread_cpu_ns() + (spent as f64 * share) as u64;
    while crate::clock::thread_cpu_ns() < until {
        std::hint::spin_loop();
    }
}

/// Serves requests from stdin until `quit` or end of input. `implementation` is the hosted
/// library, or why it could not be loaded (then the hello is answered with the reason, so the
/// orchestrator can report it, and the exit status is 1).
pub fn serve(implementation: Result<Box<dyn Implementation>, String>) -> std::io::Result<i32> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut worker = match implementation.and_then(|i| Ok((i, fault()?))) {
        Ok((implementation, fault)) => Worker {
            implementation,
            verified: HashMap::new(),
            fault,
        },
        Err(message) => {
            reply(&mut out, &Response::Error { message })?;
            return Ok(1);
        }
    };
    for line in std::io::stdin().lock().lines() {
        let line =
            line.map_err(|e| std::io::Error::new(e.kind(), format!("reading a request: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let response = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Quit) => {
                reply(&mut out, &worker.handle(Request::Quit))?;
                return Ok(0);
            }
            Ok(req) => worker.handle(req),
            Err(e) => Response::Error {
                message: format!("malformed request: {e}"),
            },
        };
        reply(&mut out, &response)?;
    }
    Ok(0)
}

fn reply(out: &mut impl Write, response: &Response) -> std::io::Result<()> {
    writeln!(out, "{}", serde_json::to_string(response)?)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_model::Op;

    fn cell(primitive: &str, bytes: u64) -> CellSpec {
        CellSpec {
            primitive: primitive.into(),
            op: Op::Hash,
            bytes: Some(bytes),
            misalign: 0,
        }
    }

    #[test]
    fn slow_cells_narrows_the_slow_fault_to_the_named_cells() {
        let f = parse_fault("slow:0.03,slow-cells:sha256@16+md5").unwrap();
        assert_eq!(f.slow_for(&cell("sha256", 16)), 0.03);
        assert_eq!(f.slow_for(&cell("sha256", 8192)), 0.0);
        assert_eq!(f.slow_for(&cell("md5", 8192)), 0.03);
        assert_eq!(f.slow_for(&cell("sha1", 16)), 0.0);
        let all = parse_fault("slow:0.03").unwrap();
        assert_eq!(all.slow_for(&cell("sha1", 16)), 0.03);
    }

    #[test]
    fn slow_cells_resolves_aliases_and_refuses_unknown_names() {
        // "SHA-256" is the catalog's alias spelling of sha256: it must slow sha256's cells.
        let f = parse_fault("slow:0.03,slow-cells:SHA-256@16").unwrap();
        assert_eq!(f.slow_for(&cell("sha256", 16)), 0.03);
        let typo = parse_fault("slow:0.03,slow-cells:sha256@16+sha265@64")
            .err()
            .unwrap();
        assert!(typo.contains("\"sha265@64\""), "{typo}");
        assert!(parse_fault("slow-cells:sha256@16k").is_err());
    }
}
