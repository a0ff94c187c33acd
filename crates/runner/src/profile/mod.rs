//! `profile` as the runner does it: for one cell, the implementation that can be traced, a
//! native run (TSC cycles per byte, hardware counters where the kernel offers them), the same
//! cell in a worker under valgrind between markers, the recorded region replayed through the
//! simulators, and the native run again on the traced code path when valgrind's CPU hides
//! extensions ([`same_path`]). A cross-built variant is traced under qemu-user ([`qemu`]) and
//! has no native run. The front end only parses options, stores and prints.

pub mod qemu;
mod same_path;
mod stored;
pub mod valgrind;
pub mod whole_program;

pub use stored::ProfileRun;

use crate::ImplChoice;
use anyhow::{bail, Context, Result};
use cryptospeed_catalog::plan::CellRef;
use cryptospeed_engine::counters::{CounterValues, Counters};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::protocol::{Request, Response};
use cryptospeed_engine::worker_client::{VectorScope, WorkerClient, WorkerSpec};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Op, Status, Variant};
use cryptospeed_sim::analysis::{self, Grid};
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::profile::ProfileDocument;
use cryptospeed_sim::region::Recorder;
use cryptospeed_sim::spans::span;
use cryptospeed_sim::trace;
use same_path::{same_path_native, traced_path_mask};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use valgrind::Tracer;

/// What a profile of one cell asks for.
#[derive(Debug, Clone)]
pub struct ProfileRequest {
    /// `--impl` (one), else the default choice.
    pub implementation: Option<String>,
    /// `--variant` (one built variant).
    pub variant: Option<String>,
    /// `--mask`: the code path to study, natively and under valgrind alike.
    pub mask: Option<String>,
    /// Calls in the measured region, and before it (which only warm the simulators).
    pub iters: u64,
    pub warmup: u64,
    pub grid: Grid,
    /// Skip the native run.
    pub no_native: bool,
}

/// Whether `profile` can trace the implementation call by call (its registry entry says).
fn traceable(name: &str) -> bool {
    cryptospeed_impls::registered(name).is_some_and(|r| r.capabilities.traceable)
}

/// The implementation a profile traces: the one asked for, else openssl when it offers the
/// primitive, else the first traceable implementation of the registry that does.
fn choice_for(req: &ProfileRequest, primitive: &str, cancel: &AtomicBool) -> Result<ImplChoice> {
    let mask = match &req.mask {
        Some(m) => FeatureMask::parse(m).map_err(|e| anyhow::anyhow!("--mask: {e}"))?,
        None => FeatureMask::default(),
    };
    let with_mask = |mut c: ImplChoice| {
        c.mask = mask.clone();
        c
    };
    if let Some(v) = &req.variant {
        let mut c = crate::variant::profile_choices(v)?;
        if c.len() != 1 {
            bail!("--variant takes one variant for a profile");
        }
        return Ok(with_mask(c.remove(0)));
    }
    if let Some(i) = &req.implementation {
        let c = ImplChoice::parse_list(i)?;
        if c.len() != 1 {
            bail!("--impl takes one implementation for a profile");
        }
        if !traceable(&c[0].name) {
            bail!(
                "the {} implementation cannot be profiled: its worker has no valgrind markers or \
                 is an external program, so it cannot be traced call by call \
                 (docs/worker-protocol.md)",
                c[0].name
            );
        }
        return Ok(with_mask(c.into_iter().next().unwrap()));
    }
    // openssl first, then the registry order, traceable ones only.
    let mut reasons = Vec::new();
    for name in crate::all_implementations() {
        if !traceable(&name) {
            continue;
        }
        let c = with_mask(ImplChoice::parse(&name));
        let Ok(mut w) = c.start(None, cancel) else {
            continue;
        };
        let reply = w.request(
            &Request::Availability {
                primitives: vec![primitive.to_string()],
            },
            Duration::from_secs(60),
            cancel,
        );
        w.quit();
        if let Ok(Response::Availability { entries }) = reply {
            if entries.first().is_some_and(|e| e.available) {
                return Ok(c);
            }
            if let Some(r) = entries.first().and_then(|e| e.reason.clone()) {
                reasons.push(format!("{name}: {r}"));
            }
        }
    }
    bail!(
        "no implementation offers {primitive}:\n  {}",
        reasons.join("\n  ")
    )
}

