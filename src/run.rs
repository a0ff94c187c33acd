//! `cryptospeed run`, `runs` and `show`: turn the options into a plan for the runner
//! (crates/runner), then print the stored run in the chosen format.

mod across_runs;
mod resume;

use crate::args;
use crate::session::{db_location, emit, interrupt_flag, StoreArgs};
use anyhow::Result;
use clap::Args;
use cryptospeed_catalog::plan;
use cryptospeed_model::CellSpec;
use cryptospeed_report::{Format, Options};
use cryptospeed_runner::{Progress, RunMeta, RunRequest, Schedule};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

#[derive(Args)]
pub struct OutputArgs {
    /// Output format: openssl, mr, json, csv, markdown, matrix (default: openssl for one
    /// implementation, matrix for several).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Format::NAMES))]
    pub format: Option<String>,
    /// Write the output to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Show the 95% confidence interval (±% of the median) beside each number.
    #[arg(long)]
    pub ci: bool,
    /// Show TSC reference cycles per byte (per operation for public key).
    #[arg(long)]
    pub cycles: bool,
    /// Show percentiles (1st to 99th) of TSC cycles per call of public-key and KEM cells, each
    /// with a 95% interval, from the stored samples (docs/import-and-compare.md).
    #[arg(long)]
    pub percentiles: bool,
}

impl OutputArgs {
    /// Renders a run; without `--format`, a run of several variants is shown as the matrix.
    pub fn render_for(&self, record: &cryptospeed_model::RunRecord, variants: usize) -> String {
        let default = if variants > 1 { "matrix" } else { "openssl" };
        let name = self.format.as_deref().unwrap_or(default);
        let format = Format::parse(name).expect("clap checked the format");
        let options = Options {
            ci: self.ci,
            cycles: self.cycles,
            percentiles: self.percentiles,
            footnotes: crate::deviations::of_run(record),
        };
        let text = cryptospeed_report::render(record, format, &options);
        match format.name() {
            // After the text tables: each TLS handshake explained by its primitives.
            "openssl" | "matrix" => text + &cryptospeed_impls::tls::explain::section(record),
            _ => text,
        }
    }
}

