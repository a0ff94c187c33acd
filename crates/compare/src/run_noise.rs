//! How much a cell moves from one run to the next on a machine, beyond what each run's own
//! interval shows. Bouts spread over a run see what varies inside it (processes, layouts, drift
//! over seconds); a shared machine also drifts over minutes, which one run cannot see. The store
//! has seen it: repeated runs of the same variant on the same machine. Their centers vary between
//! runs by σ²_run plus their own sampling variance, so σ²_run is estimated by the method of
//! moments from the pooled within-variant variance of the runs' log centers less their mean
//! squared standard error (a one-way random-effects model, variants as groups so that runs of
//! different builds never inflate it). A comparison of single runs across runs adds σ²_run to
//! each side (`bouts+runs` in JSON).
//!
//! A store rarely holds more than a few runs of a variant, so one cell's σ²_run rests on two or
//! three degrees of freedom, and Student's t on so few made every interval across runs wide
//! enough to hold 1.0 in 144 of 144 A/A comparisons (power thrown away). Each cell's estimate is
//! therefore moderated toward the machine's pooled one (the df-weighted mean over its cells),
//! as limma moderates gene-wise variances (Smyth 2004): the pool counts as [`PRIOR_DF`] degrees
//! of freedom beside the cell's own, and the sum's degrees of freedom are both.

use crate::{bout_means, cell_key, CellKey};
use cryptospeed_model::RunRecord;
use cryptospeed_stats as stats;
use std::collections::BTreeMap;

/// The between-run variance of one cell (log scale) and its degrees of freedom (Satterthwaite's,
/// for a difference of two mean squares; the mean square's own when the variance is 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunNoise {
    pub var: f64,
    pub df: f64,
    /// The moment estimate before it is held at 0 (negative when the runs' centers scatter less
    /// than their own errors say): pooled as it is, so that cells with no run-to-run noise do not
    /// push the machine's figure up.
    pub raw: f64,
}

/// Every cell's run-to-run noise from stored runs measured in bouts: learnt where the cell has
/// three runs in all, two of one variant; the machine's otherwise ([`machine_noise`]). Cells no
/// stored run measured in bouts are absent.
pub fn run_noise(history: &[RunRecord]) -> BTreeMap<CellKey, RunNoise> {
    // (cell, variant) -> [(log center, se², its df)] of each run.
    let mut groups: BTreeMap<(CellKey, String), Vec<RunCenter>> = BTreeMap::new();
    for record in history {
        for vm in &record.measurements {
            let m = &vm.measurement;
            if !m.status.has_numbers() || m.cell.misalign != 0 {
                continue;
            }
            let units: Vec<Vec<f64>> = bout_means(m, 1.0)
                .into_iter()
                .map(|(_, v)| vec![v])
                .collect();
            if let Some(e) = stats::bout_estimate(&units, 0.95) {
                let key = cell_key(&m.cell.primitive, m.cell.op, m.cell.bytes);
                groups.entry((key, vm.variant.clone())).or_default().push((
                    e.log_mean,
                    e.log_se.powi(2),
                    e.df,
                ));
            }
        }
    }
    let mut by_cell: BTreeMap<CellKey, Vec<Vec<RunCenter>>> = BTreeMap::new();
    for ((key, _), runs) in groups {
        by_cell.entry(key).or_default().push(runs);
    }
    let keys: Vec<CellKey> = by_cell.keys().cloned().collect();
    let own: BTreeMap<CellKey, RunNoise> = by_cell
        .into_iter()
        .filter_map(|(key, variants)| Some((key, between_run_variance(&variants)?)))
        .collect();
    let machine = machine_noise(&own);
    let mut noise = moderate(own);
    // A cell with too few runs to learn its own drift from (a store's first two runs, a cell
    // one run measured) gets the machine's, the prior alone before any cell has learnt one:
    // without a term, two runs' intervals hold only their own spread, and 43 of 242 A/A cells
    // of a day's runs on the development VM were called different that way.
    for key in keys {
        noise.entry(key).or_insert(machine);
    }
    noise
}

