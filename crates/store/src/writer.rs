//! The writer thread behind a [`Recorder`](crate::Recorder): owns the store connection, writes
//! the run in order, retries a store that went away, keeps the spool, beats the heartbeat. The
//! measuring thread never waits for it, except when the run ends.
//!
//! Finished measurements are written in order (the store holds a prefix of them); a partial
//! cell's latest state replaces its earlier one, so only the newest per cell waits to be written,
//! and a cell that finishes drops it.

use crate::{fault_of, Fault, RecorderOptions, RunStart, SqliteStore, Storage, Store};
use anyhow::Result;
use cryptospeed_model::{Measurement, RunConditions, RunStatus, Variant};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// What the measuring thread sends.
pub(crate) enum Event {
    Variant(Box<Variant>),
    Measurement(usize, Box<Measurement>),
    /// A cell's bouts so far (status partial), replacing its earlier partial state.
    Partial(usize, Box<Measurement>),
    /// A resumed run's stored measurements: the store has them; a spool needs them first.
    Carried(Vec<(usize, Measurement)>),
    Finish(RunStatus, Option<RunConditions>),
}

/// A store that stopped answering: since when, and when to try again.
struct Trouble {
    since: Instant,
    next: Instant,
    delay: Duration,
}

/// The local copy of the whole run, kept from the first failure on.
struct Spool {
    path: PathBuf,
    store: SqliteStore,
    run_id: i64,
    variant_ids: Vec<i64>,
    /// Whether the resumed run's earlier measurements are in it.
    carried: bool,
    written: usize,
    ended: bool,
}

/// A partial cell's newest state, and whether the store and the spool have it.
struct Partial {
    variant: usize,
    measurement: Measurement,
    in_store: bool,
    in_spool: bool,
}

/// The run's end, as the measuring thread reported it.
type End = (RunStatus, Option<RunConditions>);

pub(crate) struct Writer {
    location: String,
    options: RecorderOptions,
    start: RunStart,
    store: Option<Box<dyn Store>>,
    pub(crate) run_id: i64,
    variants: Vec<Variant>,
    variant_ids: Vec<i64>,
    measurements: Vec<(usize, Measurement)>,
    /// How many of `measurements` the store holds (always a prefix).
    stored: usize,
    /// Finished measurements the store held before this process (a resumed run).
    base: usize,
    /// A resumed run's measurements from before (see [`Event::Carried`]).
    carried: Vec<(usize, Measurement)>,
    partials: Vec<Partial>,
    end: Option<End>,
    ended: bool,
    spool: Option<Spool>,
    spool_failed: bool,
    trouble: Option<Trouble>,
    gave_up: Option<String>,
    last_error: String,
    last_beat: Instant,
    notes: Sender<String>,
}

impl Writer {
    /// Opens the store and begins the run; errors are the caller's (nothing measured yet).
    pub(crate) fn begin(
        location: &str,
        start: RunStart,
        options: RecorderOptions,
        shard: Option<(String, usize)>,
        notes: Sender<String>,
    ) -> Result<Writer> {
        let mut store = crate::open(location)?;
        let run_id = store.begin_run(&start)?;
        let base = match start.resume {
            true => {
                store.reopen_run(run_id, &start)?;
                store.measurement_count(run_id)?
            }
            false => 0,
        };
        if let Some((sweep, k)) = &shard {
            store.link_shard(sweep, *k, run_id)?;
        }
        Ok(Writer {
            location: location.to_string(),
            options,
            start,
            store: Some(store),
            run_id,
            variants: Vec::new(),
            variant_ids: Vec::new(),
            measurements: Vec::new(),
            stored: 0,
            base,
            carried: Vec::new(),
            partials: Vec::new(),
            end: None,
            ended: false,
            spool: None,
            spool_failed: false,
            trouble: None,
            gave_up: None,
            last_error: String::new(),
            last_beat: Instant::now(),
            notes,
        })
    }

    fn note(&self, text: String) {
        let _ = self.notes.send(text);
    }

    /// Takes events until the run ends, writing as they come; then drains.
    pub(crate) fn serve(mut self, inbox: Receiver<Event>) -> Storage {
        loop {
            match inbox.recv_timeout(self.wait()) {
                Ok(Event::Variant(v)) => self.variants.push(*v),
                Ok(Event::Measurement(v, m)) => {
                    self.partials.retain(|p| !same_cell(p, v, &m));
                    self.measurements.push((v, *m));
                }
                Ok(Event::Partial(v, m)) => self.partial(v, *m),
                Ok(Event::Carried(earlier)) => {
                    self.carried = earlier;
                    if let Some(spool) = &mut self.spool {
                        spool.carried = false;
                    }
                }
                Ok(Event::Finish(status, conditions)) => {
                    self.end = Some((status, conditions));
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.end = Some((RunStatus::Failed, None));
                    break;
                }
            }
            self.flush();
            self.beat();
        }
        self.drain()
    }

