//! The machine's quiet canary reference: what the canary (the fixed loop the Rust worker times
//! before and after every bout) takes on this machine when the host leaves it alone. A slowdown
//! that every bout of a run shares (the core's other hardware thread kept busy by compilers for
//! minutes) moves the run's own canary readings with it, so only a reference from outside the
//! run shows it. The run stamps the reference on every bout record (`canary_quiet_ns`), where
//! `cryptospeed_stats::host` divides such a shift out, and adds its own median reading to the
//! machine's history when it ends.
//!
//! **Learnt**: the reference is the lowest of the stored runs' medians (the slower of a bout's
//! two readings, over every bout of the run with a canary) from the last [`KEEP_DAYS`] days. A
//! host only ever slows the canary: on the development VM quiet runs' medians agreed within
//! 0.07% over two days (56183–56223 ns), busy ones sat 1.8–3.4% above. A machine's first run
//! has no reference and corrects nothing; until a quiet run has been seen the reference is too
//! high and corrects too little, never too much.
//! **Stale**: a run older than [`KEEP_DAYS`] days is forgotten (a VM moved to other hardware
//! under the same name); a faster run lowers the reference at once. Another machine, kernel or
//! build profile (a debug build's canary is slower) keeps its own file, `canary/KEY.json` in the
//! cache beside the variants (`$CRYPTOSPEED_CACHE`, else the user's cache directory).
//! `CRYPTOSPEED_QUIET_CANARY=off` leaves the file alone and corrects nothing.

use cryptospeed_model::{BoutDisturbance, Machine, RunRecord};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// Runs older than this many days do not count toward the reference.
pub const KEEP_DAYS: u64 = 14;
/// A run with fewer bouts with a canary than this is not learnt from (its median is rough).
pub const MIN_BOUTS: usize = 20;
/// The most runs a history keeps: enough that a day of many runs (`scripts/bench-noisy` stores
/// four a command) does not push the quiet ones out before they are stale.
const KEEP_RUNS: usize = 2000;

/// One machine's learnt runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The machine's fingerprint and build profile, as the file's name hashes them.
    pub machine: String,
    pub runs: Vec<Learnt>,
}

/// What one run's canary read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Learnt {
    /// Unix seconds at the end of the run.
    pub at: u64,
    /// The median over its bouts of the slower of the two readings, nanoseconds.
    pub median_ns: u64,
    pub bouts: usize,
    /// The run's fastest state ([`run_floor`]), nanoseconds; 0 in runs learnt before it was kept.
    #[serde(default)]
    pub floor_ns: u64,
}

impl History {
    /// The reference at `now` (unix seconds): the lowest median of the runs of the last
    /// [`KEEP_DAYS`] days; `None` without one.
    pub fn reference(&self, now: u64) -> Option<u64> {
        self.runs
            .iter()
            .filter(|r| now.saturating_sub(r.at) <= KEEP_DAYS * 86_400 && r.bouts >= MIN_BOUTS)
            .map(|r| r.median_ns)
            .min()
    }

    /// The machine's canary floor at `now`: the lowest [`run_floor`] of the runs of the last
    /// [`KEEP_DAYS`] days; `None` without one.
    pub fn floor(&self, now: u64) -> Option<u64> {
        self.runs
            .iter()
            .filter(|r| now.saturating_sub(r.at) <= KEEP_DAYS * 86_400 && r.bouts >= MIN_BOUTS)
            .map(|r| r.floor_ns)
            .filter(|f| *f > 0)
            .min()
    }

    /// Adds a run (one with too few bouts is not learnt from), forgetting stale and surplus ones.
    pub fn learn(&mut self, run: Learnt) {
        if run.bouts < MIN_BOUTS {
            return;
        }
        self.runs
            .retain(|r| run.at.saturating_sub(r.at) <= KEEP_DAYS * 86_400);
        self.runs.push(run);
        let surplus = self.runs.len().saturating_sub(KEEP_RUNS);
        self.runs.drain(..surplus);
    }
}

/// The slower of each bout's two canary readings, over the bouts that have a canary, sorted.
fn sorted_slower<'a>(bouts: impl Iterator<Item = &'a BoutDisturbance>) -> Vec<u64> {
    use cryptospeed_stats::canary_floor::{has_canary, slower};
    let mut readings: Vec<u64> = bouts.filter(|d| has_canary(d)).map(slower).collect();
    readings.sort_unstable();
    readings
}