/// The machine's run-to-run variance: the df-weighted mean of the cells' moment estimates (taken
/// before they are held at 0) shrunk toward the prior (see [`with_prior`]) over the best-covered
/// cell's runs; its weight is the prior's runs and those. With no cell learnt: the prior alone.
pub fn machine_noise(own: &BTreeMap<CellKey, RunNoise>) -> RunNoise {
    let total_df: f64 = own.values().map(|n| n.df).sum();
    let pooled = own.values().map(|n| n.df * n.raw).sum::<f64>() / total_df.max(1.0);
    let shared_df = own.values().map(|n| n.df).fold(0.0, f64::max);
    let var = with_prior(pooled, shared_df);
    RunNoise {
        var,
        df: PRIOR_RUNS + shared_df,
        raw: var,
    }
}

/// Whether `noise` holds the prior alone: no cell of the history had runs enough to learn from.
pub fn prior_only(noise: &BTreeMap<CellKey, RunNoise>) -> bool {
    let prior = machine_noise(&BTreeMap::new());
    noise.values().all(|n| *n == prior)
}

/// The weight, in degrees of freedom, of the machine's pooled run-to-run variance in each cell's.
pub const PRIOR_DF: f64 = 10.0;

/// Each cell's run-to-run variance moderated toward the df-weighted mean of all cells' moment
/// estimates (taken before they are held at 0): the pool weighs [`PRIOR_DF`] degrees of freedom
/// (fewer when the other cells hold fewer).
pub fn moderate(own: BTreeMap<CellKey, RunNoise>) -> BTreeMap<CellKey, RunNoise> {
    let total_df: f64 = own.values().map(|n| n.df).sum();
    let pooled = machine_noise(&own).var;
    own.into_iter()
        .map(|(key, n)| {
            let d0 = PRIOR_DF.min(total_df - n.df);
            if d0 <= 0.0 {
                // A lone cell: its own figure shrunk toward the prior.
                let var = with_prior(n.raw, n.df);
                return (key, RunNoise { var, ..n });
            }
            let raw = (d0 * pooled + n.df * n.raw) / (d0 + n.df);
            let var = raw.max(0.0);
            (
                key,
                RunNoise {
                    var,
                    df: d0 + n.df,
                    raw,
                },
            )
        })
        .collect()
}

/// The run-to-run drift a cell is assumed to have before the store has seen any: 0.54% (sd, log
/// scale), what a 2-core shared cloud VM showed over 45 runs of a day (docs/experiments/host-noise.md).
pub const PRIOR_DRIFT_SD: f64 = 0.0054;

/// The weight, in runs, of [`PRIOR_DRIFT_SD`] against the machine's own history.
pub const PRIOR_RUNS: f64 = 20.0;

/// The machine's pooled run-to-run variance shrunk toward [`PRIOR_DRIFT_SD`]², which weighs
/// [`PRIOR_RUNS`] runs beside the history's `df`. The cells of a run drift together (0.34% of the
/// 0.54% per cell is shared by the whole run), so the history knows the shared part from as many
/// runs as the best-covered cell, not from the sum over cells. A short history (a store's first
/// runs put the drift at 0.35% or less, below zero in the moment estimate) would otherwise set
/// the term too small; the prior's share falls as runs accrue (half at 20, a third at 40). Replaying a
/// day's 22 A/A pairs with only the history before each: 16/242 cells flagged without the prior,
/// 14 with 5 runs' weight, 13 with 10, 11 with 20, 10 with 40 (the full history's figure).
///
/// The pull is upward only: a history that puts the drift above the prior keeps its own figure.
/// A machine noisier than the one the prior came from would otherwise have its term pulled
/// below its drift for its first ~20 runs (a simulated machine with 3% run-to-run noise and four
/// runs of history: 8.4% of A/A cells flagged, `crates/compare/tests/coverage.rs`), and the
/// symmetric pull's replay figure above only falls with it (the term is never smaller).
pub fn with_prior(var: f64, df: f64) -> f64 {
    let learnt = var.max(0.0);
    let shrunk = (PRIOR_RUNS * PRIOR_DRIFT_SD.powi(2) + df * learnt) / (PRIOR_RUNS + df);
    shrunk.max(learnt)
}

