//! The gate's decision: which cells of a paired comparison of two builds are regressions a user
//! cares about, which are not, and which the measurements could not decide. `compare` tests each
//! cell at α on its own, so a whole table of 300 cells flags ~15 by chance; the gate instead
//! tests each cell against a threshold of practical interest (`--fail-above 2%`: is the rate
//! more than 2% lower?) with one-sided tests on the paired bouts, and controls the false
//! discoveries across all cells with Benjamini–Hochberg. The measuring loop (crates/runner,
//! `gate`) keeps measuring the cells this module calls undecided and confirms the flagged ones in
//! a fresh run; [`confirm`] judges that run.

use crate::CellKey;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// What the gate asks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GateConfig {
    /// The threshold of practical interest, a fraction: a regression is a rate lower by more
    /// than this (0.02: more than 2% slower), an improvement one higher by more than this.
    pub threshold: f64,
    /// The false discovery rate Benjamini–Hochberg holds across cells (regressions and
    /// improvements each), and the level of the confirmation among the flagged cells.
    pub fdr: f64,
    /// The one-sided level at which a cell is declared not slower (or the same) than the
    /// threshold allows.
    pub alpha: f64,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            threshold: 0.02,
            fdr: 0.05,
            alpha: 0.05,
        }
    }
}

/// One run's bouts of a cell on both sides: (bout id, nanoseconds per operation); bouts with one
/// id ran back to back in the same round of the run.
#[derive(Debug, Clone, Default)]
pub struct PairedRun {
    pub base: Vec<(u32, f64)>,
    pub cand: Vec<(u32, f64)>,
}

/// What a cell's paired bouts say, on the log scale of the ratio of rates (new / base).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evidence {
    /// New rate / base rate: below 1 is slower.
    pub ratio: f64,
    /// Standard error of the log ratio (Yuen's, 25% trimming) and its degrees of freedom.
    pub log_se: f64,
    pub df: f64,
    /// Paired bouts behind it, over every run pooled.
    pub pairs: usize,
}

/// Pools a cell's paired bouts over runs (each run's pairs kept apart by renumbering) into one
/// paired estimate: Yuen's trimmed mean of the log differences. `None` with fewer than 2 pairs.
pub fn evidence(runs: &[PairedRun]) -> Option<Evidence> {
    let (base, cand) = crate::pooled_pairs(runs.iter().map(|r| (&r.base[..], &r.cand[..])));
    let pairs = base
        .iter()
        .filter(|(id, _)| cand.iter().any(|(c, _)| c == id))
        .count();
    let r = cryptospeed_stats::paired_ratio(&base, &cand, 0.95)?;
    Some(Evidence {
        ratio: r.ratio,
        log_se: r.se,
        df: r.df,
        pairs,
    })
}

/// The one-sided p-values of a cell against the threshold θ, on the log ratio m (with bounds
/// ln(1 − θ) below and ln(1 + θ) above).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThresholdTests {
    /// H₀: the rate is at most θ lower (m ≥ ln(1 − θ)); small when it is lower by more.
    pub regression: f64,
    /// H₀: the rate is θ lower or worse; small when the cell is shown not to have regressed by θ.
    pub not_regression: f64,
    /// H₀: the rate is at most θ higher; small when it is higher by more.
    pub improvement: f64,
    /// H₀: the rate is θ higher or more; small when shown not to have improved by θ.
    pub not_improvement: f64,
}

