//! A comparison of one run against another run carries the drift between runs the store has seen
//! on the machine (`run_noise`), and says so (`across_runs`); without it the interval holds only
//! each run's own spread. The figures are checked against SciPy (the oracle's script is in the
//! comment of `the_between_run_term_widens_the_interval_as_scipy_computes_it`), and the same pair
//! compared without the term is called different, so dropping the term fails these tests.

use cryptospeed_compare::{
    cell_key, compare_with_noise, AcrossRuns, CellKey, Comparison, Filter, RunNoise, RunValue,
    SideInput,
};
use cryptospeed_model::Op;
use std::collections::BTreeMap;

/// Eight bouts' mean time per call (ns) of one sha256@16 run; the other run is 1.5% slower in
/// every bout, as the whole-run shifts on the development VM were (docs/experiments/host-noise.md).
const BOUTS: [f64; 8] = [100.0, 100.4, 99.8, 100.2, 100.1, 99.9, 100.3, 100.0];
const SHIFT: f64 = 1.015;
/// The cell's between-run sd (0.6%, of the size measured on this VM) and its degrees of freedom.
const DRIFT_SD: f64 = 0.006;
const DRIFT_DF: f64 = 12.0;

fn key() -> CellKey {
    cell_key("sha256", Op::Hash, Some(16))
}

fn side(name: &str, run: i64, scale: f64) -> SideInput {
    let bouts: Vec<(u32, f64)> = BOUTS
        .iter()
        .enumerate()
        .map(|(i, ns)| (i as u32, ns * scale))
        .collect();
    let value = RunValue {
        run,
        rate: 16e9 / (100.0 * scale),
        ns_per_op: bouts.iter().map(|b| b.1).collect(),
        paired: bouts.clone(),
        bouts,
    };
    SideInput {
        name: name.into(),
        description: name.into(),
        runs: vec![run],
        cells: [(key(), vec![value])].into_iter().collect(),
    }
}

fn compared(noise: &BTreeMap<CellKey, RunNoise>) -> Comparison {
    let sides = [side("a", 1, 1.0), side("b", 2, SHIFT)];
    compare_with_noise(&sides, 0, 0.05, 0.0, &Filter::default(), noise)
}

fn drift() -> BTreeMap<CellKey, RunNoise> {
    let var = DRIFT_SD * DRIFT_SD;
    [(
        key(),
        RunNoise {
            var,
            df: DRIFT_DF,
            raw: var,
        },
    )]
    .into_iter()
    .collect()
}

fn close(got: f64, want: f64) -> bool {
    (got / want - 1.0).abs() < 1e-6
}

/// SciPy 1.17 (`/tmp`-free, run it anywhere):
/// ```python
/// import numpy as np; from scipy import stats
/// a = np.array([100.0, 100.4, 99.8, 100.2, 100.1, 99.9, 100.3, 100.0]); b = a * 1.015
/// def yuen(x):
///     x = np.sort(np.log(x)); n = len(x); g = int(0.25 * n); h = n - 2 * g
///     w = np.clip(x, x[g], x[n - g - 1])
///     return x[g:n - g].mean(), (n - 1) * w.var(ddof=1) / (h * (h - 1)), h - 1
/// (ma, da, fa), (mb, db, fb) = yuen(a), yuen(b); diff = ma - mb
/// stats.ttest_ind(np.log(a), np.log(b), trim=0.25, equal_var=False)  # p 8.5546e-06: no term
/// s2, dfs = 0.006 ** 2, 12.0; va, vb = da + s2, db + s2
/// dfa = va**2 / (da**2 / fa + s2**2 / dfs); dfb = vb**2 / (db**2 / fb + s2**2 / dfs)
/// se = np.sqrt(va + vb); df = (va + vb)**2 / (va**2 / dfa + vb**2 / dfb)
/// np.exp(diff + np.array([-1, 1]) * stats.t.ppf(0.975, df) * se), 2 * stats.t.sf(abs(diff) / se, df)
/// ```
#[test]
fn the_between_run_term_widens_the_interval_as_scipy_computes_it() {
    let with = compared(&drift());
    let v = with.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(v.test, Some("bouts+runs"));
    assert!(close(v.ratio, 0.985221674877), "{v:?}");
    let (lo, hi) = v.ratio_ci.unwrap();
    assert!(
        close(lo, 0.968010952743) && close(hi, 1.002738394536),
        "{v:?}"
    );
    assert!((v.p.unwrap() - 0.094129556242).abs() < 1e-6, "{v:?}");
    assert_eq!(v.significant, Some(false));
    assert_eq!(with.rows[0].run_noise, Some(DRIFT_SD));

    // The same two runs on their own intervals: SciPy's Yuen test, p 8.55e-6, interval
    // 0.982647–0.987803 — a 1.5% drift called a difference.
    let without = compared(&BTreeMap::new());
    let v = without.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(v.test, Some("bouts"));
    let (lo, hi) = v.ratio_ci.unwrap();
    assert!(
        close(lo, 0.982647044154) && close(hi, 0.987803051382),
        "{v:?}"
    );
    assert!((v.p.unwrap() - 8.554555640751e-6).abs() < 1e-9, "{v:?}");
    assert_eq!(v.significant, Some(true));
}