/// One run's center of a cell: log center, its squared standard error, and that error's degrees
/// of freedom.
pub type RunCenter = (f64, f64, f64);

/// σ²_run from groups (variants) of runs: the pooled within-group mean square of the centers
/// less the runs' mean se². Its degrees of freedom are Satterthwaite's for that difference (fewer
/// than the mean square's own when the se² takes a large share of it). `None` with fewer than
/// two degrees of freedom or three runs in groups of two or more.
pub fn between_run_variance(groups: &[Vec<RunCenter>]) -> Option<RunNoise> {
    // Σ se⁴/df over the runs: the variance of their mean se² (Satterthwaite).
    let (mut ss, mut df, mut se2, mut se4_per_df, mut runs) = (0.0, 0.0, 0.0, 0.0, 0usize);
    for g in groups.iter().filter(|g| g.len() >= 2) {
        let n = g.len() as f64;
        let mean = g.iter().map(|r| r.0).sum::<f64>() / n;
        ss += g.iter().map(|r| (r.0 - mean).powi(2)).sum::<f64>();
        df += n - 1.0;
        se2 += g.iter().map(|r| r.1).sum::<f64>();
        se4_per_df += g.iter().map(|r| r.1.powi(2) / r.2.max(1.0)).sum::<f64>();
        runs += g.len();
    }
    if df < 2.0 || runs < 3 {
        return None;
    }
    let (ms, mse) = (ss / df, se2 / runs as f64);
    let raw = ms - mse;
    let var = raw.max(0.0);
    // Var(MS) ≈ 2·MS²/df and Var(mean se²) ≈ 2·Σ se⁴/df / k²; the 2s cancel in the ratio.
    let spread = ms.powi(2) / df + se4_per_df / (runs as f64).powi(2);
    let df = match var > 0.0 && spread > 0.0 {
        true => (var.powi(2) / spread).clamp(1.0, df),
        false => df,
    };
    Some(RunNoise { var, df, raw })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, SeedableRng};
    use rand_distr::{Distribution, Normal};

    /// Runs whose centers move by a run effect of sd `sr` and whose bouts scatter by `sb`.
    fn runs(n: usize, sr: f64, sb: f64, seed: u64) -> Vec<RunCenter> {
        let mut rng = StdRng::seed_from_u64(seed);
        let (run, bout) = (Normal::new(0.0, sr).unwrap(), Normal::new(0.0, sb).unwrap());
        (0..n)
            .map(|_| {
                let effect = run.sample(&mut rng);
                let bouts: Vec<Vec<f64>> = (0..10)
                    .map(|_| vec![(5.0 + effect + bout.sample(&mut rng)).exp()])
                    .collect();
                let e = stats::bout_estimate(&bouts, 0.95).unwrap();
                (e.log_mean, e.log_se.powi(2), e.df)
            })
            .collect()
    }

    #[test]
    fn the_between_run_variance_is_recovered_and_zero_when_there_is_none() {
        let with = between_run_variance(&[runs(400, 0.03, 0.02, 1)]).unwrap();
        assert!((with.var.sqrt() - 0.03).abs() < 0.004, "{with:?}");
        // Satterthwaite: fewer than the 399 of the mean square, as the se² takes a share of it.
        assert!(with.df > 100.0 && with.df < 399.0, "{with:?}");
        let without = between_run_variance(&[runs(400, 0.0, 0.02, 2)]).unwrap();
        assert!(without.var.sqrt() < 0.004, "{without:?}");
    }

    #[test]
    fn a_cell_with_few_runs_is_moderated_toward_the_machine_and_gains_its_degrees_of_freedom() {
        let key = |p: &str| cell_key(p, cryptospeed_model::Op::Hash, Some(16));
        let own: BTreeMap<CellKey, RunNoise> = [
            (key("md5"), noise(4e-4, 2.0)),
            (key("sha1"), noise(1e-4, 30.0)),
            (key("sha256"), noise(-1e-4, 30.0)),
        ]
        .into_iter()
        .collect();
        let m = moderate(own);
        let md5 = m[&key("md5")];
        // Pooled from the raw estimates, sha256's negative one included: (2·4 + 30 − 30)/62 ·1e-4;
        // weight 10 against md5's own 2.
        // The pool shrunk toward the prior over the best-covered cell's 30 runs.
        let pooled = (20.0 * 0.0054f64.powi(2) + 30.0 * 2.0 * 4e-4 / 62.0) / 50.0;
        assert!(
            (md5.var - (10.0 * pooled + 2.0 * 4e-4) / 12.0).abs() < 1e-12,
            "{md5:?}"
        );
        assert_eq!(md5.df, 12.0);
        // A lone cell has no other cells to be moderated toward, only the prior.
        let alone = moderate([(key("md5"), noise(4e-4, 2.0))].into());
        // Its own 4e-4 lies above the prior's 0.0054², so it is kept (the pull is upward only).
        assert!((alone[&key("md5")].var - 4e-4).abs() < 1e-15);
        let low = moderate([(key("md5"), noise(1e-6, 2.0))].into());
        let var = (20.0 * 0.0054f64.powi(2) + 2.0 * 1e-6) / 22.0;
        assert!((low[&key("md5")].var - var).abs() < 1e-15);
        // Held at 0 after pooling, never below.
        assert_eq!(m[&key("sha256")].var, 0.0);
    }

    fn noise(raw: f64, df: f64) -> RunNoise {
        RunNoise {
            var: raw.max(0.0),
            df,
            raw,
        }
    }

    /// A stored run of `cells` (primitive@16, variant `openssl`): eight bouts of three samples,
    /// the bouts 0.2% apart around `ns` per call.
    fn stored(id: i64, cells: &[&str], ns: f64) -> RunRecord {
        use cryptospeed_model::{
            CellSpec, Measurement, Op, RunInfo, RunStatus, Sample, Status, Summary,
        };
        let factors = [1.0, 1.004, 0.998, 1.002, 1.001, 0.999, 1.003, 1.0];
        let samples: Vec<Sample> = (0..24)
            .map(|i| {
                let wall_ns = (1000.0 * ns * factors[i / 3]) as u64;
                let (tsc, bout) = (wall_ns, (i / 3) as u32);
                Sample {
                    iters: 1000,
                    wall_ns,
                    cpu_ns: wall_ns,
                    tsc,
                    bout,
                }
            })
            .collect();
        let measurements = cells
            .iter()
            .map(|p| cryptospeed_model::VariantMeasurement {
                variant: "openssl".into(),
                implementation: "openssl".into(),
                measurement: Measurement {
                    cell: CellSpec {
                        primitive: p.to_string(),
                        op: Op::Hash,
                        bytes: Some(16),
                        misalign: 0,
                    },
                    status: Status::Ok,
                    reason: None,
                    summary: Some(Summary::exact(24, ns)),
                    tsc_per_op: None,
                    cpu_fraction: None,
                    samples: samples.clone(),
                    elapsed_s: 0.0,
                    reported_rate: None,
                    disturbances: Vec::new(),
                    flights: Vec::new(),
                },
                definition: None,
            })
            .collect();
        let run = RunInfo {
            id,
            label: None,
            started_at: String::new(),
            finished_at: None,
            command: String::new(),
            tool_version: String::new(),
            status: RunStatus::Complete,
            config: Default::default(),
            imported: None,
            uid: None,
            conditions: None,
        };
        RunRecord {
            run,
            machine: Default::default(),
            variants: Vec::new(),
            measurements,
        }
    }

    #[test]
    fn a_store_too_short_to_learn_from_gives_each_cell_the_prior_and_a_longer_one_the_machines() {
        let prior = PRIOR_DRIFT_SD.powi(2);
        let two = [
            stored(1, &["md5", "sha256"], 100.0),
            stored(2, &["md5", "sha256"], 101.0),
        ];
        let noise = run_noise(&two);
        assert_eq!(noise.len(), 2);
        for n in noise.values() {
            assert!((n.var - prior).abs() < 1e-15 && n.df == PRIOR_RUNS, "{n:?}");
        }
        assert!(prior_only(&noise));
        // The same build twice, the second run 1% slower in every bout (the whole-run shifts of
        // the development VM): with the prior not called different; on the runs' own intervals
        // alone (their bouts agree within 0.3%) called different in both cells.
        let side = |r: &RunRecord| {
            let mut s = crate::SideInput::default();
            s.add_run(r, None);
            s
        };
        let sides = [side(&two[0]), side(&two[1])];
        let filter = crate::Filter::default();
        let with = crate::compare_with_noise(&sides, 0, 0.05, 0.0, &filter, &noise);
        let without = crate::compare(&sides, 0, 0.05, 0.0, &filter);
        assert_eq!(with.rows.len(), 2);
        for (w, wo) in with.rows.iter().zip(&without.rows) {
            let (w, wo) = (
                w.versus[1].as_ref().unwrap(),
                wo.versus[1].as_ref().unwrap(),
            );
            assert_eq!(
                (w.test, w.significant),
                (Some("bouts+runs"), Some(false)),
                "{w:?}"
            );
            assert_eq!(
                (wo.test, wo.significant),
                (Some("bouts"), Some(true)),
                "{wo:?}"
            );
        }
        // Four runs: md5 and sha256 learn their own drift; sha1, which one run measured, gets
        // the machine's (weighing the prior's runs and theirs), no longer the prior alone.
        let mut four: Vec<RunRecord> = [100.0, 101.0, 99.4, 100.8]
            .iter()
            .zip(1..)
            .map(|(ns, id)| stored(id, &["md5", "sha256"], *ns))
            .collect();
        four.push(stored(5, &["sha1"], 100.0));
        let noise = run_noise(&four);
        assert!(!prior_only(&noise));
        let sha1 = noise[&cell_key("sha1", cryptospeed_model::Op::Hash, Some(16))];
        assert_eq!(
            sha1,
            machine_noise(&BTreeMap::from_iter(["md5", "sha256"].map(|p| {
                let key = cell_key(p, cryptospeed_model::Op::Hash, Some(16));
                (key, own_noise(&four, p))
            })))
        );
        assert!(sha1.df > PRIOR_RUNS && sha1.var > prior, "{sha1:?}");
    }

    /// A cell's own (unmoderated) run-to-run noise over `history`, as [`run_noise`] learns it.
    fn own_noise(history: &[RunRecord], primitive: &str) -> RunNoise {
        let centers: Vec<RunCenter> = history
            .iter()
            .flat_map(|r| &r.measurements)
            .filter(|vm| vm.measurement.cell.primitive == primitive)
            .map(|vm| {
                let units: Vec<Vec<f64>> = bout_means(&vm.measurement, 1.0)
                    .into_iter()
                    .map(|(_, v)| vec![v])
                    .collect();
                let e = stats::bout_estimate(&units, 0.95).unwrap();
                (e.log_mean, e.log_se.powi(2), e.df)
            })
            .collect();
        between_run_variance(&[centers]).unwrap()
    }

    #[test]
    fn variants_with_different_speeds_do_not_inflate_it() {
        // Two builds 20% apart, each with no run effect: still no run-to-run noise.
        let fast: Vec<RunCenter> = runs(50, 0.0, 0.02, 3);
        let slow: Vec<RunCenter> = runs(50, 0.0, 0.02, 4)
            .into_iter()
            .map(|(m, s, d)| (m + 0.2, s, d))
            .collect();
        let n = between_run_variance(&[fast, slow]).unwrap();
        assert!(n.var.sqrt() < 0.006, "{n:?}");
        assert!(between_run_variance(&[runs(2, 0.0, 0.02, 5)]).is_none());
    }
}
