//! Coverage of every interval `compare` reports, on simulated runs with the noise this VM shows
//! (docs/experiments/host-noise.md): bouts whose rounds drift together, per-process scatter, bursts that
//! make a quarter of the bouts 20–50% slow (sometimes both arms of a round, sometimes one), and
//! a run-to-run shift. Each check goes through `compare_with_noise`, the function the command
//! calls, and holds both sides: coverage (or the A/A false-positive rate) inside a band around
//! nominal, and the same interval narrowed by a quarter or widened twofold outside it, so a
//! regression either way fails.

use cryptospeed_compare::{
    between_run_variance, cell_key, compare_with_noise, moderate, CellKey, Filter, RunCenter,
    RunNoise, RunValue, SideInput, Versus,
};
use cryptospeed_model::Op;
use cryptospeed_stats as stats;
use rand::{rngs::StdRng, Rng, SeedableRng};
use rand_distr::{Distribution, Normal};
use std::collections::BTreeMap;

/// The noise of one simulated machine, on the log scale.
#[derive(Clone, Copy)]
struct World {
    /// A run's shift against other runs (shared by every variant of the run).
    run_sd: f64,
    /// A round's shift (shared by the arms of a round: both ran on one CPU, back to back).
    round_sd: f64,
    /// Each bout's own scatter (its process, its layout).
    bout_sd: f64,
    /// Drift over the run: a random walk from round to round, shared by the arms.
    drift_sd: f64,
    /// Bouts per run.
    bouts: u32,
}

const CALM: World = World {
    run_sd: 0.01,
    round_sd: 0.01,
    bout_sd: 0.004,
    drift_sd: 0.003,
    bouts: 10,
};

const NOISY: World = World {
    run_sd: 0.03,
    round_sd: 0.05,
    bout_sd: 0.01,
    drift_sd: 0.01,
    bouts: 14,
};

/// One run: the bout figures (round id, time per call) of arms whose true log times are `arms`.
/// A third of the rounds has a burst 20–50% slow, on both arms half the time and on one
/// otherwise: a quarter of all bouts.
fn run(rng: &mut StdRng, w: World, arms: &[f64]) -> Vec<Vec<(u32, f64)>> {
    let normal = |sd: f64| Normal::new(0.0, sd).unwrap();
    let shift = normal(w.run_sd).sample(rng);
    let mut drift = 0.0;
    let mut out = vec![Vec::new(); arms.len()];
    for round in 0..w.bouts {
        drift += normal(w.drift_sd).sample(rng);
        let shared = normal(w.round_sd).sample(rng);
        let burst = rng
            .gen_bool(1.0 / 3.0)
            .then(|| rng.gen_range(0.2..0.5f64).ln_1p());
        let hit: Option<usize> = rng.gen_bool(0.5).then(|| rng.gen_range(0..arms.len()));
        for (a, mean) in arms.iter().enumerate() {
            let slow = match (burst, hit) {
                (Some(b), None) => b,
                (Some(b), Some(h)) if h == a => b,
                _ => 0.0,
            };
            let log = 5.0 + mean + shift + drift + shared + slow + normal(w.bout_sd).sample(rng);
            out[a].push((round, log.exp()));
        }
    }
    out
}

fn value(run: i64, bouts: Vec<(u32, f64)>) -> RunValue {
    RunValue {
        run,
        rate: 1e9 / bouts[0].1,
        ns_per_op: bouts.iter().map(|b| b.1).collect(),
        paired: bouts.clone(),
        bouts,
    }
}

fn key() -> CellKey {
    cell_key("sha256", Op::Hash, None)
}

fn side(name: &str, values: Vec<RunValue>) -> SideInput {
    let mut s = SideInput {
        name: name.into(),
        ..Default::default()
    };
    s.runs = values.iter().map(|v| v.run).collect();
    s.cells.insert(key(), values);
    s
}

/// The comparison of two sides at α = 0.05, with the run-to-run noise given.
fn versus(base: SideInput, cand: SideInput, noise: Option<RunNoise>) -> Versus {
    let noise: BTreeMap<CellKey, RunNoise> = noise.map(|n| (key(), n)).into_iter().collect();
    let c = compare_with_noise(&[base, cand], 0, 0.05, 0.0, &Filter::default(), &noise);
    c.rows[0].versus[1]
        .clone()
        .expect("both sides have the cell")
}

/// The interval scaled by `k` on the log scale around the ratio.
fn holds(v: &Versus, truth: f64, k: f64) -> bool {
    let (lo, hi) = v.ratio_ci.unwrap();
    let r = v.ratio.ln();
    let (lo, hi) = (r - k * (r - lo.ln()), r + k * (hi.ln() - r));
    lo <= truth.ln() && truth.ln() <= hi
}

/// Share of `trials` comparisons whose interval, scaled by each of `scales`, holds `truth`.
fn coverage(
    trials: usize,
    truth: f64,
    scales: &[f64],
    mut one: impl FnMut() -> Versus,
) -> Vec<f64> {
    let mut hits = vec![0usize; scales.len()];
    for _ in 0..trials {
        let v = one();
        for (h, k) in hits.iter_mut().zip(scales) {
            *h += holds(&v, truth, *k) as usize;
        }
    }
    hits.iter().map(|h| *h as f64 / trials as f64).collect()
}

