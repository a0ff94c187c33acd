//! `cryptospeed worker`: hosts one implementation and serves the worker protocol on
//! stdin/stdout. Every primitive's known-answer tests run (once) before any of its cells is timed.
//!
//! `CRYPTOSPEED_FAULT` is a test hook: `kat:ID` makes ID's known-answer test fail (and flips a
//! bit of its agreement output), `crash:ID`
//! makes the worker die of SIGSEGV when asked to measure ID, and `slow:F` makes every timed
//! batch take (1 + F) times as long (by spinning after it), the injected effect the calibration
//! benchmark (scripts/bench-intervals) must detect. It exists so the test suite can show that
//! wrong answers are never timed, that a crashing library costs only its own cells, and how
//! small a slowdown a comparison can see.
//!
//! `CRYPTOSPEED_LAYOUT=SEED` (set by the runner for each worker process of a run) chooses the
//! process's memory layout: see `cryptospeed_impls::buffer::vary_layout`.

use anyhow::{Context, Result};
use clap::Args;
use cryptospeed_catalog::agreement::AgreementCase;
use cryptospeed_engine::protocol::{
    AgreementInputs, AvailabilityEntry, Request, Response, PROTOCOL_VERSION,
};
use cryptospeed_engine::{sampler, Implementation};
use cryptospeed_model::{Measurement, Status};
use std::collections::HashMap;
use std::io::{BufRead, Write};

#[derive(Args)]
pub struct WorkerArgs {
    /// Implementation to host (registry name).
    #[arg(long = "impl", default_value = "openssl")]
    implementation: String,
    /// Shared library to load instead of the system one.
    #[arg(long)]
    lib: Option<String>,
    /// Pin the worker to this CPU.
    #[arg(long)]
    pin: Option<usize>,
}

struct Fault {
    kat: Option<String>,
    crash: Option<String>,
    /// Extra share of every batch's time to burn.
    slow: f64,
}