fn cell_for(primitive: &cryptospeed_catalog::Primitive, bytes: u64) -> CellSpec {
    let op = primitive.ops().first().copied().unwrap_or(Op::Encrypt);
    CellSpec {
        primitive: primitive.id.to_string(),
        op,
        bytes: if primitive.has_bytes() {
            Some(bytes)
        } else {
            None
        },
        misalign: 0,
    }
}

/// The native run: TSC cycles per operation and, where offered, hardware counters.
fn native(
    choice: &ImplChoice,
    cell: &CellSpec,
    cancel: &AtomicBool,
) -> Result<(Variant, Measurement, Result<CounterValues, String>)> {
    let mut w = choice.start(None, cancel)?;
    let variant = crate::variant_of(choice, &w);
    let counters = Counters::open(w.pid() as i32);
    if let Ok(c) = &counters {
        c.enable();
    }
    // One second: a profile measures natively twice when valgrind's CPU lacks extensions.
    let config = MeasureConfig {
        max_time_s: 1.0,
        ..MeasureConfig::default()
    };
    let m = w
        .measure(cell.clone(), &config, Duration::from_secs(120), cancel)
        .map_err(|e| anyhow::anyhow!("native run of {}: {e}", cell.primitive))?;
    let values = counters.map(|c| c.disable_and_read());
    w.quit();
    if !m.status.has_numbers() {
        bail!(
            "{} on {}: {}",
            cell.primitive,
            choice.display(),
            m.reason.clone().unwrap_or_default()
        );
    }
    if m.status == Status::Imprecise {
        // A busy machine: the figure stands, with the interval it has (stored with it).
        eprintln!(
            "cryptospeed: warning: native run of {} on {}: {}",
            cell.primitive,
            choice.display(),
            m.reason.clone().unwrap_or_default()
        );
    }
    Ok((variant, m, values))
}

struct Traced {
    variant: Variant,
    caps: String,
    decoded: Decoded,
    recorder: Recorder,
    total_instructions: u64,
}

/// Events kept for replay: about 1.6 GB at most.
const EVENT_LIMIT: usize = 200_000_000;

/// The cell in a worker under valgrind, between markers: the recorded region, decoded.
fn traced(
    tracer: &Tracer,
    choice: &ImplChoice,
    cell: &CellSpec,
    req: &ProfileRequest,
    cancel: &AtomicBool,
) -> Result<Traced> {
    let scratch = valgrind::Scratch::new()?;
    let out = scratch.dir.join(match tracer.streams() {
        true => "trace.fifo",
        false => "lackey.log",
    });
    let reader = match tracer.streams() {
        true => {
            valgrind::make_fifo(&out)?;
            Some(valgrind::spawn_reader(
                out.clone(),
                tracer.isa(),
                Recorder::new(false, EVENT_LIMIT),
            ))
        }
        false => None,
    };
    let spec = under_tracer(tracer, choice, &out)?;
    let result = profile_request(&spec, choice, cell, req, cancel);
    if let Some(r) = &reader {
        valgrind::release_reader(&out, r);
    }
    let (variant, reply) = match result {
        Ok(r) => r,
        Err(e) => {
            // A reader that gave up explains a writer that could not write.
            if let Some(r) = reader {
                if let Ok(Err(why)) = r.join() {
                    bail!("{e:#}; the trace reader had stopped: {why}");
                }
            }
            return Err(e);
        }
    };
    let (marked, markers, maps) = match reply {
        Response::Profiled {
            marked,
            marker_addresses,
            maps,
        } => (marked, marker_addresses, maps),
        Response::Error { message } => bail!("{}: {message}", cell.primitive),
        other => bail!("unexpected reply to profile: {other:?}"),
    };
    let (mut decoded, mut recorder, totals) = match reader {
        Some(r) => r
            .join()
            .map_err(|_| anyhow::anyhow!("the trace reader panicked"))?
            .map_err(anyhow::Error::msg)?,
        None => read_lackey(&out, &maps, &markers)?,
    };
    if matches!(tracer, Tracer::Qemu(_)) {
        let mut code = valgrind::MappedFiles::parse_readable(&maps);
        let was = decoded
            .repair_page_crossers(|addr, len| trace::CodeSource::bytes_at(&mut code, addr, len));
        recorder.recount(&was, &decoded);
    }
    if matches!(tracer, Tracer::Cstrace(_)) && !marked {
        bail!(
            "the worker's markers were not answered by cstrace; the trace has no measured region"
        );
    }
    if recorder.phase != cryptospeed_sim::region::Phase::After {
        bail!(
            "the trace never reached the end marker (it stopped in {:?}); nothing was measured",
            recorder.phase
        );
    }
    if recorder.overflowed {
        bail!(
            "the region has more than {EVENT_LIMIT} events; profile a smaller --bytes or fewer --iters"
        );
    }
    Ok(Traced {
        caps: variant.capabilities.clone(),
        variant,
        decoded,
        recorder,
        total_instructions: totals.instructions,
    })
}

