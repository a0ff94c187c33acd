//! Intervals from the level that varies. A cell's samples come in bouts: short stretches of
//! consecutive samples, each in its own worker process with its own memory layout, spread over
//! the run. Samples inside one bout share everything that differs between processes and moments
//! (address-space layout, buffer placement, the host's load), so pooling them gives an interval
//! that is far too narrow (Kalibera & Jones 2013). Here each bout is reduced to one figure (its
//! median, robust to the interrupts that only ever slow a batch down), and the interval of the
//! cell comes from the spread of those figures: a t-interval on the log scale, which is exact for
//! a balanced random-effects design with normal effects and holds the between-bout, between-process
//! and within-bout variance together. Ratios between two cells use Welch's t on the same scale.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The estimate of one cell from its bouts, in the unit of the values (nanoseconds per operation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoutEstimate {
    pub bouts: usize,
    /// Geometric mean of the bout medians.
    pub center: f64,
    /// 95% (or the asked confidence) interval of the center.
    pub ci: (f64, f64),
    /// Mean and standard error of the log bout medians.
    pub log_mean: f64,
    pub log_se: f64,
    /// Standard deviation of the log bout medians (relative spread between bouts).
    pub between_sd: f64,
    /// Pooled standard deviation of log samples around their bout's median (relative spread
    /// within a bout); 0 when no bout has two samples.
    pub within_sd: f64,
}

/// Candidate against baseline, from two bout estimates of nanoseconds per operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioEstimate {
    /// Candidate rate / baseline rate (= baseline time / candidate time): > 1 is faster.
    pub ratio: f64,
    pub ci: (f64, f64),
    /// Two-sided p-value of Welch's t-test on the log bout medians.
    pub p: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
}

/// Nanoseconds per operation of each sample, grouped by bout in order of first appearance.
pub fn by_bout(samples: &[cryptospeed_model::Sample]) -> Vec<Vec<f64>> {
    let mut bouts: Vec<(u32, Vec<f64>)> = Vec::new();
    for s in samples {
        match bouts.iter_mut().find(|(b, _)| *b == s.bout) {
            Some((_, v)) => v.push(s.ns_per_op()),
            None => bouts.push((s.bout, vec![s.ns_per_op()])),
        }
    }
    bouts.into_iter().map(|(_, v)| v).collect()
}

fn t_quantile(df: f64, confidence: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    t.inverse_cdf(0.5 + confidence / 2.0)
}

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// The cell's estimate from its bouts (each a list of positive values). `None` with fewer than
/// two bouts, an empty bout or a value that is not positive.
pub fn bout_estimate(bouts: &[Vec<f64>], confidence: f64) -> Option<BoutEstimate> {
    if bouts.len() < 2
        || bouts
            .iter()
            .any(|b| b.is_empty() || b.iter().any(|v| *v <= 0.0))
    {
        return None;
    }
    let medians: Vec<f64> = bouts
        .iter()
        .map(|b| crate::median(b).unwrap().ln())
        .collect();
    let (log_mean, between_sd) = mean_sd(&medians);
    let k = medians.len() as f64;
    let log_se = between_sd / k.sqrt();
    let half = t_quantile(k - 1.0, confidence) * log_se;
    Some(BoutEstimate {
        bouts: bouts.len(),
        center: log_mean.exp(),
        ci: ((log_mean - half).exp(), (log_mean + half).exp()),
        log_mean,
        log_se,
        between_sd,
        within_sd: within_sd(bouts, &medians),
    })
}

fn within_sd(bouts: &[Vec<f64>], log_medians: &[f64]) -> f64 {
    let (mut ss, mut df) = (0.0, 0.0);
    for (b, m) in bouts.iter().zip(log_medians) {
        if b.len() > 1 {
            ss += b.iter().map(|v| (v.ln() - m).powi(2)).sum::<f64>();
            df += (b.len() - 1) as f64;
        }
    }
    if df > 0.0 {
        (ss / df).sqrt()
    } else {
        0.0
    }
}

/// Candidate against baseline (both in time per operation): the ratio of rates with its interval
/// and Welch's p-value, on the log scale.
pub fn ratio(base: &BoutEstimate, cand: &BoutEstimate, confidence: f64) -> RatioEstimate {
    let diff = base.log_mean - cand.log_mean;
    let (vb, vc) = (base.log_se.powi(2), cand.log_se.powi(2));
    let se = (vb + vc).sqrt();
    let df = if se > 0.0 {
        (vb + vc).powi(2)
            / (vb.powi(2) / (base.bouts as f64 - 1.0) + vc.powi(2) / (cand.bouts as f64 - 1.0))
    } else {
        (base.bouts + cand.bouts - 2) as f64
    };
    let (half, p) = if se > 0.0 {
        let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
        (
            t_quantile(df, confidence) * se,
            2.0 * (1.0 - t.cdf((diff / se).abs())),
        )
    } else {
        (0.0, if diff == 0.0 { 1.0 } else { 0.0 })
    };
    RatioEstimate {
        ratio: diff.exp(),
        ci: ((diff - half).exp(), (diff + half).exp()),
        p,
        df,
    }
}

