//! Per cell: both figures, the ratio ours/oracle with a 95% interval over rounds (the median of
//! the per-round ratios, and the interval of `rule.rs`), what each loop includes, and the
//! verdict; printed as a table or JSON.

use crate::rounds::Pairs;
use crate::{Cell, Clock, Difference, Kind, Oracle, Provenance};
use serde::Serialize;

pub use crate::rule::{
    explains, judge_rounds, looks, ratio_interval, verdict, Judged, Verdict, AGREES, AGREES_WITHIN,
    CONFIDENCE, EDGE,
};

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
    /// ours over every bout / oracle and its interval, where the canary set bouts aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_bout_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_bout_ratio_ci95: Option<[f64; 2]>,
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
    /// Our figure over every bout per round (`Pairs::ours_every_bout`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub our_every_bout_figures: Vec<f64>,
    /// The oracle's clock: a `wall` figure was divided by `oracle_cpu_share`.
    pub oracle_clock: Clock,
    pub oracle_cpu_share: Vec<f64>,
    /// Per round, whether our side found the host slowed (`Pairs::ours_host_slowed`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub our_host_slowed: Vec<bool>,
}

impl CellResult {
    /// The rounds in which our side found the host slowed.
    pub fn host_slowed_rounds(&self) -> usize {
        self.our_host_slowed.iter().filter(|s| **s).count()
    }
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
    let our_loop = our_loop(oracle.column(), cell);
    let difference = cell.difference;
    let judged = judge_rounds(pairs, difference.as_ref());
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
        ratio: judged.ratio,
        ratio_ci95: judged.ci,
        every_bout_ratio: judged.every_bout.map(|e| e.0),
        every_bout_ratio_ci95: judged.every_bout.map(|e| e.1),
        rounds: pairs.ours.len(),
        oracle_loop: cell.oracle_loop,
        our_loop,
        difference,
        verdict: judged.verdict,
        oracle_figures: pairs.oracle.clone(),
        our_figures: pairs.ours.clone(),
        our_every_bout_figures: pairs.ours_every_bout.clone(),
        oracle_clock: oracle.clock(),
        oracle_cpu_share: pairs.oracle_cpu_share.clone(),
        our_host_slowed: pairs.ours_host_slowed.clone(),
    }
}

/// The verdict as the table prints it.
pub fn word(c: &CellResult) -> String {
    match c.verdict {
        Verdict::Agrees => "agrees".into(),
        Verdict::Explained => "explained".into(),
        Verdict::Layout => "explained (code layout of the worker binary)".into(),
        Verdict::Edge => match crate::rule::edge_of(c.ratio_ci95, c.difference.as_ref()) {
            Some(e) => format!("at the edge of {e:.3} (the interval holds it, within ±{EDGE})"),
            None => "at the edge".into(),
        },
        Verdict::Unexplained => "unexplained".into(),
        Verdict::Host => match c.every_bout_ratio_ci95 {
            Some(ci) => format!(
                "explained by the host (over every bout {:.3}–{:.3}: the canary set the host's \
                 slow bouts aside)",
                ci[0], ci[1]
            ),
            None => "explained by the host".into(),
        },
        Verdict::Undecided => {
            let every = c.every_bout_ratio_ci95.map_or(String::new(), |ci| {
                format!("; over every bout {:.3}–{:.3}", ci[0], ci[1])
            });
            format!(
                "undecided (interval too wide after {} rounds{every}{})",
                c.rounds,
                slowed_host(c)
            )
        }
    }
}

/// What an undecided cell's rounds say of the host, where our side found it slowed: the
/// oracle's figures then average over the host's states, which its rounds do not share.
fn slowed_host(c: &CellResult) -> String {
    match c.host_slowed_rounds() {
        0 => String::new(),
        n => format!(
            "; the host ran slowed in {n} of {} rounds (our canary over {:.0}% above its \
             floor): the oracle's figures average over its states, so an hour when it runs at \
             one speed can decide the cell",
            c.our_host_slowed.len(),
            100.0 * cryptospeed_stats::canary_floor::TWO_SPEEDS_GAP
        ),
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
mod tests {
    use super::*;
    use crate::rounds::host_slowed_in;

    fn undecided(slowed: Vec<bool>) -> CellResult {
        CellResult {
            cell: "x25519-mlkem768".into(),
            op: "keygen".into(),
            unit: "ops/s",
            oracle_median: 9480.6,
            ours_median: 12094.5,
            ratio: 1.3,
            ratio_ci95: [1.109, 1.434],
            every_bout_ratio: Some(0.951),
            every_bout_ratio_ci95: Some([0.795, 1.079]),
            rounds: slowed.len(),
            oracle_loop: "",
            our_loop: String::new(),
            difference: None,
            verdict: Verdict::Undecided,
            oracle_figures: vec![],
            our_figures: vec![],
            our_every_bout_figures: vec![],
            oracle_clock: Clock::Undisturbed,
            oracle_cpu_share: vec![],
            our_host_slowed: slowed,
        }
    }

    #[test]
    fn an_undecided_cell_says_in_how_many_rounds_the_host_ran_slowed() {
        let two_state = undecided(vec![true, true, false, true]);
        assert!(
            word(&two_state).contains("the host ran slowed in 3 of 4 rounds"),
            "{}",
            word(&two_state)
        );
        let quiet = undecided(vec![false; 4]);
        assert!(!word(&quiet).contains("slowed"), "{}", word(&quiet));
    }

    /// `run --format json` of md5@16 at 2026-11-30 01:01 UTC (a host at two speeds, cut to the
    /// fields read here), and the same cell with no `canary_floor` (a host at one speed).
    #[test]
    fn a_round_found_the_host_slowed_where_run_gave_the_cells_canary_floor() {
        let slowed = r#"[{"primitive":"md5","set_aside":{"every_bout_mean":47199748.1,
            "canary_floor":{"floor_ns":65262,"at_floor":7,"bouts":46,"reached":true}}}]"#;
        let one_speed = r#"[{"primitive":"md5","set_aside":{"every_bout_mean":47199748.1}}]"#;
        assert!(host_slowed_in(slowed));
        assert!(!host_slowed_in(one_speed));
        assert!(!host_slowed_in("[]"));
        assert!(!host_slowed_in("not json"));
    }
}