/// P(T ≤ x) on Student's t with `df` degrees of freedom; a step where there was no spread.
fn t_cdf(x: f64, df: f64) -> f64 {
    if x.is_nan() {
        return 0.5;
    }
    if x.is_infinite() {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    StudentsT::new(0.0, 1.0, df.max(1.0))
        .expect("df ≥ 1")
        .cdf(x)
}

/// The four one-sided tests of `e` against `threshold` (see [`ThresholdTests`]).
pub fn threshold_tests(e: &Evidence, threshold: f64) -> ThresholdTests {
    let m = e.ratio.ln();
    let (lo, hi) = ((1.0 - threshold).ln(), (1.0 + threshold).ln());
    let t = |bound: f64| {
        let diff = m - bound;
        if e.log_se > 0.0 {
            diff / e.log_se
        } else if diff == 0.0 {
            0.0
        } else {
            diff * f64::INFINITY
        }
    };
    let below_lo = t_cdf(t(lo), e.df);
    let below_hi = t_cdf(t(hi), e.df);
    ThresholdTests {
        regression: below_lo,
        not_regression: 1.0 - below_lo,
        improvement: 1.0 - below_hi,
        not_improvement: below_hi,
    }
}

/// Benjamini–Hochberg at false discovery rate `q`: which of `p` are discoveries (the k smallest,
/// k the largest rank with p₍ₖ₎ ≤ k q / m). Missing p-values count in m and are never discoveries.
pub fn benjamini_hochberg(p: &[Option<f64>], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<(usize, f64)> = p
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i, v)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let k = order
        .iter()
        .enumerate()
        .filter(|(rank, (_, v))| *v <= (rank + 1) as f64 * q / m as f64)
        .map(|(rank, _)| rank + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![false; m];
    for (i, _) in order.iter().take(k) {
        out[*i] = true;
    }
    out
}

/// A cell's outcome in the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateVerdict {
    /// Slower by more than the threshold: flagged across cells and confirmed in a fresh run.
    Regression,
    /// Flagged slower by more than the threshold, not yet confirmed.
    Flagged,
    /// Faster by more than the threshold (flagged across cells).
    Improvement,
    /// No change larger than the threshold either way.
    Same,
    /// Not slower by more than the threshold (a large improvement not ruled out).
    NotSlower,
    /// The measurements could not say either: see the cell's `why`.
    Undecided,
}

impl GateVerdict {
    /// Whether the gate needs more measurements of this cell.
    pub fn is_open(self) -> bool {
        matches!(self, GateVerdict::Undecided)
    }
}

/// One cell's line in the gate's report.
#[derive(Debug, Clone, Serialize)]
pub struct GateCell {
    pub key: CellKey,
    pub label: String,
    pub verdict: GateVerdict,
    /// New rate / base rate and its 90% interval (the two one-sided 5% tests' bounds).
    pub ratio: Option<f64>,
    pub ci90: Option<(f64, f64)>,
    pub pairs: usize,
    pub tests: Option<ThresholdTests>,
    /// The confirming run's ratio and regression p-value, for flagged cells.
    pub confirmation: Option<(f64, f64)>,
    /// Why the cell is undecided, or how a flag ended.
    pub why: Option<String>,
}

/// The 90% interval of the ratio: where neither one-sided 5% test rejects.
fn ci90(e: &Evidence) -> (f64, f64) {
    let t = StudentsT::new(0.0, 1.0, e.df.max(1.0)).expect("df ≥ 1");
    let half = t.inverse_cdf(0.95) * e.log_se;
    let m = e.ratio.ln();
    ((m - half).exp(), (m + half).exp())
}

/// Judges every cell from its evidence: Benjamini–Hochberg across all cells on the regression
/// and on the improvement p-values; among the rest, `Same` when both not-tests reject at α
/// (two one-sided tests: equivalence within ±θ), `NotSlower` when only the not-regression test
/// does, else `Undecided`. Flagged regressions still need [`confirm`].
pub fn decide(cells: &[(CellKey, Option<Evidence>)], cfg: &GateConfig) -> Vec<GateCell> {
    let tests: Vec<Option<ThresholdTests>> = cells
        .iter()
        .map(|(_, e)| e.map(|e| threshold_tests(&e, cfg.threshold)))
        .collect();
    let reg = benjamini_hochberg(
        &tests
            .iter()
            .map(|t| t.map(|t| t.regression))
            .collect::<Vec<_>>(),
        cfg.fdr,
    );
    let imp = benjamini_hochberg(
        &tests
            .iter()
            .map(|t| t.map(|t| t.improvement))
            .collect::<Vec<_>>(),
        cfg.fdr,
    );
    cells
        .iter()
        .zip(tests)
        .enumerate()
        .map(|(i, ((key, e), t))| {
            let verdict = match t {
                _ if reg[i] => GateVerdict::Flagged,
                _ if imp[i] => GateVerdict::Improvement,
                Some(t) if t.not_regression.max(t.not_improvement) < cfg.alpha => GateVerdict::Same,
                Some(t) if t.not_regression < cfg.alpha => GateVerdict::NotSlower,
                _ => GateVerdict::Undecided,
            };
            cell(key, e.as_ref(), t, verdict, cfg)
        })
        .collect()
}