fn fault() -> Fault {
    let spec = std::env::var("CRYPTOSPEED_FAULT").unwrap_or_default();
    let mut f = Fault {
        kat: None,
        crash: None,
        slow: 0.0,
    };
    for part in spec.split(',') {
        match part.split_once(':') {
            Some(("kat", id)) => f.kat = Some(id.to_string()),
            Some(("crash", id)) => f.crash = Some(id.to_string()),
            Some(("slow", share)) => f.slow = slow_share(share),
            _ => {}
        }
    }
    f
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

fn handle(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    req: Request,
) -> Response {
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
        } => {
            let Some(p) = cryptospeed_catalog::lookup(&primitive) else {
                return Response::Error {
                    message: format!("unknown primitive {primitive}"),
                };
            };
            let decoded = (
                hex::decode(&public),
                hex::decode(&msg),
                hex::decode(&signature),
            );
            let (Ok(public), Ok(msg), Ok(signature)) = decoded else {
                return Response::Error {
                    message: "check_signature fields must be hex".into(),
                };
            };
            match implementation.check_signature(p, &public, &msg, &signature) {
                Ok(ok) => Response::Checked {
                    primitive,
                    ok,
                    detail: if ok {
                        String::new()
                    } else {
                        "signature rejected".into()
                    },
                },
                Err(e) => Response::Checked {
                    primitive,
                    ok: false,
                    detail: e,
                },
            }
        }
        Request::Vectors { .. } => Response::Error {
            message: "this worker carries the catalog; it did not ask for vectors".into(),
        },
        Request::Sample { .. } => Response::Error {
            message: "this worker measures cells itself; send measure".into(),
        },
        Request::Availability { primitives } => Response::Availability {
            entries: primitives
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
                    }
                })
                .collect(),
        },
        Request::Verify { primitive } => {
            let source = cryptospeed_catalog::lookup(&primitive)
                .map(|p| {
                    p.kats
                        .iter()
                        .map(|k| k.source())
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_default();
            match verify(implementation, cache, fault, &primitive) {
                Ok(()) => Response::Verify {
                    primitive,
                    ok: true,
                    detail: source,
                },
                Err(e) => Response::Verify {
                    primitive,
                    ok: false,
                    detail: e,
                },
            }
        }
        Request::Measure { cell, config } => {
            let Some(p) = cryptospeed_catalog::lookup(&cell.primitive) else {
                return Response::Error {
                    message: format!("unknown primitive {}", cell.primitive),
                };
            };
            if let Err(why) = implementation.availability(p) {
                return Response::Measurement {
                    measurement: Measurement::not_timed(cell, Status::Unavailable, why),
                };
            }
            if let Err(why) = verify(implementation, cache, fault, p.id) {
                return Response::Measurement {
                    measurement: Measurement::not_timed(
                        cell,
                        Status::Failed,
                        format!("not timed: known-answer test failed: {why}"),
                    ),
                };
            }
            if fault.crash.as_deref() == Some(p.id) {
                // SAFETY: deliberately ends this process the way a crashing library would (the
                // default action, not Rust's stack-overflow handler, which would return).
                unsafe {
                    libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                    libc::raise(libc::SIGSEGV);
                }
            }
            if let Some(m) = implementation.measure_whole(p, &cell, &config) {
                return Response::Measurement { measurement: m };
            }
            let measurement = match implementation.prepare(p, &cell) {
                Ok(mut timed) if fault.slow > 0.0 => {
                    let mut slowed = Slowed(timed.as_mut(), fault.slow);
                    sampler::measure(&mut slowed, cell, &config)
                }
                Ok(mut timed) => sampler::measure(timed.as_mut(), cell, &config),
                Err(e) => Measurement::not_timed(
                    cell,
                    Status::Failed,
                    format!("cannot set the cell up: {e}"),
                ),
            };
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

/// Runs a cell between markers for `cryptospeed profile` (under valgrind, or natively).
fn profile(
    implementation: &mut dyn Implementation,
    cache: &mut HashMap<String, Result<(), String>>,
    fault: &Fault,
    cell: cryptospeed_model::CellSpec,
    warmup: u64,
    iters: u64,
) -> Response {
    use cryptospeed_engine::marker;
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

/// The `slow:F` fault: each batch, then spinning for F times its duration.
struct Slowed<'a>(&'a mut dyn cryptospeed_engine::Timed, f64);

impl cryptospeed_engine::Timed for Slowed<'_> {
    fn run(&mut self, iters: u64) -> std::result::Result<(), String> {
        let start = std::time::Instant::now();
        self.0.run(iters)?;
        let until = start + start.elapsed().mul_f64(1.0 + self.1);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        Ok(())
    }
}

pub fn serve(args: WorkerArgs) -> Result<i32> {
    // Die with the orchestrator: a killed run must not leave workers spinning.
    // SAFETY: prctl with PR_SET_PDEATHSIG only sets a flag on this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    if let Some(cpu) = args.pin {
        cryptospeed_engine::clock::pin_to_cpu(cpu).map_err(anyhow::Error::msg)?;
    }
    if let Ok(layout) = std::env::var("CRYPTOSPEED_LAYOUT") {
        let (seed, buffers) = match layout.strip_suffix(":buffers") {
            Some(seed) => (seed, true),
            None => (layout.as_str(), false),
        };
        if let Ok(seed) = seed.parse() {
            cryptospeed_impls::buffer::vary_layout(seed, buffers);
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let options = cryptospeed_impls::ImplOptions {
        library: args.lib.clone(),
    };
    let mut implementation = match cryptospeed_impls::create(&args.implementation, &options) {
        Ok(i) => i,
        Err(e) => {
            // Answer the hello with the reason, so the orchestrator can report it.
            writeln!(
                out,
                "{}",
                serde_json::to_string(&Response::Error { message: e.clone() })?
            )?;
            return Ok(1);
        }
    };
    let fault = fault();
    let mut cache = HashMap::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.context("reading a request")?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Ok(req) => {
                let quit = matches!(req, Request::Quit);
                let r = handle(implementation.as_mut(), &mut cache, &fault, req);
                if quit {
                    writeln!(out, "{}", serde_json::to_string(&r)?)?;
                    out.flush()?;
                    return Ok(0);
                }
                r
            }
            Err(e) => Response::Error {
                message: format!("malformed request: {e}"),
            },
        };
        writeln!(out, "{}", serde_json::to_string(&reply)?)?;
        out.flush()?;
    }
    Ok(0)
}
