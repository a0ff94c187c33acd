//! The promises a comparison's verdicts make, pinned where they are decided: `judge` either side
//! of the resolution, `--min-effect` either side of its threshold, the detectable change at the
//! stated power (against SciPy), and a simulation through `compare_with_noise` that a `~` at
//! resolution r means a true change of r would have been found at least 80% of the time (and
//! not 99%: a test that only ever says `?` keeps no promise worth having).

use super::*;
use rand::{rngs::StdRng, SeedableRng};
use rand_distr::{Distribution, Normal};

fn judged(significant: Option<bool>, ratio: f64, detectable: Option<f64>) -> Verdict {
    Versus {
        ratio,
        ratio_ci: None,
        p: None,
        test: None,
        significant,
        detectable,
        verdict: Verdict::Unknown,
    }
    .judge(DEFAULT_RESOLUTION)
}

#[test]
fn a_significant_cell_is_judged_by_its_direction() {
    assert_eq!(judged(Some(true), 1.0001, Some(0.5)), Verdict::Faster);
    assert_eq!(judged(Some(true), 0.9999, Some(0.5)), Verdict::Slower);
    assert_eq!(judged(Some(true), 0.5, None), Verdict::Slower);
}

#[test]
fn same_is_promised_only_up_to_the_resolution() {
    let r = DEFAULT_RESOLUTION;
    assert_eq!(r, 0.02, "the documented default resolution");
    assert_eq!(judged(Some(false), 1.0, Some(0.0199)), Verdict::Same);
    assert_eq!(judged(Some(false), 1.0, Some(r)), Verdict::Same);
    assert_eq!(judged(Some(false), 1.0, Some(0.0201)), Verdict::Unknown);
    assert_eq!(
        judged(Some(false), 1.0, Some(f64::INFINITY)),
        Verdict::Unknown
    );
    assert_eq!(judged(Some(false), 1.0, None), Verdict::Unknown);
    // Nothing tested: nothing promised, however small the detectable change.
    assert_eq!(judged(None, 1.0, Some(0.0)), Verdict::Unknown);
    // Another resolution moves the line with it.
    let v = Versus {
        ratio: 1.0,
        ratio_ci: None,
        p: None,
        test: None,
        significant: Some(false),
        detectable: Some(0.049),
        verdict: Verdict::Unknown,
    };
    assert_eq!(v.judge(0.05), Verdict::Same);
    assert_eq!(v.judge(0.048), Verdict::Unknown);
}

/// A side holding one run's cell measured in `times` bouts (nanoseconds per operation).
fn bouts_side(name: &str, run: i64, times: &[f64]) -> SideInput {
    let bouts: Vec<(u32, f64)> = times
        .iter()
        .enumerate()
        .map(|(i, t)| (i as u32, *t))
        .collect();
    let mut s = SideInput {
        name: name.into(),
        ..Default::default()
    };
    let key = cell_key("sha256", Op::Hash, Some(8192));
    s.cells.insert(
        key,
        vec![RunValue {
            run,
            rate: 8192e9 / stats::median(times).unwrap(),
            ns_per_op: times.to_vec(),
            paired: bouts.clone(),
            bouts,
        }],
    );
    s
}

/// The baseline's bouts and the candidate's at `ratio` times its rate, in the same rounds, with
/// a small jitter of ±0.1% so the test has a spread to judge by.
fn paired(ratio: f64, min_effect: f64) -> Versus {
    let jitter = [1.0, 1.001, 0.999, 1.0005, 0.9995, 1.0008, 0.9992, 1.0];
    let base: Vec<f64> = jitter.iter().map(|j| 1000.0 * j).collect();
    let cand: Vec<f64> = jitter.iter().rev().map(|j| 1000.0 * j / ratio).collect();
    let c = compare(
        &[bouts_side("a", 1, &base), bouts_side("b", 1, &cand)],
        0,
        0.05,
        min_effect,
        &Filter::default(),
    );
    c.rows[0].versus[1].clone().unwrap()
}

#[test]
fn min_effect_is_the_smallest_change_called_significant() {
    // Clearly significant by its p-value (±0.1% jitter), so only the threshold decides.
    assert!(paired(1.019, 0.0).p.unwrap() < 1e-3);
    assert_eq!(paired(1.019, 0.0).significant, Some(true));
    assert_eq!(paired(1.019, 0.02).significant, Some(false));
    assert_eq!(paired(1.021, 0.02).significant, Some(true));
    assert_eq!(paired(1.021, 0.02).verdict, Verdict::Faster);
    assert_eq!(paired(1.0 / 1.019, 0.02).significant, Some(false));
    let slower = paired(0.978, 0.02);
    assert_eq!(
        (slower.significant, slower.verdict),
        (Some(true), Verdict::Slower)
    );
    // Below the threshold, and precise enough to have seen 2%: `~`.
    assert_eq!(paired(1.019, 0.02).verdict, Verdict::Same);
}

