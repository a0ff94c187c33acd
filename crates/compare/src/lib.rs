//! Comparison tables: the speedup and percent tables people publish, from any two or more sides
//! (a side is one run, one variant of a run, or several runs pooled), with a significance test
//! per cell and a geomean row.
//!
//! Pure computation over model types: the caller resolves selectors to runs; the comparison's
//! output formats live with every other format in cryptospeed-report (`compare::FORMATS`).

pub mod gate;
pub mod history;
pub mod pair_cells;
#[cfg(test)]
mod promises;
mod run_noise;

pub use run_noise::{
    between_run_variance, machine_noise, moderate, prior_only, run_noise, with_prior, RunCenter,
    RunNoise, PRIOR_DF, PRIOR_DRIFT_SD, PRIOR_RUNS,
};

use cryptospeed_model::{Op, RunRecord};
use cryptospeed_stats as stats;
use serde::Serialize;
use std::collections::BTreeMap;

/// A row of the comparison: one cell of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CellKey {
    /// Position in the catalog (unknown primitives sort last, by name).
    #[serde(skip)]
    pub order: usize,
    pub primitive: String,
    pub op: Op,
    pub bytes: Option<u64>,
}

impl CellKey {
    /// `md5`, `aes-128-cbc decrypt`, `rsa-2048 sign`: the primitive, and the operation where the
    /// primitive has more than one.
    pub fn label(&self) -> String {
        let single = cryptospeed_catalog::lookup(&self.primitive)
            .map(|p| p.ops().len() == 1 || (self.bytes.is_some() && p.default_ops() == [self.op]))
            .unwrap_or(self.bytes.is_some() && matches!(self.op, Op::Hash | Op::Mac | Op::Encrypt));
        if single {
            self.primitive.clone()
        } else {
            format!("{} {}", self.primitive, self.op)
        }
    }
}

/// One run's contribution to a side: its figure for a cell and the samples behind it.
#[derive(Debug, Clone)]
pub struct RunValue {
    pub run: i64,
    /// Rate in the cell's unit (bytes/s with a size, ops/s without).
    pub rate: f64,
    /// Nanoseconds per operation of every sample its thread ran through (as the bouts count
    /// them: a descheduled sample says nothing about the library); empty for imported or
    /// sample-less cells, or when every sample was disturbed.
    pub ns_per_op: Vec<f64>,
    /// (bout id, mean nanoseconds per operation) of every bout; one entry for measurements
    /// taken in one stretch (every run stored before bouts).
    pub bouts: Vec<(u32, f64)>,
    /// The same with no bout set aside for its canary ([`paired_bout_means`]): what a paired
    /// test pairs, round by round.
    pub paired: Vec<(u32, f64)>,
}

/// Time per operation of each sample with the host's part removed, the bouts the canary found
/// slowed left out as [`bout_means`] leaves them out: what the pooled-samples test sees, for runs
/// whose bouts are too few to compare (see `cryptospeed_stats::host`).
pub fn undisturbed_ns(m: &cryptospeed_model::Measurement, scale: f64) -> Vec<f64> {
    stats::without_slow_bouts(&m.samples, &m.disturbances)
        .iter()
        .filter_map(stats::host::corrected)
        .map(|s| s.ns_per_op() / scale)
        .collect()
}

/// Each bout's mean time per operation over its samples with the host's part removed, by bout
/// id, leaving out the bouts the canary found slowed (see `cryptospeed_stats::host`): a round
/// one arm of a pair lost pairs nothing.
pub fn bout_means(m: &cryptospeed_model::Measurement, scale: f64) -> Vec<(u32, f64)> {
    let kept = stats::without_slow_bouts(&m.samples, &m.disturbances);
    let mut figures = stats::bout_figures(&kept, |s| s.ns_per_op() / scale);
    figures.sort_by_key(|(id, _)| *id);
    figures
}

