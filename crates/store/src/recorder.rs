//! Storing a run while it measures, so that a store failing mid-run costs nothing that was
//! measured. The measuring thread hands each measurement to a [`Recorder`] and goes on; a writer
//! thread owns the connection and writes in order, one transaction per measurement, so the store
//! always holds a prefix of the run. When a write fails for a transient reason (connection lost,
//! server restarting, lock held) the writer keeps a local spool (a SQLite file holding the whole
//! run under the same identity), reconnects with backoff, asks the store how much of the run it
//! holds and writes the rest: every measurement lands exactly once. A permanent failure (disk
//! full, authentication), or a store silent for longer than the retry window, ends the retrying;
//! the run still finishes, the caller still prints it (it holds the whole run in memory), and the
//! spool completes the store later with `cryptospeed sync --from SPOOL`.
//!
//! The writer also beats the run's heartbeat, so a run whose process dies reads as `abandoned`
//! (see `liveness.rs`) rather than `running` for ever.

use crate::writer::{Event, Writer};
use crate::RunStart;
use anyhow::{anyhow, Result};
use cryptospeed_model::{
    Measurement, RunConditions, RunInfo, RunRecord, RunStatus, Status, Variant, VariantMeasurement,
};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// How the writer behaves when the store fails, and how often it beats.
#[derive(Debug, Clone)]
pub struct RecorderOptions {
    /// How long a store that stopped answering is retried before the rest of the run is left in
    /// the spool.
    pub retry_window: Duration,
    /// How often the run's heartbeat is written.
    pub heartbeat: Duration,
    /// Where spools are kept (`run-UID.db`).
    pub spool_dir: PathBuf,
}

impl RecorderOptions {
    /// 60 s of retrying, a beat every 10 s.
    pub fn new(spool_dir: PathBuf) -> RecorderOptions {
        RecorderOptions {
            retry_window: Duration::from_secs(60),
            heartbeat: Duration::from_secs(10),
            spool_dir,
        }
    }

    /// The options a measuring command uses: `retry_s` seconds of retrying, spools in
    /// `$CRYPTOSPEED_SPOOL` (else `default_spool`), a beat every `$CRYPTOSPEED_HEARTBEAT_S`
    /// seconds (default 10). The error is written for the user.
    pub fn from_env(retry_s: f64, default_spool: PathBuf) -> Result<RecorderOptions, String> {
        if !(retry_s >= 0.0 && retry_s.is_finite()) {
            return Err("--store-retry must be a number of seconds ≥ 0".into());
        }
        let spool_dir = match std::env::var("CRYPTOSPEED_SPOOL") {
            Ok(d) if !d.is_empty() => PathBuf::from(d),
            _ => default_spool,
        };
        let mut options = RecorderOptions::new(spool_dir);
        options.retry_window = Duration::from_secs_f64(retry_s);
        if let Ok(text) = std::env::var("CRYPTOSPEED_HEARTBEAT_S") {
            let seconds: f64 = text
                .parse()
                .ok()
                .filter(|s: &f64| *s > 0.0 && s.is_finite())
                .ok_or_else(|| {
                    format!("CRYPTOSPEED_HEARTBEAT_S must be a positive number of seconds, not '{text}'")
                })?;
            options.heartbeat = Duration::from_secs_f64(seconds);
        }
        Ok(options)
    }
}

/// What became of a run's measurements in the store.
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// Every measurement, the conditions and the final status are in the store.
    Stored,
    /// The store holds the first `stored` of `total` measurements; the whole run is in `spool`
    /// (`None`: the spool could not be written either, and the run exists only as printed).
    Incomplete {
        stored: usize,
        total: usize,
        spool: Option<PathBuf>,
        error: String,
    },
}

/// The measuring side of a run being stored; see the module comment.
pub struct Recorder {
    record: RunRecord,
    events: Sender<Event>,
    notes: Receiver<String>,
    writer: Option<JoinHandle<Storage>>,
}