/// The profile request answered by a worker started from `spec` (under a tracer), which then
/// ends: the variant it ran and its reply.
fn profile_request(
    spec: &WorkerSpec,
    choice: &ImplChoice,
    cell: &CellSpec,
    req: &ProfileRequest,
    cancel: &AtomicBool,
) -> Result<(Variant, Response)> {
    // Only this primitive's vectors: a worker under an emulator parses every byte it is sent.
    let only = [cell.primitive.as_str()];
    let mut w = WorkerClient::spawn_with(spec, VectorScope::Only(&only), cancel)
        .map_err(|e| anyhow::anyhow!("starting the worker under its tracer: {e}"))?;
    let variant = crate::variant_of(choice, &w);
    let reply = w
        .request(
            &Request::Profile {
                cell: cell.clone(),
                warmup: req.warmup,
                iters: req.iters,
            },
            Duration::from_secs(3600),
            cancel,
        )
        .map_err(|e| anyhow::anyhow!("profiling {} under its tracer: {e}", cell.primitive))?;
    w.quit_and_wait(Duration::from_secs(120))
        .map_err(|e| anyhow::anyhow!("the traced worker did not end cleanly: {e}"))?;
    Ok((variant, reply))
}

/// The worker's command line prefixed by valgrind's or qemu's, writing the trace to `out`, in
/// a pinned environment ([`pinned_env`]).
fn under_tracer(tracer: &Tracer, choice: &ImplChoice, out: &std::path::Path) -> Result<WorkerSpec> {
    let mut spec = traced_command(tracer, choice, out)?;
    spec.env = pinned_env(std::env::vars(), spec.env);
    spec.env_clear = true;
    Ok(spec)
}

/// The inherited variables a traced worker keeps: what finds programs, libraries, caches and
/// the tools' own files. Everything else a shell sets (its directory, terminal, history, `_`)
/// changes from one invocation to the next, and the environment's strings sit at the top of
/// the worker's stack: a few bytes more moved its locals and the data behind them, and a 4 KB
/// direct-mapped D1 of the same cell on the same build missed 147, 152 or 153 times.
fn pinned_env(
    inherited: impl Iterator<Item = (String, String)>,
    explicit: Vec<(String, String)>,
) -> Vec<(String, String)> {
    const NAMES: [&str; 6] = [
        "PATH",
        "HOME",
        "TMPDIR",
        "LD_LIBRARY_PATH",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
    ];
    const PREFIXES: [&str; 4] = ["CRYPTOSPEED_", "VALGRIND_", "OPENSSL_", "QEMU_"];
    let kept = inherited
        .filter(|(k, _)| NAMES.contains(&k.as_str()) || PREFIXES.iter().any(|p| k.starts_with(p)));
    // The explicit ones come last: they win over an inherited one of the same name.
    kept.chain(explicit).collect()
}

