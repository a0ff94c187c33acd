//! The Mann-Whitney U test (Wilcoxon rank-sum): does one sample tend to be larger than the
//! other? Distribution-free, so it suits skewed timing samples, and it is what benchstat uses.
//!
//! Written here rather than taken from a crate because none of the maintained statistics crates
//! offers it with the exact small-sample distribution and tie correction; the p-values are checked
//! against SciPy's `mannwhitneyu` in the tests.

/// Result of a two-sided test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: pairs (a, b) with a > b, ties counting one half.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Whether `p` comes from the exact distribution (small samples, no ties) or the normal
    /// approximation with tie and continuity corrections.
    pub exact: bool,
}

/// Two-sided Mann-Whitney U test. `None` when either sample is empty or holds a NaN.
///
/// Exact p-value when there are no ties and the smaller sample has at most 8 values (SciPy's
/// `method="auto"` rule) and the larger at most 100; the normal approximation otherwise.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 || a.iter().chain(b).any(|x| x.is_nan()) {
        return None;
    }
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Average ranks over ties; collect tie group sizes for the variance correction.
    let n = all.len();
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for item in &all[i..=j] {
            if item.1 {
                rank_sum_a += rank;
            }
        }
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let u1 = rank_sum_a - (n1 * (n1 + 1)) as f64 / 2.0;
    let u2 = (n1 * n2) as f64 - u1;
    let big = u1.max(u2);
    let ties = tie_term > 0.0;
    if !ties && n1.min(n2) <= 8 && n1.max(n2) <= 100 {
        let p = (2.0 * exact_sf(big.round() as usize, n1, n2)).min(1.0);
        return Some(MannWhitney {
            u: u1,
            p,
            exact: true,
        });
    }
    let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
    let mu = n1f * n2f / 2.0;
    let var = n1f * n2f / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
    if var <= 0.0 {
        // Every value is the same: no evidence of a difference.
        return Some(MannWhitney {
            u: u1,
            p: 1.0,
            exact: false,
        });
    }
    let z = (big - mu - 0.5) / var.sqrt();
    let p = (2.0 * normal_sf(z)).clamp(0.0, 1.0);
    Some(MannWhitney {
        u: u1,
        p,
        exact: false,
    })
}

/// P(U >= k) under the null hypothesis for samples of sizes m and n, by counting arrangements:
/// the largest value belongs to the first sample (adding n to U) or to the second.
fn exact_sf(k: usize, m: usize, n: usize) -> f64 {
    let max_u = m * n;
    // counts[j][u] for the current number i of first-sample values.
    let mut counts = vec![vec![0f64; max_u + 1]; n + 1];
    for row in counts.iter_mut() {
        row[0] = 1.0; // i = 0: U is 0 whatever j is.
    }
    for _i in 1..=m {
        let mut next = vec![vec![0f64; max_u + 1]; n + 1];
        next[0][0] = 1.0;
        for j in 1..=n {
            for u in 0..=max_u {
                let with_first = if u >= j { counts[j][u - j] } else { 0.0 };
                next[j][u] = with_first + next[j - 1][u];
            }
        }
        counts = next;
    }
    let total: f64 = counts[n].iter().sum();
    let tail: f64 = counts[n][k.min(max_u + 1)..].iter().sum();
    tail / total
}

/// Upper tail of the standard normal distribution.
fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9_f64.max(1e-6 * b.abs())
    }

    // Expected values from SciPy 1.17.1:
    //   scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method=M)
    #[test]
    fn matches_scipy_exact() {
        let a = [1.1, 2.3, 3.7, 4.2, 5.9];
        let b = [6.1, 7.4, 8.8, 9.0, 10.5, 11.2];
        let r = mann_whitney_u(&a, &b).unwrap();
        assert!(r.exact);
        assert_eq!(r.u, 0.0);
        assert!(close(r.p, 0.004329004329004329), "{}", r.p);
        let a = [3.1, 5.2, 1.4, 8.8, 6.0, 2.2, 7.7];
        let b = [4.4, 9.1, 5.5, 10.2, 6.6, 11.3, 3.3];
        let r = mann_whitney_u(&a, &b).unwrap();
        assert_eq!(r.u, 13.0);
        assert!(close(r.p, 0.16491841491841494), "{}", r.p);
    }

    #[test]
    fn matches_scipy_asymptotic_with_ties() {
        let a = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 7.0, 9.0];
        let b = [
            2.0, 4.0, 5.0, 6.0, 6.0, 7.0, 8.0, 8.0, 9.0, 10.0, 11.0, 12.0,
        ];
        let r = mann_whitney_u(&a, &b).unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 25.5);
        assert!(close(r.p, 0.02431659263900475), "{}", r.p);
    }

    #[test]
    fn matches_scipy_asymptotic_large() {
        // 30 vs 30 without ties: a = i*1.0, b = i*1.0 + 4.5 for i in 0..30.
        let a: Vec<f64> = (0..30).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..30).map(|i| i as f64 + 4.5).collect();
        let r = mann_whitney_u(&a, &b).unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 325.0);
        assert!(close(r.p, 0.06567125768912659), "{}", r.p);
    }

    #[test]
    fn identical_samples_are_not_different() {
        let a = [5.0; 12];
        assert_eq!(mann_whitney_u(&a, &a).unwrap().p, 1.0);
        assert!(mann_whitney_u(&[], &a).is_none());
        assert!(mann_whitney_u(&[f64::NAN], &a).is_none());
    }
}