    /// How long to wait for the next event before a beat or a retry is due.
    fn wait(&self) -> Duration {
        let now = Instant::now();
        let beat = (self.last_beat + self.options.heartbeat).saturating_duration_since(now);
        let retry = match (&self.trouble, &self.gave_up) {
            (Some(t), None) => t.next.saturating_duration_since(now),
            _ => beat,
        };
        beat.min(retry).max(Duration::from_millis(10))
    }

    /// A cell's newest partial state, in place of its earlier one.
    fn partial(&mut self, variant: usize, measurement: Measurement) {
        let new = Partial {
            variant,
            measurement,
            in_store: false,
            in_spool: false,
        };
        match self
            .partials
            .iter_mut()
            .find(|p| same_cell(p, variant, &new.measurement))
        {
            Some(p) => *p = new,
            None => self.partials.push(new),
        }
    }

    fn all_stored(&self) -> bool {
        self.stored == self.measurements.len()
            && self.ended
            && self.partials.iter().all(|p| p.in_store)
    }

    /// Writes what the store lacks, unless it is given up or a retry is not yet due; keeps the
    /// spool up to date once there is one.
    fn flush(&mut self) {
        let due = self
            .trouble
            .as_ref()
            .is_none_or(|t| Instant::now() >= t.next);
        if self.gave_up.is_none() && due {
            let before = self.stored;
            match self.write_store() {
                Ok(()) => {
                    if let Some(t) = self.trouble.take() {
                        self.note(format!(
                            "the store answers again after {:.1} s; {} measurement(s) written to it since",
                            t.since.elapsed().as_secs_f64(),
                            self.stored - before
                        ));
                    }
                }
                Err(e) => self.failed(e),
            }
        }
        self.write_spool();
    }

    /// Brings the store up to date: reconnects if needed (asking how much of the run it holds,
    /// since a commit whose reply was lost did happen), then variants, measurements, the end.
    fn write_store(&mut self) -> Result<()> {
        if self.store.is_none() {
            let store = crate::open(&self.location)?;
            self.stored = store.measurement_count(self.run_id)? - self.base;
            self.store = Some(store);
        }
        let store = self.store.as_mut().expect("connected above");
        while self.variant_ids.len() < self.variants.len() {
            let id = store.variant_id(&self.variants[self.variant_ids.len()])?;
            self.variant_ids.push(id);
        }
        while self.stored < self.measurements.len() {
            let (v, m) = &self.measurements[self.stored];
            store.add_measurement(self.run_id, self.variant_ids[*v], m)?;
            self.stored += 1;
        }
        for p in self.partials.iter_mut().filter(|p| !p.in_store) {
            store.add_measurement(self.run_id, self.variant_ids[p.variant], &p.measurement)?;
            p.in_store = true;
        }
        if let (Some((status, conditions)), false) = (&self.end, self.ended) {
            if let Some(c) = conditions {
                store.record_conditions(self.run_id, c)?;
            }
            store.finish_run(self.run_id, *status)?;
            self.ended = true;
        }
        Ok(())
    }

    /// A store operation failed: retry later (transient, within the window) or give up.
    fn failed(&mut self, e: anyhow::Error) {
        self.store = None;
        self.last_error = format!("{e:#}");
        let now = Instant::now();
        let window = self.options.retry_window;
        if fault_of(&e) == Fault::Permanent {
            self.give_up(format!("storing failed: {}", self.last_error));
            return;
        }
        match &mut self.trouble {
            None => {
                let delay = Duration::from_millis(250);
                self.trouble = Some(Trouble {
                    since: now,
                    next: now + delay,
                    delay,
                });
                self.open_spool();
                self.note(format!(
                    "the store stopped answering ({}); measuring goes on, retrying for up to {} s; {}",
                    self.last_error,
                    window.as_secs(),
                    self.kept_where()
                ));
            }
            Some(t) => {
                t.delay = (t.delay * 2).min(Duration::from_secs(5));
                t.next = now + t.delay;
                if t.since.elapsed() > window {
                    let text = format!(
                        "the store did not answer for {} s ({})",
                        t.since.elapsed().as_secs(),
                        self.last_error
                    );
                    self.give_up(text);
                }
            }
        }
    }

    fn give_up(&mut self, why: String) {
        self.open_spool();
        self.note(format!(
            "{why}; measuring goes on without it; {}",
            self.kept_where()
        ));
        self.gave_up = Some(why);
    }

    fn kept_where(&self) -> String {
        match &self.spool {
            Some(s) => format!("the run is kept in the spool {}", s.path.display()),
            None => "the run is kept in memory only (printed at the end)".into(),
        }
    }

    fn spool_path(&self) -> PathBuf {
        self.options
            .spool_dir
            .join(format!("run-{}.db", self.start.uid))
    }

