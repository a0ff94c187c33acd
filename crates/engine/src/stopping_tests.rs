//! The "±1%" promise, pinned where the sampler decides it: a cell measured in bouts is `ok` only
//! when its interval between bouts is within the precision target after at least `min_bouts`
//! bouts, and a cell measured in one stretch stops at the first check where its interval is
//! within the target, not before. Values sit just either side of each threshold.

use crate::sampler::{measure_with, summarize_bouts};
use cryptospeed_model::{CellSpec, MeasureConfig, Op, Sample, Status};

fn cell() -> CellSpec {
    CellSpec {
        primitive: "sha256".into(),
        op: Op::Hash,
        bytes: Some(64),
        misalign: 0,
    }
}

/// One sample per bout, `ns` nanoseconds per call over 1000 calls.
fn one_sample_bouts(ns: &[f64]) -> Vec<Sample> {
    ns.iter()
        .enumerate()
        .map(|(i, t)| Sample {
            iters: 1000,
            wall_ns: (t * 1000.0) as u64,
            cpu_ns: (t * 1000.0) as u64,
            tsc: 0,
            bout: i as u32,
        })
        .collect()
}

// Eight bouts whose interval SciPy 1.17.1 gives (crates/stats' bouts.rs): center
// 100.62042713344752, 95% interval (97.76500093844372, 103.55925187268339), so ±2.8793%.
const BOUTS8: [f64; 8] = [100.0, 103.0, 98.0, 101.0, 99.5, 120.0, 97.0, 102.0];
const REL_CI8: f64 = (103.55925187268339 - 97.76500093844372) / 2.0 / 100.62042713344752;

fn status(precision: f64, min_bouts: u32) -> Status {
    let config = MeasureConfig {
        precision,
        min_bouts,
        ..Default::default()
    };
    summarize_bouts(
        cell(),
        one_sample_bouts(&BOUTS8),
        Vec::new(),
        &config,
        1.0,
        "time spent",
    )
    .status
}

#[test]
fn a_cell_in_bouts_is_ok_exactly_when_its_interval_is_within_the_target() {
    assert!((REL_CI8 - 0.028793).abs() < 1e-6);
    assert_eq!(status(REL_CI8 * 1.001, 2), Status::Ok);
    assert_eq!(status(REL_CI8 * 0.999, 2), Status::Imprecise);
    assert_eq!(status(0.01, 2), Status::Imprecise);
    // The interval itself is the one SciPy gives for these bouts.
    let m = summarize_bouts(
        cell(),
        one_sample_bouts(&BOUTS8),
        Vec::new(),
        &MeasureConfig::default(),
        1.0,
        "time spent",
    );
    let s = m.summary.unwrap();
    assert!((s.rel_ci() - REL_CI8).abs() < 1e-9, "{s:?}");
    assert!(m
        .reason
        .unwrap()
        .contains("±2.88% after 8 bouts (target ±1.00%)"));
}

#[test]
fn a_cell_in_bouts_is_ok_only_after_min_bouts() {
    assert_eq!(status(0.05, 8), Status::Ok);
    assert_eq!(status(0.05, 9), Status::Imprecise);
}

/// A made-up clock: every call takes 1 µs times a deterministic factor within ±2%, different
/// for each sample.
fn noisy_sample(k: &mut u64, iters: u64) -> Result<Sample, String> {
    *k += 1;
    let factor = 1.0 + 0.02 * (((*k * 7919) % 101) as f64 / 50.0 - 1.0);
    let wall_ns = (iters as f64 * 1000.0 * factor) as u64;
    Ok(Sample {
        iters,
        wall_ns,
        cpu_ns: wall_ns,
        tsc: 0,
        bout: 0,
    })
}

#[test]
fn a_cell_in_one_stretch_stops_at_the_first_sample_that_makes_it_precise() {
    let config = MeasureConfig {
        precision: 0.008,
        max_time_s: 60.0,
        min_samples: 10,
        sample_time_s: 0.000_1,
        warmup_s: 0.0,
        ..Default::default()
    };
    let mut k = 0;
    let m = measure_with(|iters| noisy_sample(&mut k, iters), cell(), &config);
    assert_eq!(m.status, Status::Ok, "{:?}", m.reason);
    let n = m.samples.len();
    assert!(n < 64, "every sample is checked below 64 (n = {n})");
    let rel = |n: usize| {
        let per_op: Vec<f64> = m.samples[..n].iter().map(Sample::ns_per_op).collect();
        cryptospeed_stats::summarize(&per_op).unwrap().rel_ci()
    };
    assert!(rel(n) <= config.precision, "{}", rel(n));
    for shorter in config.min_samples as usize..n {
        assert!(
            rel(shorter) > config.precision,
            "{shorter} samples were already within ±{} (±{}), yet it went on to {n}",
            config.precision,
            rel(shorter)
        );
    }
    // The target is what stops it: half the precision needs more samples.
    let mut k = 0;
    let finer = MeasureConfig {
        precision: 0.004,
        ..config
    };
    let m2 = measure_with(|iters| noisy_sample(&mut k, iters), cell(), &finer);
    assert!(m2.samples.len() > n, "{} vs {n}", m2.samples.len());
}

/// Twenty bouts at two speeds, as the two-state VM ran them (2026-11-29 21:49 UTC, md5@16):
/// fast bouts 235 ns a call with the canary at 66 µs, slow ones 360 ns with it at 90-109 µs;
/// the machine's learnt floor stamped on every bout.
fn two_speeds(
    fast: &[u32],
    learnt_floor: u64,
) -> (Vec<Sample>, Vec<cryptospeed_model::BoutDisturbance>) {
    let ns: Vec<f64> = (0..20u32)
        .map(|b| {
            if fast.contains(&b) {
                235.0 + f64::from(b % 3) * 0.1
            } else {
                360.0 + f64::from(b % 4) * 0.3
            }
        })
        .collect();
    let disturbances = (0..20u32)
        .map(|b| {
            let canary = if fast.contains(&b) {
                66_000
            } else {
                90_000 + 1_000 * u64::from(b)
            };
            cryptospeed_model::BoutDisturbance {
                bout: b,
                canary_ns: [canary, canary],
                canary_floor_ns: learnt_floor,
                ..Default::default()
            }
        })
        .collect();
    (one_sample_bouts(&ns), disturbances)
}

#[test]
fn at_two_speeds_a_cell_is_the_floors_figure_or_imprecise() {
    let config = MeasureConfig::default();
    // Four bouts at the floor: the figure is theirs (235 ns), and precise.
    let (samples, d) = two_speeds(&[2, 7, 12, 17], 65_800);
    let m = summarize_bouts(cell(), samples, d, &config, 1.0, "time spent");
    let s = m.summary.unwrap();
    assert!((s.median - 235.1).abs() < 0.2, "{s:?}");
    assert_eq!(m.status, Status::Ok, "{:?}", m.reason);
    // None at the machine's floor: the slow state's bouts agree with each other within ±1%,
    // but the cell is not taken for precise, and says why.
    let (samples, d) = two_speeds(&[], 65_800);
    let m = summarize_bouts(cell(), samples, d, &config, 1.0, "time spent");
    assert!(m.summary.unwrap().rel_ci() < 0.01);
    assert_eq!(m.status, Status::Imprecise);
    assert!(
        m.reason.as_deref().unwrap().contains(
            "canary ran over 15% above the canary's floor (65800 ns) and only 0 of 20 bouts within 5% of it: its figure is the slowed host's"
        ),
        "{:?}",
        m.reason
    );
}