#[test]
fn the_detectable_change_is_stated_at_80_percent_power() {
    // Eight paired bouts; SciPy 1.17.1 on d = log(base) - log(cand) (see crates/stats'
    // bouts.rs): Yuen's paired se 0.007999243144238001 on 3 degrees of freedom, and
    // expm1((t.ppf(0.975, 3) + t.ppf(0.8, 3)) · se · √(3 / chi2.ppf(0.3, 3))).
    let base = [100.0, 103.0, 98.0, 101.0, 99.5, 120.0, 97.0, 102.0];
    let cand = [90.0, 91.5, 89.0, 92.0, 90.5, 80.0, 93.0, 90.8];
    let c = compare(
        &[bouts_side("a", 1, &base), bouts_side("b", 1, &cand)],
        0,
        0.05,
        0.0,
        &Filter::default(),
    );
    let v = c.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(v.test, Some("paired bouts"));
    assert!((v.ratio - 1.108716717810681).abs() < 1e-9, "{v:?}");
    let d = v.detectable.unwrap();
    assert!((d - 0.04950292469075829).abs() < 1e-7, "{d}");
    assert_eq!(POWER, 0.8);
}

/// One simulated comparison of `n` paired bouts: both sides drift together by 5% from round to
/// round, each bout has its own noise of `sigma` (log scale), and the candidate's rate is
/// `1 + change` times the baseline's.
fn trial(rng: &mut StdRng, n: usize, sigma: f64, change: f64) -> Versus {
    let (drift, noise) = (
        Normal::new(0.0, 0.05).unwrap(),
        Normal::new(0.0, sigma).unwrap(),
    );
    let (mut base, mut cand) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let round = drift.sample(rng);
        base.push(1000.0 * (round + noise.sample(rng)).exp());
        cand.push(1000.0 * (round + noise.sample(rng)).exp() / (1.0 + change));
    }
    let c = compare_with_noise(
        &[bouts_side("a", 1, &base), bouts_side("b", 1, &cand)],
        0,
        0.05,
        0.0,
        &Filter::default(),
        &BTreeMap::new(),
    );
    c.rows[0].versus[1].clone().unwrap()
}

/// The promise behind `~`, simulated: at the resolution r that half of A/A comparisons would
/// mark `~` (the median detectable change), a true change of r is found in at least 80% of
/// trials and not in 99%, and is marked `~` in at most 20%; A/A comparisons are called
/// different in about 5%. 2000 trials: the binomial standard error at 80% is 0.9 points.
#[test]
fn a_change_of_the_promised_size_is_found_at_the_stated_power() {
    for (n, seed) in [(10, 1), (30, 2)] {
        let mut rng = StdRng::seed_from_u64(seed);
        let trials = 2000;
        let aa: Vec<Versus> = (0..trials).map(|_| trial(&mut rng, n, 0.01, 0.0)).collect();
        let mut detectable: Vec<f64> = aa.iter().map(|v| v.detectable.unwrap()).collect();
        detectable.sort_by(f64::total_cmp);
        let r = detectable[trials / 2];
        let false_alarms = aa.iter().filter(|v| v.significant == Some(true)).count();
        let share = |k: usize| k as f64 / trials as f64;
        assert!(
            (0.03..=0.07).contains(&share(false_alarms)),
            "{n} bouts: A/A called different in {false_alarms} of {trials}"
        );
        let (mut found, mut same) = (0, 0);
        for _ in 0..trials {
            let v = trial(&mut rng, n, 0.01, r);
            match v.judge(r) {
                Verdict::Faster => found += 1,
                Verdict::Same => same += 1,
                _ => {}
            }
        }
        println!(
            "{n} bouts: r = {:.3}%, A/A significant {false_alarms}, found {found}, ~ {same} of {trials}",
            100.0 * r
        );
        assert!(
            (0.8..0.99).contains(&share(found)),
            "{n} bouts: a true change of {:.3}% found in {found} of {trials}",
            100.0 * r
        );
        assert!(
            share(same) <= 0.2,
            "{n} bouts: a true change of {:.3}% marked ~ in {same} of {trials}",
            100.0 * r
        );
    }
}

#[test]
fn pooled_samples_leave_out_what_the_bouts_leave_out() {
    let sample = |wall_ns, cpu_ns, bout| cryptospeed_model::Sample {
        iters: 10,
        wall_ns,
        cpu_ns,
        tsc: 0,
        bout,
    };
    let canary = |bout, after| cryptospeed_model::BoutDisturbance {
        bout,
        canary_ns: [1000, after],
        ..Default::default()
    };
    // A sample descheduled for two thirds of its time would read three times slower: it is
    // timed by its thread's CPU time; one descheduled for 80% of it is left out, and so is
    // bout 2, whose canary ran 6% slow (the bouts' figures leave it out too).
    let m = cryptospeed_model::Measurement {
        cell: cryptospeed_model::CellSpec {
            primitive: "md5".into(),
            op: Op::Hash,
            bytes: Some(64),
            misalign: 0,
        },
        status: cryptospeed_model::Status::Ok,
        reason: None,
        summary: None,
        tsc_per_op: None,
        cpu_fraction: None,
        samples: vec![
            sample(1000, 1000, 1),
            sample(3000, 1000, 1),
            sample(5000, 1000, 1),
            sample(1010, 1005, 1),
            sample(2000, 2000, 2),
        ],
        elapsed_s: 0.0,
        reported_rate: None,
        disturbances: vec![canary(1, 1040), canary(2, 1060)],
        flights: Vec::new(),
    };
    assert_eq!(undisturbed_ns(&m, 1.0), [100.0, 100.0, 101.0]);
    assert_eq!(bout_means(&m, 1.0).len(), 1);
}
