//! Pins the verdict rule: a cell is decided only when its whole interval says one thing (inside
//! ±3%: agrees, unless a named difference's band touches ±3%; inside what a named difference
//! covers: explained; holding an edge and within
//! 0.5% of it: at the edge; wholly outside both: unexplained), else it is undecided; the
//! interval (Yuen's, against SciPy); and the round counts at which a cell is judged.

use super::{edge_of, judge_rounds, looks, ratio_interval, verdict, Verdict};
use crate::rounds::Pairs;
use crate::{Difference, Kind};

const BAND: Difference = Difference {
    kind: Kind::Definition,
    what: "test band",
    band: (0.88, 0.97),
    measured: "none: a unit test",
};

const LAYOUT: Difference = Difference {
    kind: Kind::Layout,
    ..BAND
};

/// A band apart from ±3% (aws-lc sha256@16's 0.75-0.83).
const APART: Difference = Difference {
    band: (0.75, 0.83),
    ..BAND
};

use Verdict::{Agrees, Edge, Explained, Host, Layout, Undecided, Unexplained};

#[test]
fn agrees_only_when_the_whole_interval_is_inside_three_percent() {
    assert_eq!(verdict([0.975, 1.02], None), Agrees);
    // The edges are inside.
    assert_eq!(verdict([0.97, 1.03], None), Agrees);
    // A median near 1 with an interval reaching past ±3% is not agreement.
    assert_eq!(verdict([0.918, 1.011], None), Undecided);
    assert_eq!(verdict([0.969, 1.0], None), Undecided);
    assert_eq!(verdict([1.0, 1.031], None), Undecided);
    assert_eq!(verdict([0.90, 1.10], None), Undecided);
}

#[test]
fn unexplained_only_when_the_whole_interval_is_outside_what_is_covered() {
    assert_eq!(verdict([0.896, 0.934], None), Unexplained);
    assert_eq!(verdict([1.031, 1.2], None), Unexplained);
    // Touching ±3% is not outside it.
    assert_eq!(verdict([0.9, 0.97], None), Undecided);
    // Outside ±3% but reaching into the band: more rounds may settle it inside.
    assert_eq!(verdict([0.85, 0.90], Some(&BAND)), Undecided);
    assert_eq!(verdict([0.80, 0.87], Some(&BAND)), Unexplained);
    assert_eq!(verdict([0.70, 0.74], Some(&APART)), Unexplained);
    assert_eq!(verdict([0.84, 0.96], Some(&APART)), Unexplained);
}

#[test]
fn explained_when_the_interval_is_inside_the_band_or_the_band_and_three_percent_together() {
    assert_eq!(verdict([0.90, 0.94], Some(&BAND)), Explained);
    // The band's edges are inside.
    assert_eq!(verdict([0.88, 0.97], Some(&BAND)), Explained);
    // The band touches ±3%: an interval over both is covered.
    assert_eq!(verdict([0.91, 1.02], Some(&BAND)), Explained);
    assert_eq!(verdict([0.91, 1.031], Some(&BAND)), Undecided);
    assert_eq!(verdict([0.879, 0.95], Some(&BAND)), Undecided);
    // A band apart from ±3% covers only what lies inside it, not the gap between them.
    assert_eq!(verdict([0.76, 0.82], Some(&APART)), Explained);
    assert_eq!(verdict([0.80, 0.90], Some(&APART)), Undecided);
    assert_eq!(verdict([0.80, 0.98], Some(&APART)), Undecided);
}

#[test]
fn a_band_touching_three_percent_keeps_its_cell_explained_on_either_side_of_the_edge() {
    // Two runs of one cell whose ratio sits where the band meets ±3%: one interval inside ±3%,
    // the other reaching below 0.97 into the band. Both are the same finding.
    assert_eq!(verdict([0.971, 0.99], Some(&BAND)), Explained);
    assert_eq!(verdict([0.955, 0.985], Some(&BAND)), Explained);
    assert_eq!(verdict([0.975, 1.02], Some(&LAYOUT)), Layout);
    // A band wholly inside ±3% (1.00-1.02, as ring's nonce sequence was once declared) touches it too.
    let within = Difference {
        band: (1.00, 1.02),
        ..BAND
    };
    assert_eq!(verdict([0.98, 1.01], Some(&within)), Explained);
    // A band apart from ±3%: inside ±3% the declared difference did not show, and the cell
    // agrees, which says the declaration no longer holds.
    assert_eq!(verdict([0.98, 1.01], Some(&APART)), Agrees);
    // No difference: agreement as before.
    assert_eq!(verdict([0.971, 0.99], None), Agrees);
}

