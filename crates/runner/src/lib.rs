//! The one run loop. Every command that measures (`run`, `run --multi`, sweep shards) hands a
//! [`Plan`] (cells × variants on a [`Schedule`]) to [`execute`], which starts the workers, stores
//! the run as it goes (begin, each measurement as it completes, finish), restarts a worker that
//! dies, honours Ctrl-C and deadlines, and returns the [`Outcome`]; the caller only renders it and
//! maps it to an exit code.

mod choice;
mod concurrent;
mod interleaved;

pub use choice::{all_implementations, variant_of, BuiltVariant, ImplChoice, Layout};
pub use concurrent::{allowed_cpus, cpus_for, scaling, scaling_table, Scaling, ScalingRow};

use anyhow::Result;
use cryptospeed_model::{CellSpec, MeasureConfig, RunStatus};
use cryptospeed_store::Store;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How the cells of a plan are spread over workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Rounds: each a fresh worker per variant, one bout per unfinished cell, cells shuffled and
    /// variants inner (rotating), so drift over the run hits every
    /// variant alike; `pin` pins every worker to one CPU.
    Interleaved { pin: Option<usize> },
    /// Scaling: each cell alone, then on `workers` workers pinned to distinct CPUs at once.
    Concurrent { workers: usize },
}

/// What to measure and how.
#[derive(Debug, Clone)]
pub struct Plan {
    pub cells: Vec<CellSpec>,
    pub variants: Vec<ImplChoice>,
    pub config: MeasureConfig,
    pub schedule: Schedule,
}

/// How the run is recorded in the store.
#[derive(Debug, Clone, Default)]
pub struct RunMeta {
    pub label: Option<String>,
    /// The command line as stored (passwords already redacted).
    pub command: String,
    pub tool_version: String,
}

impl RunMeta {
    /// Stores the run as begun on this machine (probed now) with `config`; returns its id.
    fn begin(&self, store: &mut dyn Store, config: &MeasureConfig) -> Result<i64> {
        let machine = cryptospeed_engine::machine::probe();
        store.begin_run(
            &machine,
            self.label.as_deref(),
            &self.command,
            &self.tool_version,
            config,
        )
    }
}

/// What a front end hears while a plan runs. Every method defaults to doing nothing (or, for
/// notes, to printing them on stderr).
pub trait Progress {
    /// `total` timed units (cells × variants) are about to run.
    fn start(&self, _total: u64) {}
    /// A unit begins: which variant, which cell.
    fn unit(&self, _variant: &str, _cell: &CellSpec) {}
    /// A unit finished.
    fn done(&self) {}
    /// Something the user should read (a worker restarted, a variant unavailable).
    fn note(&self, text: &str) {
        eprintln!("cryptospeed: {text}");
    }
    fn finish(&self) {}
}

/// A [`Progress`] that only prints notes.
pub struct Quiet;
impl Progress for Quiet {}

/// How a plan ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub run_id: i64,
    pub status: RunStatus,
    /// Measurements stored as failed (a crash, a wrong answer, a library error).
    pub failed_cells: usize,
    /// `Schedule::Concurrent` only: the scaling of every cell and variant measured.
    pub scaling: Vec<ScalingRow>,
}

impl Outcome {
    /// The exit status a command reports: 130 interrupted, 1 some cell failed, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.status {
            RunStatus::Interrupted => 130,
            _ if self.failed_cells > 0 => 1,
            _ => 0,
        }
    }
}

/// How long a worker may take to answer one measuring request before it is called hung.
fn deadline(config: &MeasureConfig) -> Duration {
    Duration::from_secs_f64(120.0 + 3.0 * config.max_time_s)
}

/// Runs the plan, storing the run in `store`; see the crate comment.
pub fn execute(
    plan: &Plan,
    store: &mut dyn Store,
    meta: &RunMeta,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome> {
    match plan.schedule {
        Schedule::Interleaved { pin } => interleaved::run(plan, pin, store, meta, cancel, progress),
        Schedule::Concurrent { workers } => {
            concurrent::run(plan, workers, store, meta, cancel, progress)
        }
    }
}
