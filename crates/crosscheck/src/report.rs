//! Per cell: both figures, the ratio ours/oracle with a 95% interval over rounds (the median of
//! the per-round ratios, and a t interval on their logarithms), what each loop includes, and the
//! verdict; printed as a table or JSON.

use crate::rounds::Pairs;
use crate::{Cell, Clock, Difference, Kind, Oracle, Provenance};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The band inside which the two figures agree.
pub const AGREES_WITHIN: f64 = 0.03;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Agrees,
    /// A named difference in what is timed accounts for the gap.
    Explained,
    /// The worker binary's code layout accounts for the gap (`Kind::Layout`): the same calls,
    /// not a definition difference nor a harness cost.
    Layout,
    Unexplained,
    /// The interval still reaches both into and out of what agreement (and the named
    /// difference) cover after every round the cell was allowed: the rounds cannot tell.
    Undecided,
}

impl Verdict {
    /// Whether more rounds could still change the verdict.
    pub fn decided(self) -> bool {
        self != Verdict::Undecided
    }
}

/// The ratios agreement covers: 1 ± [`AGREES_WITHIN`].
pub const AGREES: (f64, f64) = (1.0 - AGREES_WITHIN, 1.0 + AGREES_WITHIN);

fn inside(ci: [f64; 2], (lo, hi): (f64, f64)) -> bool {
    lo <= ci[0] && ci[1] <= hi
}

fn overlaps(ci: [f64; 2], (lo, hi): (f64, f64)) -> bool {
    ci[0] <= hi && ci[1] >= lo
}

/// A named difference accounts for the cell when its whole 95% interval lies inside the band
/// the difference was measured to produce, or inside the band and ±3% together where the two
/// touch (part of the interval may be agreement, the rest the difference).
pub fn explains(d: &Difference, ci: [f64; 2]) -> bool {
    let (lo, hi) = d.band;
    let joined = lo <= AGREES.1 && hi >= AGREES.0;
    inside(ci, d.band) || (joined && inside(ci, (lo.min(AGREES.0), hi.max(AGREES.1))))
}

/// The verdict of a cell's 95% interval of ours/oracle and its named difference. Decided only
/// when the whole interval says the same thing:
/// - agrees: the interval lies inside ±3%;
/// - explained (layout): it lies inside what the named difference covers ([`explains`]);
/// - unexplained: it lies wholly outside ±3% and outside the difference's band;
/// - undecided otherwise: it reaches both into and out of those (more rounds may narrow it).
pub fn verdict(ci: [f64; 2], difference: Option<&Difference>) -> Verdict {
    if inside(ci, AGREES) {
        return Verdict::Agrees;
    }
    if let Some(d) = difference.filter(|d| explains(d, ci)) {
        return match d.kind {
            Kind::Layout => Verdict::Layout,
            Kind::Definition => Verdict::Explained,
        };
    }
    let in_band = difference.is_some_and(|d| overlaps(ci, d.band));
    if overlaps(ci, AGREES) || in_band {
        Verdict::Undecided
    } else {
        Verdict::Unexplained
    }
}

/// The round counts at which a cell is judged: `rounds`, then doubling, and `max_rounds` last.
/// Few looks keep the chance that one of them calls a cell at the very edge of ±3% "agrees"
/// small (at most 2.5% per look), where judging after every round would add up.
pub fn looks(rounds: usize, max_rounds: usize) -> Vec<usize> {
    let first = rounds.max(2);
    let mut at = vec![first];
    let mut n = first;
    while n < max_rounds {
        n = (n * 2).min(max_rounds);
        at.push(n);
    }
    at
}

/// One cell's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct CellResult {
    pub cell: String,
    pub op: String,
    pub unit: &'static str,
    pub oracle_median: f64,
    pub ours_median: f64,
    /// ours / oracle, the median of the per-round ratios.
    pub ratio: f64,
    pub ratio_ci95: [f64; 2],
    pub rounds: usize,
    pub oracle_loop: &'static str,
    pub our_loop: String,
    /// The named difference between the loops, with the band it was measured to account for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
    pub verdict: Verdict,
    /// The oracle's figure per CPU second, per round (see `oracle_clock`).
    pub oracle_figures: Vec<f64>,
    pub our_figures: Vec<f64>,
    /// The oracle's clock: a `wall` figure was divided by `oracle_cpu_share`.
    pub oracle_clock: Clock,
    pub oracle_cpu_share: Vec<f64>,
}

/// A whole crosscheck of one column.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub column: String,
    pub oracle: String,
    pub provenance: Provenance,
    pub cpu: usize,
    pub started: String,
    pub cells: Vec<CellResult>,
    /// Cells that could not be measured, with why.
    pub failed: Vec<(String, String)>,
}

