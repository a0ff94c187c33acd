//! Pure statistics over samples: no clocks, no I/O, so every function here is property-tested.
//!
//! Timing samples are skewed (interrupts only ever make a batch slower), so cryptospeed reports the
//! median with a distribution-free confidence interval from order statistics, and the median
//! absolute deviation as its spread, instead of a mean and a standard deviation.

mod bouts;
pub mod canary_floor;
mod center;
pub mod host;
pub mod host_states;
mod mann_whitney;

pub use bouts::{
    bout_estimate, bout_figures, by_bout, by_bout_id_with, by_bout_with, detectable_from_intervals,
    paired_ratio, ratio, set_aside, undisturbed, welch, BoutEstimate, LogEstimate, RatioEstimate,
    SE_BOUND,
};
pub use center::{cell_estimate, Center};
use cryptospeed_model::Summary;
pub use host::{
    canary_shift, without_slow_bouts, CanaryShift, HostPart, CANARY_SHIFT_FLOOR, CANARY_SLOWDOWN,
    MIN_CORRECTABLE_SHARE, UNDISTURBED_CPU_SHARE,
};
pub use mann_whitney::{mann_whitney_u, MannWhitney};

/// Median of the values (average of the two middle ones for an even count). `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let sorted = sorted(values);
    median_sorted(&sorted)
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v
}

fn median_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// ln P(B = k) for B ~ Binomial(n, 1/2), for every k in 0..=n.
fn ln_binomial_half_pmf(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut ln_p = -(n as f64) * std::f64::consts::LN_2;
    out.push(ln_p);
    for k in 0..n {
        ln_p += ((n - k) as f64).ln() - ((k + 1) as f64).ln();
        out.push(ln_p);
    }
    out
}

/// The 1-based ranks (lo, hi) of the order statistics that bound a confidence interval for the
/// median with coverage at least `confidence`: the interval [x(lo), x(hi)] with hi = n + 1 - lo.
/// `None` when n is too small for any such interval (n ≤ 5 at 95%).
pub fn median_ci_ranks(n: usize, confidence: f64) -> Option<(usize, usize)> {
    if n == 0 {
        return None;
    }
    let alpha_half = (1.0 - confidence) / 2.0;
    let pmf = ln_binomial_half_pmf(n);
    // P(B <= k-1) is the probability the true median lies below x(k).
    let mut tail = 0.0f64;
    let mut best = None;
    for k in 1..=n.div_ceil(2) {
        tail += pmf[k - 1].exp();
        if tail <= alpha_half {
            best = Some(k);
        } else {
            break;
        }
    }
    best.map(|lo| (lo, n + 1 - lo))
}

/// Exact coverage of the order-statistic interval [x(lo), x(n+1-lo)] for the median.
pub fn median_ci_coverage(n: usize, lo: usize) -> f64 {
    let pmf = ln_binomial_half_pmf(n);
    let tail: f64 = pmf[..lo].iter().map(|l| l.exp()).sum();
    1.0 - 2.0 * tail
}

/// Order-statistic CI of the median of sorted values; (min, max) when n is too small for one.
fn ci_sorted(s: &[f64], confidence: f64) -> Option<(f64, f64)> {
    if s.is_empty() {
        return None;
    }
    match median_ci_ranks(s.len(), confidence) {
        Some((lo, hi)) => Some((s[lo - 1], s[hi - 1])),
        None => Some((s[0], s[s.len() - 1])),
    }
}

/// Median absolute deviation from the median (unscaled).
pub fn mad(values: &[f64]) -> Option<f64> {
    let m = median(values)?;
    let dev: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    median(&dev)
}

/// Values further than `k` scaled MADs (1.4826·MAD ≈ σ for normal data) from the median.
pub fn outlier_count(values: &[f64], k: f64) -> usize {
    let (Some(m), Some(d)) = (median(values), mad(values)) else {
        return 0;
    };
    let limit = k * 1.4826 * d;
    if limit == 0.0 {
        return values.iter().filter(|x| **x != m).count();
    }
    values.iter().filter(|x| (*x - m).abs() > limit).count()
}

/// Geometric mean of positive values; `None` when empty or any value is not positive.
pub fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| v.is_nan() || *v <= 0.0) {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

/// All statistics cryptospeed stores for a measurement.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let s = sorted(values);
    let median = median_sorted(&s)?;
    let (ci_lo, ci_hi) = ci_sorted(&s, 0.95)?;
    Some(Summary {
        n: s.len(),
        median,
        ci_lo,
        ci_hi,
        mad: mad(&s)?,
        outliers: outlier_count(&s, 3.0),
        min: s[0],
        max: s[s.len() - 1],
    })
}

