//! A cell's history as `cryptospeed history` shows it: one machine's stored runs of the cell,
//! oldest first, each figure with its interval, the run-to-run noise, and the change points
//! (crate::history) marked between the runs where the series moved. Runs whose interval is far
//! wider than the series' usual (the host disturbed them) are shown but left out of the search.

use super::{change_points, run_to_run_noise, ChangePoint, Search};
use cryptospeed_model::{Op, RunRecord};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One run's figure of the cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    pub run: i64,
    pub label: Option<String>,
    pub started_at: String,
    pub variant: String,
    /// Rate (bytes/s with a size, ops/s without) and its 95% interval.
    pub rate: f64,
    pub ci95: Option<(f64, f64)>,
    /// Left out of the search: its interval is over [`DISTURBED`] times the series' median
    /// width (a run the host disturbed, 40% slow on a busy VM, is also a wide one).
    #[serde(default)]
    pub disturbed: bool,
}

/// How many times the median interval width marks a run as disturbed (at least ±2%).
pub const DISTURBED: f64 = 4.0;

/// Marks the disturbed runs (see [`HistoryPoint::disturbed`]).
fn mark_disturbed(points: &mut [HistoryPoint]) {
    let half = |p: &HistoryPoint| p.ci95.map(|(lo, hi)| (hi - lo) / 2.0 / p.rate);
    let widths: Vec<f64> = points.iter().filter_map(half).collect();
    let Some(median) = cryptospeed_stats::median(&widths) else {
        return;
    };
    let limit = (DISTURBED * median).max(0.02);
    for p in points.iter_mut() {
        p.disturbed = half(p).is_some_and(|w| w > limit);
    }
}

/// The whole history of one cell.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub primitive: String,
    pub op: Op,
    pub bytes: Option<u64>,
    pub points: Vec<HistoryPoint>,
    /// Run-to-run noise of the figure, a fraction (see `history::run_to_run_noise`).
    pub noise: Option<f64>,
    pub change_points: Vec<ChangePoint>,
}

/// The cell's history over `records` (any order; sorted oldest first here), one figure per run:
/// the variant `variant`, or, without one, each run's first variant that measured the cell.
pub fn history(
    records: &[RunRecord],
    cell: (&str, Op, Option<u64>),
    variant: Option<&str>,
    search: &Search,
) -> History {
    let points = records
        .iter()
        .filter_map(|r| point(r, cell, variant))
        .collect();
    of_points(cell, points, search)
}

/// The cell's history from its runs' figures ([`point`], any order): sorted oldest first, the
/// disturbed runs marked, the change points searched. `cryptospeed history` and the site's
/// history pages (which merge the figures run by run) both come here.
pub fn of_points(
    cell: (&str, Op, Option<u64>),
    mut points: Vec<HistoryPoint>,
    search: &Search,
) -> History {
    points.sort_by_key(|p| p.run);
    points.iter_mut().for_each(|p| p.disturbed = false);
    mark_disturbed(&mut points);
    let kept: Vec<usize> = (0..points.len())
        .filter(|i| !points[*i].disturbed)
        .collect();
    let series: Vec<f64> = kept.iter().map(|i| points[*i].rate.ln()).collect();
    let mut found = change_points(&series, search);
    let bounds: Vec<usize> = found.iter().map(|c| c.index).collect();
    for c in &mut found {
        c.index = place_in_gap(&points, &kept, &series, &bounds, c.index);
    }
    History {
        primitive: cell.0.to_string(),
        op: cell.1,
        bytes: cell.2,
        noise: run_to_run_noise(&series),
        change_points: found,
        points,
    }
}

/// Where in `points` the change found at `k` of the kept `series` starts. Disturbed runs left
/// out of the search that lie between the last kept run before and the first after are placed
/// by their figure: the trailing ones nearer the level after (the median of the kept segment
/// after) than the level before start the change, so a build's first run, disturbed, still
/// marks where the build changed.
fn place_in_gap(
    points: &[HistoryPoint],
    kept: &[usize],
    series: &[f64],
    bounds: &[usize],
    k: usize,
) -> usize {
    let start = bounds.iter().copied().filter(|b| *b < k).max().unwrap_or(0);
    let end = bounds
        .iter()
        .copied()
        .filter(|b| *b > k)
        .min()
        .unwrap_or(series.len());
    let (Some(before), Some(after)) = (
        cryptospeed_stats::median(&series[start..k]),
        cryptospeed_stats::median(&series[k..end]),
    ) else {
        return kept[k];
    };
    let mut index = kept[k];
    while index > kept[k - 1] + 1 {
        let x = points[index - 1].rate.ln();
        if (x - after).abs() >= (x - before).abs() {
            break;
        }
        index -= 1;
    }
    index
}