fn traced_command(
    tracer: &Tracer,
    choice: &ImplChoice,
    out: &std::path::Path,
) -> Result<WorkerSpec> {
    let native = choice.spec(None)?;
    if let Tracer::Qemu(q) = tracer {
        return Ok(qemu::worker_spec(q, native, out));
    }
    let (program, mut vargs, mut env) = valgrind::valgrind_prefix(tracer, out);
    if matches!(tracer, Tracer::Cstrace(_)) {
        vargs.push("--log-file=/dev/null".into());
    }
    vargs.push(native.program.to_string_lossy().into_owned());
    vargs.extend(native.args.iter().cloned());
    env.extend(native.env.iter().cloned());
    Ok(WorkerSpec {
        program: PathBuf::from(program),
        args: vargs,
        env,
        env_clear: false,
    })
}

/// Lackey's trace file, read after the worker ended: decoded with the worker's mapped files, its
/// markers found by address.
fn read_lackey(
    out: &std::path::Path,
    maps: &str,
    markers: &[u64],
) -> Result<(Decoded, Recorder, trace::TraceTotals)> {
    let f = std::fs::File::open(out)
        .with_context(|| format!("lackey wrote no trace to {}", out.display()))?;
    let mut decoded = Decoded::default();
    let mut recorder = Recorder::new(false, EVENT_LIMIT);
    let mut code = valgrind::MappedFiles::parse(maps);
    let marks: Vec<(u64, u32)> = markers
        .iter()
        .enumerate()
        .map(|(i, a)| (*a, i as u32 + 1))
        .collect();
    let mut reader = std::io::BufReader::new(f);
    let totals = recorder
        .read_lackey(&mut reader, &mut decoded, &mut code, &marks)
        .map_err(anyhow::Error::msg)?;
    Ok((decoded, recorder, totals))
}

/// A cell measured natively and traced, waiting for the simulators ([`analyse_cell`]). A
/// command profiling several cells analyses one on other threads while it traces the next.
pub struct TracedCell {
    primitive: String,
    implementation: String,
    cell: CellSpec,
    warmup: u64,
    iters: u64,
    grid: Grid,
    tracer: String,
    architecture: String,
    native_skipped: Option<String>,
    native_variant: Option<Variant>,
    native_measurement: Option<Measurement>,
    counters: Result<CounterValues, String>,
    traced: Traced,
    trace_seconds: f64,
    same_path: Option<same_path::SamePath>,
}

/// Profiles one primitive: the native run, the traced run, the analysis. Returns the profile,
/// the variant it ran (the native worker's, else the traced one's) and the native measurement.
pub fn profile_cell(
    req: &ProfileRequest,
    cell: &CellRef,
    tracer: &Tracer,
    cancel: &AtomicBool,
) -> Result<(ProfileDocument, Variant, Option<Measurement>)> {
    Ok(analyse_cell(trace_cell(req, cell, tracer, cancel)?))
}

/// A native run timed while an analysis may be running beside it: the analysis keeps a CPU
/// free meanwhile (`analysis::reserve_cpu`).
fn native_alone(
    choice: &ImplChoice,
    cell: &CellSpec,
    cancel: &AtomicBool,
) -> Result<(Variant, Measurement, Result<CounterValues, String>)> {
    let _cpu = analysis::reserve_cpu();
    native(choice, cell, cancel)
}