#[test]
fn the_comparison_says_what_its_intervals_across_runs_hold() {
    assert_eq!(
        compared(&drift()).across_runs,
        AcrossRuns {
            with_drift: 1,
            without_drift: 0,
            drift_sd: Some(DRIFT_SD),
        }
    );
    assert_eq!(
        compared(&BTreeMap::new()).across_runs,
        AcrossRuns {
            with_drift: 0,
            without_drift: 1,
            drift_sd: None,
        }
    );
    // Two variants of one run are paired: nothing is compared across runs.
    let sides = [side("a", 1, 1.0), side("b", 1, SHIFT)];
    let paired = compare_with_noise(&sides, 0, 0.05, 0.0, &Filter::default(), &drift());
    assert_eq!(
        paired.rows[0].versus[1].as_ref().unwrap().test,
        Some("paired bouts")
    );
    assert!(paired.across_runs.is_empty());
}

/// A store's first runs: two cells, three runs each, scattering less than their own errors say
/// (moment estimates ±1e-6). The learnt drift alone is 0 and would call a 1% whole-run shift a
/// difference (SciPy's Yuen p 8.7e-5); the prior (0.54% over 20 runs, against the best-covered
/// cell's 3) keeps the term honest. SciPy, with `a`, `yuen` as above:
/// ```python
/// pooled = (20 * 0.0054**2 + 3 * 0.0) / 23; s2 = (3 * pooled + 3 * -1e-6) / 6; dfs = 6.0
/// b = a * 1.01  # then va, vb, dfa, dfb, se, df and the interval as above
/// # s2 1.2178260869565e-05; interval 0.97936430–1.00095138, p 0.070303077487
/// ```
#[test]
fn a_short_history_is_held_up_by_the_prior_as_scipy_computes_it() {
    let raw = |r: f64| RunNoise {
        var: r.max(0.0),
        df: 3.0,
        raw: r,
    };
    let own: BTreeMap<CellKey, RunNoise> = [
        (key(), raw(-1e-6)),
        (cell_key("md5", Op::Hash, Some(16)), raw(1e-6)),
    ]
    .into_iter()
    .collect();
    let noise = cryptospeed_compare::moderate(own);
    let n = noise[&key()];
    assert!(close(n.var, 1.2178260869565218e-05), "{n:?}");
    assert_eq!(n.df, 6.0);
    let sides = [side("a", 1, 1.0), side("b", 2, 1.01)];
    let c = compare_with_noise(&sides, 0, 0.05, 0.0, &Filter::default(), &noise);
    let v = c.rows[0].versus[1].as_ref().unwrap();
    let (lo, hi) = v.ratio_ci.unwrap();
    assert!(close(lo, 0.9793643) && close(hi, 1.00095138), "{v:?}");
    assert!((v.p.unwrap() - 0.070303077487).abs() < 1e-6, "{v:?}");
    assert_eq!(v.significant, Some(false));
}
