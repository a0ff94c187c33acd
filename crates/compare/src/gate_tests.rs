//! The gate's decision pinned either side of each threshold: Benjamini–Hochberg's step-up
//! bound, the one-sided tests against the threshold of practical interest (t quantiles from
//! SciPy), the verdicts they make, and the confirmation.

use super::*;
use crate::cell_key;
use cryptospeed_model::Op;

fn key(bytes: u64) -> CellKey {
    cell_key("sha256", Op::Hash, Some(bytes))
}

/// A cell whose log ratio sits `t` standard errors (0.005) from ln(1 - 2%).
fn at(t: f64, df: f64) -> Evidence {
    at_se(t, df, 0.005)
}

fn at_se(t: f64, df: f64, se: f64) -> Evidence {
    Evidence {
        ratio: ((0.98f64).ln() + t * se).exp(),
        log_se: se,
        df,
        pairs: df as usize + 1,
    }
}

// scipy.stats.t.ppf(0.05, 9)
const T05_DF9: f64 = -1.8331129326562376;

#[test]
fn benjamini_hochberg_either_side_of_its_step_up_bound() {
    let q = 0.05;
    // Bounds k q / m for m = 4: 0.0125, 0.025, 0.0375, 0.05.
    let p = |v: &[f64]| v.iter().map(|x| Some(*x)).collect::<Vec<_>>();
    assert_eq!(
        benjamini_hochberg(&p(&[0.0125, 0.025, 0.0375, 0.5]), q),
        [true, true, true, false]
    );
    assert_eq!(
        benjamini_hochberg(&p(&[0.0126, 0.026, 0.0376, 0.5]), q),
        [false, false, false, false]
    );
    // Step-up: the largest rank under its bound takes every smaller p with it.
    assert_eq!(
        benjamini_hochberg(&p(&[0.05, 0.05, 0.05, 0.05]), q),
        [true; 4]
    );
    assert_eq!(
        benjamini_hochberg(&p(&[0.0501, 0.0501, 0.0501, 0.0501]), q),
        [false; 4]
    );
    assert_eq!(
        benjamini_hochberg(&p(&[0.04, 0.001, 0.2, 0.03]), q),
        [false, true, false, false],
        "0.03 is rank 2 (bound 0.025), 0.04 rank 3 (0.0375)"
    );
    // A cell without a p-value still counts in m: 0.0125 is rank 1 of 4, 0.02 rank 2.
    assert_eq!(
        benjamini_hochberg(&[Some(0.0125), Some(0.02), None, None], q),
        [true, true, false, false]
    );
    assert_eq!(
        benjamini_hochberg(&[Some(0.013), None, None, None], q),
        [false; 4]
    );
}

#[test]
fn the_threshold_tests_either_side_of_the_threshold() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-7;
    let t = threshold_tests(&at(T05_DF9, 9.0), 0.02);
    assert!(close(t.regression, 0.05), "{t:?}");
    assert!(close(t.not_regression, 0.95), "{t:?}");
    let below = threshold_tests(&at(T05_DF9 - 0.01, 9.0), 0.02);
    let above = threshold_tests(&at(T05_DF9 + 0.01, 9.0), 0.02);
    assert!(below.regression < 0.05 && above.regression > 0.05);
    // At the bound itself neither way is shown.
    let on = threshold_tests(&at(0.0, 9.0), 0.02);
    assert!(close(on.regression, 0.5) && close(on.not_regression, 0.5));
    // 1.5% slower, precisely: not a regression past 2%, and no change past 2% either way.
    let small = Evidence {
        ratio: 0.985,
        log_se: 0.0005,
        df: 20.0,
        pairs: 21,
    };
    let s = threshold_tests(&small, 0.02);
    assert!(s.regression > 0.99 && s.not_regression < 1e-6 && s.not_improvement < 1e-6);
    // The same 1.5% is a regression past 1%.
    assert!(threshold_tests(&small, 0.01).regression < 1e-6);
}