/// The first stage of a profile: the implementation chosen, the native run, the traced run and,
/// when valgrind's CPU hides extensions, the native run again on the traced path.
pub fn trace_cell(
    req: &ProfileRequest,
    cell: &CellRef,
    tracer: &Tracer,
    cancel: &AtomicBool,
) -> Result<TracedCell> {
    let p = cell.primitive;
    let choice = choice_for(req, p.id, cancel)?;
    let cell = cell_for(p, cell.bytes.unwrap_or(0));
    eprintln!(
        "cryptospeed: profiling {} on {} ({}, {} warm-up + {} measured call(s), {})",
        p.id,
        choice.display(),
        cell.bytes
            .map(|b| format!("{b} B"))
            .unwrap_or_else(|| "one operation".into()),
        req.warmup,
        req.iters,
        tracer.name()
    );
    let foreign = match tracer {
        Tracer::Qemu(q) => q.foreign,
        _ => None,
    };
    let (native_variant, native_measurement, counters) = if foreign.is_some() {
        // Why is said once, in the document's native_skipped.
        (None, None, Err("none: no native run".to_string()))
    } else if req.no_native {
        (
            None,
            None,
            Err("native run skipped (--no-native)".to_string()),
        )
    } else {
        let (v, m, k) = span(
            || format!("native {}", p.id),
            || native_alone(&choice, &cell, cancel),
        )?;
        (Some(v), Some(m), k)
    };
    let native_caps = native_variant.as_ref().map(|v| v.capabilities.clone());
    let started = Instant::now();
    let t = span(
        || format!("trace {}", p.id),
        || traced(tracer, &choice, &cell, req, cancel),
    )?;
    let trace_seconds = started.elapsed().as_secs_f64();
    let same_path = match (&native_caps, req.mask.is_none()) {
        (Some(n), true) if *n != t.caps => span(
            || format!("native again {}", p.id),
            || {
                let _cpu = analysis::reserve_cpu();
                same_path_native(&choice, &cell, n, &t.caps, cancel)
            },
        )?,
        _ => None,
    };
    Ok(TracedCell {
        primitive: p.id.to_string(),
        implementation: choice.display(),
        cell,
        warmup: req.warmup,
        iters: req.iters,
        grid: req.grid.clone(),
        tracer: tracer.name().to_string(),
        architecture: tracer.isa().name().to_string(),
        native_skipped: foreign.map(qemu::no_native_reason),
        native_variant,
        native_measurement,
        counters,
        traced: t,
        trace_seconds,
        same_path,
    })
}

/// The second stage: the recorded region through the simulators, and the profile document.
pub fn analyse_cell(c: TracedCell) -> (ProfileDocument, Variant, Option<Measurement>) {
    let t = c.traced;
    let started = Instant::now();
    let a = span(
        || format!("analysis {}", c.primitive),
        || {
            analysis::analyse(
                &t.recorder.events,
                t.recorder.measured_range(),
                &t.decoded,
                &c.grid,
            )
        },
    );
    let simulate_seconds = started.elapsed().as_secs_f64();
    let cell = &c.cell;
    let same_path = &c.same_path;
    let native_caps = c.native_variant.as_ref().map(|v| v.capabilities.clone());
    let per_byte = |m: &Measurement| m.tsc_per_op.map(|c| c / cell.bytes.unwrap_or(1) as f64);
    let unmasked = c.native_measurement.as_ref().and_then(per_byte);
    let path_warning = path_warning(same_path.as_ref(), native_caps.as_ref(), &t.caps, &c.tracer);
    if let Some(w) = &path_warning {
        eprintln!("cryptospeed: warning: {}: {w}", c.primitive);
    }
    let processed = cell.bytes.unwrap_or(1) * c.iters;
    let profile = ProfileDocument {
        primitive: c.primitive,
        implementation: c.implementation,
        bytes: cell.bytes.unwrap_or(0),
        warmup: c.warmup,
        iters: c.iters,
        tracer: c.tracer,
        architecture: c.architecture,
        native_skipped: c.native_skipped,
        capabilities_native: native_caps,
        capabilities_traced: t.caps,
        path_warning,
        native_mask: same_path.as_ref().map(|s| s.mask.to_string()),
        capabilities_masked: same_path.as_ref().map(|s| s.variant.capabilities.clone()),
        tsc_cycles_per_byte_unmasked: same_path.as_ref().and(unmasked),
        instructions: t.recorder.mix.instructions,
        bytes_processed: processed,
        instructions_per_byte: t.recorder.mix.instructions as f64 / processed as f64,
        tsc_cycles_per_byte: match same_path {
            Some(s) => per_byte(&s.measurement),
            None => unmasked,
        },
        counters: c.counters,
        mix: t.recorder.mix.clone(),
        analysis: a,
        trace_instructions_total: t.total_instructions,
        trace_seconds: c.trace_seconds,
        simulate_seconds,
    };
    let variant = c.native_variant.unwrap_or(t.variant);
    (profile, variant, c.native_measurement)
}

