//! Intervals from the level that varies. A cell's samples come in bouts: short stretches of
//! consecutive samples, each in its own worker process with its own memory layout, spread over
//! the run. Samples inside one bout share everything that differs between processes and moments
//! (address-space layout, buffer placement, the host's load), so pooling them gives an interval
//! that is far too narrow (Kalibera & Jones 2013). Here each bout is reduced to one figure, and
//! the interval of the cell comes from the spread of those figures on the log scale, which holds
//! the between-bout, between-process and within-bout variance together.
//!
//! **A bout's figure is its mean time per call** (total time over total calls of the bout's
//! samples, which share one batch size), the estimator `openssl speed`, `bssl_bench` and
//! `go test -bench` use. A median of per-sample times is not the mean rate when the time of one
//! call varies (ML-DSA signing loops a random number of times): with a handful of calls per
//! sample it read 4–5% fast. Only samples the worker's thread ran through are counted: a sample
//! whose thread CPU time is under [`UNDISTURBED_CPU_SHARE`] of its wall time was descheduled
//! for part of it (another process took the CPU), and says nothing about the library.
//!
//! A shared host does not disturb bouts evenly: it has calm stretches and bursts where a
//! neighbour takes the core's other thread, and a bout that falls in a burst is 20–50% slower
//! (scripts/bench-intervals shows it). A plain mean and t would let a few such bouts move the
//! figure and blow up its interval, so the center is the **25%-trimmed mean** of the log bout
//! figures and its interval **Yuen's** (winsorized variance, h − 1 degrees of freedom): a quarter
//! of the bouts at either end may be disturbed without moving it. For normal data it is the mean
//! and about the t-interval. Ratios use Yuen–Welch across runs and Yuen's paired test on the
//! log differences of bouts that ran back to back.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The estimate of one cell from its bouts, in the unit of the values (nanoseconds per operation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoutEstimate {
    pub bouts: usize,
    /// exp of the 25%-trimmed mean of the log bout figures (mean time per call of each bout).
    pub center: f64,
    /// 95% (or the asked confidence) interval of the center.
    pub ci: (f64, f64),
    /// The trimmed mean of the log bout figures and its (Yuen) standard error.
    pub log_mean: f64,
    pub log_se: f64,
    /// Degrees of freedom of the interval (bouts kept after trimming, less one).
    pub df: f64,
    /// The squared standard error of `log_mean` as Yuen's two-sample test takes it.
    pub log_var_two: f64,
    /// Standard deviation of the log bout figures (relative spread between bouts).
    pub between_sd: f64,
    /// Pooled standard deviation of log samples around their bout's figure (relative spread
    /// within a bout); 0 when no bout has two samples.
    pub within_sd: f64,
}

/// Candidate against baseline, from two bout estimates of nanoseconds per operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioEstimate {
    /// Candidate rate / baseline rate (= baseline time / candidate time): > 1 is faster.
    pub ratio: f64,
    pub ci: (f64, f64),
    /// Two-sided p-value of Yuen's test (Yuen-Welch across runs, paired within a run).
    pub p: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Standard error of the log ratio.
    pub se: f64,
}

/// The one-sided confidence with which [`RatioEstimate::detectable`] bounds the standard error
/// from above before turning it into a detectable change. The standard error is itself estimated
/// from a handful of bouts: taken at face value, the cells whose bouts happened to agree closely
/// are the ones that promise `~`, and a change of the promised size was then found in only 72% of
/// simulated paired comparisons of 10 bouts, not the 80% stated. Its upper 70% bound
/// (σ̂ √(df / χ²₀.₃(df))) brings that to 90% at 10 bouts and 87% at 30 (the simulation test in
/// crates/compare, `promises.rs`), and tends to 1 as bouts grow.
pub const SE_BOUND: f64 = 0.7;

impl RatioEstimate {
    /// The smallest change this comparison would have called significant at `alpha` with
    /// probability `power`, as a fraction of the rate (0.02: a 2% change): (t₁₋α/₂ + t_power)
    /// standard errors of the log ratio on Student's t with the test's degrees of freedom (the
    /// normal-approximation minimum detectable effect of a two-sided t-test), the standard error
    /// taken at its upper [`SE_BOUND`] confidence bound. Infinite when the test had no spread to
    /// judge by.
    pub fn detectable(&self, alpha: f64, power: f64) -> f64 {
        if self.se == 0.0 {
            return 0.0;
        }
        if self.se.is_nan() || self.se < 0.0 || self.df.is_nan() || self.df <= 0.0 {
            return f64::INFINITY;
        }
        let t = StudentsT::new(0.0, 1.0, self.df).expect("df > 0");
        let k = t.inverse_cdf(1.0 - alpha / 2.0) + t.inverse_cdf(power);
        (k * self.se * se_bound_factor(self.df)).exp() - 1.0
    }
}