/// True when n is large enough for a real 95% interval and its half-width is within `precision`
/// of the median.
pub fn is_precise(summary: &Summary, precision: f64) -> bool {
    median_ci_ranks(summary.n, 0.95).is_some() && summary.rel_ci() <= precision
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn median_of_small_sets() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[3.0, 1.0]), Some(2.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
    }

    #[test]
    fn ci_ranks_match_published_tables() {
        // Conover, Practical Nonparametric Statistics, table of order statistics for the median:
        // n=6 -> (1,6), n=10 -> (2,9), n=20 -> (6,15), n=50 -> (18,33), n=100 -> (40,61).
        assert_eq!(median_ci_ranks(5, 0.95), None);
        assert_eq!(median_ci_ranks(6, 0.95), Some((1, 6)));
        assert_eq!(median_ci_ranks(10, 0.95), Some((2, 9)));
        assert_eq!(median_ci_ranks(20, 0.95), Some((6, 15)));
        assert_eq!(median_ci_ranks(50, 0.95), Some((18, 33)));
        assert_eq!(median_ci_ranks(100, 0.95), Some((40, 61)));
    }

    #[test]
    fn coverage_of_n10_is_known() {
        // P(2 <= B <= 8) for B ~ Bin(10, 1/2) = 1 - 2*(1+10)/1024.
        let c = median_ci_coverage(10, 2);
        assert!((c - (1.0 - 22.0 / 1024.0)).abs() < 1e-12);
    }

    #[test]
    fn mad_and_outliers() {
        let v = [1.0, 2.0, 3.0, 4.0, 100.0];
        assert_eq!(median(&v), Some(3.0));
        assert_eq!(mad(&v), Some(1.0));
        assert_eq!(outlier_count(&v, 3.0), 1);
    }

    #[test]
    fn geomean_basic() {
        assert!((geomean(&[1.0, 4.0]).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(geomean(&[1.0, 0.0]), None);
        assert_eq!(geomean(&[]), None);
    }

    #[test]
    fn precision_needs_enough_samples() {
        let s = summarize(&[1.0, 1.0, 1.0]).unwrap();
        assert!(!is_precise(&s, 0.01));
        let s = summarize(&[1.0; 10]).unwrap();
        assert!(is_precise(&s, 0.01));
    }

    proptest! {
        #[test]
        fn median_is_within_ci_and_range(v in prop::collection::vec(0.1f64..1e6, 1..200)) {
            let s = summarize(&v).unwrap();
            prop_assert!(s.min <= s.ci_lo && s.ci_lo <= s.median);
            prop_assert!(s.median <= s.ci_hi && s.ci_hi <= s.max);
            prop_assert_eq!(s.n, v.len());
            prop_assert!(s.outliers <= v.len());
        }

        #[test]
        fn median_splits_the_data(v in prop::collection::vec(-1e6f64..1e6, 1..200)) {
            let m = median(&v).unwrap();
            let below = v.iter().filter(|x| **x < m).count();
            let above = v.iter().filter(|x| **x > m).count();
            prop_assert!(below <= v.len() / 2);
            prop_assert!(above <= v.len() / 2);
        }

        #[test]
        fn statistics_are_scale_equivariant(v in prop::collection::vec(0.1f64..1e3, 1..100), k in 0.5f64..100.0) {
            let a = summarize(&v).unwrap();
            let scaled: Vec<f64> = v.iter().map(|x| x * k).collect();
            let b = summarize(&scaled).unwrap();
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1.0);
            prop_assert!(close(a.median * k, b.median));
            prop_assert!(close(a.ci_lo * k, b.ci_lo));
            prop_assert!(close(a.ci_hi * k, b.ci_hi));
            prop_assert!(close(a.mad * k, b.mad));
        }

        #[test]
        fn ci_coverage_is_at_least_95(n in 6usize..2000) {
            let (lo, hi) = median_ci_ranks(n, 0.95).unwrap();
            prop_assert_eq!(hi, n + 1 - lo);
            prop_assert!(median_ci_coverage(n, lo) >= 0.95);
            // and the interval is the tightest such: one rank further in is below 95%.
            if lo < n.div_ceil(2) {
                prop_assert!(median_ci_coverage(n, lo + 1) < 0.95);
            }
        }

        #[test]
        fn permutation_does_not_matter(mut v in prop::collection::vec(0.0f64..1e6, 1..100)) {
            let a = summarize(&v).unwrap();
            v.reverse();
            let b = summarize(&v).unwrap();
            prop_assert_eq!(a, b);
        }
    }
}