/// Nominal coverage in the band, a quarter narrower below it, twice as wide above it.
fn assert_calibrated(what: &str, c: &[f64]) {
    eprintln!("{what}: {c:?}");
    let band = 0.925..=0.975;
    assert!(
        band.contains(&c[0]),
        "{what}: coverage {:.3} outside {band:?}",
        c[0]
    );
    assert!(
        c[1] < *band.start(),
        "{what}: a quarter narrower still covers {:.3}",
        c[1]
    );
    assert!(
        c[2] > *band.end(),
        "{what}: twice as wide covers only {:.3}",
        c[2]
    );
}

const SCALES: [f64; 3] = [1.0, 0.75, 2.0];

#[test]
fn the_paired_interval_of_one_run_covers_the_true_ratio_at_its_nominal_rate() {
    for (i, w) in [CALM, NOISY].into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(11 + i as u64);
        // The candidate 2% slower: time × 1.02, rate ratio 1/1.02.
        let truth = 1.0 / 1.02;
        let c = coverage(3000, truth, &SCALES, || {
            let mut arms = run(&mut rng, w, &[0.0, 1.02f64.ln()]).into_iter();
            let (a, b) = (arms.next().unwrap(), arms.next().unwrap());
            let v = versus(
                side("a", vec![value(1, a)]),
                side("b", vec![value(1, b)]),
                None,
            );
            assert_eq!(v.test, Some("paired bouts"));
            v
        });
        assert_calibrated(&format!("paired, world {i}"), &c);
    }
}

/// The run-to-run noise the store would have learnt for a cell from `runs` earlier runs of the
/// variant, moderated (as `run_noise` does) with eleven other cells of the machine whose
/// run-to-run spread is 0.5–1.5 times this one's.
fn learnt_noise(rng: &mut StdRng, w: World, runs: usize) -> RunNoise {
    let own: BTreeMap<CellKey, RunNoise> = (0..12u64)
        .map(|k| {
            let cell = World {
                run_sd: w.run_sd * if k == 0 { 1.0 } else { 0.5 + k as f64 / 11.0 },
                ..w
            };
            let centers: Vec<RunCenter> = (0..runs)
                .map(|_| {
                    let bouts = run(rng, cell, &[0.0]).remove(0);
                    let units: Vec<Vec<f64>> = bouts.iter().map(|b| vec![b.1]).collect();
                    let e = stats::bout_estimate(&units, 0.95).unwrap();
                    (e.log_mean, e.log_se.powi(2), e.df)
                })
                .collect();
            let key = cell_key("sha256", Op::Hash, Some(16 << k));
            (key, between_run_variance(&[centers]).expect("enough runs"))
        })
        .collect();
    moderate(own)[&cell_key("sha256", Op::Hash, Some(16))]
}

/// Two single runs of the same build (A/A across runs), each side's variance holding the
/// run-to-run noise learnt from `history` earlier runs (four: the A/A runs of
/// scripts/bench-intervals).
fn across_runs(rng: &mut StdRng, w: World, history: usize) -> Versus {
    let noise = learnt_noise(rng, w, history);
    let a = run(rng, w, &[0.0]).remove(0);
    let b = run(rng, w, &[0.0]).remove(0);
    let v = versus(
        side("a", vec![value(1, a)]),
        side("b", vec![value(2, b)]),
        Some(noise),
    );
    assert_eq!(v.test, Some("bouts+runs"));
    v
}

#[test]
fn the_interval_across_runs_with_the_run_to_run_noise_covers_one_at_its_nominal_rate() {
    for (i, w) in [CALM, NOISY].into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(23 + i as u64);
        let c = coverage(2000, 1.0, &SCALES, || across_runs(&mut rng, w, 4));
        assert_calibrated(&format!("across runs, world {i}"), &c);
    }
}

#[test]
fn compare_calls_an_a_a_pair_different_at_about_alpha() {
    // The verdicts themselves, within one run and across runs: about 5% of A/A cells
    // significant (2000 trials: the binomial standard error of 5% is 0.5 points).
    let mut rng = StdRng::seed_from_u64(41);
    for (i, w) in [CALM, NOISY].into_iter().enumerate() {
        let within = (0..2000)
            .filter(|_| {
                let mut arms = run(&mut rng, w, &[0.0, 0.0]).into_iter();
                let (a, b) = (arms.next().unwrap(), arms.next().unwrap());
                let v = versus(
                    side("a", vec![value(1, a)]),
                    side("b", vec![value(1, b)]),
                    None,
                );
                v.significant == Some(true)
            })
            .count() as f64
            / 2000.0;
        let across = (0..2000)
            .filter(|_| across_runs(&mut rng, w, 4).significant == Some(true))
            .count() as f64
            / 2000.0;
        eprintln!("world {i}: A/A within {within} across {across}");
        for (what, rate) in [("within one run", within), ("across runs", across)] {
            assert!(
                (0.03..=0.075).contains(&rate),
                "world {i}, {what}: {rate:.3} of A/A cells called different"
            );
        }
    }
}