    /// Starts the spool: the whole run so far under the same identity.
    fn open_spool(&mut self) {
        if self.spool.is_some() || self.spool_failed {
            return;
        }
        let path = self.spool_path();
        let opened = (|| -> Result<Spool> {
            std::fs::create_dir_all(&self.options.spool_dir)?;
            let mut store = SqliteStore::open(&path)?;
            // The spool is read after this process is gone: judged by its end, not by beats.
            let start = RunStart {
                heartbeat_s: None,
                resume: false,
                ..self.start.clone()
            };
            let run_id = store.begin_run(&start)?;
            Ok(Spool {
                path: path.clone(),
                store,
                run_id,
                variant_ids: Vec::new(),
                carried: false,
                written: 0,
                ended: false,
            })
        })();
        match opened {
            Ok(spool) => self.spool = Some(spool),
            Err(e) => {
                self.spool_failed = true;
                self.note(format!("cannot keep a spool at {}: {e:#}", path.display()));
            }
        }
        self.write_spool();
    }

    fn write_spool(&mut self) {
        let Some(spool) = &mut self.spool else {
            return;
        };
        let result = (|| -> Result<()> {
            while spool.variant_ids.len() < self.variants.len() {
                let v = &self.variants[spool.variant_ids.len()];
                spool.variant_ids.push(spool.store.variant_id(v)?);
            }
            if !spool.carried {
                for (v, m) in &self.carried {
                    let id = spool.variant_ids[*v];
                    spool.store.add_measurement(spool.run_id, id, m)?;
                }
                spool.carried = true;
            }
            while spool.written < self.measurements.len() {
                let (v, m) = &self.measurements[spool.written];
                spool
                    .store
                    .add_measurement(spool.run_id, spool.variant_ids[*v], m)?;
                spool.written += 1;
            }
            for p in self.partials.iter_mut().filter(|p| !p.in_spool) {
                let v = spool.variant_ids[p.variant];
                spool
                    .store
                    .add_measurement(spool.run_id, v, &p.measurement)?;
                p.in_spool = true;
            }
            if let (Some((status, conditions)), false) = (&self.end, spool.ended) {
                if let Some(c) = conditions {
                    spool.store.record_conditions(spool.run_id, c)?;
                }
                spool.store.finish_run(spool.run_id, *status)?;
                spool.ended = true;
            }
            Ok(())
        })();
        if let Err(e) = result {
            let path = spool.path.clone();
            self.spool = None;
            self.spool_failed = true;
            self.note(format!(
                "the spool {} failed too ({e:#}); the rest of the run is kept in memory only",
                path.display()
            ));
        }
    }

    fn beat(&mut self) {
        if self.last_beat.elapsed() < self.options.heartbeat {
            return;
        }
        self.last_beat = Instant::now();
        if self.trouble.is_some() || self.gave_up.is_some() {
            return;
        }
        let result = match self.store.as_mut() {
            Some(store) => store.heartbeat(self.run_id),
            None => return,
        };
        if let Err(e) = result {
            self.failed(e);
        }
    }

    /// After the run's end: writes the rest, waiting for a store that is away until the retry
    /// window closes; then removes the spool if the store has everything.
    fn drain(mut self) -> Storage {
        let mut said = false;
        loop {
            self.flush();
            if self.all_stored() || self.gave_up.is_some() {
                break;
            }
            let Some(t) = &self.trouble else { break };
            if !said {
                let left = self.options.retry_window.saturating_sub(t.since.elapsed());
                self.note(format!(
                    "measuring is done; waiting up to {} s more for the store",
                    left.as_secs()
                ));
                said = true;
            }
            std::thread::sleep(t.next.saturating_duration_since(Instant::now()));
        }
        if self.all_stored() {
            if let Some(spool) = self.spool.take() {
                let path = spool.path.clone();
                drop(spool);
                remove_sqlite_file(&path);
                self.note(format!(
                    "every measurement reached the store; the spool {} was removed",
                    path.display()
                ));
            }
            return Storage::Stored;
        }
        self.mark_interrupted();
        Storage::Incomplete {
            stored: self.stored,
            total: self.measurements.len(),
            spool: self.spool.as_ref().map(|s| s.path.clone()),
            error: self.gave_up.clone().unwrap_or(self.last_error.clone()),
        }
    }

    /// The store missed the end of the run: if it answers at all (a full disk still takes a
    /// small update now and then), say the run stopped there, so it does not read as running.
    fn mark_interrupted(&mut self) {
        if let Ok(mut store) = crate::open(&self.location) {
            let _ = store.finish_run(self.run_id, RunStatus::Interrupted);
        }
    }
}

/// Whether a partial state is of the same cell of the same variant as `m`.
fn same_cell(p: &Partial, variant: usize, m: &Measurement) -> bool {
    p.variant == variant && p.measurement.cell == m.cell
}

/// Removes a SQLite file with its WAL and shared-memory files.
fn remove_sqlite_file(path: &std::path::Path) {
    let _ = std::fs::remove_file(path);
    for suffix in ["-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}