/// Why the traced code path may not be the native one, if the capability vectors say so. Under
/// the derived mask every extension OpenSSL's dispatch reads agrees with valgrind's CPU; other
/// bits of the vectors (vendor, cache hints) may still differ.
fn path_warning(
    same_path: Option<&same_path::SamePath>,
    native_caps: Option<&String>,
    traced_caps: &str,
    tracer: &str,
) -> Option<String> {
    let (cpu, under, hides) = match tracer {
        "qemu" => (
            "qemu-user's CPU model",
            "under qemu",
            "qemu 7.2's x86-64 CPU has no SHA-NI or AVX-512",
        ),
        _ => (
            "valgrind's synthetic CPU",
            "under valgrind",
            "valgrind hides AVX-512 and SHA-NI",
        ),
    };
    let shown_caps = match same_path {
        Some(s) if traced_path_mask(&s.variant.capabilities, traced_caps).is_none() => None,
        Some(s) => Some(&s.variant.capabilities),
        None => native_caps,
    };
    match shown_caps {
        Some(n) if n != traced_caps => Some(format!(
            "{cpu} differs from this one, so the traced code path may not be the native one: natively {n}, {under} {traced_caps} ({hides}; use --mask to study a path both share)"
        )),
        _ => None,
    }
}

/// A cell profiled: its document, the variant it ran on, the native measurement.
pub type Analysed = (ProfileDocument, Variant, Option<Measurement>);

/// Profiles the cells in order, each handed to `keep` as soon as it is analysed. The analyses run
/// one after another on a thread of their own (each on its worker threads), while this thread
/// goes on measuring and tracing the next cells, up to [`TRACED_AHEAD`] of them waiting: a long
/// analysis (3DES's) no longer holds the cells after it back, and the analyses after it run
/// back to back. A native run keeps a CPU free of analysis while it is timed. The first error
/// stops the tracing; the cells already traced are still analysed and kept.
pub fn pipeline(
    cells: &[CellRef],
    request: &ProfileRequest,
    tracer: &Tracer,
    cancel: &AtomicBool,
    keep: &mut dyn FnMut(Analysed) -> Result<()>,
) -> Result<()> {
    use std::sync::mpsc;
    std::thread::scope(|scope| {
        let (to_analyse, traced_cells) = mpsc::sync_channel::<TracedCell>(TRACED_AHEAD);
        let (to_keep, analysed) = mpsc::channel::<Analysed>();
        let analyser = scope.spawn(move || {
            for traced in traced_cells {
                if to_keep.send(analyse_cell(traced)).is_err() {
                    break; // keeping failed: nothing more to analyse for
                }
            }
        });
        let mut outcome = Ok(());
        for cell in cells {
            match trace_cell(request, cell, tracer, cancel) {
                Ok(traced) => {
                    if to_analyse.send(traced).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
            while let Ok(done) = analysed.try_recv() {
                keep(done)?;
            }
        }
        drop(to_analyse);
        for done in analysed {
            keep(done)?;
        }
        analyser
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        outcome
    })
}

/// Traced cells waiting for their analysis, at most (each holds its trace in memory: up to
/// 1.6 GB).
const TRACED_AHEAD: usize = 2;

#[cfg(test)]
mod tests {
    use super::pinned_env;

    /// A traced worker keeps the variables that find programs, libraries, caches and the tools,
    /// drops what a shell sets besides, and the profile's own settings win.
    #[test]
    fn a_traced_worker_keeps_only_the_pinned_variables() {
        let inherited = [
            ("PWD", "/home/someone/work"),
            ("PATH", "/usr/bin:/bin"),
            ("TERM", "xterm-256color"),
            ("CRYPTOSPEED_CACHE", "/c"),
            ("OPENSSL_ia32cap", "~0x200000"),
            ("OLDPWD", "/tmp"),
            ("QEMU_LD_PREFIX", "/usr/powerpc64le-linux-gnu"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let explicit = vec![("OPENSSL_ia32cap".to_string(), "0x1".to_string())];
        let env = pinned_env(inherited.into_iter(), explicit);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "PATH",
                "CRYPTOSPEED_CACHE",
                "OPENSSL_ia32cap",
                "QEMU_LD_PREFIX",
                "OPENSSL_ia32cap"
            ]
        );
        // Set in that order, the profile's own value is the one the worker sees.
        assert_eq!(env.last().unwrap().1, "0x1");
    }
}