#[test]
fn a_layout_difference_is_its_own_verdict_under_the_same_rule() {
    assert_eq!(verdict([0.90, 0.94], Some(&LAYOUT)), Layout);
    assert_eq!(verdict([0.80, 0.87], Some(&LAYOUT)), Unexplained);
    assert_eq!(verdict([0.85, 0.94], Some(&LAYOUT)), Undecided);
}

#[test]
fn only_undecided_asks_for_more_rounds() {
    for v in [Agrees, Explained, Layout, Unexplained] {
        assert!(v.decided(), "{v:?}");
    }
    assert!(!Undecided.decided());
}

#[test]
fn a_cell_is_judged_at_its_rounds_then_twice_as_many_up_to_the_cap() {
    assert_eq!(looks(5, 20), [5, 10, 20]);
    assert_eq!(looks(3, 20), [3, 6, 12, 20]);
    assert_eq!(looks(5, 5), [5]);
    assert_eq!(looks(5, 7), [5, 7]);
    // One round has no interval: the first look is at two.
    assert_eq!(looks(1, 4), [2, 4]);
}

fn pairs(ratios: &[f64]) -> Pairs {
    Pairs {
        ours: ratios.to_vec(),
        oracle: vec![1.0; ratios.len()],
        ..Pairs::default()
    }
}

fn close(ci: [f64; 2], want: [f64; 2]) -> bool {
    (ci[0] - want[0]).abs() < 1e-9 && (ci[1] - want[1]).abs() < 1e-9
}

// Expected intervals from SciPy 1.17.1 (Yuen's interval of the 25%-trimmed mean log ratio at
// the nominal 96.5% the rule takes, the standard error as crates/stats takes it):
//   x = np.log(r); n = len(x); g = floor(0.25 n); h = n - 2 g
//   m = scipy.stats.trim_mean(x, 0.25); w = scipy.stats.mstats.winsorize(x, (0.25, 0.25))
//   se = sqrt((n - 1) var(w, ddof=1) / (h (h - 1))); t = scipy.stats.t.ppf(0.9825, h - 1)
//   exp(m ± t se)

#[test]
fn three_rounds_trim_nothing_the_plain_t_interval_at_96_5_percent() {
    // Ratios 1.038, 1.057, 0.985 (about the go ml-dsa-65 sign rounds of the idle run).
    let (median, ci) = ratio_interval(&pairs(&[1.038, 1.057, 0.985]));
    assert!((median - 1.038).abs() < 1e-12, "{median}");
    assert!(
        close(ci, [0.9192503627000833, 1.1456146823674205]),
        "{ci:?}"
    );
    assert_eq!(verdict(ci, None), Undecided);
}

#[test]
fn one_disturbed_round_of_six_does_not_open_the_interval() {
    // Five rounds about 0.98 and one at 0.25 (a disturbed oracle round, as libgcrypt ecdsa-p256
    // sign's 0.041-4.522 of the 20:04 run): the plain 95% t interval of the logs is
    // 0.435-1.404 (undecided); one round of six is trimmed and the cell agrees.
    let (_, ci) = ratio_interval(&pairs(&[0.985, 0.979, 0.981, 0.25, 0.984, 0.978]));
    assert!(close(ci, [0.973879196616216, 0.9871604275037287]), "{ci:?}");
    assert_eq!(verdict(ci, None), Agrees);
}

