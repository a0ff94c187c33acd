//! The percentile cycles of `show --percentiles` / `compare --percentiles` checked against SciPy
//! and NumPy (python3), not against this crate's own arithmetic: the order-statistic ranks of each
//! quantile's 95% interval and their exact binomial coverage (scipy.stats.binom), and the point
//! estimate (numpy.quantile, its default linear method). Then the interval's promise itself:
//! over simulated samples of a known distribution, it holds the true quantile ≥ 95% of the time.

use cryptospeed_report::percentiles::{quantile, quantile_ci_ranks, CyclePercentiles, LEVELS};
use std::process::Command;

/// (n, p) pairs: small n where a tail has no order statistic, the sizes runs store (tens to
/// thousands of samples), every level shown.
fn cases() -> Vec<(usize, f64)> {
    let mut v = Vec::new();
    for n in [5, 10, 30, 59, 100, 299, 360, 1000, 4000] {
        for l in LEVELS {
            v.push((n, f64::from(l) / 100.0));
        }
    }
    v
}

/// Runs `script` under python3 with SciPy; `None` (said on stderr) when either is missing.
fn python(script: &str) -> Option<String> {
    let out = Command::new("python3").arg("-c").arg(script).output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            if err.contains("No module named") {
                eprintln!("SKIPPED: python3 has no scipy/numpy: {err}");
                return None;
            }
            panic!("python3 failed: {err}");
        }
        Err(e) => {
            eprintln!("SKIPPED: no python3 ({e})");
            None
        }
    }
}

#[test]
fn ranks_and_coverage_match_scipy_binom() {
    let list: Vec<String> = cases().iter().map(|(n, p)| format!("({n},{p})")).collect();
    let script = format!(
        r#"
import numpy as np
from scipy.stats import binom
for n, p in [{}]:
    t = 0.025
    k = np.arange(1, n + 1)
    lo = [int(x) for x in k[binom.cdf(k - 1, n, p) <= t]]
    hi = [int(x) for x in k[binom.sf(k - 1, n, p) <= t]]
    l = max(lo) if lo else 0
    u = min(hi) if hi else n + 1
    cov = binom.cdf(u - 1, n, p) - (binom.cdf(l - 1, n, p) if l >= 1 else 0.0)
    print(n, p, l, u, repr(float(cov)))
"#,
        list.join(",")
    );
    let Some(out) = python(&script) else { return };
    let mut checked = 0;
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let n: usize = f[0].parse().unwrap();
        let p: f64 = f[1].parse().unwrap();
        let (l, u): (usize, usize) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        let cov: f64 = f[4].parse().unwrap();
        let ours = quantile_ci_ranks(n, p, 0.95);
        assert_eq!(ours.lower.unwrap_or(0), l, "lower rank, n={n} p={p}");
        assert_eq!(ours.upper.unwrap_or(n + 1), u, "upper rank, n={n} p={p}");
        assert!(
            (ours.coverage - cov).abs() < 1e-9,
            "coverage n={n} p={p}: {} vs scipy {cov}",
            ours.coverage
        );
        assert!(cov >= 0.95 - 1e-12, "n={n} p={p}: coverage {cov}");
        checked += 1;
    }
    assert_eq!(checked, cases().len());
    // By hand: with n = 5, P(B = 0) = 1/32 = 0.031 > 0.025, so the median has no lower bound;
    // n = 100's median interval is [x(40), x(61)] (Conover's table of order statistics).
    assert_eq!(quantile_ci_ranks(5, 0.5, 0.95).lower, None);
    let r = quantile_ci_ranks(100, 0.5, 0.95);
    assert_eq!((r.lower, r.upper), (Some(40), Some(61)));
}

#[test]
fn quantiles_match_numpy() {
    // Skewed, tied, cycle-like values (a slow tail, as a descheduled call would make).
    let mut values: Vec<f64> = (0..257)
        .map(|i| 30000.0 + ((i * 7919) % 311) as f64 + if i % 50 == 0 { 9000.0 } else { 0.0 })
        .collect();
    let list: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
    let levels: Vec<String> = LEVELS
        .iter()
        .map(|l| format!("{}", *l as f64 / 100.0))
        .collect();
    let script = format!(
        "import numpy as np\nv=np.array([{}])\nfor p in [{}]: print(repr(float(np.quantile(v, p))))\n",
        list.join(","),
        levels.join(",")
    );
    let Some(out) = python(&script) else { return };
    values.sort_by(f64::total_cmp);
    for (line, l) in out.lines().zip(LEVELS) {
        let numpy: f64 = line.parse().unwrap();
        let ours = quantile(&values, f64::from(l) / 100.0).unwrap();
        assert!((ours - numpy).abs() < 1e-9, "p{l}: {ours} vs numpy {numpy}");
    }
}

/// Samples of one call each whose cycles are exponential (mean 1000) above 30000: the true
/// p-quantile is 30000 − 1000·ln(1 − p). Over 400 simulated runs of 300 samples, each level's
/// interval must hold it in at least 92% (nominal ≥ 95%; 400 trials' binomial error is ±1.1%).
#[test]
fn intervals_hold_the_true_quantile() {
    let mut state = 0x9e3779b97f4a7c15u64;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut held = [0usize; LEVELS.len()];
    let trials = 400;
    for _ in 0..trials {
        let samples: Vec<cryptospeed_model::Sample> = (0..300)
            .map(|_| {
                let c = 30000.0 - 1000.0 * (1.0 - uniform()).ln();
                cryptospeed_model::Sample {
                    iters: 1,
                    wall_ns: 10_000,
                    cpu_ns: 10_000,
                    tsc: c.round() as u64,
                    bout: 0,
                }
            })
            .collect();
        let c = CyclePercentiles::of_samples(&samples).unwrap();
        for (i, p) in c.values.iter().enumerate() {
            let truth = 30000.0 - 1000.0 * (1.0 - f64::from(p.level) / 100.0).ln();
            let lo = p.lo.unwrap_or(f64::NEG_INFINITY);
            let hi = p.hi.unwrap_or(f64::INFINITY);
            if lo <= truth && truth <= hi {
                held[i] += 1;
            }
        }
    }
    for (i, l) in LEVELS.iter().enumerate() {
        let share = held[i] as f64 / trials as f64;
        assert!(
            share >= 0.92,
            "p{l}: the interval held the truth in {share}"
        );
    }
}
