//! Pins the verdict rule: a named difference explains a gap only when the point ratio is inside
//! its band and the 95% interval overlaps it; a layout difference gets its own verdict.

use super::{verdict, Verdict};
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

#[test]
fn point_in_band_and_interval_overlapping_is_explained() {
    assert_eq!(verdict(0.92, [0.90, 0.94], Some(&BAND)), Verdict::Explained);
    // The interval reaching past the band on both sides still overlaps it.
    assert_eq!(verdict(0.92, [0.80, 1.10], Some(&BAND)), Verdict::Explained);
    // Band edges are inside.
    assert_eq!(verdict(0.88, [0.86, 0.88], Some(&BAND)), Verdict::Explained);
    assert_eq!(verdict(0.97, [0.97, 0.99], Some(&BAND)), Verdict::Explained);
}

#[test]
fn point_in_band_but_interval_wholly_outside_is_not_explained() {
    // A point inside with an interval entirely below or above the band (as a skewed log-mean
    // interval can fall) is a gap the difference does not cover.
    assert_eq!(
        verdict(0.90, [0.80, 0.87], Some(&BAND)),
        Verdict::Unexplained
    );
    assert_eq!(
        verdict(0.96, [0.98, 1.02], Some(&BAND)),
        Verdict::Unexplained
    );
}

#[test]
fn point_outside_band_is_not_explained_even_if_the_interval_overlaps() {
    assert_eq!(
        verdict(0.85, [0.80, 0.90], Some(&BAND)),
        Verdict::Unexplained
    );
    assert_eq!(
        verdict(0.87, [0.86, 0.89], Some(&BAND)),
        Verdict::Unexplained
    );
}

#[test]
fn no_difference_is_unexplained_and_within_three_percent_agrees() {
    assert_eq!(verdict(0.92, [0.90, 0.94], None), Verdict::Unexplained);
    assert_eq!(verdict(0.975, [0.90, 1.05], None), Verdict::Agrees);
    assert_eq!(verdict(0.971, [0.96, 0.98], Some(&BAND)), Verdict::Agrees);
}

#[test]
fn a_layout_difference_is_its_own_verdict_under_the_same_rule() {
    assert_eq!(verdict(0.92, [0.90, 0.94], Some(&LAYOUT)), Verdict::Layout);
    assert_eq!(
        verdict(0.90, [0.80, 0.87], Some(&LAYOUT)),
        Verdict::Unexplained
    );
}
