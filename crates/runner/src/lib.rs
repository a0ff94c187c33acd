//! The one run loop. Every command that measures (`run`, `run --multi`, sweep shards) hands a
//! [`Plan`] (cells × variants on a [`Schedule`]) to [`execute`], which starts the workers, stores
//! the run as it goes (begin, each measurement as it completes, finish) through a
//! [`Recorder`](cryptospeed_store::Recorder) that keeps measuring when the store fails, restarts
//! a worker that dies, honours Ctrl-C and deadlines, and returns the [`Outcome`] with the whole
//! run as measured; the caller only renders it and maps it to an exit code.

mod choice;
mod concurrent;
pub mod gate;
mod interleaved;
pub mod profile;
pub mod quiet_canary;
pub mod remeasure;
mod request;
mod resume;
pub mod variant;
pub mod verify;
pub mod verify_text;

pub use choice::{all_implementations, variant_of, BuiltVariant, ImplChoice, Layout};
pub use concurrent::{allowed_cpus, cpus_for, scaling, scaling_table, Scaling, ScalingRow};
pub use request::RunRequest;
pub use resume::{argv_of, ResumeFrom};

use anyhow::Result;
use cryptospeed_model::{CellSpec, MeasureConfig, RunRecord, RunStatus};
use cryptospeed_store::{Recorder, RecorderOptions, RunStart, Storage};
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

/// How and where the run is recorded.
#[derive(Debug, Clone)]
pub struct RunMeta {
    /// The store: a SQLite file or a postgres:// URL.
    pub store: String,
    pub label: Option<String>,
    /// The command line as stored (passwords already redacted).
    pub command: String,
    pub tool_version: String,
    /// Retry window, heartbeat, spool directory.
    pub recording: RecorderOptions,
    /// The sweep shard (sweep name, shard) this run measures, linked to it as it begins.
    pub shard: Option<(String, usize)>,
    /// `run --resume`: the stored run this one continues (the interleaved schedule only).
    pub resume: Option<ResumeFrom>,
}

impl RunMeta {
    /// Stores the run as begun on this machine (probed now) with `config`; it cannot be resumed.
    fn begin(&self, config: &MeasureConfig) -> Result<Recorder> {
        let machine = cryptospeed_engine::machine::probe();
        self.begin_on(machine, config, None)
    }

    /// Stores the run as begun, with its resume key; or, resuming, checks the key against the
    /// stored one (refusing with the reason, the store unchanged) and reopens the stored run.
    /// Returns the machine as probed too.
    fn begin_resumable(
        &self,
        plan: &Plan,
        variants: &[cryptospeed_model::Variant],
    ) -> Result<(Recorder, cryptospeed_model::Machine)> {
        let machine = cryptospeed_engine::machine::probe();
        let key = resume::key(&machine, variants, plan, &self.tool_version);
        if let Some(from) = &self.resume {
            resume::check(from, &key)?;
        }
        let recorder = self.begin_on(machine.clone(), &plan.config, Some(key))?;
        Ok((recorder, machine))
    }

    fn begin_on(
        &self,
        machine: cryptospeed_model::Machine,
        config: &MeasureConfig,
        resume_key: Option<String>,
    ) -> Result<Recorder> {
        let mut start = RunStart {
            heartbeat_s: Some(self.recording.heartbeat.as_secs_f64()),
            resume_key,
            ..RunStart::new(
                machine,
                self.label.as_deref(),
                &self.command,
                &self.tool_version,
                config.clone(),
            )
        };
        if let Some(uid) = self.resume.as_ref().and_then(|r| r.record.run.uid.clone()) {
            start.uid = uid;
            start.resume = true;
        }
        Recorder::begin(
            &self.store,
            start,
            self.recording.clone(),
            self.shard.clone(),
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
    /// The whole run as measured, whatever the store got of it: what the caller prints.
    pub record: RunRecord,
    /// Whether the store holds all of it.
    pub storage: Storage,
    /// Measurements stored as failed (a crash, a wrong answer, a library error).
    pub failed_cells: usize,
    /// `Schedule::Concurrent` only: the scaling of every cell and variant measured.
    pub scaling: Vec<ScalingRow>,
}

impl Outcome {
    /// The exit status a command reports: 130 interrupted (the front end reports 143 when the
    /// interruption was a SIGTERM), 3 measured but not all stored (see the spool), 1 some cell
    /// failed, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.status {
            RunStatus::Interrupted => 130,
            _ if self.storage != Storage::Stored => 3,
            _ if self.failed_cells > 0 => 1,
            _ => 0,
        }
    }
}

/// How long a worker may take to answer one measuring request before it is called hung.
fn deadline(config: &MeasureConfig) -> Duration {
    Duration::from_secs_f64(120.0 + 3.0 * config.max_time_s)
}

/// Runs the plan, storing the run where `meta` says; see the crate comment.
pub fn execute(
    plan: &Plan,
    meta: &RunMeta,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome> {
    match plan.schedule {
        Schedule::Interleaved { pin } => interleaved::run(plan, pin, meta, cancel, progress),
        Schedule::Concurrent { .. } if meta.resume.is_some() => {
            anyhow::bail!("a --multi run cannot be resumed: each of its cells runs whole")
        }
        Schedule::Concurrent { workers } => concurrent::run(plan, workers, meta, cancel, progress),
    }
}

/// Passes on what the recorder wants said (the store went away, came back).
fn relay(recorder: &Recorder, progress: &dyn Progress) {
    for note in recorder.notes() {
        progress.note(&note);
    }
}

/// Ends the run in the recorder and builds the outcome.
fn conclude(
    recorder: Recorder,
    status: RunStatus,
    conditions: Option<cryptospeed_model::RunConditions>,
    failed_cells: usize,
    scaling: Vec<ScalingRow>,
    progress: &dyn Progress,
) -> Outcome {
    let run_id = recorder.run_id();
    let (record, storage, notes) = recorder.finish(status, conditions);
    for note in notes {
        progress.note(&note);
    }
    Outcome {
        run_id,
        status,
        record,
        storage,
        failed_cells,
        scaling,
    }
}