/// The median of the slower of each bout's two canary readings, over the bouts that have a
/// canary, and how many they are.
pub fn run_median<'a>(bouts: impl Iterator<Item = &'a BoutDisturbance>) -> Option<(u64, usize)> {
    let slower = sorted_slower(bouts);
    match slower.len() {
        0 => None,
        n => Some((slower[(n - 1) / 2], n)),
    }
}

/// The fastest state a run's canary ran at: the 2nd percentile of its bouts' slower readings,
/// and no lower than the third fastest, so that one or two odd bouts are not a state
/// (`cryptospeed_stats::canary_floor`). On the two-state VM of 2026-11-29 the runs' floors lay
/// at 65.1–67.1 µs at four hours, except one run that never reached the fast state (74.8 µs).
pub fn run_floor<'a>(bouts: impl Iterator<Item = &'a BoutDisturbance>) -> Option<u64> {
    let slower = sorted_slower(bouts);
    let n = slower.len();
    (n >= MIN_BOUTS).then(|| slower[((n - 1) * 2 / 100).max(2)])
}

/// What the run stamps on each bout's record: the machine's quiet reference and canary floor
/// (0 for none).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stamps {
    pub quiet_ns: u64,
    pub floor_ns: u64,
}

impl Stamps {
    /// The bout's record with the stamps, where the worker timed a canary around it.
    pub fn on(&self, d: BoutDisturbance) -> BoutDisturbance {
        let timed = cryptospeed_stats::canary_floor::has_canary(&d);
        BoutDisturbance {
            canary_quiet_ns: if timed { self.quiet_ns } else { 0 },
            canary_floor_ns: if timed { self.floor_ns } else { 0 },
            ..d
        }
    }
}

/// Where one machine's history is kept; `None` when switched off.
pub struct Keeper {
    path: PathBuf,
    machine: String,
}

impl Keeper {
    pub fn for_machine(machine: &Machine) -> Option<Keeper> {
        if std::env::var("CRYPTOSPEED_QUIET_CANARY").is_ok_and(|v| v == "off") {
            return None;
        }
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        let key = format!("{}|{profile}", machine.fingerprint());
        let file = format!(
            "{}.json",
            &hex::encode(Sha256::digest(key.as_bytes()))[..16]
        );
        let root = cryptospeed_variants::cache::Cache::open(None)
            .root()
            .to_path_buf();
        Some(Keeper {
            path: root.join("canary").join(file),
            machine: key,
        })
    }

    /// The reference and floor now (nanoseconds), 0 where the history has none.
    pub fn stamps(&self) -> Stamps {
        let history = self.load();
        Stamps {
            quiet_ns: history.reference(now()).unwrap_or(0),
            floor_ns: history.floor(now()).unwrap_or(0),
        }
    }

    /// The stored history; an empty one when there is none or it cannot be read.
    pub fn load(&self) -> History {
        std::fs::read(&self.path)
            .ok()
            .and_then(|b| serde_json::from_slice::<History>(&b).ok())
            .filter(|h| h.machine == self.machine)
            .unwrap_or_else(|| History {
                machine: self.machine.clone(),
                runs: Vec::new(),
            })
    }

    /// Adds the run's median reading to the history (written whole, then renamed into place).
    pub fn learn_from(&self, record: &RunRecord) -> std::io::Result<()> {
        let disturbances = || {
            record
                .measurements
                .iter()
                .flat_map(|vm| vm.measurement.disturbances.iter())
        };
        let Some((median_ns, bouts)) = run_median(disturbances()) else {
            return Ok(());
        };
        let mut history = self.load();
        history.learn(Learnt {
            at: now(),
            median_ns,
            bouts,
            floor_ns: run_floor(disturbances()).unwrap_or(0),
        });
        let dir = self.path.parent().expect("a file in a folder");
        std::fs::create_dir_all(dir)?;
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(&history)?)?;
        std::fs::rename(&tmp, &self.path)
    }
}

