//! `cryptospeed profile`: explain a primitive's speed from a trace of the real code. For each
//! primitive: a native run of the cell (TSC cycles per byte, hardware counters where the kernel
//! offers them), then the same cell in a worker under valgrind (cstrace, or lackey as a
//! fallback) between markers, then the recorded region replayed through the instruction-mix
//! count, the cache grid, every branch predictor and the ILP grid.

use crate::session;
use crate::traced::{self, Tracer};
use anyhow::{bail, Context, Result};
use clap::Args;
use cryptospeed_engine::counters::{CounterValues, Counters};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::protocol::{Request, Response};
use cryptospeed_engine::worker_client::{WorkerClient, WorkerSpec};
use cryptospeed_model::{
    CellSpec, MeasureConfig, Measurement, Op, ProfileRecord, RunStatus, Status, Variant,
};
use cryptospeed_runner::ImplChoice;
use cryptospeed_sim::analysis::{self, Grid};
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::profile::ProfileDocument;
use cryptospeed_sim::region::Recorder;
use cryptospeed_sim::trace;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct ProfileArgs {
    /// Primitives to profile (names or aliases, e.g. aes-128-cbc des-cbc rc4 md5 sha1);
    /// NAME@SIZE profiles that one at its own size (md5@4k).
    #[arg(required = true)]
    primitives: Vec<String>,
    /// Message size of the profiled cell.
    #[arg(long, default_value = "262144")]
    bytes: String,
    /// Implementation (NAME or NAME:LIBRARY). Default: openssl when it offers the primitive,
    /// else the first implementation that does.
    #[arg(long = "impl")]
    implementation: Option<String>,
    /// A built variant (see `cryptospeed variant list`) instead of an implementation.
    #[arg(long, conflicts_with = "implementation")]
    variant: Option<String>,
    /// CPU-feature mask for the library (e.g. no-avx512, no-aesni): picks the code path to
    /// study, natively and under valgrind alike.
    #[arg(long)]
    mask: Option<String>,
    /// Calls of the cell in the measured part.
    #[arg(long, default_value_t = 1)]
    iters: u64,
    /// Calls before it, which only warm the simulated caches and predictors.
    #[arg(long, default_value_t = 1)]
    warmup: u64,
    /// `full` (the architecture study's grid: 1140 caches, 6 predictors, 45 ILP points) or
    /// `single` (one configuration per level; fast).
    #[arg(long, default_value = "full")]
    grid: String,
    /// Trace with `cstrace` (our valgrind tool), `lackey` (slow, always there) or `auto`.
    #[arg(long, default_value = "auto")]
    tracer: String,
    /// Skip the native run (no TSC cycles per byte, no counters).
    #[arg(long)]
    no_native: bool,
    /// text, json or csv.
    #[arg(long, default_value = "text")]
    format: String,
    /// Write the report here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Label of the stored run (`cryptospeed report LABEL` draws its charts).
    #[arg(long)]
    label: Option<String>,
    /// Do not store the profiles (and the native measurements) in the results database.
    #[arg(long)]
    no_store: bool,
    /// The sweep shard this profile measures (K:NAME), set by `sweep run`.
    #[arg(long, hide = true)]
    sweep_shard: Option<String>,
    #[command(flatten)]
    store: crate::run::StoreArgs,
}