/// Each bout's mean time per operation over its samples with the host's part removed, by bout
/// id, **none** left out for its canary: what a paired test pairs. Both bouts of a pair ran in
/// the same round, one after the other on the same CPU, so a host state they share cancels in
/// their ratio, and leaving a round out because one arm's canary ran slow only loses pairs. On
/// a host that runs at two speeds (2026-11-29, the paired runs `scripts/bench-noisy` stored at
/// seven hours, compared again), pairing every bout found an injected 2% slowdown in 54 of 56
/// cells and called 3 of 56 A/A cells different; pairing only the bouts the canary kept found
/// it in 12 of 56, 3 of 56 A/A (docs/experiments/host-noise.md).
pub fn paired_bout_means(m: &cryptospeed_model::Measurement, scale: f64) -> Vec<(u32, f64)> {
    let mut figures = stats::bout_figures(&m.samples, |s| s.ns_per_op() / scale);
    figures.sort_by_key(|(id, _)| *id);
    figures
}

/// What one side holds, before comparison.
#[derive(Debug, Clone, Default)]
pub struct SideInput {
    /// Column heading (a label, `run 12`, a file name, `gcc/openssl-3.0.19`…).
    pub name: String,
    /// What the side is, for the header lines (runs, variants, files).
    pub description: String,
    pub runs: Vec<i64>,
    pub cells: BTreeMap<CellKey, Vec<RunValue>>,
}

impl SideInput {
    /// Adds the measurements of `variant` (or every variant when `None`) of a stored run.
    pub fn add_run(&mut self, record: &RunRecord, variant: Option<&str>) {
        self.add_run_scaled(record, variant, 1.0)
    }

    /// Like [`add_run`](Self::add_run) with every rate multiplied by `scale` (and every sample's
    /// time divided by it): `1e9 / tsc_hz` gives rates per GHz, comparable across clocks.
    pub fn add_run_scaled(&mut self, record: &RunRecord, variant: Option<&str>, scale: f64) {
        if !self.runs.contains(&record.run.id) {
            self.runs.push(record.run.id);
        }
        for vm in &record.measurements {
            if variant.is_some_and(|v| v != vm.variant) {
                continue;
            }
            let m = &vm.measurement;
            if !m.status.has_numbers() || m.cell.misalign != 0 {
                continue;
            }
            let Some(rate) = m.rate().filter(|r| r.is_finite() && *r > 0.0) else {
                continue;
            };
            let key = cell_key(&m.cell.primitive, m.cell.op, m.cell.bytes);
            self.cells.entry(key).or_default().push(RunValue {
                run: record.run.id,
                rate: rate * scale,
                ns_per_op: undisturbed_ns(m, scale),
                bouts: bout_means(m, scale),
                paired: paired_bout_means(m, scale),
            });
        }
    }
}

pub fn cell_key(primitive: &str, op: Op, bytes: Option<u64>) -> CellKey {
    // Each primitive's position in the catalog, found once (keys are made for every cell shown).
    static ORDER: std::sync::OnceLock<std::collections::HashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    let all = cryptospeed_catalog::all();
    let order = ORDER.get_or_init(|| {
        all.iter()
            .enumerate()
            .rev()
            .map(|(i, p)| (p.id, i))
            .collect()
    });
    let order = order.get(primitive).copied().unwrap_or(all.len());
    CellKey {
        order,
        primitive: primitive.to_string(),
        op,
        bytes,
    }
}

/// How a side's figure for a cell was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// 25%-trimmed mean (on the log scale) of the bout medians of every run, with the interval from the
    /// spread between bouts: each bout ran in its own worker process at its own moment.
    Bouts,
    /// Median of the pooled samples of every run (runs measured in one stretch, before bouts):
    /// the interval sees only the noise within one process.
    Samples,
    /// Mean of the runs' single figures (imported logs), with their spread.
    Averaged,
}

/// A side's figure for one cell.
#[derive(Debug, Clone, Serialize)]
pub struct SideValue {
    /// Rate in the cell's unit: bytes/s with a size, ops/s without.
    pub rate: f64,
    pub unit: &'static str,
    pub basis: Basis,
    /// 95% confidence interval of the rate, on the side's basis (between bouts for `bouts`).
    pub ci: Option<(f64, f64)>,
    /// The interval the pooled samples alone would give (noise within processes only), shown
    /// beside `ci` by `--detail`.
    pub within_ci: Option<(f64, f64)>,
    /// Bouts behind the figure (0 unless the basis is `bouts`).
    pub bouts: usize,
    /// Standard deviation of the log bout medians: the relative spread between bouts.
    pub between_sd: Option<f64>,
    /// Lowest and highest run figure when several runs were averaged.
    pub spread: Option<(f64, f64)>,
    pub samples: usize,
    pub runs: usize,
}