/// Adds a complete run to the machine's history (see [`Keeper::learn_from`]), saying so when
/// the file cannot be written.
pub fn learn(keeper: Option<&Keeper>, outcome: &crate::Outcome, progress: &dyn crate::Progress) {
    let complete = outcome.status == cryptospeed_model::RunStatus::Complete;
    let Some(k) = keeper.filter(|_| complete) else {
        return;
    };
    if let Err(e) = k.learn_from(&outcome.record) {
        progress.note(&format!(
            "the machine's quiet canary history was not updated: {e}"
        ));
    }
}

/// Unix seconds now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(at: u64, median_ns: u64) -> Learnt {
        Learnt {
            at,
            median_ns,
            bouts: 200,
            floor_ns: 0,
        }
    }

    #[test]
    fn the_reference_is_the_quietest_recent_run_and_forgets_stale_ones() {
        // The development VM's run medians (2026-11-28/29): quiet 56193 and 56213 ns, busy 58126.
        let day = 86_400;
        let mut h = History::default();
        assert_eq!(h.reference(10 * day), None);
        h.learn(run(10 * day, 58_126));
        assert_eq!(h.reference(10 * day), Some(58_126));
        h.learn(run(11 * day, 56_213));
        h.learn(run(11 * day + 60, 56_193));
        h.learn(Learnt {
            bouts: MIN_BOUTS - 1,
            ..run(12 * day, 50_000)
        });
        assert_eq!(h.reference(12 * day), Some(56_193));
        // Past KEEP_DAYS the quiet runs are stale: only what is newer counts.
        h.learn(run(26 * day, 57_000));
        assert_eq!(h.reference(26 * day), Some(57_000));
        assert_eq!(h.runs.len(), 1);
        for i in 0..KEEP_RUNS as u64 + 5 {
            h.learn(run(26 * day + i, 57_000 + i));
        }
        assert_eq!(h.runs.len(), KEEP_RUNS);
        assert_eq!(h.reference(27 * day), Some(57_005));
    }

    #[test]
    fn a_runs_median_is_of_the_slower_reading_of_each_bout_with_a_canary() {
        let d = |before, after| BoutDisturbance {
            canary_ns: [before, after],
            ..Default::default()
        };
        let bouts = [
            d(56_073, 56_213),
            d(56_083, 56_163),
            d(71_767, 67_741),
            d(0, 0),
        ];
        assert_eq!(run_median(bouts.iter()), Some((56_213, 3)));
        assert_eq!(run_median([d(0, 0)].iter()), None);
    }

    #[test]
    fn the_floor_is_the_fastest_state_of_recent_runs_not_one_odd_bout() {
        let d = |slower: u64| BoutDisturbance {
            canary_ns: [slower - 100, slower],
            ..Default::default()
        };
        // 40 bouts as the two-state VM read them: five fast (65.5-66.3 us), the rest slow; one
        // odd bout far under both.
        let mut bouts: Vec<BoutDisturbance> = (0..40u64).map(|i| d(82_000 + 700 * i)).collect();
        for (i, ns) in [65_500, 65_900, 66_100, 66_300, 66_000]
            .into_iter()
            .enumerate()
        {
            bouts[i * 7] = d(ns);
        }
        bouts[3] = d(40_000);
        // The 2nd percentile of 40 is the fastest (the odd bout): the third fastest is kept.
        assert_eq!(run_floor(bouts.iter()), Some(65_900));
        assert_eq!(run_floor(bouts[..MIN_BOUTS - 1].iter()), None);
        // The machine's floor: the lowest of the recent runs', ignoring runs that kept none.
        let day = 86_400;
        let mut h = History::default();
        h.learn(run(10 * day, 88_000));
        assert_eq!(h.floor(10 * day), None);
        for (at, floor) in [(11, 74_820), (11, 65_473), (12, 66_956)] {
            h.learn(Learnt {
                floor_ns: floor,
                ..run(at * day, 88_000)
            });
        }
        assert_eq!(h.floor(12 * day), Some(65_473));
        assert_eq!(h.floor(26 * day), Some(66_956));
        // Stamped only where the worker timed a canary.
        let stamps = Stamps {
            quiet_ns: 82_135,
            floor_ns: 65_473,
        };
        assert_eq!(stamps.on(d(70_000)).canary_floor_ns, 65_473);
        assert_eq!(stamps.on(BoutDisturbance::default()).canary_floor_ns, 0);
    }
}