fn choice_for(args: &ProfileArgs, primitive: &str, cancel: &AtomicBool) -> Result<ImplChoice> {
    let mask = match &args.mask {
        Some(m) => FeatureMask::parse(m).map_err(|e| anyhow::anyhow!("--mask: {e}"))?,
        None => FeatureMask::default(),
    };
    let with_mask = |mut c: ImplChoice| {
        c.mask = mask.clone();
        c
    };
    if let Some(v) = &args.variant {
        let mut c = crate::variant::choices(v)?;
        if c.len() != 1 {
            bail!("--variant takes one variant for a profile");
        }
        return Ok(with_mask(c.remove(0)));
    }
    if let Some(i) = &args.implementation {
        let c = ImplChoice::parse_list(i)?;
        if c.len() != 1 {
            bail!("--impl takes one implementation for a profile");
        }
        if c[0].name == "go" {
            bail!(
                "the go implementation cannot be profiled: the Go worker has no valgrind markers \
                 (docs/worker-protocol.md)"
            );
        }
        return Ok(with_mask(c.into_iter().next().unwrap()));
    }
    // openssl first, then the registry order; openssl-cli times a whole external process and
    // cannot be profiled cell by cell, and the Go worker has no valgrind markers.
    let mut reasons = Vec::new();
    for name in cryptospeed_runner::all_implementations() {
        if name == "openssl-cli" || name == "go" {
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
    let variant = cryptospeed_runner::variant_of(choice, &w);
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

fn traced(
    tracer: &Tracer,
    choice: &ImplChoice,
    cell: &CellSpec,
    args: &ProfileArgs,
    cancel: &AtomicBool,
) -> Result<Traced> {
    let scratch = traced::Scratch::new()?;
    let out = scratch.dir.join(match tracer {
        Tracer::Cstrace(_) => "trace.fifo",
        Tracer::Lackey => "lackey.log",
    });
    let reader = match tracer {
        Tracer::Cstrace(_) => {
            traced::make_fifo(&out)?;
            Some(traced::spawn_reader(
                out.clone(),
                Recorder::new(false, EVENT_LIMIT),
            ))
        }
        Tracer::Lackey => None,
    };
    let native = choice.spec(None)?;
    let (program, mut vargs, mut env) = traced::valgrind_prefix(tracer, &out);
    if matches!(tracer, Tracer::Cstrace(_)) {
        vargs.push("--log-file=/dev/null".into());
    }
    vargs.push(native.program.to_string_lossy().into_owned());
    vargs.extend(native.args.iter().cloned());
    env.extend(native.env.iter().cloned());
    let spec = WorkerSpec {
        program: PathBuf::from(program),
        args: vargs,
        env,
    };
    let result = (|| -> Result<(Variant, Response)> {
        let mut w = WorkerClient::spawn(&spec, cancel)
            .map_err(|e| anyhow::anyhow!("starting the worker under valgrind: {e}"))?;
        let variant = cryptospeed_runner::variant_of(choice, &w);
        let reply = w
            .request(
                &Request::Profile {
                    cell: cell.clone(),
                    warmup: args.warmup,
                    iters: args.iters,
                },
                Duration::from_secs(3600),
                cancel,
            )
            .map_err(|e| anyhow::anyhow!("profiling {} under valgrind: {e}", cell.primitive))?;
        w.quit_and_wait(Duration::from_secs(120))
            .map_err(|e| anyhow::anyhow!("the traced worker did not end cleanly: {e}"))?;
        Ok((variant, reply))
    })();
    if let Some(r) = &reader {
        traced::release_reader(&out, r);
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
    let (decoded, recorder, totals) = match reader {
        Some(r) => r
            .join()
            .map_err(|_| anyhow::anyhow!("the trace reader panicked"))?
            .map_err(anyhow::Error::msg)?,
        None => {
            let f = std::fs::File::open(&out)
                .with_context(|| format!("lackey wrote no trace to {}", out.display()))?;
            let mut decoded = Decoded::default();
            let mut recorder = Recorder::new(false, EVENT_LIMIT);
            let mut code = traced::MappedFiles::parse(&maps);
            let marks: Vec<(u64, u32)> = markers
                .iter()
                .enumerate()
                .map(|(i, a)| (*a, i as u32 + 1))
                .collect();
            let totals = trace::read_lackey(
                std::io::BufReader::new(f),
                &mut decoded,
                &mut code,
                &marks,
                &mut recorder,
            )
            .map_err(anyhow::Error::msg)?;
            (decoded, recorder, totals)
        }
    };
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

pub fn profile(args: ProfileArgs) -> Result<i32> {
    profile_stored(args).map(|(code, _)| code)
}

/// `profile`, also returning the id of the stored run (none with `--no-store`).
pub fn profile_stored(args: ProfileArgs) -> Result<(i32, Option<i64>)> {
    let default_bytes = crate::args::parse_size(&args.bytes)?;
    let grid = match args.grid.as_str() {
        "full" => Grid::full(),
        "single" => Grid::single(),
        g => bail!("unknown --grid '{g}'; use full or single"),
    };
    if !cryptospeed_report::profile::NAMES.contains(&args.format.as_str()) {
        bail!(
            "unknown --format '{}'; use {}",
            args.format,
            cryptospeed_report::registry::in_words(cryptospeed_report::profile::FORMATS)
        );
    }
    if args.iters == 0 {
        bail!("--iters must be at least 1");
    }
    let mut primitives = Vec::new();
    for item in &args.primitives {
        // PRIMITIVE@SIZE profiles that primitive at its own size.
        let (name, bytes) = match item.split_once('@') {
            Some((n, size)) => (n, crate::args::parse_size(size)?),
            None => (item.as_str(), default_bytes),
        };
        match cryptospeed_catalog::lookup(name) {
            Some(p) => primitives.push((p, bytes)),
            None => bail!("unknown primitive '{name}'{}", {
                let near = cryptospeed_catalog::suggest(name);
                if near.is_empty() {
                    "; `cryptospeed list` shows them all".to_string()
                } else {
                    format!("; did you mean {}?", near.join(", "))
                }
            }),
        }
    }
    let tracer = traced::choose(&args.tracer)?;
    let cancel = session::interrupt_flag();
    let mut profiles = Vec::new();
    let mut counters_notice = None;
    // Stored as a run of its own: the machine, each profiled cell's variant, its native
    // measurement and its analysis, each committed as soon as it is done.
    let mut stored = if args.no_store {
        None
    } else {
        let db = session::db_location(&args.store.db);
        let mut store = cryptospeed_store::open(&db)?;
        let machine = cryptospeed_engine::machine::probe();
        let command = crate::session::command_line();
        let run = store.begin_run(&cryptospeed_store::RunStart::new(
            machine,
            args.label.as_deref(),
            &command,
            env!("CARGO_PKG_VERSION"),
            MeasureConfig::default(),
        ))?;
        if let Some(text) = &args.sweep_shard {
            let (sweep, k) = crate::args::parse_shard_ref(text)?;
            store.link_shard(&sweep, k, run)?;
        }
        Some((store, run, cryptospeed_store::redact(&db)))
    };
    for (p, bytes) in primitives {
        let result = profile_one(&args, p, bytes, &grid, &tracer, &cancel);
        let (profile, variant, native_measurement) = match result {
            Ok(r) => r,
            Err(e) => {
                if let Some((store, run, db)) = &mut stored {
                    let status = if cancel.load(std::sync::atomic::Ordering::SeqCst) {
                        RunStatus::Interrupted
                    } else {
                        RunStatus::Failed
                    };
                    store.finish_run(*run, status)?;
                    if !profiles.is_empty() {
                        eprintln!(
                            "cryptospeed: run {run} in {db} keeps the {} profile(s) finished before this",
                            profiles.len()
                        );
                    }
                }
                return Err(e);
            }
        };
        if let Err(e) = &profile.counters {
            counters_notice.get_or_insert(e.clone());
        }
        if let Some((store, run, _)) = &mut stored {
            let variant_id = store.variant_id(&variant)?;
            if let Some(m) = &native_measurement {
                store.add_measurement(*run, variant_id, m)?;
            }
            store.add_profile(
                *run,
                variant_id,
                &ProfileRecord {
                    variant: variant.label.clone(),
                    primitive: profile.primitive.clone(),
                    bytes: Some(profile.bytes).filter(|b| *b > 0),
                    document: profile.to_json(),
                },
            )?;
        }
        profiles.push(profile);
    }
    if let Some((store, run, db)) = &mut stored {
        store.finish_run(*run, RunStatus::Complete)?;
        eprintln!(
            "cryptospeed: stored as run {run} in {db} (`cryptospeed report {run} -o report.html` draws it)"
        );
    }
    if let Some(n) = counters_notice {
        eprintln!("cryptospeed: {n}; simulated figures only");
    }
    let text = cryptospeed_report::profile::render(&profiles, &args.format)
        .expect("the format was checked above");
    session::emit(&text, &args.output)?;
    Ok((0, stored.map(|(_, run, _)| run)))
}

/// Profiles one primitive: the native run, the traced run, the analysis. Returns the profile,
/// the variant it ran (the native worker's, else the traced one's) and the native measurement.
fn profile_one(
    args: &ProfileArgs,
    p: &'static cryptospeed_catalog::Primitive,
    bytes: u64,
    grid: &Grid,
    tracer: &Tracer,
    cancel: &AtomicBool,
) -> Result<(ProfileDocument, Variant, Option<Measurement>)> {
    let choice = choice_for(args, p.id, cancel)?;
    let cell = cell_for(p, bytes);
    eprintln!(
        "cryptospeed: profiling {} on {} ({}, {} warm-up + {} measured call(s), {})",
        p.id,
        choice.display(),
        cell.bytes
            .map(|b| format!("{b} B"))
            .unwrap_or_else(|| "one operation".into()),
        args.warmup,
        args.iters,
        tracer.name()
    );
    let (native_variant, native_measurement, counters) = if args.no_native {
        (
            None,
            None,
            Err("native run skipped (--no-native)".to_string()),
        )
    } else {
        let (v, m, k) = native(&choice, &cell, cancel)?;
        (Some(v), Some(m), k)
    };
    let native_caps = native_variant.as_ref().map(|v| v.capabilities.clone());
    let started = Instant::now();
    let t = traced(tracer, &choice, &cell, args, cancel)?;
    let trace_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let a = analysis::analyse(
        &t.recorder.events,
        t.recorder.measured_range(),
        &t.decoded,
        grid,
    );
    let simulate_seconds = started.elapsed().as_secs_f64();
    let same_path = match (&native_caps, args.mask.is_none()) {
        (Some(n), true) if *n != t.caps => same_path_native(&choice, &cell, n, &t.caps, cancel)?,
        _ => None,
    };
    let per_byte = |m: &Measurement| m.tsc_per_op.map(|c| c / cell.bytes.unwrap_or(1) as f64);
    let unmasked = native_measurement.as_ref().and_then(per_byte);
    // Under the derived mask every extension OpenSSL's dispatch reads agrees with valgrind's
    // CPU; other bits of the vectors (vendor, cache hints) may still differ.
    let shown_caps = match &same_path {
        Some(s) if traced_path_mask(&s.variant.capabilities, &t.caps).is_none() => None,
        Some(s) => Some(&s.variant.capabilities),
        None => native_caps.as_ref(),
    };
    let path_warning = match shown_caps {
        Some(n) if *n != t.caps => Some(format!(
            "valgrind's synthetic CPU differs from this one, so the traced code path may not be the native one: natively {n}, under valgrind {} (valgrind hides AVX-512 and SHA-NI; use --mask to study a path both share)",
            t.caps
        )),
        _ => None,
    };
    if let Some(w) = &path_warning {
        eprintln!("cryptospeed: warning: {w}");
    }
    let processed = cell.bytes.unwrap_or(1) * args.iters;
    let profile = ProfileDocument {
        primitive: p.id.to_string(),
        implementation: choice.display(),
        bytes: cell.bytes.unwrap_or(0),
        warmup: args.warmup,
        iters: args.iters,
        tracer: tracer.name().to_string(),
        capabilities_native: native_caps,
        capabilities_traced: t.caps,
        path_warning,
        native_mask: same_path.as_ref().map(|s| s.mask.to_string()),
        capabilities_masked: same_path.as_ref().map(|s| s.variant.capabilities.clone()),
        tsc_cycles_per_byte_unmasked: same_path.as_ref().and(unmasked),
        instructions: t.recorder.mix.instructions,
        bytes_processed: processed,
        instructions_per_byte: t.recorder.mix.instructions as f64 / processed as f64,
        tsc_cycles_per_byte: match &same_path {
            Some(s) => per_byte(&s.measurement),
            None => unmasked,
        },
        counters,
        mix: t.recorder.mix.clone(),
        analysis: a,
        trace_instructions_total: t.total_instructions,
        trace_seconds,
        simulate_seconds,
    };
    let variant = native_variant.unwrap_or(t.variant);
    Ok((profile, variant, native_measurement))
}

/// The native run again, under the mask that hides what valgrind's CPU lacks.
struct SamePath {
    mask: FeatureMask,
    variant: Variant,
    measurement: Measurement,
}

/// Measures the cell natively on the traced code path: a mask derived from the two capability
/// vectors, when the implementation honours one; None (with a note) when it cannot.
fn same_path_native(
    choice: &ImplChoice,
    cell: &CellSpec,
    native_caps: &str,
    traced_caps: &str,
    cancel: &AtomicBool,
) -> Result<Option<SamePath>> {
    let Some(mask) = traced_path_mask(native_caps, traced_caps) else {
        return Ok(None);
    };
    let mut masked = choice.clone();
    masked.mask = mask.clone();
    if let Err(e) = masked.spec(None) {
        eprintln!("cryptospeed: no native figure on the traced path: {e:#}");
        return Ok(None);
    }
    eprintln!("cryptospeed: native run again under --mask {mask}, the traced code path");
    let (variant, measurement, _) = native(&masked, cell, cancel)?;
    Ok(Some(SamePath {
        mask,
        variant,
        measurement,
    }))
}

/// The two 64-bit words of an `OPENSSL_ia32cap=0x…:0x…` capability vector.
fn ia32cap_words(caps: &str) -> Option<(u64, u64)> {
    let v = caps.split_once("OPENSSL_ia32cap=")?.1;
    let (a, b) = v.split_once(':')?;
    let hex = |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
    Some((hex(a)?, hex(b.split_whitespace().next()?)?))
}

/// Every maskable extension the native CPU has and valgrind's lacks entirely (all of its
/// OPENSSL_ia32cap bits absent under valgrind): the mask that makes the native run take the
/// traced path. None when there is no such extension or the vectors are not OpenSSL's.
fn traced_path_mask(native: &str, traced: &str) -> Option<FeatureMask> {
    let (n, t) = (ia32cap_words(native)?, ia32cap_words(traced)?);
    let hidden: Vec<&str> = FeatureMask::names()
        .into_iter()
        .filter(|name| name.starts_with("no-"))
        .filter(|name| {
            let Some(cap) = FeatureMask::parse(name)
                .ok()
                .and_then(|m| m.openssl_ia32cap())
            else {
                return false;
            };
            // "~0xW0:~0xW1": the bits this mask clears.
            let Some((b0, b1)) =
                ia32cap_words(&format!("OPENSSL_ia32cap={}", cap.replace('~', "")))
            else {
                return false;
            };
            let has = (n.0 & b0) | (n.1 & b1) != 0;
            let kept = (n.0 & b0 & t.0) | (n.1 & b1 & t.1) != 0;
            has && !kept
        })
        .collect();
    (!hidden.is_empty()).then(|| FeatureMask::parse(&hidden.join(",")).ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traced_path_mask_hides_what_valgrind_lacks() {
        // This project's EPYC natively and under valgrind 3.19 (docs/profile.md).
        let native = "OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab";
        let traced = "OPENSSL_ia32cap=0x7ffaf3ffffebffff:0x427aa";
        let m = traced_path_mask(native, traced).unwrap();
        assert_eq!(m.to_string(), "no-avx512+no-shani+no-vaes");
        assert!(traced_path_mask(native, native).is_none());
        assert!(traced_path_mask("libgcrypt 1.10", traced).is_none());
    }
}