#[test]
fn a_lone_cell_is_flagged_just_past_the_threshold_test_and_not_before() {
    let cfg = GateConfig::default();
    let judge = |e: Evidence| decide(&[(key(16), Some(e))], &cfg)[0].verdict;
    assert_eq!(judge(at(T05_DF9 - 0.01, 9.0)), GateVerdict::Flagged);
    assert_eq!(judge(at(T05_DF9 + 0.01, 9.0)), GateVerdict::Undecided);
    // Shown above the threshold at 5% (1.83 standard errors above ln 0.98), with too wide an
    // interval to rule out a 2% improvement: not slower.
    assert_eq!(
        judge(at_se(-T05_DF9 + 0.01, 9.0, 0.02)),
        GateVerdict::NotSlower
    );
    assert_eq!(
        judge(at_se(-T05_DF9 - 0.01, 9.0, 0.02)),
        GateVerdict::Undecided
    );
    let exact = |ratio: f64| Evidence {
        ratio,
        log_se: 0.002,
        df: 20.0,
        pairs: 21,
    };
    assert_eq!(judge(exact(1.0)), GateVerdict::Same);
    assert_eq!(judge(exact(1.05)), GateVerdict::Improvement);
    assert_eq!(judge(exact(0.95)), GateVerdict::Flagged);
    let none = decide(&[(key(16), None)], &cfg);
    assert_eq!(none[0].verdict, GateVerdict::Undecided);
    assert!(none[0].why.as_deref().unwrap().contains("fewer than two"));
}

#[test]
fn across_many_cells_one_p_of_0_04_is_not_enough() {
    // Alone, one-sided p = 0.04 would flag; among 20 cells BH needs p ≤ 0.0025 for the smallest.
    let cfg = GateConfig::default();
    let t_p04 = -1.9726526520732404; // scipy.stats.t.ppf(0.04, 9)
    let mut cells: Vec<(CellKey, Option<Evidence>)> =
        (0..19).map(|i| (key(16 + i), Some(at(4.0, 9.0)))).collect();
    cells.push((key(1000), Some(at(t_p04, 9.0))));
    let judged = decide(&cells, &cfg);
    assert_eq!(judged[19].verdict, GateVerdict::Undecided);
    assert_eq!(
        decide(&cells[19..], &cfg)[0].verdict,
        GateVerdict::Flagged,
        "alone it is flagged"
    );
}

#[test]
fn confirmation_keeps_or_clears_a_flag() {
    let cfg = GateConfig::default();
    let slow = Evidence {
        ratio: 0.95,
        log_se: 0.002,
        df: 20.0,
        pairs: 21,
    };
    let fine = Evidence { ratio: 1.0, ..slow };
    let wide = Evidence {
        ratio: 0.97,
        log_se: 0.05,
        ..slow
    };
    let cells = vec![
        (key(16), Some(slow)),
        (key(64), Some(slow)),
        (key(256), Some(slow)),
    ];
    let mut judged = decide(&cells, &cfg);
    assert!(judged.iter().all(|c| c.verdict == GateVerdict::Flagged));
    assert_eq!(outcome(&judged), GateOutcome::Regression);
    confirm(
        &mut judged,
        &[
            (key(16), Some(slow)),
            (key(64), Some(fine)),
            (key(256), Some(wide)),
        ],
        &cfg,
    );
    let v: Vec<GateVerdict> = judged.iter().map(|c| c.verdict).collect();
    assert_eq!(
        v,
        [
            GateVerdict::Regression,
            GateVerdict::Same,
            GateVerdict::Undecided
        ]
    );
    assert_eq!(outcome(&judged), GateOutcome::Regression);
    let mut cleared = decide(&cells[1..2], &cfg);
    confirm(&mut cleared, &[(key(64), Some(fine))], &cfg);
    assert_eq!(outcome(&cleared), GateOutcome::Pass);
    assert!(cleared[0].why.as_deref().unwrap().contains("no regression"));
}

#[test]
fn evidence_pools_runs_without_pairing_across_them() {
    let run = |shift: f64| PairedRun {
        base: (0..6)
            .map(|i| (i, 100.0 * shift * (1.0 + 0.01 * i as f64)))
            .collect(),
        cand: (0..6)
            .map(|i| (i, 102.0 * shift * (1.0 + 0.01 * i as f64)))
            .collect(),
    };
    let e = evidence(&[run(1.0), run(1.5)]).unwrap();
    assert_eq!(e.pairs, 12);
    assert!((e.ratio - 100.0 / 102.0).abs() < 1e-9, "{e:?}");
    assert!(evidence(&[PairedRun {
        base: vec![(0, 1.0)],
        cand: vec![(0, 1.0)]
    }])
    .is_none());
}
