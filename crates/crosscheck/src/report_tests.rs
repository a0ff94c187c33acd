//! Pins the verdict rule: a cell is decided only when its whole 95% interval says one thing
//! (inside ±3%: agrees; inside what a named difference covers: explained; wholly outside both:
//! unexplained), else it is undecided; and the round counts at which a cell is judged.

use super::{looks, ratio_interval, verdict, Verdict};
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

use Verdict::{Agrees, Explained, Layout, Undecided, Unexplained};

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
    // Inside ±3% it agrees, band or not.
    assert_eq!(verdict([0.971, 0.99], Some(&BAND)), Agrees);
    // A band apart from ±3% covers only what lies inside it, not the gap between them.
    assert_eq!(verdict([0.76, 0.82], Some(&APART)), Explained);
    assert_eq!(verdict([0.80, 0.90], Some(&APART)), Undecided);
    assert_eq!(verdict([0.80, 0.98], Some(&APART)), Undecided);
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

#[test]
fn the_interval_is_the_t_interval_of_the_log_ratios() {
    // Ratios 1.038, 1.057, 0.985 (about the go ml-dsa-65 sign rounds of the idle run): log
    // mean 0.025872, sd 0.036635, t(2) 4.30265: exp(0.025872 ± 0.091007) = 0.9369-1.1240.
    let pairs = Pairs {
        ours: vec![1.038, 1.057, 0.985],
        oracle: vec![1.0, 1.0, 1.0],
        oracle_cpu_share: vec![],
    };
    let (median, ci) = ratio_interval(&pairs);
    assert!((median - 1.038).abs() < 1e-12, "{median}");
    assert!(
        (ci[0] - 0.9369).abs() < 2e-4 && (ci[1] - 1.1240).abs() < 2e-4,
        "{ci:?}"
    );
    assert_eq!(verdict(ci, None), Undecided);
}