/// √(df / χ²₁₋SE_BOUND(df)): how much larger than its estimate a standard error on `df` degrees
/// of freedom may be at confidence [`SE_BOUND`]. Past 10⁴ degrees of freedom the Wilson–Hilferty
/// approximation of the χ² quantile (exact to 10⁻⁸ there) replaces statrs' iterative inverse.
fn se_bound_factor(df: f64) -> f64 {
    use statrs::distribution::{ChiSquared, Normal};
    let q = 1.0 - SE_BOUND;
    let chi2 = if df > 1e4 {
        let z = Normal::new(0.0, 1.0)
            .expect("standard normal")
            .inverse_cdf(q);
        let c = 2.0 / (9.0 * df);
        df * (1.0 - c + z * c.sqrt()).powi(3)
    } else {
        ChiSquared::new(df).expect("df > 0").inverse_cdf(q)
    };
    (df / chi2).sqrt()
}

/// A detectable change from two 95% intervals' log half-widths alone: their sum (wider than the
/// root of their squares, so conservative) stands for z₀.₉₇₅ standard errors of the log ratio,
/// rescaled to z₁₋α/₂ + z_power on the normal distribution.
pub fn detectable_from_intervals(base_half: f64, cand_half: f64, alpha: f64, power: f64) -> f64 {
    use statrs::distribution::Normal;
    let z = Normal::new(0.0, 1.0).expect("standard normal");
    let k = (z.inverse_cdf(1.0 - alpha / 2.0) + z.inverse_cdf(power)) / z.inverse_cdf(0.975);
    ((base_half + cand_half) * k).exp() - 1.0
}

/// Whether the worker's thread ran through the sample (see [`crate::host`]).
pub fn undisturbed(s: &cryptospeed_model::Sample) -> bool {
    crate::host::judge(s) == crate::host::Judged::Undisturbed
}

/// How many of `samples` were set aside as disturbed (see [`crate::host`]), and of how many.
pub fn set_aside(samples: &[cryptospeed_model::Sample]) -> (usize, usize) {
    let h = crate::host::HostPart::of(samples);
    (h.set_aside, h.of)
}

/// Nanoseconds per operation of each sample with the host's part removed ([`crate::host`]),
/// grouped by bout in order of first appearance (a bout whose samples were all set aside is left
/// out).
pub fn by_bout(samples: &[cryptospeed_model::Sample]) -> Vec<Vec<f64>> {
    by_bout_with(samples, cryptospeed_model::Sample::ns_per_op)
}

/// Any per-sample figure (`f`) of the samples with the host's part removed, grouped by bout in
/// order of first appearance.
pub fn by_bout_with(
    samples: &[cryptospeed_model::Sample],
    f: impl Fn(&cryptospeed_model::Sample) -> f64,
) -> Vec<Vec<f64>> {
    by_bout_id_with(samples, f)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// [`by_bout_with`] keeping each bout's id.
pub fn by_bout_id_with(
    samples: &[cryptospeed_model::Sample],
    f: impl Fn(&cryptospeed_model::Sample) -> f64,
) -> Vec<(u32, Vec<f64>)> {
    let mut bouts: Vec<(u32, Vec<f64>)> = Vec::new();
    for s in samples.iter().filter_map(crate::host::corrected) {
        match bouts.iter_mut().find(|(b, _)| *b == s.bout) {
            Some((_, v)) => v.push(f(&s)),
            None => bouts.push((s.bout, vec![f(&s)])),
        }
    }
    bouts
}

/// Each bout's figure (the mean of its undisturbed samples' time per call, in the unit `f`
/// gives), by bout id: what paired comparisons and the run-to-run noise are computed from.
pub fn bout_figures(
    samples: &[cryptospeed_model::Sample],
    f: impl Fn(&cryptospeed_model::Sample) -> f64,
) -> Vec<(u32, f64)> {
    by_bout_id_with(samples, f)
        .into_iter()
        .map(|(id, v)| (id, mean_sd(&v).0))
        .collect()
}

/// Half-width of the interval of `mean` at `confidence` and the two-sided p-value of mean = 0,
/// from Student's t with `df`.
fn t_test(mean: f64, se: f64, df: f64, confidence: f64) -> (f64, f64) {
    if se > 0.0 {
        let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
        (
            t_quantile(df, confidence) * se,
            2.0 * (1.0 - t.cdf((mean / se).abs())),
        )
    } else {
        (0.0, if mean == 0.0 { 1.0 } else { 0.0 })
    }
}

pub(crate) fn t_quantile(df: f64, confidence: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    t.inverse_cdf(0.5 + confidence / 2.0)
}

pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64) {
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
    let figures: Vec<f64> = bouts.iter().map(|b| mean_sd(b).0.ln()).collect();
    let between_sd = mean_sd(&figures).1;
    let y = yuen(&figures);
    let half = t_quantile(y.df, confidence) * y.se;
    Some(BoutEstimate {
        bouts: bouts.len(),
        center: y.mean.exp(),
        ci: ((y.mean - half).exp(), (y.mean + half).exp()),
        log_mean: y.mean,
        log_se: y.se,
        df: y.df,
        log_var_two: y.var_two,
        between_sd,
        within_sd: within_sd(bouts, &figures),
    })
}

