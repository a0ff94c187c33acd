//! `cryptospeed profile`: explain a primitive's speed from a trace of the real code. The options
//! become a `cryptospeed_runner::profile::ProfileRequest`; each cell is profiled by the runner
//! (native run, traced run, simulators), one cell's simulators beside the next cell's runs; this
//! command stores each profile as it is done and prints them in the chosen format.

use crate::session;
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_catalog::plan::CellRef;
use cryptospeed_model::RunStatus;
use cryptospeed_runner::profile::{pipeline, valgrind, Analysed, ProfileRequest, ProfileRun};
use cryptospeed_sim::analysis::Grid;
use std::path::PathBuf;

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
    /// `full` (the architecture study's grid: 1140 caches, 7 predictors, 45 ILP points) or
    /// `single` (one configuration per level; fast).
    #[arg(long, default_value = "full")]
    grid: String,
    /// The core the timing model times and its sweeps vary: `generic` (a 4-wide core of about
    /// 2010) or `zen3` (AMD Zen 3 from published figures); docs/profile.md has both.
    #[arg(long, default_value = "generic")]
    core: String,
    /// Trace with `cstrace` (our valgrind tool), `lackey` (slow, always there), `qemu` (qemu-user
    /// with our plugin; what `auto` picks for a cross-built variant) or `auto`.
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
    store: crate::session::StoreArgs,
}

pub fn profile(args: ProfileArgs) -> Result<i32> {
    profile_stored(args).map(|(code, _)| code)
}

/// The options checked: the cells to profile (`NAME@SIZE` with its own size) and the request.
fn request_of(args: &ProfileArgs) -> Result<(Vec<CellRef>, ProfileRequest)> {
    let core = cryptospeed_sim::timing::cores::core_named(&args.core)
        .map_err(|e| anyhow::anyhow!("--core: {e}"))?;
    let grid = match args.grid.as_str() {
        "full" => Grid::full_for(&core),
        "single" => Grid::single_for(&core),
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
    let default_bytes = Some(crate::args::parse_size(&args.bytes)?);
    let cells: Vec<CellRef> = args
        .primitives
        .iter()
        .map(|item| CellRef::parse(item, default_bytes)) // NAME@SIZE: its own size
        .collect::<Result<_, _>>()?;
    let request = ProfileRequest {
        implementation: args.implementation.clone(),
        variant: args.variant.clone(),
        mask: args.mask.clone(),
        iters: args.iters,
        warmup: args.warmup,
        grid,
        no_native: args.no_native,
    };
    Ok((cells, request))
}

/// `profile`, also returning the id of the stored run (none with `--no-store`).
pub fn profile_stored(args: ProfileArgs) -> Result<(i32, Option<i64>)> {
    let (cells, request) = request_of(&args)?;
    let tracer = valgrind::choose_for(&args.tracer, args.variant.as_deref())?;
    let cancel = session::interrupt_flag();
    let mut profiles = Vec::new();
    let mut counters_notice = None;
    // Stored as a run of its own, each profile committed as soon as it is done.
    let mut stored = match args.no_store {
        true => None,
        false => Some(ProfileRun::begin(
            &session::db_location(&args.store.db),
            args.label.as_deref(),
            &session::command_line(),
            env!("CARGO_PKG_VERSION"),
            args.sweep_shard
                .as_deref()
                .map(crate::args::parse_shard_ref)
                .transpose()?,
        )?),
    };
    let mut keep = |(profile, variant, native): Analysed| -> Result<()> {
        if let Err(e) = &profile.counters {
            counters_notice.get_or_insert(e.clone());
        }
        if let Some(run) = &mut stored {
            run.add(&profile, &variant, native.as_ref())?;
        }
        profiles.push(profile);
        Ok(())
    };
    if let Err(e) = pipeline(&cells, &request, &tracer, &cancel, &mut keep) {
        if let Some(run) = stored.take() {
            let interrupted = cancel.load(std::sync::atomic::Ordering::SeqCst);
            let status = match interrupted {
                true => RunStatus::Interrupted,
                false => RunStatus::Failed,
            };
            let said = run.finish(status)?;
            if !profiles.is_empty() {
                eprintln!("cryptospeed: {said}");
            }
        }
        return Err(e);
    }
    let run_id = stored.as_ref().map(|r| r.run);
    if let Some(run) = stored {
        eprintln!("cryptospeed: {}", run.finish(RunStatus::Complete)?);
    }
    if let Some(n) = counters_notice {
        eprintln!("cryptospeed: {n}; simulated figures only");
    }
    let text = cryptospeed_report::profile::render(&profiles, &args.format)
        .expect("the format was checked above");
    session::emit(&text, &args.output)?;
    Ok((0, run_id))
}