#[derive(Args)]
pub struct RunArgs {
    /// Primitives or groups, comma-separated, in any openssl speed spelling (default: all).
    #[arg(long, short, value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Message sizes, comma-separated, 1 B to 16 MiB (k and MiB suffixes accepted).
    #[arg(long, short, value_name = "LIST")]
    pub bytes: Vec<String>,
    /// Exact cells instead of -a × -b: PRIMITIVE@SIZE (or PRIMITIVE for public-key ones),
    /// comma-separated, e.g. `md5@64,aes-128-cbc@16k,rsa2048` (sweep shards use this).
    #[arg(long, value_name = "LIST", conflicts_with_all = ["algorithms", "bytes"])]
    pub cells: Vec<String>,
    /// Operations to time (hash, mac, encrypt, decrypt, sign, verify, derive; keygen, encaps,
    /// decaps, keygen+encode, encaps+parse, decaps+parse, verify+parse, verify-fresh-key;
    /// handshake, handshake-client, handshake-server, handshake-resumed; all); default: each
    /// primitive's openssl speed operations (`list` shows each primitive's).
    #[arg(long, value_name = "LIST")]
    pub ops: Vec<String>,
    /// Start message buffers this many bytes past a 64-byte boundary.
    #[arg(long, default_value_t = 0)]
    pub misalign: u32,
    /// Target half-width of the 95% interval between bouts, as a fraction (0.01 = ±1%).
    #[arg(long, default_value_t = 0.01)]
    pub precision: f64,
    /// Seconds of measuring per cell at most (its bouts together), precise or not.
    #[arg(long, default_value_t = 0.5)]
    pub max_time: f64,
    /// Minimum samples per cell for `--multi`, which measures each cell in one stretch (bouts
    /// use --min-bouts and --bout-samples).
    #[arg(long, default_value_t = 10)]
    pub min_samples: u32,
    /// Target duration of one sample, seconds.
    #[arg(long, default_value_t = 0.005)]
    pub sample_time: f64,
    /// Samples per bout: each cell is measured in bouts of this many samples, one bout per
    /// round of the run, each round in fresh worker processes with another memory layout.
    #[arg(long, default_value_t = 3)]
    pub bout_samples: u32,
    /// A cell is judged precise only after this many bouts (at least 2).
    #[arg(long, default_value_t = 10)]
    pub min_bouts: u32,
    /// How each round's fresh worker processes differ: `natural` (environment size, heap
    /// position, and whatever the kernel randomises) or `full` (also each message buffer's
    /// offset in its page: a layout-sensitivity study; intervals at small sizes grow wide).
    #[arg(long, default_value = "natural", value_parser = ["natural", "full"])]
    pub layouts: String,
    /// Pin the worker to this CPU.
    #[arg(long, conflicts_with = "multi")]
    pub pin: Option<usize>,
    /// Scaling: run each cell alone, then on N workers pinned to N distinct CPUs at once, and
    /// report per-worker and aggregate throughput and the scaling efficiency (like `openssl
    /// speed -multi N`, with intervals). Every cell then runs exactly --max-time seconds.
    #[arg(long, value_name = "N")]
    pub multi: Option<usize>,
    /// Implementations, comma-separated, or `all`: NAME or NAME:LIBRARY (e.g.
    /// openssl:/opt/ssl/lib/libcrypto.so.3, openssl-cli:/usr/bin/openssl).
    /// (default: openssl, unless --variant is given).
    #[arg(long = "impl")]
    pub implementation: Option<String>,
    /// Built variants (`cryptospeed variant build`), comma-separated labels or keys; `system`
    /// is the system libcrypto. Each runs in its own worker with its own libcrypto, interleaved
    /// cell by cell so machine drift hits all alike.
    #[arg(long, value_name = "LIST")]
    pub variant: Option<String>,
    /// A name for the run, to refer to it later.
    #[arg(long)]
    pub label: Option<String>,
    /// Seconds to keep retrying a store that stopped answering (a restart, a failover, a network
    /// blip) while measuring goes on; after that the rest of the run is left in a spool file
    /// that `cryptospeed sync --from SPOOL` publishes later.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub store_retry: f64,
    /// Go on with an interrupted or abandoned run (id or label): measures only what it lacks,
    /// its earlier bouts counted as bouts of the same run. Its settings are its own; refused,
    /// with the reason, on another machine, with other builds or another cryptospeed.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["algorithms", "bytes", "cells", "ops", "misalign", "precision", "max_time", "min_samples", "sample_time", "bout_samples", "min_bouts", "layouts", "pin", "multi", "implementation", "variant", "label", "mask", "sweep_shard"])]
    pub resume: Option<String>,
    /// A sweep shard's run going on (set by `sweep run`): these options, checked against the
    /// run's resume key.
    #[arg(long, hide = true, value_name = "RUN", conflicts_with = "resume")]
    pub continue_run: Option<i64>,
    /// The sweep shard this run measures (NAME/K), set by `sweep run`.
    #[arg(long, hide = true)]
    pub sweep_shard: Option<String>,
    /// Hide CPU features from the implementation: no-aesni, no-pclmul, no-ssse3, no-avx,
    /// no-avx2, no-avx512, no-shani, no-vaes (combine with commas), `baseline` (all of them) or
    /// `none`. Repeat the option to measure several masks side by side in one interleaved run
    /// (`--mask none --mask no-aesni`); each mask is its own variant.
    #[arg(long, value_name = "LIST")]
    pub mask: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args)]