/// Share of values trimmed at each end.
const TRIM: f64 = 0.25;

/// The trimmed mean of some values with Yuen's standard error and degrees of freedom.
struct Yuen {
    mean: f64,
    /// Standard error: √((n − 1) s_w² / (h (h − 1))), the one Yuen's two-sample test takes for
    /// each sample (SciPy's `ttest_ind(trim=…)`), used here for one-sample and paired intervals
    /// too: the textbook s_w / ((1 − 2γ) √n) is a little narrower, and fell to 93% coverage at
    /// 12 bouts in the simulation test below.
    se: f64,
    var_two: f64,
    df: f64,
}

/// Yuen (1974): the `TRIM`-trimmed mean, the standard error from the winsorized variance, and
/// h − 1 degrees of freedom for the h values kept. At least two values.
fn yuen(values: &[f64]) -> Yuen {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let g = (TRIM * n as f64).floor() as usize;
    let h = n - 2 * g;
    let mean = v[g..n - g].iter().sum::<f64>() / h as f64;
    let winsorized: Vec<f64> = v.iter().map(|x| x.clamp(v[g], v[n - g - 1])).collect();
    let (_, sw) = mean_sd(&winsorized);
    let var_two = (n - 1) as f64 * sw * sw / ((h * (h - 1).max(1)) as f64);
    Yuen {
        mean,
        se: var_two.sqrt(),
        var_two,
        df: (h as f64 - 1.0).max(1.0),
    }
}

