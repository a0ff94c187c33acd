//! The center of a cell whose time varies per call by the code's own design (ML-DSA signing's
//! rejection loop: one call's time has a coefficient of variation near 0.9). Its bouts of a few
//! dozen calls scatter by that skewed spread (±20–30% between bouts), and the usual center, the
//! 25%-trimmed mean of the log bout figures ([`crate::bout_estimate`]), is then below the mean
//! time per call twice over: a log mean of a spread sits under its mean (by about half the
//! variance), and trimming a right-skewed spread cuts more of its long side's weight. OpenSSL
//! 3.5's ML-DSA-65 signing read 1.027 (1.002–1.052) of `openssl speed` of the same build in
//! 20 alternating rounds, 1.025 and 1.045 in two whole-table crosschecks; the stored bouts' own
//! mean time per call sat 0.6–2.5% above their trimmed log mean. The mean rate is what the
//! figure promises (and what `openssl speed`, `bssl speed` and `go test -bench` report), so such
//! a cell is centered on the plain mean of its bout figures, with Student's t interval: the
//! bouts' spread is mostly the code's, which trimming must not remove, and the host's bursts are
//! already set aside by the canary and the descheduled-sample rules before.

use crate::bouts::{mean_sd, t_quantile, within_sd};
use crate::BoutEstimate;

/// Which center a cell's bouts are summarized by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Center {
    /// The 25%-trimmed mean of the log bout figures, Yuen's interval: the time per call is
    /// steady, so a bout far from the others was disturbed and may be trimmed.
    Trimmed,
    /// The mean of the bout figures, Student's t interval: the time per call varies by the
    /// code's own design, and the figure is its mean.
    Mean,
}

impl Center {
    /// [`Center::Mean`] when the cell's time varies per call (the catalog's
    /// `Algorithm::time_varies_per_call`), else [`Center::Trimmed`].
    pub fn of(time_varies_per_call: bool) -> Center {
        if time_varies_per_call {
            Center::Mean
        } else {
            Center::Trimmed
        }
    }
}

/// The cell's estimate from its bouts by `center`; as [`crate::bout_estimate`] (which is
/// [`Center::Trimmed`]) in its fields: the log fields of [`Center::Mean`] are the log of the
/// mean and its relative standard error (the delta method), so ratios and tests built on them
/// work unchanged.
pub fn cell_estimate(bouts: &[Vec<f64>], confidence: f64, center: Center) -> Option<BoutEstimate> {
    let trimmed = crate::bout_estimate(bouts, confidence)?;
    if center == Center::Trimmed {
        return Some(trimmed);
    }
    let figures: Vec<f64> = bouts.iter().map(|b| mean_sd(b).0).collect();
    let (mean, sd) = mean_sd(&figures);
    let n = figures.len() as f64;
    let se = sd / n.sqrt();
    let df = n - 1.0;
    let half = t_quantile(df, confidence) * se;
    let logs: Vec<f64> = figures.iter().map(|f| f.ln()).collect();
    let log_se = se / mean;
    Some(BoutEstimate {
        center: mean,
        ci: ((mean - half).max(mean * 1e-3), mean + half),
        log_mean: mean.ln(),
        log_se,
        df,
        log_var_two: log_se * log_se,
        within_sd: within_sd(bouts, &logs),
        ..trimmed
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// One ML-DSA-65-like call: a fixed part and a geometric number of rejection-loop passes
    /// (mean 5.1, FIPS 204 Table 1), in pass units.
    fn call(rng: &mut StdRng) -> f64 {
        let mut passes = 1.0;
        while rng.gen::<f64>() > 1.0 / 5.1 {
            passes += 1.0;
        }
        0.6 + passes
    }

    /// `bouts` bouts of three samples of eight calls each (what `run` gives ML-DSA-65 signing),
    /// each sample's value its mean time per call.
    fn bouts(rng: &mut StdRng, bouts: usize) -> Vec<Vec<f64>> {
        (0..bouts)
            .map(|_| {
                (0..3)
                    .map(|_| (0..8).map(|_| call(rng)).sum::<f64>() / 8.0)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_cell_whose_calls_vary_is_centered_on_its_mean_time_per_call() {
        let truth = 0.6 + 5.1;
        let mut rng = StdRng::seed_from_u64(7);
        let (mut trimmed, mut mean, mut covered) = (0.0, 0.0, 0);
        let reps = 400;
        for _ in 0..reps {
            let b = bouts(&mut rng, 150);
            trimmed += cell_estimate(&b, 0.95, Center::Trimmed).unwrap().center / truth;
            let m = cell_estimate(&b, 0.95, Center::Mean).unwrap();
            mean += m.center / truth;
            covered += usize::from(m.ci.0 <= truth && truth <= m.ci.1);
        }
        let (trimmed, mean) = (trimmed / reps as f64, mean / reps as f64);
        // The trimmed log mean reads the time about 1.2% short (the rate fast); the mean does not.
        assert!(trimmed < 0.992, "trimmed log mean / truth {trimmed}");
        assert!((mean - 1.0).abs() < 0.002, "mean / truth {mean}");
        let coverage = covered as f64 / reps as f64;
        assert!((0.92..0.98).contains(&coverage), "coverage {coverage}");
    }

    #[test]
    fn steady_cells_keep_the_trimmed_center() {
        let b = vec![
            vec![10.0, 10.1],
            vec![10.2, 10.1],
            vec![30.0, 31.0],
            vec![10.0, 9.9],
        ];
        assert_eq!(
            cell_estimate(&b, 0.95, Center::Trimmed),
            crate::bout_estimate(&b, 0.95)
        );
        let m = cell_estimate(&b, 0.95, Center::Mean).unwrap();
        assert!((m.center - 15.1625).abs() < 1e-9, "{m:?}");
        assert!((m.log_mean - m.center.ln()).abs() < 1e-12);
    }
}