/// Only the newest `n` of `points` (by run id).
pub fn newest(mut points: Vec<HistoryPoint>, n: usize) -> Vec<HistoryPoint> {
    points.sort_by_key(|p| p.run);
    let cut = points.len().saturating_sub(n);
    points.split_off(cut)
}

/// The label prefix of the runs `compare --remeasure` and `history --remeasure` write
/// (`remeasure-12-15`, `remeasure-12-15-more-1`): paired checks of stored runs' builds, not new
/// points of a build's history, so a history leaves them out (its series would otherwise step
/// back to the old build at its end and hide the change it just checked).
pub const REMEASURE_LABEL: &str = "remeasure-";

/// One run's figure of the cell: of the variant `variant`, or of the run's first variant that
/// measured it; `None` when the run has no figure of it or is a re-measurement.
pub fn point(
    r: &RunRecord,
    cell: (&str, Op, Option<u64>),
    variant: Option<&str>,
) -> Option<HistoryPoint> {
    if r.run
        .label
        .as_deref()
        .is_some_and(|l| l.starts_with(REMEASURE_LABEL))
    {
        return None;
    }
    let vm = r.measurements.iter().find(|vm| {
        let c = &vm.measurement.cell;
        c.primitive == cell.0
            && c.op == cell.1
            && c.bytes == cell.2
            && c.misalign == 0
            && vm.measurement.status.has_numbers()
            && variant.is_none_or(|v| v == vm.variant)
    })?;
    Some(HistoryPoint {
        run: r.run.id,
        label: r.run.label.clone(),
        started_at: r.run.started_at.clone(),
        variant: vm.variant.clone(),
        rate: vm
            .measurement
            .rate()
            .filter(|x| *x > 0.0 && x.is_finite())?,
        ci95: vm.measurement.rate_ci(),
        disturbed: false,
    })
}

impl History {
    /// The table: a line per run, a change line where the series moved.
    pub fn text(&self) -> String {
        let size = self.bytes.map_or(String::new(), |b| format!(" {b} bytes"));
        let mut out = format!(
            "{} {}{size}: {} runs, run-to-run noise {}, {} change point(s)\n",
            self.primitive,
            self.op,
            self.points.len(),
            self.noise
                .map_or("-".into(), |n| format!("±{:.1}%", n * 100.0)),
            self.change_points.len()
        );
        let _ = writeln!(
            out,
            "{:>6}  {:<19}  {:<24} {:>16}  {:>7}",
            "run", "started", "label / variant", "rate", "±95%"
        );
        for (i, p) in self.points.iter().enumerate() {
            if let Some(c) = self.change_points.iter().find(|c| c.index == i) {
                let _ = writeln!(
                    out,
                    "  ---- change: {:+.1}% (p={:.3}) ----",
                    (c.ratio - 1.0) * 100.0,
                    c.p
                );
            }
            let who = format!("{} {}", p.label.as_deref().unwrap_or("-"), p.variant);
            let ci = p.ci95.map_or("-".into(), |(lo, hi)| {
                format!("{:.1}%", (hi - lo) / 2.0 / p.rate * 100.0)
            });
            let when: String = p.started_at.chars().take(19).collect();
            let ci = if p.disturbed {
                format!("{ci} disturbed, left out")
            } else {
                ci
            };
            let _ = writeln!(
                out,
                "{:>6}  {when:<19}  {who:<24} {:>16.0}  {ci:>7}",
                p.run, p.rate
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(run: i64, rate: f64, half: f64) -> HistoryPoint {
        HistoryPoint {
            run,
            label: None,
            started_at: String::new(),
            variant: "v".into(),
            rate,
            ci95: Some((rate * (1.0 - half), rate * (1.0 + half))),
            disturbed: false,
        }
    }

    fn change_at(gap_rate: f64) -> (usize, bool) {
        let mut points: Vec<HistoryPoint> = (1..=7).map(|r| at(r, 1500.0, 0.01)).collect();
        points.push(at(8, gap_rate, 0.15));
        points.extend((9..=15).map(|r| at(r, 310.0, 0.01)));
        let cell = ("aes-128-cbc", Op::Encrypt, Some(8192));
        let h = of_points(cell, points, &Search::default());
        assert_eq!(h.change_points.len(), 1, "{h:?}");
        (h.change_points[0].index, h.points[7].disturbed)
    }

    #[test]
    fn a_disturbed_first_run_of_the_new_build_starts_the_change() {
        assert_eq!(change_at(305.0), (7, true));
    }

    #[test]
    fn a_disturbed_run_at_the_old_level_stays_before_the_change() {
        assert_eq!(change_at(1480.0), (8, true));
    }
}
