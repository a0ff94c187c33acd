//! When a cell of the interleaved schedule stops, and what its time budget pays for: the rules
//! of [`may_stop`], kept apart from the run loop so they can be read (and pinned by
//! `stopping_tests`) on their own.

use super::{Bouts, Tally};
use cryptospeed_model::{BoutDisturbance, CellSpec, MeasureConfig, Measurement, Sample, Status};
use cryptospeed_stats::host::counted_time_share;

/// No cell takes more bouts than this, however noisy.
pub(super) const MAX_BOUTS: u32 = 200;

/// A cell still imprecise when its own budget is spent may take time that precise cells left
/// unused (sequential allocation), until it has measured this many times its budget in wall
/// seconds (own budget and granted time together; checked before each granted round).
pub(super) const MAX_BUDGET_FACTOR: f64 = 4.0;

/// A cell's budget pays for the time of the samples that count toward its figure: the share of
/// its time the host took (a descheduled sample's time off the CPU, samples set aside, bouts
/// whose canary ran slow: `cryptospeed_stats::host::counted_time_share`) is given back, so a
/// busy hour leaves a cell about as much usable measuring as a quiet one. It is charged at least
/// this share of its time, so its own budget lasts it at most twice the budget in wall time.
/// Only the host's part is given back: a cell whose own calls vary (ML-DSA's rejection loop)
/// keeps every sample and is charged its whole time.
pub(super) const MIN_CHARGED_SHARE: f64 = 0.5;

/// The share of `spent_s` charged for these samples (see [`MIN_CHARGED_SHARE`]).
fn charged_share(samples: &[Sample], disturbances: &[BoutDisturbance]) -> f64 {
    counted_time_share(samples, disturbances).clamp(MIN_CHARGED_SHARE, 1.0)
}

/// Wall seconds a stored cell left unused (positive: a precise cell's leftover) or took from the
/// pool (negative: the wall time it measured after its own budget was charged), as [`may_stop`]
/// counts them (`run --resume`). The pool is kept in wall seconds.
pub(super) fn left_unused(m: &Measurement, budget_s: f64) -> f64 {
    match m.status {
        Status::Ok => (budget_s - m.elapsed_s).max(0.0),
        _ => {
            let own_wall_s = budget_s / charged_share(&m.samples, &m.disturbances);
            -(m.elapsed_s - own_wall_s).max(0.0)
        }
    }
}

impl Bouts {
    /// Seconds of this cell's budget spent so far (see [`MIN_CHARGED_SHARE`]): never less than
    /// charged before, so a later slow bout or a moving reference cannot hand time back.
    pub(super) fn charged_s(&self) -> f64 {
        let now = self.spent_s * charged_share(&self.samples, &self.disturbances);
        now.max(self.charged_peak_s)
    }

    /// Keeps what the cell has been charged so far, after each bout (see [`Bouts::charged_s`]).
    pub(super) fn settle_charge(&mut self) {
        self.charged_peak_s = self.charged_s();
    }

    /// Out of its own budget (charged) and of any round granted from the pool (wall).
    pub(super) fn out_of_time(&self, config: &MeasureConfig) -> bool {
        self.charged_s() >= config.max_time_s
            && self.spent_s >= self.granted_until_s
            && self.bouts >= 2
    }

    pub(super) fn precise(&self, cell: &CellSpec, config: &MeasureConfig) -> bool {
        self.bouts >= config.min_bouts.max(2) && self.summary(cell, config, "").status == Status::Ok
    }

    /// Wall seconds one bout of this cell has taken on average.
    pub(super) fn mean_bout_s(&self) -> f64 {
        self.spent_s / self.bouts.max(1) as f64
    }
}

/// Whether a cell stops, for all its variants at once: each variant's own interval is within the
/// precision target and so is every paired ratio against the first variant (what a comparison
/// of this run will test), or the time is spent. A cell that is out of its own time while still
/// imprecise takes another round's worth of wall time from the time precise cells left unused,
/// while there is any, until it would pass [`MAX_BUDGET_FACTOR`] times its budget in wall time;
/// a precise cell leaves the wall time it did not use there. Its own budget is counted as
/// charged ([`MIN_CHARGED_SHARE`]); the pool and the cap in wall seconds, so the pool never pays
/// for more time than was left unused.
pub(super) fn may_stop(
    row: &mut [Bouts],
    cell: &CellSpec,
    config: &MeasureConfig,
    tally: &mut Tally,
) -> bool {
    if row.iter().all(|b| b.done || b.bouts >= MAX_BOUTS) {
        return true;
    }
    if row_precise(row, cell, config) {
        tally.unused_s += row
            .iter()
            .map(|b| (config.max_time_s - b.spent_s).max(0.0))
            .sum::<f64>();
        return true;
    }
    let open = || row.iter().filter(|b| !b.done);
    if !open().all(|b| b.out_of_time(config)) {
        return false;
    }
    // Out of time and imprecise: one more round from the pool, if it holds one.
    let round_s: f64 = open().map(Bouts::mean_bout_s).sum();
    let capped =
        open().any(|b| b.spent_s + b.mean_bout_s() > MAX_BUDGET_FACTOR * config.max_time_s);
    if capped || tally.unused_s < round_s {
        return true;
    }
    tally.unused_s -= round_s;
    for b in row.iter_mut().filter(|b| !b.done) {
        b.granted_until_s = b.spent_s + b.mean_bout_s();
    }
    false
}

/// Whether every open variant of a cell is precise, and so is every paired ratio.
fn row_precise(row: &[Bouts], cell: &CellSpec, config: &MeasureConfig) -> bool {
    row.iter().all(|b| b.done || b.precise(cell, config)) && paired_precise(row, config)
}

/// The round's stop decisions ([`may_stop`]) for the cells that took a bout in it (`visited`,
/// indices into `rows` and `cells`), made after every one of them has: the cells precise now
/// first, so the time they leave unused is in the pool before a cell out of its own time asks
/// for it. Deciding each cell right after its own bout made what an imprecise cell got depend
/// on where the rotating order put it: two runs of one command (2026-11-29 09:52 UTC) gave
/// ML-DSA-65 signing 2.01 s of measuring (±4.25%) when it came after the cells that then
/// stopped precise, and 0.51 s (±10.06%) when it came first in that round. The cells that stop,
/// in that order.
pub(super) fn round_stops(
    rows: &mut [Vec<Bouts>],
    cells: &[CellSpec],
    mut visited: Vec<usize>,
    config: &MeasureConfig,
    tally: &mut Tally,
) -> Vec<usize> {
    visited.sort_by_key(|&ci| !row_precise(&rows[ci], &cells[ci], config));
    visited
        .into_iter()
        .filter(|&ci| may_stop(&mut rows[ci], &cells[ci], config, tally))
        .collect()
}

/// Whether every variant's paired ratio against the first has a 95% interval within the
/// precision target (true with one variant, or when the first has no figures to pair with).
pub(super) fn paired_precise(row: &[Bouts], config: &MeasureConfig) -> bool {
    let Some(base) = row.first().map(Bouts::figures).filter(|f| f.len() >= 2) else {
        return true;
    };
    row[1..].iter().all(|b| {
        let figures = b.figures();
        if figures.is_empty() {
            return true;
        }
        cryptospeed_stats::paired_ratio(&base, &figures, 0.95)
            .is_some_and(|r| (r.ci.1 / r.ratio).ln() <= config.precision)
    })
}