#[test]
fn a_narrow_interval_holding_an_edge_is_at_the_edge() {
    // boringssl sha256@16 of the 20:04 run read 0.970 (0.969-0.972): rounds like these.
    let (_, ci) = ratio_interval(&pairs(&[0.970, 0.971, 0.969, 0.972, 0.970, 0.971]));
    assert!(
        close(ci, [0.9692031961031619, 0.9717982810900135]),
        "{ci:?}"
    );
    assert_eq!(verdict(ci, None), Edge);
    assert_eq!(edge_of(ci, None), Some(0.97));
    // ring aes-128-gcm@16's rounds: 1.021-1.034 holds 1.03 but reaches 0.9% inside: more rounds.
    let (_, ci) = ratio_interval(&pairs(&[1.024, 1.031, 1.027, 1.029, 1.026]));
    assert!(
        close(ci, [1.0209102049430583, 1.0337953500633326]),
        "{ci:?}"
    );
    assert_eq!(verdict(ci, None), Undecided);
}

#[test]
fn at_the_edge_only_within_half_a_percent_of_an_edge_it_holds() {
    assert_eq!(verdict([1.026, 1.034], None), Edge);
    assert_eq!(verdict([1.0251, 1.0349], None), Edge);
    assert_eq!(verdict([0.9651, 0.9749], None), Edge);
    // Reaching further either side, or not holding the edge, is not the edge.
    assert_eq!(verdict([1.024, 1.034], None), Undecided);
    assert_eq!(verdict([1.026, 1.036], None), Undecided);
    assert_eq!(verdict([1.031, 1.034], None), Unexplained);
    assert_eq!(verdict([0.966, 0.969], None), Unexplained);
    // A band's end is an edge too (APART: 0.75-0.83), and the joined band's (BAND: 0.88-1.03).
    assert_eq!(verdict([0.826, 0.834], Some(&APART)), Edge);
    assert_eq!(verdict([0.877, 0.884], Some(&BAND)), Edge);
    assert_eq!(edge_of([0.877, 0.884], Some(&BAND)), Some(0.88));
    assert!(Edge.decided());
}

/// Rounds whose reported figures read `ratios` of the oracle's and whose every-bout figures
/// read `every`.
fn with_every_bout(ratios: &[f64], every: &[f64]) -> Pairs {
    Pairs {
        ours_every_bout: every.to_vec(),
        ..pairs(ratios)
    }
}

#[test]
fn the_host_explains_a_gap_only_when_every_bout_agrees_and_the_reported_figure_does_not() {
    // BoringSSL on a two-state VM: the canary kept the fast state's bouts (ours 1.15-1.18x the
    // oracle's), every bout read as the oracle does.
    let fast = [1.16, 1.17, 1.15, 1.18, 1.16, 1.17];
    let every = [1.0, 1.01, 0.99, 1.0, 1.005, 0.995];
    let j = judge_rounds(&with_every_bout(&fast, &every), None);
    assert_eq!(j.verdict, Host);
    assert!(j.every_bout.is_some_and(|(r, _)| (r - 1.0).abs() < 0.01));
    // Every bout as far off as the reported figure: a harness cost, unexplained.
    assert_eq!(
        judge_rounds(&with_every_bout(&fast, &fast.map(|x| x * 0.999)), None).verdict,
        Unexplained
    );
    // No every-bout figure kept (an older file), or none differing: the plain rule.
    assert_eq!(judge_rounds(&pairs(&fast), None).verdict, Unexplained);
    assert_eq!(
        judge_rounds(&with_every_bout(&fast, &fast), None).verdict,
        Unexplained
    );
    // Every bout undecided: not explained by the host, and not unexplained either (the
    // set-aside moved the figure; whether that is all cannot be told yet).
    let wide = [0.9, 1.1, 0.95, 1.12, 0.92, 1.08];
    assert_eq!(
        judge_rounds(&with_every_bout(&fast, &wide), None).verdict,
        Undecided
    );
    // An edge stays an edge when every bout is undecided, and is the host when every bout agrees.
    let edge = [1.028, 1.031, 1.033, 1.029, 1.032, 1.030];
    assert_eq!(judge_rounds(&pairs(&edge), None).verdict, Edge);
    assert_eq!(
        judge_rounds(&with_every_bout(&edge, &wide), None).verdict,
        Edge
    );
    assert_eq!(
        judge_rounds(&with_every_bout(&edge, &every), None).verdict,
        Host
    );
    // A reported figure that agrees stays "agrees" whatever every bout reads.
    let near = [1.0, 1.01, 0.99, 1.0, 1.005, 0.995];
    assert_eq!(
        judge_rounds(&with_every_bout(&near, &fast), None).verdict,
        Agrees
    );
}