/// Median of the per-round ratios and the t interval of their geometric mean.
pub fn ratio_interval(pairs: &Pairs) -> (f64, [f64; 2]) {
    let mut r: Vec<f64> = pairs
        .ours
        .iter()
        .zip(&pairs.oracle)
        .map(|(o, b)| o / b)
        .collect();
    r.sort_by(f64::total_cmp);
    let n = r.len();
    let median = if n % 2 == 1 {
        r[n / 2]
    } else {
        (r[n / 2 - 1] + r[n / 2]) / 2.0
    };
    if n < 2 {
        return (median, [median, median]);
    }
    let logs: Vec<f64> = r.iter().map(|x| x.ln()).collect();
    let mean = logs.iter().sum::<f64>() / n as f64;
    let var = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).map_or(2.0, |d| d.inverse_cdf(0.975));
    let half = t * (var / n as f64).sqrt();
    (median, [(mean - half).exp(), (mean + half).exp()])
}

/// What our loop times for the cell: the catalog's definition and the column's declared
/// deviation from it.
fn our_loop(column: &str, cell: &Cell) -> String {
    let Some(p) = cryptospeed_catalog::lookup(cell.primitive) else {
        return "?".into();
    };
    let timed = p
        .definition(cell.op)
        .map(|d| d.timed.to_string())
        .unwrap_or_default();
    match cryptospeed_impls::declared::of(column, p, cell.op) {
        Some(c) => match c.deviation() {
            Some(d) => format!("{timed}; declared deviation: {d}"),
            None => timed,
        },
        None => timed,
    }
}

/// The verdict and result of one measured cell.
pub fn judge(oracle: &dyn Oracle, cell: &Cell, pairs: &Pairs) -> CellResult {
    let (ratio, ci) = ratio_interval(pairs);
    let our_loop = our_loop(oracle.column(), cell);
    let difference = cell.difference;
    let verdict = if pairs.ours.len() < 2 {
        Verdict::Undecided // one round has no interval
    } else {
        verdict(ci, difference.as_ref())
    };
    let med = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    };
    CellResult {
        cell: cell.spec(),
        op: cell.op.to_string(),
        unit: cell.unit(),
        oracle_median: med(&pairs.oracle),
        ours_median: med(&pairs.ours),
        ratio,
        ratio_ci95: ci,
        rounds: pairs.ours.len(),
        oracle_loop: cell.oracle_loop,
        our_loop,
        difference,
        verdict,
        oracle_figures: pairs.oracle.clone(),
        our_figures: pairs.ours.clone(),
        oracle_clock: oracle.clock(),
        oracle_cpu_share: pairs.oracle_cpu_share.clone(),
    }
}

/// The verdict as the table prints it.
pub fn word(c: &CellResult) -> String {
    match c.verdict {
        Verdict::Agrees => "agrees".into(),
        Verdict::Explained => "explained".into(),
        Verdict::Layout => "explained (code layout of the worker binary)".into(),
        Verdict::Unexplained => "unexplained".into(),
        Verdict::Undecided => format!("undecided (interval too wide after {} rounds)", c.rounds),
    }
}

/// A figure in a readable unit.
fn human(x: f64, unit: &str) -> String {
    if unit == "bytes/s" {
        format!("{:.1} MB/s", x / 1e6)
    } else {
        format!("{x:.1} op/s")
    }
}

/// The report as a text table, loops and differences listed under it.
pub fn render(r: &Report) -> String {
    let mut s = format!(
        "crosscheck {} against {} ({}; library {}), CPU {}, {}\n",
        r.column, r.oracle, r.provenance.source, r.provenance.library, r.cpu, r.started
    );
    s += &format!(
        "{:<24} {:<8} {:>14} {:>14} {:>7} {:>17}  verdict\n",
        "cell", "op", "oracle", "cryptospeed", "ratio", "95% interval"
    );
    for c in &r.cells {
        s += &format!(
            "{:<24} {:<8} {:>14} {:>14} {:>7.3} {:>8.3}–{:<8.3}  {}\n",
            c.cell,
            c.op,
            human(c.oracle_median, c.unit),
            human(c.ours_median, c.unit),
            c.ratio,
            c.ratio_ci95[0],
            c.ratio_ci95[1],
            word(c)
        );
    }
    for (cell, why) in &r.failed {
        s += &format!("{cell:<24} failed: {why}\n");
    }
    for c in &r.cells {
        s += &format!(
            "\n{} {}:\n  oracle loop: {}\n  our loop:    {}\n",
            c.cell, c.op, c.oracle_loop, c.our_loop
        );
        if c.oracle_clock == Clock::Wall {
            let share: Vec<String> = c
                .oracle_cpu_share
                .iter()
                .map(|x| format!("{x:.2}"))
                .collect();
            s += &format!(
                "  oracle clock: wall time; its figure divided by its process's CPU share ({})\n",
                share.join(" ")
            );
        }
        if let Some(d) = &c.difference {
            let label = match d.kind {
                Kind::Definition => "difference: ",
                Kind::Layout => "code layout:",
            };
            s += &format!(
                "  {label} {} (accounts for ratio {:.2}–{:.2}: {})\n",
                d.what, d.band.0, d.band.1, d.measured
            );
        }
    }
    s
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
