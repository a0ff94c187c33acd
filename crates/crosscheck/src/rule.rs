//! The verdict rule, apart from the report that prints it: the interval of ours/oracle over
//! rounds (Yuen's interval of the trimmed mean log ratio, so that one disturbed round cannot
//! blow it open), the regions agreement and a named difference cover, the edge of ±3%, and the
//! round counts at which a cell is judged. docs/experiments/crosscheck.md, "The verdict rule",
//! says what it promises; scripts/crosscheck-rule re-derives it by simulation.

use crate::rounds::Pairs;
use crate::{Difference, Kind};
use serde::Serialize;

/// The band inside which the two figures agree.
pub const AGREES_WITHIN: f64 = 0.03;

/// The ratios agreement covers: 1 ± [`AGREES_WITHIN`].
pub const AGREES: (f64, f64) = (1.0 - AGREES_WITHIN, 1.0 + AGREES_WITHIN);

/// The nominal level of the interval. Yuen's interval of a 25%-trimmed mean is a little liberal
/// at few rounds: at a nominal 95% its upper end fell below the true log ratio in 2.8–3.3% of
/// normal samples of 4–20 rounds; at 96.5% in at most 2.5% (scripts/crosscheck-rule), so each
/// end errs at most 2.5%, what a 95% interval promises.
pub const CONFIDENCE: f64 = 0.965;

/// How far past an edge of what is covered an interval may reach, either side, and still be
/// judged "at the edge": an interval that holds 0.97 (or 1.03, or a band's end) and lies within
/// 0.5% of it says the gap is that edge, to within 0.5%; more rounds would only narrow it there.
pub const EDGE: f64 = 0.005;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Agrees,
    /// A named difference in what is timed accounts for the gap.
    Explained,
    /// The worker binary's code layout accounts for the gap (`Kind::Layout`): the same calls,
    /// not a definition difference nor a harness cost.
    Layout,
    /// The interval holds an edge of what is covered (0.97, 1.03, a band's end) and lies within
    /// [`EDGE`] of it: the gap is that edge, and no number of rounds would put it on one side.
    Edge,
    Unexplained,
    /// The host ran in two states and cryptospeed set aside the bouts its canary found in the
    /// slow one, which the oracle cannot: the figures are unexplained (or at an edge) as our
    /// side reported them, and agree (or are explained) over every bout of ours.
    Host,
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

fn inside(ci: [f64; 2], (lo, hi): (f64, f64)) -> bool {
    lo <= ci[0] && ci[1] <= hi
}

fn overlaps(ci: [f64; 2], (lo, hi): (f64, f64)) -> bool {
    ci[0] <= hi && ci[1] >= lo
}

/// What a named difference covers: its band, joined with ±3% where the two touch.
fn covered_by(d: &Difference) -> (f64, f64) {
    let (lo, hi) = d.band;
    if touches_agreement(d) {
        (lo.min(AGREES.0), hi.max(AGREES.1))
    } else {
        d.band
    }
}

/// A named difference accounts for the cell when its whole interval lies inside the band the
/// difference was measured to produce, or inside the band and ±3% together where the two touch
/// (part of the interval may be agreement, the rest the difference).
pub fn explains(d: &Difference, ci: [f64; 2]) -> bool {
    inside(ci, d.band) || inside(ci, covered_by(d))
}

/// The edge an interval is at: an end of ±3% or of what the difference covers that the interval
/// holds, the whole interval within [`EDGE`] of it.
pub fn edge_of(ci: [f64; 2], difference: Option<&Difference>) -> Option<f64> {
    let mut edges = vec![AGREES.0, AGREES.1];
    if let Some(d) = difference {
        let (lo, hi) = covered_by(d);
        edges.extend([lo, hi]);
    }
    edges
        .into_iter()
        .find(|e| e - EDGE <= ci[0] && ci[0] <= *e && *e <= ci[1] && ci[1] <= e + EDGE)
}

/// Whether a named difference's band touches ±3%, so that what it covers is one stretch with
/// agreement ([`covered_by`]).
pub fn touches_agreement(d: &Difference) -> bool {
    let (lo, hi) = d.band;
    lo <= AGREES.1 && hi >= AGREES.0
}