/// A candidate against the baseline for one cell.
#[derive(Debug, Clone, Serialize)]
pub struct Versus {
    /// Candidate rate / baseline rate (> 1: the candidate is faster).
    pub ratio: f64,
    /// Interval of the ratio: the test's own (1 - alpha) interval for bouts, else a conservative
    /// one from both sides' intervals.
    pub ratio_ci: Option<(f64, f64)>,
    /// Two-sided p-value of the test in `test`, when both sides allow one.
    pub p: Option<f64>,
    /// How the two sides were compared: `paired bouts` (the same rounds of one run: Yuen's
    /// paired test on log bout medians); `bouts+runs` (Yuen-Welch across runs, each side's variance holding the
    /// drift between runs: from several runs' centers, or one run's bouts plus the between-run
    /// variance the store has seen on this machine); `bouts` (Yuen-Welch on one run's bouts
    /// without that: `--within-runs-only`); `samples` (Mann-Whitney U on pooled samples,
    /// for runs stored before bouts) or `runs` (Mann-Whitney U on several runs' single figures).
    pub test: Option<&'static str>,
    /// `Some(false)` prints `~` or `?`: p ≥ α, or the change is smaller than the minimum effect.
    pub significant: Option<bool>,
    /// The smallest change (a fraction of the rate: 0.02 is 2%) this comparison would have
    /// called significant 80% of the time ([`POWER`]): from the test's standard error and
    /// degrees of freedom for bouts; from the two sides' intervals (conservatively) otherwise;
    /// `None` where neither side has an interval (imported single figures).
    pub detectable: Option<f64>,
    /// What the cell says, from `significant`, `detectable` and the comparison's resolution.
    pub verdict: Verdict,
}

/// A compared cell's outcome, in three kinds (as Chromium's Pinpoint reports them): a real
/// difference, no difference as large as the resolution, or not enough precision to tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significantly faster than the baseline.
    Faster,
    /// Significantly slower than the baseline.
    Slower,
    /// Not significant, and the comparison would have seen a change of the resolution (`~`).
    Same,
    /// Not significant, but a change of the resolution could have gone unseen (`?`), or there
    /// was nothing to test.
    Unknown,
}

/// The power at which [`Versus::detectable`] is stated.
pub const POWER: f64 = 0.8;

/// The default resolution: a `~` promises no change of 2% or more went unseen.
pub const DEFAULT_RESOLUTION: f64 = 0.02;

impl Versus {
    /// The verdict at `resolution` (a fraction): significant cells by their direction; others
    /// `Same` when their detectable change is at most the resolution, else `Unknown`.
    pub fn judge(&self, resolution: f64) -> Verdict {
        match (self.significant, self.detectable) {
            (Some(true), _) if self.ratio >= 1.0 => Verdict::Faster,
            (Some(true), _) => Verdict::Slower,
            (Some(false), Some(d)) if d <= resolution => Verdict::Same,
            _ => Verdict::Unknown,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub key: CellKey,
    pub label: String,
    /// One entry per side; `None` is `n/a` (the side lacks the cell).
    pub values: Vec<Option<SideValue>>,
    /// One entry per side against the baseline; `None` at the baseline and where either lacks it.
    pub versus: Vec<Option<Versus>>,
    /// The cell's drift between runs on this machine (standard deviation of one run's log figure
    /// about the machine's long-run figure, see [`run_noise`]) as the store has seen it; a side
    /// of one run compared with another run carries it in its variance. `None`: not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_noise: Option<f64>,
}

/// What the intervals of cells compared run against run (neither paired nor several runs
/// pooled) hold of the drift between runs: a run's own interval covers its own processes, not
/// the minutes between it and another run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AcrossRuns {
    /// Cells whose interval holds the between-run drift the store has seen (`bouts+runs`).
    pub with_drift: usize,
    /// Cells compared across runs on each run's own interval alone (`bouts`): the store knew
    /// too little of the machine's runs, or the drift was left out on request.
    pub without_drift: usize,
    /// The root mean square of the drift (sd, log scale) over the cells that carry it: the
    /// machine's "across runs ±" is 1.96 times it.
    pub drift_sd: Option<f64>,
}

impl AcrossRuns {
    /// Counted from the rows' tests; `drift_sd` over the rows compared with the drift.
    pub fn of(rows: &[Row]) -> AcrossRuns {
        let mut a = AcrossRuns::default();
        let mut sum = 0.0;
        for r in rows {
            for v in r.versus.iter().flatten() {
                match v.test {
                    Some("bouts+runs") => {
                        a.with_drift += 1;
                        sum += r.run_noise.unwrap_or(0.0).powi(2);
                    }
                    Some("bouts") => a.without_drift += 1,
                    _ => {}
                }
            }
        }
        a.drift_sd = (a.with_drift > 0).then(|| (sum / a.with_drift as f64).sqrt());
        a
    }