fn cell(
    key: &CellKey,
    e: Option<&Evidence>,
    tests: Option<ThresholdTests>,
    verdict: GateVerdict,
    cfg: &GateConfig,
) -> GateCell {
    let why = (verdict == GateVerdict::Undecided).then(|| undecided_why(e, cfg));
    GateCell {
        key: key.clone(),
        label: key.label(),
        verdict,
        ratio: e.map(|e| e.ratio),
        ci90: e.map(ci90),
        pairs: e.map_or(0, |e| e.pairs),
        tests,
        confirmation: None,
        why,
    }
}

/// Why a cell stayed undecided, in words.
fn undecided_why(e: Option<&Evidence>, cfg: &GateConfig) -> String {
    let Some(e) = e else {
        return "fewer than two paired bouts (a side failed or was not measured)".into();
    };
    let (lo, hi) = ci90(e);
    format!(
        "{} paired bouts: the 90% interval {:+.1}% to {:+.1}% reaches past -{:.1}%",
        e.pairs,
        (lo - 1.0) * 100.0,
        (hi - 1.0) * 100.0,
        cfg.threshold * 100.0
    )
}

/// Judges the flagged cells again on a confirming run of their own (fresh processes): a flag
/// stands when Benjamini–Hochberg over the flagged cells' confirmation regression p-values
/// rejects; one that does not is judged by the confirming run alone (`NotSlower`/`Same` when it
/// shows no regression as large as the threshold, else `Undecided`).
pub fn confirm(cells: &mut [GateCell], again: &[(CellKey, Option<Evidence>)], cfg: &GateConfig) {
    let flagged: Vec<usize> = (0..cells.len())
        .filter(|i| cells[*i].verdict == GateVerdict::Flagged)
        .collect();
    let found = |key: &CellKey| again.iter().find(|(k, _)| k == key).and_then(|(_, e)| *e);
    let evidence: Vec<Option<Evidence>> = flagged.iter().map(|i| found(&cells[*i].key)).collect();
    let tests: Vec<Option<ThresholdTests>> = evidence
        .iter()
        .map(|e| e.map(|e| threshold_tests(&e, cfg.threshold)))
        .collect();
    let p: Vec<Option<f64>> = tests.iter().map(|t| t.map(|t| t.regression)).collect();
    let stands = benjamini_hochberg(&p, cfg.fdr);
    for (k, i) in flagged.into_iter().enumerate() {
        let c = &mut cells[i];
        c.confirmation = evidence[k].zip(p[k]).map(|(e, p)| (e.ratio, p));
        c.verdict = match tests[k] {
            _ if stands[k] => GateVerdict::Regression,
            Some(t) if t.not_regression.max(t.not_improvement) < cfg.alpha => GateVerdict::Same,
            Some(t) if t.not_regression < cfg.alpha => GateVerdict::NotSlower,
            _ => GateVerdict::Undecided,
        };
        c.why = Some(match c.verdict {
            GateVerdict::Regression => "confirmed in a fresh run".into(),
            GateVerdict::Undecided => "flagged, but the confirming run could not decide".into(),
            _ => "flagged, but the confirming run showed no regression past the threshold".into(),
        });
    }
}

/// The gate's overall outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateOutcome {
    /// No cell regressed past the threshold, and every cell was decided.
    Pass,
    /// At least one confirmed regression.
    Regression,
    /// No confirmed regression, but some cell stayed undecided (or a flag unconfirmed).
    Undecided,
}

/// The outcome of a judged table: any confirmed (or still flagged) regression fails it.
pub fn outcome(cells: &[GateCell]) -> GateOutcome {
    let has = |v: GateVerdict| cells.iter().any(|c| c.verdict == v);
    if has(GateVerdict::Regression) || has(GateVerdict::Flagged) {
        GateOutcome::Regression
    } else if has(GateVerdict::Undecided) || cells.is_empty() {
        GateOutcome::Undecided
    } else {
        GateOutcome::Pass
    }
}

#[path = "gate_drive.rs"]
pub mod drive;
#[path = "gate_summary.rs"]
pub mod summary;
#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