/// The verdict of a cell's interval of ours/oracle and its named difference. Decided only when
/// the whole interval says one thing:
/// - agrees: the interval lies inside ±3% and the cell has no named difference whose band
///   touches ±3%;
/// - explained (layout): it lies inside what the named difference covers ([`explains`]). Where
///   the band touches ±3% that stretch includes ±3% itself, so such a cell reads "explained"
///   whichever side of 0.97 (or 1.03) its interval falls in a run: a cell whose ratio sits at the
///   band's meeting with ±3% would otherwise read "agrees" in one run and "explained" in the
///   next with nothing changed. A band apart from ±3% leaves a cell inside ±3% "agrees": the
///   declared difference did not show;
/// - at the edge: it holds an edge of those and lies within [`EDGE`] of it ([`edge_of`]);
/// - unexplained: it lies wholly outside ±3% and outside the difference's band;
/// - undecided otherwise: it reaches both into and out of those (more rounds may narrow it).
pub fn verdict(ci: [f64; 2], difference: Option<&Difference>) -> Verdict {
    if inside(ci, AGREES) && !difference.is_some_and(touches_agreement) {
        return Verdict::Agrees;
    }
    if let Some(d) = difference.filter(|d| explains(d, ci)) {
        return match d.kind {
            Kind::Layout => Verdict::Layout,
            Kind::Definition => Verdict::Explained,
        };
    }
    if edge_of(ci, difference).is_some() {
        return Verdict::Edge;
    }
    let in_band = difference.is_some_and(|d| overlaps(ci, d.band));
    if overlaps(ci, AGREES) || in_band {
        Verdict::Undecided
    } else {
        Verdict::Unexplained
    }
}

/// A cell's rounds judged: the ratio and interval of our figures as reported, the verdict,
/// and, where the canary set bouts aside in some round, the ratio and interval over every bout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub ratio: f64,
    pub ci: [f64; 2],
    pub verdict: Verdict,
    pub every_bout: Option<(f64, [f64; 2])>,
}

/// Judges a cell's rounds: [`verdict`] of our figures as reported. A cell that verdict calls
/// unexplained or at an edge, where the canary set bouts aside in some round, is judged again
/// over every bout ([`Pairs::ours_every_bout`]): agreeing, explained or at an edge there, it is
/// [`Verdict::Host`]; an unexplained cell undecided there is undecided (the host's set-aside
/// moved it, and whether that is all cannot be told yet), an edge stays an edge; unexplained
/// there too, it stays unexplained. One round has no interval: undecided.
pub fn judge_rounds(pairs: &Pairs, difference: Option<&Difference>) -> Judged {
    let (ratio, ci) = ratio_interval(pairs);
    let mut verdict = if pairs.len() < 2 {
        Verdict::Undecided
    } else {
        verdict(ci, difference)
    };
    let every_bout = every_bout_pairs(pairs).map(|p| ratio_interval(&p));
    if let Some((_, every_ci)) = every_bout {
        if matches!(verdict, Verdict::Unexplained | Verdict::Edge) {
            verdict = match (verdict, self::verdict(every_ci, difference)) {
                (_, Verdict::Agrees | Verdict::Explained | Verdict::Layout | Verdict::Edge) => {
                    Verdict::Host
                }
                (Verdict::Unexplained, Verdict::Undecided) => Verdict::Undecided,
                (kept, _) => kept,
            };
        }
    }
    Judged {
        ratio,
        ci,
        verdict,
        every_bout,
    }
}

/// The rounds with our every-bout figures in place of our reported ones, when every round has
/// one and some round's differs from its reported figure (the canary set bouts aside).
fn every_bout_pairs(pairs: &Pairs) -> Option<Pairs> {
    let every = &pairs.ours_every_bout;
    let moved = every
        .iter()
        .zip(&pairs.ours)
        .any(|(e, o)| (e / o - 1.0).abs() > 1e-9);
    (every.len() == pairs.ours.len() && moved).then(|| Pairs {
        ours: every.clone(),
        ..pairs.clone()
    })
}

/// The round counts at which a cell is judged: `rounds`, then doubling, and `max_rounds` last.
/// Few looks keep the chance that one of them calls a cell at the very edge of ±3% "agrees"
/// small (at most 2.5% per look, so 2.5% times the looks), where judging after every round
/// would add up.
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

/// The median of the per-round ratios ours/oracle and the [`CONFIDENCE`] interval of their
/// 25%-trimmed geometric mean: each round is one bout of one figure to crates/stats' Yuen
/// interval (`bout_estimate`), so a quarter of the rounds at either end (one of 4–7, two of
/// 8–11, five of 20) may be disturbed without opening it; two or three rounds trim nothing
/// (the plain t interval). One round, or a figure that is not positive, gives no interval.
pub fn ratio_interval(pairs: &Pairs) -> (f64, [f64; 2]) {
    let mut r: Vec<f64> = pairs
        .ours
        .iter()
        .zip(&pairs.oracle)
        .map(|(o, b)| o / b)
        .collect();
    r.sort_by(f64::total_cmp);
    let n = r.len();
    if n == 0 {
        return (f64::NAN, [0.0, f64::MAX]);
    }
    let median = if n % 2 == 1 {
        r[n / 2]
    } else {
        (r[n / 2 - 1] + r[n / 2]) / 2.0
    };
    if n < 2 {
        return (median, [median, median]);
    }
    let rounds: Vec<Vec<f64>> = r.iter().map(|x| vec![*x]).collect();
    match cryptospeed_stats::bout_estimate(&rounds, CONFIDENCE) {
        Some(e) => (median, [e.ci.0, e.ci.1]),
        None => (median, [0.0, f64::MAX]),
    }
}

#[cfg(test)]
#[path = "rule_tests.rs"]
mod tests;