    /// Nothing compared run against run: nothing to say.
    pub fn is_empty(&self) -> bool {
        self.with_drift == 0 && self.without_drift == 0
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SideSummary {
    pub name: String,
    pub description: String,
    pub runs: Vec<i64>,
    /// Geometric mean of the ratios over the rows both this side and the baseline have.
    pub geomean: Option<f64>,
    /// Rows counted in the geomean.
    pub geomean_rows: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub baseline: usize,
    pub alpha: f64,
    /// The change a `~` promises would have been seen (80% power); cells that could not have
    /// seen it are `?` (see [`Verdict`]).
    pub resolution: f64,
    /// Changes smaller than this fraction are never called significant (run-to-run drift).
    pub min_effect: f64,
    pub sides: Vec<SideSummary>,
    pub rows: Vec<Row>,
    /// What the cells compared run against run hold of the drift between runs.
    #[serde(skip_serializing_if = "AcrossRuns::is_empty")]
    pub across_runs: AcrossRuns,
}

/// Which rows to keep.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Keep only cells of this size (public-key rows, which have none, are kept too).
    pub bytes: Option<u64>,
    /// Keep only these primitives (catalog ids or names as stored).
    pub primitives: Option<Vec<String>>,
}

impl Filter {
    fn keeps(&self, key: &CellKey) -> bool {
        if let (Some(b), Some(kb)) = (self.bytes, key.bytes) {
            if b != kb {
                return false;
            }
        }
        match &self.primitives {
            Some(list) => list.contains(&key.primitive),
            None => true,
        }
    }
}

fn side_value(key: &CellKey, runs: &[RunValue]) -> Option<SideValue> {
    if runs.is_empty() {
        return None;
    }
    let scale = key.bytes.unwrap_or(1) as f64 * 1e9;
    let unit = if key.bytes.is_some() {
        "bytes/s"
    } else {
        "ops/s"
    };
    if runs.iter().all(|r| !r.ns_per_op.is_empty()) {
        let pooled: Vec<f64> = runs
            .iter()
            .flat_map(|r| r.ns_per_op.iter().copied())
            .collect();
        let s = stats::summarize(&pooled)?;
        let within_ci = (s.n >= 6).then(|| (scale / s.ci_hi, scale / s.ci_lo));
        let mut value = SideValue {
            rate: scale / s.median,
            unit,
            basis: Basis::Samples,
            ci: within_ci,
            within_ci,
            bouts: 0,
            between_sd: None,
            spread: None,
            samples: s.n,
            runs: runs.len(),
        };
        if let Some(e) = bouts_of(runs, center_of(key)) {
            value.rate = scale / e.center;
            value.basis = Basis::Bouts;
            value.ci = Some((scale / e.ci.1, scale / e.ci.0));
            value.bouts = e.bouts;
            value.between_sd = Some(e.between_sd);
        }
        return Some(value);
    }
    let rates: Vec<f64> = runs.iter().map(|r| r.rate).collect();
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    let lo = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(SideValue {
        rate: mean,
        unit,
        basis: Basis::Averaged,
        ci: None,
        within_ci: None,
        bouts: 0,
        between_sd: None,
        spread: (rates.len() > 1).then_some((lo, hi)),
        samples: 0,
        runs: rates.len(),
    })
}

/// A side's estimate when each of its runs was measured in bouts: one run's bouts, or, for a side
/// that pools several runs, the runs' centers (the run is then the unit).
fn bouts_of(runs: &[RunValue], center: stats::Center) -> Option<stats::BoutEstimate> {
    if runs.iter().any(|r| r.bouts.len() < 2) {
        return None;
    }
    let units = |r: &RunValue| -> Vec<Vec<f64>> { r.bouts.iter().map(|(_, m)| vec![*m]).collect() };
    if let [one] = runs {
        return stats::cell_estimate(&units(one), 0.95, center);
    }
    let centers: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| Some(vec![stats::cell_estimate(&units(r), 0.95, center)?.center]))
        .collect::<Option<_>>()?;
    stats::bout_estimate(&centers, 0.95)
}

/// How a cell's bouts are centered: on their mean where its time varies per call by design.
fn center_of(key: &CellKey) -> stats::Center {
    stats::Center::of(cryptospeed_catalog::time_varies_per_call(
        &key.primitive,
        key.op,
    ))
}

/// One side's log estimate for a test across runs: the runs' centers when it pools several runs
/// (the run is then the unit, and its variance holds the drift between runs); one run's bouts
/// plus the machine's between-run variance for the cell when the store knows it. The flag says
/// whether run-to-run noise is in the estimate.
fn side_estimate(
    runs: &[RunValue],
    alpha: f64,
    noise: Option<RunNoise>,
) -> Option<(stats::LogEstimate, bool)> {
    let units = |r: &RunValue| -> Vec<Vec<f64>> { r.bouts.iter().map(|(_, m)| vec![*m]).collect() };
    if let [one] = runs {
        let e = stats::bout_estimate(&units(one), 1.0 - alpha)?;
        return Some((
            e.log_estimate(noise.map(|n| (n.var, n.df))),
            noise.is_some(),
        ));
    }
    let centers: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| Some(vec![stats::bout_estimate(&units(r), 1.0 - alpha)?.center]))
        .collect::<Option<_>>()?;
    Some((
        stats::bout_estimate(&centers, 1.0 - alpha)?.log_estimate(None),
        true,
    ))
}

