//! `cryptospeed gate BASE NEW`: the regression gate for a pull request. It only parses the
//! options, hands the two builds to `cryptospeed_runner::gate` (the measuring, with the decision
//! in `cryptospeed_compare::gate`), prints the markdown summary or JSON, and maps the outcome to
//! the exit status (docs/gate.md).

use crate::session::{command_line, db_location, emit, interrupt_flag, recording, StoreArgs};
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_catalog::plan;
use cryptospeed_compare::gate::drive::Budget;
use cryptospeed_compare::gate::{GateConfig, GateOutcome};
use cryptospeed_model::CellSpec;
use cryptospeed_query::SideOptions;
use cryptospeed_runner::gate::{self, GateRequest};
use cryptospeed_runner::remeasure;
use cryptospeed_runner::{RunMeta, RunRequest};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

#[derive(Args)]
pub struct GateArgs {
    /// The base build: an implementation (`openssl`, `openssl:/path/libcrypto.so.3`), a built
    /// variant's label, either with `+MASK` (`openssl+no-aesni`); with --stored, a stored run
    /// (id, label, `RUN@VARIANT`) whose build is timed again.
    pub base: String,
    /// The new build, written the same way.
    pub new: String,
    /// Primitives or groups, comma-separated (default: all).
    #[arg(long, short, value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Message sizes, comma-separated.
    #[arg(long, short, value_name = "LIST")]
    pub bytes: Vec<String>,
    /// Exact cells instead of -a × -b (`md5@64,rsa2048`).
    #[arg(long, value_name = "LIST", conflicts_with_all = ["algorithms", "bytes"])]
    pub cells: Vec<String>,
    /// Operations to time (default: each primitive's openssl speed operations).
    #[arg(long, value_name = "LIST")]
    pub ops: Vec<String>,
    /// The threshold of practical interest: fail only for a cell slower by more than this
    /// (`2%` or `0.02`).
    #[arg(long, default_value = "2%")]
    pub fail_above: String,
    /// False discovery rate held across cells (Benjamini–Hochberg).
    #[arg(long, default_value_t = 0.05)]
    pub fdr: f64,
    /// One-sided level at which a cell is declared not slower than the threshold.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Seconds of measuring per cell and pass at most.
    #[arg(long, default_value_t = 0.5)]
    pub max_time: f64,
    /// Target half-width of the first pass's 95% intervals, each build's and the paired ratio's
    /// (later passes halve it); default: the threshold (1% with `--fail-above 0`). An interval
    /// that wide already decides a cell that did not move; tighter costs bouts (docs/gate.md).
    #[arg(long)]
    pub precision: Option<f64>,
    /// Bouts before a cell may stop.
    #[arg(long, default_value_t = 10)]
    pub min_bouts: u32,
    /// Passes over still undecided cells after the first (and over unconfirmed flags).
    #[arg(long, default_value_t = 6)]
    pub extra_passes: usize,
    /// No further pass starts after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<f64>,
    /// BASE and NEW are stored runs (as `compare` reads them): their builds are loaded again
    /// (as `compare --remeasure` does) and gated on the cells both measured.
    #[arg(long)]
    pub stored: bool,
    /// Fail on the flagged cells without re-measuring them.
    #[arg(long)]
    pub no_confirm: bool,
    /// Print the report as JSON instead of markdown.
    #[arg(long)]
    pub json: bool,
    /// Also write the markdown summary to this file (for a pull-request comment).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Output file (default: stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The runs' label (passes add `-more-N`, `-confirm-N`).
    #[arg(long, default_value = "gate")]
    pub label: String,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// `2%` or `0.02`: a fraction.
fn fraction(text: &str) -> Result<f64> {
    let v = match text.trim().strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>()? / 100.0,
        None => text.trim().parse::<f64>()?,
    };
    if !(0.0..1.0).contains(&v) {
        bail!("--fail-above wants a share below 100%, like 2% or 0.02; got '{text}'");
    }
    Ok(v)
}