impl Recorder {
    /// Opens the store at `location` and begins the run there (an error here means nothing was
    /// measured and nothing is lost), linking it to a sweep shard when `shard` names one.
    pub fn begin(
        location: &str,
        start: RunStart,
        options: RecorderOptions,
        shard: Option<(String, usize)>,
    ) -> Result<Recorder> {
        let (events, inbox) = channel();
        let (note_tx, notes) = channel();
        let (begun_tx, begun) = channel();
        let (location, begin) = (location.to_string(), start.clone());
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || {
                let writer = match Writer::begin(&location, begin, options, shard, note_tx) {
                    Ok(w) => w,
                    Err(e) => {
                        let _ = begun_tx.send(Err(e));
                        return Storage::Stored;
                    }
                };
                let _ = begun_tx.send(Ok(writer.run_id));
                writer.serve(inbox)
            })?;
        let run_id = begun
            .recv()
            .map_err(|_| anyhow!("the store writer stopped before the run began"))??;
        Ok(Recorder {
            record: record_of(run_id, start),
            events,
            notes,
            writer: Some(writer),
        })
    }

    pub fn run_id(&self) -> i64 {
        self.record.run.id
    }

    /// The index of a variant of the run, recording it on first sight.
    pub fn variant(&mut self, variant: &Variant) -> usize {
        if let Some(i) = self.record.variants.iter().position(|v| v == variant) {
            return i;
        }
        self.record.variants.push(variant.clone());
        let _ = self.events.send(Event::Variant(Box::new(variant.clone())));
        self.record.variants.len() - 1
    }

    /// Records a finished measurement of the variant with index `variant` (in place of the
    /// cell's partial state, if any); never blocks on the store.
    pub fn add(&mut self, variant: usize, measurement: Measurement) {
        self.drop_partial(variant, &measurement);
        let v = &self.record.variants[variant];
        self.record.measurements.push(VariantMeasurement {
            variant: v.label.clone(),
            implementation: v.implementation.clone(),
            measurement: measurement.clone(),
            definition: None,
        });
        let _ = self
            .events
            .send(Event::Measurement(variant, Box::new(measurement)));
    }

    /// Records a cell's bouts so far (status partial), in place of its earlier partial state;
    /// never blocks on the store.
    pub fn partial(&mut self, variant: usize, measurement: Measurement) {
        self.drop_partial(variant, &measurement);
        let v = &self.record.variants[variant];
        self.record.measurements.push(VariantMeasurement {
            variant: v.label.clone(),
            implementation: v.implementation.clone(),
            measurement: measurement.clone(),
            definition: None,
        });
        let _ = self
            .events
            .send(Event::Partial(variant, Box::new(measurement)));
    }

    /// Takes a run's stored measurements in (`run --resume`), so the run printed at the end is
    /// the whole run, and a spool, should the store fail, holds it all; the store is not written.
    pub fn carry(&mut self, earlier: Vec<VariantMeasurement>) {
        let labels: Vec<&str> = self
            .record
            .variants
            .iter()
            .map(|v| v.label.as_str())
            .collect();
        let known: Vec<(usize, Measurement)> = earlier
            .iter()
            .filter_map(|vm| {
                let v = labels.iter().position(|l| *l == vm.variant)?;
                Some((v, vm.measurement.clone()))
            })
            .collect();
        let _ = self.events.send(Event::Carried(known));
        self.record.measurements.extend(earlier);
    }

    /// Removes the cell's partial state from the record.
    fn drop_partial(&mut self, variant: usize, m: &Measurement) {
        let label = &self.record.variants[variant].label;
        self.record.measurements.retain(|vm| {
            !(vm.measurement.status == Status::Partial
                && vm.variant == *label
                && vm.measurement.cell == m.cell)
        });
    }

    /// What the writer wants the user to read since the last call (the store failed, came back).
    pub fn notes(&self) -> Vec<String> {
        self.notes.try_iter().collect()
    }

    /// Ends the run: stores its conditions and status, waiting (at most the rest of the retry
    /// window) for a store that is away. Returns the whole run, as measured, and what the store
    /// got of it.
    pub fn finish(
        mut self,
        status: RunStatus,
        conditions: Option<RunConditions>,
    ) -> (RunRecord, Storage, Vec<String>) {
        self.record.run.status = status;
        self.record.run.conditions = conditions.clone();
        self.record.run.finished_at = Some(crate::sql::now());
        let _ = self.events.send(Event::Finish(status, conditions));
        let storage = self
            .writer
            .take()
            .and_then(|w| w.join().ok())
            .unwrap_or_else(|| Storage::Incomplete {
                stored: 0,
                total: self.record.measurements.len(),
                spool: None,
                error: "the store writer crashed".into(),
            });
        let notes = self.notes();
        (self.record.clone(), storage, notes)
    }
}

/// A run dropped without `finish` (the caller failed) is ended as failed, keeping what it has.
impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(writer) = self.writer.take() {
            let _ = self.events.send(Event::Finish(RunStatus::Failed, None));
            let _ = writer.join();
        }
    }
}

fn record_of(run_id: i64, start: RunStart) -> RunRecord {
    RunRecord {
        run: RunInfo {
            id: run_id,
            label: start.label,
            started_at: crate::sql::now(),
            finished_at: None,
            command: start.command,
            tool_version: start.tool_version,
            status: RunStatus::Running,
            config: start.config,
            imported: None,
            uid: Some(start.uid),
            conditions: None,
        },
        machine: start.machine,
        variants: Vec::new(),
        measurements: Vec::new(),
    }
}