pub struct ShowArgs {
    /// Run id or label.
    pub run: String,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(a: RunArgs) -> Result<i32> {
    run_stored(a).map(|(code, _)| code)
}

/// `run`, also returning the id of the stored run.
pub fn run_stored(a: RunArgs) -> Result<(i32, Option<i64>)> {
    let (a, resume) = match (a.resume.clone(), a.continue_run) {
        (Some(run), _) => resume::stored_run(a, &run).map(|(a, from)| (a, Some(from)))?,
        (None, Some(run)) => {
            let from = resume::resumable(&db_location(&a.store.db), &run.to_string())?;
            (a, Some(from))
        }
        (None, None) => (a, None),
    };
    let cells = plan::Selection {
        algorithms: &a.algorithms,
        sizes: &a.bytes,
        cells: &a.cells,
        ops: &a.ops,
        misalign: a.misalign,
    }
    .plan()?;
    let request = RunRequest {
        cells,
        precision: a.precision,
        max_time: a.max_time,
        min_samples: a.min_samples,
        sample_time: a.sample_time,
        bout_samples: a.bout_samples,
        min_bouts: a.min_bouts,
        vary_buffers: a.layouts == "full",
        pin: a.pin,
        multi: a.multi,
        implementations: a.implementation.clone(),
        variants: a.variant.clone(),
        masks: a.mask.clone(),
    };
    let plan = request.plan()?;
    let cancel = interrupt_flag();
    let db = db_location(&a.store.db);
    let shard = a
        .sweep_shard
        .as_deref()
        .map(args::parse_shard_ref)
        .transpose()?;
    let meta = RunMeta {
        store: db.clone(),
        label: a.label.clone(),
        command: crate::session::command_line(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        recording: crate::session::recording(a.store_retry)?,
        shard,
        resume,
    };
    let outcome = cryptospeed_runner::execute(&plan, &meta, &cancel, &Bar::new())?;
    // Printed from the run as measured, whatever the store got of it.
    let record = outcome.record_in_plan_order(&plan);
    let text = match plan.schedule {
        Schedule::Concurrent { workers } => {
            let table = cryptospeed_runner::scaling_table(&outcome.scaling, workers);
            format!(
                "{}\n{table}",
                a.output.render_for(&record, record.variants.len())
            )
        }
        Schedule::Interleaved { .. } => a.output.render_for(&record, plan.variants.len()),
    };
    let drift = across_runs::drift(&db, outcome.run_id);
    let text = match (&drift, a.output.format.as_deref()) {
        (Some(d), Some("json")) => across_runs::into_json(text, d),
        _ => text,
    };
    emit(&text, &a.output.output)?;
    for line in outcome.closing_lines(&plan, a.label.as_deref(), &db) {
        eprintln!("cryptospeed: {line}");
    }
    if let Some(d) = &drift {
        eprintln!("cryptospeed: {}", across_runs::closing_line(d));
    }
    Ok((exit_code(&outcome, &db), Some(outcome.run_id)))
}

/// The run's exit status: an interrupted run says how to resume it, and exits 143 when a SIGTERM
/// (a scheduler pre-empting the job) interrupted it, 130 after Ctrl-C.
fn exit_code(outcome: &cryptospeed_runner::Outcome, db: &str) -> i32 {
    let code = outcome.exit_code();
    if outcome.status != cryptospeed_model::RunStatus::Interrupted {
        return code;
    }
    eprintln!(
        "cryptospeed: resume it with: cryptospeed run --resume {} --db {}",
        outcome.run_id,
        cryptospeed_store::redact(db)
    );
    match crate::session::terminated() {
        true => 143,
        false => code,
    }
}

/// The progress bar a run shows on the terminal.
pub(crate) struct Bar(ProgressBar);

impl Bar {
    pub(crate) fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
            )
            .unwrap(),
        );
        Bar(bar)
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn unit(&self, variant: &str, cell: &CellSpec) {
        self.0.set_message(format!(
            "{variant} {} {}{}",
            cell.primitive,
            cell.op,
            cell.bytes.map(|b| format!(" {b} B")).unwrap_or_default()
        ));
    }
    fn done(&self) {
        self.0.inc(1);
    }
    fn note(&self, text: &str) {
        self.0.suspend(|| eprintln!("cryptospeed: {text}"));
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

pub fn runs(a: StoreArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.db))?;
    println!("{}", cryptospeed_query::listing::runs_table(&store.runs()?));
    Ok(0)
}

/// `cryptospeed machines`: every machine the store has runs from.
pub fn machines(a: MachinesArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let rows = store.machines()?;
    match a.json {
        true => println!("{}", serde_json::to_string_pretty(&rows)?),
        false => println!("{}", cryptospeed_query::listing::machines_table(&rows)),
    }
    Ok(0)
}

#[derive(Args)]
pub struct MachinesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn show(a: ShowArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let mut record = store.load_run(&a.run)?;
    cryptospeed_query::in_catalog_order(&mut record);
    for note in crate::deviations::changed_in_runs(store.as_ref(), [&record].into_iter())? {
        eprintln!("cryptospeed: {note}");
    }
    emit(
        &a.output.render_for(&record, record.variants.len()),
        &a.output.output,
    )?;
    Ok(0)
}