/// A side's bouts of a cell: (bout id, nanoseconds per operation).
pub type Bouts = Vec<(u32, f64)>;

/// Several runs' paired bouts of a cell pooled into one list per side, each run's bout ids kept
/// apart (run k's ids shifted by k · 10⁶), so pairs are only ever made within a run.
pub fn pooled_pairs<'a>(
    runs: impl IntoIterator<Item = (&'a [(u32, f64)], &'a [(u32, f64)])>,
) -> (Bouts, Bouts) {
    let shift = |k: usize, v: &[(u32, f64)]| -> Vec<(u32, f64)> {
        v.iter()
            .map(|(id, x)| (id + (k as u32) * 1_000_000, *x))
            .collect()
    };
    let (mut base, mut cand) = (Vec::new(), Vec::new());
    for (k, (b, c)) in runs.into_iter().enumerate() {
        base.extend(shift(k, b));
        cand.extend(shift(k, c));
    }
    (base, cand)
}

/// Whether both sides hold a cell from the very same runs (the variants of one run, or of the
/// same several runs): their bouts can then be paired within each run.
fn same_runs(base_runs: &[RunValue], cand_runs: &[RunValue]) -> bool {
    base_runs.len() == cand_runs.len()
        && base_runs.iter().zip(cand_runs).all(|(b, c)| b.run == c.run)
}