/// `--stored`: the two stored sides' builds, loaded again on this machine as `compare
/// --remeasure` loads them (or refused, saying why), and the cells both measured.
fn stored_builds(
    a: &GateArgs,
    cancel: &AtomicBool,
) -> Result<(Vec<CellSpec>, Vec<cryptospeed_runner::ImplChoice>)> {
    let mut store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let options = SideOptions {
        decrypt: false,
        store_logs: false,
        per_ghz: false,
        single_argument: false,
    };
    let args = [a.base.clone(), a.new.clone()];
    let stored = cryptospeed_query::stored_sides(&args, store.as_mut(), &options)?;
    if stored.len() != 2 {
        bail!("--stored: BASE and NEW must hold one variant each (pick one with RUN@VARIANT)");
    }
    let sides: Vec<remeasure::StoredSide> = stored
        .iter()
        .map(|s| remeasure::StoredSide {
            name: &s.name,
            variant: &s.variant,
            records: &s.records,
        })
        .collect();
    let prepared = remeasure::prepare(&sides, 0, &|_| true, cancel)?;
    Ok((prepared.plan.cells, prepared.plan.variants))
}

/// The first pass's precision target: as given, else the threshold (1% for a threshold of 0).
fn first_precision(given: Option<f64>, threshold: f64) -> f64 {
    given.unwrap_or(if threshold > 0.0 { threshold } else { 0.01 })
}

/// The exit status of each outcome (docs/gate.md); errors exit 2 in main.
pub fn exit_code(outcome: GateOutcome) -> i32 {
    match outcome {
        GateOutcome::Pass => 0,
        GateOutcome::Regression => 1,
        GateOutcome::Undecided => 3,
    }
}

pub fn gate(a: GateArgs) -> Result<i32> {
    let selected = !(a.algorithms.is_empty() && a.bytes.is_empty() && a.cells.is_empty());
    let cells = plan::Selection {
        algorithms: &a.algorithms,
        sizes: &a.bytes,
        cells: &a.cells,
        ops: &a.ops,
        misalign: 0,
    }
    .plan()?;
    let threshold = fraction(&a.fail_above)?;
    let request = RunRequest {
        cells,
        precision: first_precision(a.precision, threshold),
        max_time: a.max_time,
        min_samples: 10,
        sample_time: 0.005,
        bout_samples: 3,
        min_bouts: a.min_bouts,
        vary_buffers: false,
        pin: None,
        multi: None,
        implementations: Some("openssl".into()),
        variants: None,
        masks: Vec::new(),
    };
    let mut plan = request.plan()?;
    let cancel = interrupt_flag();
    if a.stored {
        let (cells, variants) = stored_builds(&a, &cancel)?;
        if selected {
            plan.cells.retain(|c| cells.contains(c));
        } else {
            plan.cells = cells;
        }
        plan.variants = variants;
    } else {
        plan.variants = gate::sides(&a.base, &a.new)?;
    }
    let meta = RunMeta {
        store: db_location(&a.store.db),
        label: Some(a.label.clone()),
        command: command_line(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        recording: recording(60.0)?,
        shard: None,
        resume: None,
    };
    let config = GateConfig {
        threshold,
        fdr: a.fdr,
        alpha: a.alpha,
    };
    let budget = Budget {
        extra_passes: a.extra_passes,
        seconds: a.budget,
        confirm: !a.no_confirm,
    };
    let bar = crate::run::Bar::new();
    let names = (a.base.clone(), a.new.clone());
    let req = GateRequest {
        plan,
        meta,
        config,
        budget,
        names,
        cancel: &cancel,
        progress: &bar,
    };
    let report = gate::run(&req)?;
    let markdown = report.markdown();
    if let Some(path) = &a.summary {
        crate::session::write_atomically(path, markdown.as_bytes())?;
    }
    let text = match a.json {
        true => serde_json::to_string_pretty(&report)? + "\n",
        false => markdown,
    };
    emit(&text, &a.output)?;
    Ok(exit_code(report.outcome))
}