/// Candidate against baseline from bouts that ran in pairs (the same round of one run, back to
/// back): the ratio of rates from the mean log difference of paired bout medians, with a paired
/// t-interval and p-value. Drift that moves both bouts of a pair alike cancels. `None` with fewer
/// than two pairs. Each input is (bout id, median time per operation).
pub fn paired_ratio(
    base: &[(u32, f64)],
    cand: &[(u32, f64)],
    confidence: f64,
) -> Option<RatioEstimate> {
    let diffs: Vec<f64> = base
        .iter()
        .filter_map(|(id, b)| {
            let c = cand.iter().find(|(i, _)| i == id)?.1;
            (*b > 0.0 && c > 0.0).then(|| b.ln() - c.ln())
        })
        .collect();
    if diffs.len() < 2 {
        return None;
    }
    let (mean, sd) = mean_sd(&diffs);
    let df = diffs.len() as f64 - 1.0;
    let se = sd / (diffs.len() as f64).sqrt();
    let (half, p) = if se > 0.0 {
        let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
        (
            t_quantile(df, confidence) * se,
            2.0 * (1.0 - t.cdf((mean / se).abs())),
        )
    } else {
        (0.0, if mean == 0.0 { 1.0 } else { 0.0 })
    };
    Some(RatioEstimate {
        ratio: mean.exp(),
        ci: ((mean - half).exp(), (mean + half).exp()),
        p,
        df,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, SeedableRng};
    use rand_distr::{Distribution, Normal};

    // Expected values from SciPy 1.17.1, on the logs of the bout medians below:
    //   m = np.log([100, 103, 98, 101, 99.5]); c = np.log([90, 91.5, 89, 92, 90.5])
    //   scipy.stats.t.interval(0.95, 4, loc=m.mean(), scale=scipy.stats.sem(m))  -> exp
    //   scipy.stats.ttest_ind(m, c, equal_var=False)
    //   r = scipy.stats.ttest_ind(m, c, equal_var=False); r.confidence_interval(0.95) -> exp
    const BASE: [f64; 5] = [100.0, 103.0, 98.0, 101.0, 99.5];
    const CAND: [f64; 5] = [90.0, 91.5, 89.0, 92.0, 90.5];

    fn one_per_bout(v: &[f64]) -> Vec<Vec<f64>> {
        v.iter().map(|x| vec![*x]).collect()
    }

    #[test]
    fn interval_and_welch_match_scipy() {
        let b = bout_estimate(&one_per_bout(&BASE), 0.95).unwrap();
        let c = bout_estimate(&one_per_bout(&CAND), 0.95).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() / y.abs() < 1e-9;
        assert!(
            close(b.ci.0, SCIPY_BASE_CI.0) && close(b.ci.1, SCIPY_BASE_CI.1),
            "{b:?}"
        );
        let r = ratio(&b, &c, 0.95);
        assert!(close(r.p, SCIPY_WELCH_P), "{r:?}");
        assert!(close(r.df, SCIPY_WELCH_DF), "{r:?}");
        assert!(
            close(r.ci.0, SCIPY_RATIO_CI.0) && close(r.ci.1, SCIPY_RATIO_CI.1),
            "{r:?}"
        );
    }

    const SCIPY_BASE_CI: (f64, f64) = (98.01206208642996, 102.61328132247309);
    const SCIPY_WELCH_P: f64 = 1.693855482019192e-05;
    const SCIPY_WELCH_DF: f64 = 7.236332131272126;
    const SCIPY_RATIO_CI: (f64, f64) = (1.0809056033124569, 1.1337030815343279);
    //   scipy.stats.ttest_rel(m, c) and its confidence_interval(0.95) -> exp
    const SCIPY_PAIRED_P: f64 = 2.6617729047979887e-05;
    const SCIPY_PAIRED_CI: (f64, f64) = (1.0926947436424852, 1.1214715001173252);

    #[test]
    fn paired_matches_scipy() {
        let pairs = |v: &[f64]| -> Vec<(u32, f64)> {
            v.iter().enumerate().map(|(i, x)| (i as u32, *x)).collect()
        };
        let r = paired_ratio(&pairs(&BASE), &pairs(&CAND), 0.95).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() / y.abs() < 1e-9;
        assert!(close(r.p, SCIPY_PAIRED_P), "{r:?}");
        assert!(
            close(r.ci.0, SCIPY_PAIRED_CI.0) && close(r.ci.1, SCIPY_PAIRED_CI.1),
            "{r:?}"
        );
        // Only bouts with the same id pair up.
        let shifted: Vec<(u32, f64)> = pairs(&CAND).into_iter().map(|(i, x)| (i + 3, x)).collect();
        assert_eq!(paired_ratio(&pairs(&BASE), &shifted, 0.95).unwrap().df, 1.0);
    }

    #[test]
    fn pairing_cancels_drift_that_welch_cannot() {
        // Both variants drift together by ±10% from bout to bout; the candidate is 1% faster.
        let drift = [1.0, 1.1, 0.9, 1.05, 0.95, 1.08, 0.92, 1.0];
        let base: Vec<(u32, f64)> = drift
            .iter()
            .enumerate()
            .map(|(i, d)| (i as u32, 100.0 * d))
            .collect();
        let cand: Vec<(u32, f64)> = base.iter().map(|(i, b)| (*i, b / 1.01)).collect();
        let paired = paired_ratio(&base, &cand, 0.95).unwrap();
        assert!(
            (paired.ratio - 1.01).abs() < 1e-12 && paired.ci.0 > 1.0,
            "{paired:?}"
        );
        let one = |v: &[(u32, f64)]| v.iter().map(|(_, x)| vec![*x]).collect::<Vec<_>>();
        let welch = ratio(
            &bout_estimate(&one(&base), 0.95).unwrap(),
            &bout_estimate(&one(&cand), 0.95).unwrap(),
            0.95,
        );
        assert!(welch.ci.0 < 1.0, "{welch:?}");
    }

    #[test]
    fn identical_bouts_give_a_ratio_of_one_with_p_one() {
        let b = bout_estimate(&one_per_bout(&BASE), 0.95).unwrap();
        let r = ratio(&b, &b, 0.95);
        assert_eq!(r.ratio, 1.0);
        assert!((r.p - 1.0).abs() < 1e-12 && r.ci.0 < 1.0 && r.ci.1 > 1.0);
    }

    #[test]
    fn fewer_than_two_bouts_or_bad_values_give_nothing() {
        assert!(bout_estimate(&[vec![1.0, 2.0]], 0.95).is_none());
        assert!(bout_estimate(&[vec![1.0], vec![]], 0.95).is_none());
        assert!(bout_estimate(&[vec![1.0], vec![0.0]], 0.95).is_none());
    }

    /// `bouts` bouts of `samples` samples: log value = between-bout effect + within-bout noise.
    fn simulate(rng: &mut StdRng, bouts: usize, samples: usize, sb: f64, sw: f64) -> Vec<Vec<f64>> {
        let (between, within) = (Normal::new(0.0, sb).unwrap(), Normal::new(0.0, sw).unwrap());
        (0..bouts)
            .map(|_| {
                let effect = between.sample(rng);
                (0..samples)
                    .map(|_| (100f64.ln() + effect + within.sample(rng)).exp())
                    .collect()
            })
            .collect()
    }

    /// Coverage of the true center (100, the median of the simulated distribution) over many
    /// simulated cells with known between- and within-bout variance.
    fn coverage(bouts: usize, samples: usize, sb: f64, sw: f64, seed: u64) -> f64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let trials = 4000;
        let hits = (0..trials)
            .filter(|_| {
                let e = bout_estimate(&simulate(&mut rng, bouts, samples, sb, sw), 0.95).unwrap();
                e.ci.0 <= 100.0 && 100.0 <= e.ci.1
            })
            .count();
        hits as f64 / trials as f64
    }

    #[test]
    fn the_interval_reaches_its_nominal_coverage_whatever_the_variance_components() {
        // Between-bout variance dominant, within-bout dominant, and balanced; few and many bouts.
        // 4000 trials: the binomial standard error of 95% is 0.34 points.
        for (i, (bouts, samples, sb, sw)) in [
            (5, 3, 0.02, 0.002),
            (8, 3, 0.001, 0.02),
            (12, 5, 0.01, 0.01),
            (30, 2, 0.005, 0.001),
        ]
        .into_iter()
        .enumerate()
        {
            let c = coverage(bouts, samples, sb, sw, 17 + i as u64);
            assert!(
                (0.935..=0.965).contains(&c),
                "{bouts}x{samples} sb={sb} sw={sw}: {c}"
            );
        }
    }

    #[test]
    fn pooled_samples_would_not_have_covered() {
        // The reason for all this: with a real between-bout effect, the order-statistics
        // interval of the pooled samples' median covers far less often than 95%.
        let mut rng = StdRng::seed_from_u64(5);
        let hits = (0..2000)
            .filter(|_| {
                let pooled: Vec<f64> = simulate(&mut rng, 6, 10, 0.02, 0.002).concat();
                let s = crate::summarize(&pooled).unwrap();
                s.ci_lo <= 100.0 && 100.0 <= s.ci_hi
            })
            .count();
        assert!(hits < 1400, "{hits} of 2000");
    }

    #[test]
    fn between_and_within_components_are_recovered() {
        let mut rng = StdRng::seed_from_u64(9);
        let e = bout_estimate(&simulate(&mut rng, 400, 20, 0.02, 0.005), 0.95).unwrap();
        assert!((e.between_sd - 0.02).abs() < 0.003, "{e:?}");
        assert!((e.within_sd - 0.005).abs() < 0.0005, "{e:?}");
    }
}