/// Yuen's paired test on the bouts of the runs both sides hold (see [`same_runs`]), pooled pair
/// by pair; `None` when they hold different runs or fewer than two pairs.
fn paired_bouts(
    base_runs: &[RunValue],
    cand_runs: &[RunValue],
    alpha: f64,
) -> Option<(stats::RatioEstimate, &'static str)> {
    if !same_runs(base_runs, cand_runs) {
        return None;
    }
    let runs = base_runs.iter().zip(cand_runs);
    let (b, c) = pooled_pairs(runs.map(|(b, c)| (&b.paired[..], &c.paired[..])));
    Some((stats::paired_ratio(&b, &c, 1.0 - alpha)?, "paired bouts"))
}

/// Bouts against bouts: paired when both sides hold the same runs (their bouts of a cell ran in
/// the same rounds; several runs, as `compare --remeasure`'s extra passes make, are pooled pair
/// by pair), Yuen-Welch across runs otherwise; at confidence 1 - alpha, so the interval excludes
/// 1 exactly when p < alpha.
fn bouts_versus(
    base_runs: &[RunValue],
    cand_runs: &[RunValue],
    alpha: f64,
    noise: Option<RunNoise>,
) -> Option<(stats::RatioEstimate, &'static str)> {
    if let Some(paired) = paired_bouts(base_runs, cand_runs, alpha) {
        return Some(paired);
    }
    let (b, b_runs) = side_estimate(base_runs, alpha, noise)?;
    let (c, c_runs) = side_estimate(cand_runs, alpha, noise)?;
    let test = if b_runs && c_runs {
        "bouts+runs"
    } else {
        "bouts"
    };
    Some((stats::welch(&b, &c, 1.0 - alpha), test))
}

#[allow(clippy::too_many_arguments)] // both sides, and how to judge them
fn versus(
    base: &SideValue,
    base_runs: &[RunValue],
    cand: &SideValue,
    cand_runs: &[RunValue],
    alpha: f64,
    min_effect: f64,
    noise: Option<RunNoise>,
) -> Versus {
    // Bouts whenever both sides hold them, and pairs from the same runs even where some run's
    // samples were all set aside (the side's figure is then the runs' average).
    let found = match base.basis == Basis::Bouts && cand.basis == Basis::Bouts {
        true => bouts_versus(base_runs, cand_runs, alpha, noise),
        false => paired_bouts(base_runs, cand_runs, alpha),
    };
    if let Some((r, test)) = found {
        return Versus {
            ratio: r.ratio,
            ratio_ci: Some(r.ci),
            p: Some(r.p),
            test: Some(test),
            significant: Some(r.p < alpha && (r.ratio - 1.0).abs() >= min_effect),
            detectable: Some(r.detectable(alpha, POWER)),
            verdict: Verdict::Unknown,
        };
    }
    let ratio = cand.rate / base.rate;
    let ratio_ci = match (base.ci, cand.ci) {
        (Some((blo, bhi)), Some((clo, chi))) => Some((clo / bhi, chi / blo)),
        _ => None,
    };
    // Samples against samples when both sides have them; otherwise the runs' figures against
    // each other when both sides have several runs (five averaged runs per build, as published).
    let pooled = base.basis != Basis::Averaged && cand.basis != Basis::Averaged;
    let test = if pooled && base.samples >= 2 && cand.samples >= 2 {
        let a: Vec<f64> = base_runs
            .iter()
            .flat_map(|r| r.ns_per_op.iter().copied())
            .collect();
        let b: Vec<f64> = cand_runs
            .iter()
            .flat_map(|r| r.ns_per_op.iter().copied())
            .collect();
        stats::mann_whitney_u(&a, &b)
    } else if base_runs.len() >= 2 && cand_runs.len() >= 2 {
        let a: Vec<f64> = base_runs.iter().map(|r| r.rate).collect();
        let b: Vec<f64> = cand_runs.iter().map(|r| r.rate).collect();
        stats::mann_whitney_u(&a, &b)
    } else {
        None
    };
    Versus {
        ratio,
        ratio_ci,
        p: test.map(|t| t.p),
        test: test.map(|_| if pooled { "samples" } else { "runs" }),
        significant: test.map(|t| t.p < alpha && (ratio - 1.0).abs() >= min_effect),
        detectable: detectable_from_intervals(base.ci, cand.ci, alpha),
        verdict: Verdict::Unknown,
    }
}