pub(crate) fn within_sd(bouts: &[Vec<f64>], log_figures: &[f64]) -> f64 {
    let (mut ss, mut df) = (0.0, 0.0);
    for (b, m) in bouts.iter().zip(log_figures) {
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

/// A log-scale estimate of time per operation with the variance of its mean and its degrees of
/// freedom: from one run's bouts, from several runs' centers, or from bouts plus a between-run
/// variance the store has seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogEstimate {
    pub mean: f64,
    pub var: f64,
    pub df: f64,
}

impl BoutEstimate {
    /// This estimate as a [`LogEstimate`], with `extra` variance (and its degrees of freedom)
    /// added: `extra` is the between-run variance one run cannot see. Satterthwaite's rule
    /// gives the degrees of freedom of the sum.
    pub fn log_estimate(&self, extra: Option<(f64, f64)>) -> LogEstimate {
        let (v1, df1) = (self.log_var_two, self.df);
        match extra {
            Some((v2, df2)) if v2 > 0.0 => LogEstimate {
                mean: self.log_mean,
                var: v1 + v2,
                df: (v1 + v2).powi(2) / (v1.powi(2) / df1 + v2.powi(2) / df2),
            },
            _ => LogEstimate {
                mean: self.log_mean,
                var: v1,
                df: df1,
            },
        }
    }
}

/// Candidate against baseline (both in time per operation): the ratio of rates with its interval
/// and Welch's p-value, on the log scale.
pub fn ratio(base: &BoutEstimate, cand: &BoutEstimate, confidence: f64) -> RatioEstimate {
    welch(
        &base.log_estimate(None),
        &cand.log_estimate(None),
        confidence,
    )
}

/// Welch's t on two log estimates: the ratio of rates (baseline time / candidate time).
pub fn welch(base: &LogEstimate, cand: &LogEstimate, confidence: f64) -> RatioEstimate {
    let diff = base.mean - cand.mean;
    let (vb, vc) = (base.var, cand.var);
    let se = (vb + vc).sqrt();
    let df = if se > 0.0 {
        (vb + vc).powi(2) / (vb.powi(2) / base.df + vc.powi(2) / cand.df)
    } else {
        base.df + cand.df
    };
    let (half, p) = t_test(diff, se, df, confidence);
    RatioEstimate {
        ratio: diff.exp(),
        ci: ((diff - half).exp(), (diff + half).exp()),
        p,
        df,
        se,
    }
}

/// Candidate against baseline from bouts that ran in pairs (the same round of one run, back to
/// back): the ratio of rates from the trimmed mean log difference of paired bout figures, with
/// Yuen's paired interval and p-value. Drift that moves both bouts of a pair alike cancels. `None` with fewer
/// than two pairs. Each input is (bout id, the bout's time per operation).
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
    let y = yuen(&diffs);
    let (half, p) = t_test(y.mean, y.se, y.df, confidence);
    Some(RatioEstimate {
        ratio: y.mean.exp(),
        ci: ((y.mean - half).exp(), (y.mean + half).exp()),
        p,
        df: y.df,
        se: y.se,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, SeedableRng};
    use rand_distr::{Distribution, Normal};

    // Expected values from SciPy 1.17.1, on the logs of the bout medians below (25% trimming):
    //   m = np.log([100, 103, 98, 101, 99.5]); c = np.log([90, 91.5, 89, 92, 90.5])
    //   one sample: trim_mean(m, 0.25) ± t(0.975, h - 1) · √((n - 1) var(mstats.winsorize(m,
    //   (0.25, 0.25)), ddof=1) / (h (h - 1)))  -> exp (the variance ttest_ind(trim) uses)
    //   r = scipy.stats.ttest_ind(m, c, equal_var=False, trim=0.25): r.pvalue, r.df,
    //   exp(r.confidence_interval(0.95))
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

    const SCIPY_BASE_CI: (f64, f64) = (97.53861852852775, 102.86154331566853);
    const SCIPY_WELCH_P: f64 = 0.0004342975193438641;
    const SCIPY_WELCH_DF: f64 = 3.9610111389229297;
    const SCIPY_RATIO_CI: (f64, f64) = (1.0768123775183855, 1.1334824727338009);
    //   paired: the same on d = m - c, p = 2 t.sf(|trim_mean / se|, h - 1)
    const SCIPY_PAIRED_P: f64 = 0.002085804411559107;
    const SCIPY_PAIRED_CI: (f64, f64) = (1.0826172770204787, 1.1255645867160775);

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
    fn a_bout_is_its_mean_time_per_call_over_the_samples_its_thread_ran_through() {
        let sample = |bout, wall_ns, cpu_ns| cryptospeed_model::Sample {
            iters: 10,
            wall_ns,
            cpu_ns,
            tsc: 0,
            bout,
        };
        let samples = [
            sample(0, 1000, 1000),
            sample(0, 3000, 2990),
            // Descheduled for half of it: timed by its thread's 4500 ns of CPU time.
            sample(0, 9000, 4500),
            // Descheduled for 80% of it: left out.
            sample(0, 9000, 1800),
            // No CPU clock: never judged.
            sample(1, 500, 0),
        ];
        // Bout 0: (100 + 300 + 450) / 3 ns per call, the mean, where the median of three
        // would have been 300.
        let figures = bout_figures(&samples, |s| s.ns_per_op());
        assert!((figures[0].1 - 850.0 / 3.0).abs() < 1e-9 && figures[1] == (1, 50.0));
        assert_eq!(by_bout(&samples), [vec![100.0, 300.0, 450.0], vec![50.0]]);
        assert_eq!(set_aside(&samples), (1, 5));
    }

    #[test]
    fn the_detectable_change_is_t_plus_t_power_bounded_standard_errors() {
        // SciPy 1.17.1: expm1((t.ppf(1 - α/2, df) + t.ppf(power, df)) · se · √(df /
        // chi2.ppf(0.3, df))), the closed form the doc comment states.
        let at = |se: f64, df: f64| RatioEstimate {
            ratio: 1.0,
            ci: (0.98, 1.02),
            p: 1.0,
            df,
            se,
        };
        let close = |x: f64, y: f64| (x - y).abs() / y < 1e-6;
        for (se, df, scipy) in [
            (0.007999243144238001, 3.0, 0.04950292469075829),
            (0.01, 9.0, 0.03802647286313489),
            (0.01, 5.158720137364638, 0.045473949697766684),
            (0.004, 199.0, 0.011651375230625342),
            // Past 10⁴ degrees of freedom the χ² quantile is Wilson–Hilferty's.
            (0.01, 2e4, 0.028489590865824484),
        ] {
            let d = at(se, df).detectable(0.05, 0.8);
            assert!(close(d, scipy), "se {se} df {df}: {d} (SciPy {scipy})");
        }
        // (statrs' t quantile at df 10⁶ is within 3·10⁻⁴ of SciPy's.)
        let d = at(0.01, 1e6).detectable(0.05, 0.8);
        assert!((d / 0.028422711573483125 - 1.0).abs() < 5e-4, "{d}");
        // The stated power and α are the ones used: 90% power or α = 0.01 asks for more.
        let r = at(0.01, 9.0);
        assert!(r.detectable(0.05, 0.9) > r.detectable(0.05, 0.8) * 1.1);
        assert!(r.detectable(0.01, 0.8) > r.detectable(0.05, 0.8) * 1.1);
        // No spread at all, zero; no degrees of freedom, nothing can be promised.
        assert_eq!(at(0.0, 9.0).detectable(0.05, 0.8), 0.0);
        assert_eq!(at(0.01, 0.0).detectable(0.05, 0.8), f64::INFINITY);
    }

    // Eight bouts, where trimming a quarter at each end drops two and a fifth would drop one
    // (SciPy 1.17.1, as above, with trim=0.25):
    //   m = np.log([100, 103, 98, 101, 99.5, 120, 97, 102])
    //   c = np.log([90, 91.5, 89, 92, 90.5, 80, 93, 90.8])
    const BASE8: [f64; 8] = [100.0, 103.0, 98.0, 101.0, 99.5, 120.0, 97.0, 102.0];
    const CAND8: [f64; 8] = [90.0, 91.5, 89.0, 92.0, 90.5, 80.0, 93.0, 90.8];

    #[test]
    fn a_quarter_is_trimmed_at_each_end_as_scipy_does_for_eight_bouts() {
        let close = |x: f64, y: f64| (x - y).abs() / y.abs() < 1e-9;
        let b = bout_estimate(&one_per_bout(&BASE8), 0.95).unwrap();
        assert!(close(b.center, 100.62042713344752), "{b:?}");
        assert!(
            close(b.ci.0, 97.76500093844372) && close(b.ci.1, 103.55925187268339),
            "{b:?}"
        );
        assert_eq!(b.df, 3.0, "h = 8 - 2·2 bouts kept");
        let c = bout_estimate(&one_per_bout(&CAND8), 0.95).unwrap();
        let r = ratio(&b, &c, 0.95);
        assert!(close(r.p, 0.00017359371138438336), "{r:?}");
        assert!(close(r.df, 5.158720137364638), "{r:?}");
        assert!(
            close(r.ci.0, 1.079302755547) && close(r.ci.1, 1.1403285866101556),
            "{r:?}"
        );
        let pairs = |v: &[f64]| -> Vec<(u32, f64)> {
            v.iter().enumerate().map(|(i, x)| (i as u32, *x)).collect()
        };
        let p = paired_ratio(&pairs(&BASE8), &pairs(&CAND8), 0.95).unwrap();
        assert!(close(p.ratio, 1.108716717810681), "{p:?}");
        assert!(close(p.p, 0.0010051329595633341), "{p:?}");
        assert!(close(p.se, 0.007999243144238001), "{p:?}");
        assert!(
            close(p.ci.0, 1.0808481690650145) && close(p.ci.1, 1.1373038281743602),
            "{p:?}"
        );
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

    /// Coverage of the true center over many simulated cells with known between- and
    /// within-bout variance: the mean time per call in a typical process, 100·exp(sw²/2) (the
    /// samples of a bout are log-normal around 100 times the bout's effect).
    fn coverage(bouts: usize, samples: usize, sb: f64, sw: f64, seed: u64) -> f64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let trials = 4000;
        let truth = 100.0 * (sw * sw / 2.0).exp();
        let hits = (0..trials)
            .filter(|_| {
                let e = bout_estimate(&simulate(&mut rng, bouts, samples, sb, sw), 0.95).unwrap();
                e.ci.0 <= truth && truth <= e.ci.1
            })
            .count();
        hits as f64 / trials as f64
    }

    #[test]
    fn the_interval_reaches_its_nominal_coverage_whatever_the_variance_components() {
        // Between-bout variance dominant, within-bout dominant, and balanced; few and many bouts.
        // 4000 trials: the binomial standard error of 95% is 0.34 points.
        for (i, (bouts, samples, sb, sw)) in [
            (10, 3, 0.02, 0.002),
            (12, 3, 0.001, 0.02),
            (16, 5, 0.01, 0.01),
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