/// A conservative detectable change from the two sides' 95% intervals, where no test
/// statistic gives one (see `cryptospeed_stats::detectable_from_intervals`).
fn detectable_from_intervals(
    base: Option<(f64, f64)>,
    cand: Option<(f64, f64)>,
    alpha: f64,
) -> Option<f64> {
    let half = |(lo, hi): (f64, f64)| (hi / lo).ln() / 2.0;
    Some(stats::detectable_from_intervals(
        half(base?),
        half(cand?),
        alpha,
        POWER,
    ))
}

/// Compares every side with `sides[baseline]`, cell by cell. A cell's change is significant when
/// its test gives p < `alpha` and the change is at least `min_effect` (a fraction, the user's
/// threshold of practical interest; 0 by default). Runs measured in bouts are compared on their
/// bouts (see [`Versus::test`]); runs stored before bouts on their pooled samples, whose test
/// cannot see run-to-run drift; imported runs on their figures.
pub fn compare(
    sides: &[SideInput],
    baseline: usize,
    alpha: f64,
    min_effect: f64,
    filter: &Filter,
) -> Comparison {
    compare_with_noise(sides, baseline, alpha, min_effect, filter, &BTreeMap::new())
}

/// [`compare`], with each cell's run-to-run noise on this machine (see [`run_noise`]) added to
/// single-run sides compared across runs.
pub fn compare_with_noise(
    sides: &[SideInput],
    baseline: usize,
    alpha: f64,
    min_effect: f64,
    filter: &Filter,
    noise: &BTreeMap<CellKey, RunNoise>,
) -> Comparison {
    let mut keys: Vec<CellKey> = sides
        .iter()
        .flat_map(|s| s.cells.keys().cloned())
        .filter(|k| filter.keeps(k))
        .collect();
    keys.sort();
    keys.dedup();
    let empty = Vec::new();
    let mut rows = Vec::new();
    for key in keys {
        let runs: Vec<&Vec<RunValue>> = sides
            .iter()
            .map(|s| s.cells.get(&key).unwrap_or(&empty))
            .collect();
        let values: Vec<Option<SideValue>> = runs.iter().map(|r| side_value(&key, r)).collect();
        let versus: Vec<Option<Versus>> = (0..sides.len())
            .map(|i| {
                if i == baseline {
                    return None;
                }
                let (b, c) = (values[baseline].as_ref()?, values[i].as_ref()?);
                let n = noise.get(&key).copied();
                Some(versus(b, runs[baseline], c, runs[i], alpha, min_effect, n))
            })
            .collect();
        rows.push(Row {
            label: key.label(),
            run_noise: noise.get(&key).map(|n| n.var.sqrt()),
            key,
            values,
            versus,
        });
    }
    let summaries = sides
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ratios: Vec<f64> = if i == baseline {
                rows.iter()
                    .filter(|r| r.values[i].is_some())
                    .map(|_| 1.0)
                    .collect()
            } else {
                rows.iter()
                    .filter_map(|r| r.versus[i].as_ref().map(|v| v.ratio))
                    .collect()
            };
            SideSummary {
                name: s.name.clone(),
                description: s.description.clone(),
                runs: s.runs.clone(),
                geomean: stats::geomean(&ratios),
                geomean_rows: ratios.len(),
            }
        })
        .collect();
    let mut comparison = Comparison {
        baseline,
        alpha,
        resolution: DEFAULT_RESOLUTION,
        min_effect,
        sides: summaries,
        across_runs: AcrossRuns::of(&rows),
        rows,
    };
    comparison.set_resolution(DEFAULT_RESOLUTION);
    comparison
}

impl Comparison {
    /// Judges every compared cell again at `resolution` (a fraction; see [`Verdict`]).
    pub fn set_resolution(&mut self, resolution: f64) {
        self.resolution = resolution;
        for v in self
            .rows
            .iter_mut()
            .flat_map(|r| r.versus.iter_mut().flatten())
        {
            v.verdict = v.judge(resolution);
        }
    }

    /// With the verdicts judged at `resolution`.
    pub fn with_resolution(mut self, resolution: f64) -> Comparison {
        self.set_resolution(resolution);
        self
    }
}

#[cfg(test)]
mod tests;
