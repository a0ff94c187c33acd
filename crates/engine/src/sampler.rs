//! How one cell is timed in a worker: calibrate a batch size so a sample lasts about
//! `sample_time_s`, warm up, then either take one bout (`bout_samples` samples; the runner judges
//! precision over the bouts, see `summarize_bouts`) or, in one stretch (`--multi`), take samples
//! until the 95% confidence interval of the median is within the precision target (after at least
//! `min_samples`) or the cell's time budget is spent.
//!
//! Clocks are read once per batch, so the timed loop carries only the library calls; the thread's
//! CPU clock is read outside the wall-clock window (see `clock::Stamp`). The cell's first call
//! is made, untimed, before anything else ([`first_call`]): what a library does once (AWS-LC seeds
//! its random generator on the first key generation of a process, about 32 ms) must not reach
//! calibration, where it would settle on one call per sample, nor a sample.

use crate::Timed;
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Sample, Status};
use cryptospeed_stats as stats;

/// Upper bound on samples per cell, so a very fast, very noisy cell cannot grow without limit.
const MAX_SAMPLES: usize = 20_000;

fn take_sample(timed: &mut dyn Timed, iters: u64) -> Result<Sample, String> {
    timed.sample(iters)
}

/// Makes the cell's first call and throws its sample away: a library's one-time set-up (a
/// random generator seeded, tables built, a Go worker's cell prepared on its first batch) then
/// lies before calibration, the warm-up's clock and every sample.
fn first_call<F>(sample: &mut F) -> Result<(), String>
where
    F: FnMut(u64) -> Result<Sample, String>,
{
    sample(1).map(drop)
}

/// Finds the number of calls per batch that makes one batch last about `target_ns`, running for
/// at least `warmup_ns` in total (calibration batches double as warm-up). A batch size is kept
/// only when two samples in a row at that size reach the target, so one slow call (a set-up
/// past the first call, a preemption) cannot settle it at one call per sample: only a cell whose
/// calls each take the sample time or longer is timed one call at a time.
fn calibrate<F>(sample: &mut F, target_ns: u64, warmup_ns: u64) -> Result<u64, String>
where
    F: FnMut(u64) -> Result<Sample, String>,
{
    let begin = crate::clock::wall_ns();
    let mut iters: u64 = 1;
    // Whether the previous sample, of this many calls, reached the target too.
    let mut reached = false;
    loop {
        let s = sample(iters)?;
        let warm = crate::clock::wall_ns() - begin >= warmup_ns;
        if s.wall_ns >= target_ns {
            if warm && reached {
                return Ok(iters);
            }
            reached = true;
            continue;
        }
        reached = false;
        // Aim a little past the target; grow at most 16x per step so a cold first call
        // cannot overshoot by orders of magnitude.
        let per_call = s.wall_ns as f64 / iters as f64;
        let want = (target_ns as f64 * 1.1 / per_call).ceil() as u64;
        iters = want.clamp(iters + 1, iters.saturating_mul(16));
    }
}

/// Measures one prepared cell in this process.
pub fn measure(timed: &mut dyn Timed, cell: CellSpec, config: &MeasureConfig) -> Measurement {
    if config.bout_samples > 0 {
        // In the worker's own process: a bout says what the host did to it (the disturbance probe).
        return measure_bout(|iters| take_sample(timed, iters), cell, config, true);
    }
    measure_with(|iters| take_sample(timed, iters), cell, config)
}

/// Measures one cell whose batches are taken by `sample(iters)`: locally, or by a worker that
/// reads its own clocks around the batch (see the protocol's `sample` request).
pub fn measure_with<F>(mut sample: F, cell: CellSpec, config: &MeasureConfig) -> Measurement
where
    F: FnMut(u64) -> Result<Sample, String>,
{
    if config.bout_samples > 0 {
        return measure_bout(sample, cell, config, false);
    }
    let started = crate::clock::wall_ns();
    let budget_ns = (config.max_time_s * 1e9) as u64;
    let target_ns = ((config.sample_time_s * 1e9) as u64).max(1);
    let failed = |cell: CellSpec, e: String| Measurement::not_timed(cell, Status::Failed, e);

    if let Err(e) = first_call(&mut sample) {
        return failed(cell, format!("library call failed on its first call: {e}"));
    }
    let iters = match calibrate(&mut sample, target_ns, (config.warmup_s * 1e9) as u64) {
        Ok(i) => i,
        Err(e) => return failed(cell, format!("library call failed while calibrating: {e}")),
    };

    let mut samples: Vec<Sample> = Vec::new();
    let mut precise = false;
    loop {
        match sample(iters) {
            Ok(s) => samples.push(s),
            Err(e) => return failed(cell, format!("library call failed while sampling: {e}")),
        }
        let n = samples.len();
        let spent = crate::clock::wall_ns() - started;
        // Re-check precision at a geometric pace: the median CI only narrows slowly.
        if !config.fixed_duration
            && n >= config.min_samples as usize
            && (n < 64 || n.is_multiple_of(n / 32))
        {
            let per_op: Vec<f64> = samples.iter().map(Sample::ns_per_op).collect();
            if let Some(sum) = stats::summarize(&per_op) {
                if stats::is_precise(&sum, config.precision) {
                    precise = true;
                    break;
                }
            }
        }
        if spent >= budget_ns || n >= MAX_SAMPLES {
            break;
        }
    }
    let elapsed_s = (crate::clock::wall_ns() - started) as f64 / 1e9;
    summarize(cell, samples, precise, config, elapsed_s)
}

/// One bout of a cell: its first call, then warm up (calibrating the batch size when
/// `batch_iters` is 0), then exactly `bout_samples` samples. Whether the cell is precise is for
/// the caller to judge over its bouts. With `probe` (in the worker's own process), the bout says
/// what the host did to it over its samples (`crate::disturbance`).
fn measure_bout<F>(
    mut sample: F,
    cell: CellSpec,
    config: &MeasureConfig,
    probe: bool,
) -> Measurement
where
    F: FnMut(u64) -> Result<Sample, String>,
{
    let started = crate::clock::wall_ns();
    let target_ns = ((config.sample_time_s * 1e9) as u64).max(1);
    let warmup_ns = (config.warmup_s * 1e9) as u64;
    let failed = |cell: CellSpec, e: String| Measurement::not_timed(cell, Status::Failed, e);
    if let Err(e) = first_call(&mut sample) {
        return failed(cell, format!("library call failed on its first call: {e}"));
    }
    let warming = crate::clock::wall_ns();
    let iters = if config.batch_iters > 0 {
        // A known batch size: warm this process's caches and predictors for at least one batch.
        loop {
            if let Err(e) = sample(config.batch_iters) {
                return failed(cell, format!("library call failed while warming up: {e}"));
            }
            if crate::clock::wall_ns() - warming >= warmup_ns {
                break config.batch_iters;
            }
        }
    } else {
        match calibrate(&mut sample, target_ns, warmup_ns) {
            Ok(i) => i,
            Err(e) => return failed(cell, format!("library call failed while calibrating: {e}")),
        }
    };
    let mut samples = Vec::with_capacity(config.bout_samples as usize);
    let probe = probe.then(crate::disturbance::Probe::start);
    for _ in 0..config.bout_samples {
        match sample(iters) {
            Ok(s) => samples.push(s),
            Err(e) => return failed(cell, format!("library call failed while sampling: {e}")),
        }
    }
    let disturbances = probe.map(|p| vec![p.finish()]).unwrap_or_default();
    let elapsed_s = (crate::clock::wall_ns() - started) as f64 / 1e9;
    Measurement {
        disturbances,
        ..summarize(cell, samples, false, config, elapsed_s)
    }
}

/// Builds the stored measurement of a cell measured in bouts (each sample carries its bout): the
/// center and 95% interval come from the spread between bouts (`stats::bout_estimate`), the
/// spread figures (MAD, outliers, range) from the pooled samples. `ok` once it has `min_bouts`
/// bouts and the interval is within the precision target; otherwise `imprecise`, saying why.
pub fn summarize_bouts(
    cell: CellSpec,
    samples: Vec<Sample>,
    disturbances: Vec<cryptospeed_model::BoutDisturbance>,
    config: &MeasureConfig,
    elapsed_s: f64,
    stopped: &str,
) -> Measurement {
    // Bouts the canary found slowed by the host are left out of the figure (kept in the store).
    let kept = stats::without_slow_bouts(&samples, &disturbances);
    let bouts = stats::by_bout(&kept);
    // A call whose time varies by design (ML-DSA signing) is centered on its mean time per call.
    let center = stats::Center::of(cryptospeed_catalog::time_varies_per_call(
        &cell.primitive,
        cell.op,
    ));
    let Some(estimate) = stats::cell_estimate(&bouts, 0.95, center) else {
        // One bout: the samples of one process are all there is.
        let mut m = summarize(cell, samples, false, config, elapsed_s);
        m.status = Status::Imprecise;
        m.reason = Some(format!("{stopped} after 1 bout: no interval between bouts"));
        m.disturbances = disturbances;
        return m;
    };
    // TSC ticks per operation by the same estimator as the time, so cycles and rates agree.
    let tsc_bouts = stats::by_bout_with(&kept, |s| s.tsc as f64 / s.iters as f64);
    let mut m = summarize(cell, samples, false, config, elapsed_s);
    m.disturbances = disturbances;
    if let Some(s) = m.summary.as_mut() {
        s.median = estimate.center;
        s.ci_lo = estimate.ci.0;
        s.ci_hi = estimate.ci.1;
    }
    if let Some(t) = stats::cell_estimate(&tsc_bouts, 0.95, center) {
        m.tsc_per_op = Some(t.center);
    }
    (m.status, m.reason) = judged(&m, bouts.len(), config, stopped);
    m
}

/// A cell's status from its interval and bouts so far, and why it is imprecise: its interval
/// is past the target, it has too few bouts, or its canary ran well above the canary's floor
/// and it never ran at the floor (`cryptospeed_stats::canary_floor`: a host at two speeds that
/// stayed slow, or one slowed throughout), so its figure is the slowed host's however narrow its
/// interval, and the run keeps measuring it while its budget lasts.
fn judged(
    m: &Measurement,
    bouts: usize,
    config: &MeasureConfig,
    stopped: &str,
) -> (Status, Option<String>) {
    let short_of_floor = stats::canary_floor::cell_floor(&m.disturbances).filter(|f| !f.reached());
    let precise = m.summary.is_some_and(|s| s.rel_ci() <= config.precision)
        && bouts >= config.min_bouts as usize
        && short_of_floor.is_none();
    if precise {
        return (Status::Ok, None);
    }
    let why = match short_of_floor {
        Some(f) => format!(
            "{stopped}: the cell's median bout's canary ran over {:.0}% above the canary's floor ({} ns) and only {} of {} bouts within {:.0}% of it: its figure is the slowed host's (the floor is the fastest the machine ran the canary in the last 14 days; CRYPTOSPEED_QUIET_CANARY=off ignores it)",
            100.0 * stats::canary_floor::TWO_SPEEDS_GAP,
            f.floor_ns,
            f.at_floor,
            f.bouts,
            100.0 * stats::canary_floor::FLOOR_BAND
        ),
        None => format!(
            "{stopped}: ±{:.2}% after {bouts} bouts (target ±{:.2}%)",
            m.summary.map_or(f64::NAN, |s| s.rel_ci() * 100.0),
            config.precision * 100.0
        ),
    };
    (Status::Imprecise, Some(why))
}

/// Builds the stored measurement from raw samples.
pub fn summarize(
    cell: CellSpec,
    samples: Vec<Sample>,
    precise: bool,
    config: &MeasureConfig,
    elapsed_s: f64,
) -> Measurement {
    let per_op: Vec<f64> = samples.iter().map(Sample::ns_per_op).collect();
    let summary = stats::summarize(&per_op);
    let tsc_per_op: Vec<f64> = samples
        .iter()
        .map(|s| s.tsc as f64 / s.iters as f64)
        .collect();
    let cpu_fraction: Vec<f64> = samples
        .iter()
        .map(|s| s.cpu_ns as f64 / s.wall_ns as f64)
        .collect();
    let precise = precise || summary.is_some_and(|s| stats::is_precise(&s, config.precision));
    Measurement {
        cell,
        status: if precise {
            Status::Ok
        } else {
            Status::Imprecise
        },
        reason: if precise {
            None
        } else {
            summary.map(|s| {
                format!(
                    "time budget spent: ±{:.2}% after {} samples (target ±{:.2}%)",
                    s.rel_ci() * 100.0,
                    s.n,
                    config.precision * 100.0
                )
            })
        },
        summary,
        tsc_per_op: stats::median(&tsc_per_op),
        cpu_fraction: stats::median(&cpu_fraction),
        samples,
        elapsed_s,
        reported_rate: None,
        disturbances: Vec::new(),
        flights: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_model::Op;

    /// A deterministic workload: spins on arithmetic for a fixed count per call.
    struct Spin(u64);
    impl Timed for Spin {
        fn run(&mut self, iters: u64) -> Result<(), String> {
            let mut x = 0u64;
            for i in 0..iters * self.0 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            Ok(())
        }
    }

    struct Broken;
    impl Timed for Broken {
        fn run(&mut self, _: u64) -> Result<(), String> {
            Err("EVP_Cipher returned 0".into())
        }
    }

    fn cell() -> CellSpec {
        CellSpec {
            primitive: "spin".into(),
            op: Op::Hash,
            bytes: Some(64),
            misalign: 0,
        }
    }

    /// A batch that takes exactly 1 µs per call on a made-up clock.
    fn one_microsecond_per_call(iters: u64) -> Result<Sample, String> {
        Ok(Sample {
            iters,
            wall_ns: iters * 1000,
            cpu_ns: iters * 1000,
            tsc: iters * 2600,
            bout: 0,
        })
    }

    #[test]
    fn calibration_reaches_the_sample_time_without_overshooting() {
        let mut sample = one_microsecond_per_call;
        let iters = calibrate(&mut sample, 2_000_000, 0).unwrap();
        // At least the 2 ms target, and not more than twice it (it aims 10% past).
        assert!((2000..=4000).contains(&iters), "{iters}");
    }

    #[test]
    fn sampling_uses_the_calibrated_batch_and_stops_at_the_first_sample_past_the_budget() {
        let cfg = MeasureConfig {
            max_time_s: 0.3,
            sample_time_s: 0.002,
            warmup_s: 0.0,
            fixed_duration: false,
            // Never precise: only the budget can end it.
            precision: 0.0,
            ..Default::default()
        };
        let before = crate::clock::wall_ns();
        let mut spin = Spin(1000);
        let (mut first_call, mut ends) = (None, Vec::new());
        let m = measure_with(
            |iters| {
                first_call.get_or_insert_with(crate::clock::wall_ns);
                let s = take_sample(&mut spin, iters);
                ends.push(crate::clock::wall_ns());
                s
            },
            cell(),
            &cfg,
        );
        // Relations the loop guarantees however loaded the machine is. Its clock starts between
        // `before` and the first call, so: every sample but the last ended before
        // first call + budget, and the last one ended after before + budget.
        let (budget, first_call) = (300_000_000, first_call.unwrap());
        let n = m.samples.len();
        assert!(n >= 1, "{n}");
        let sampling_ends = &ends[ends.len() - n..];
        assert!(sampling_ends[..n - 1]
            .iter()
            .all(|&e| e < first_call + budget));
        assert!(sampling_ends[n - 1] >= before + budget);
        // One calibrated batch size, larger than one call.
        let iters = m.samples[0].iters;
        assert!(iters > 1 && m.samples.iter().all(|s| s.iters == iters));
        assert!(m.tsc_per_op.unwrap() > 0.0);
    }

    /// Spins for `per_call` per call, and 50 times as long on its first call (a library's
    /// one-time set-up, as AWS-LC's random generator seeded on the first key generation).
    struct SlowFirstCall {
        calls: u64,
        per_call: std::time::Duration,
    }
    impl Timed for SlowFirstCall {
        fn run(&mut self, iters: u64) -> Result<(), String> {
            for _ in 0..iters {
                let d = if self.calls == 0 {
                    self.per_call * 50
                } else {
                    self.per_call
                };
                self.calls += 1;
                let start = std::time::Instant::now();
                while start.elapsed() < d {
                    std::hint::spin_loop();
                }
            }
            Ok(())
        }
    }

    /// A made-up clock: 100 µs per call, plus `extra` on the calls (counted from 1) it names.
    fn slow_on(calls: &mut u64, extra: &[(u64, u64)], iters: u64) -> Result<Sample, String> {
        let first = *calls + 1;
        *calls += iters;
        let slow: u64 = extra
            .iter()
            .filter(|(n, _)| (first..=*calls).contains(n))
            .map(|(_, ns)| ns)
            .sum();
        let wall_ns = iters * 100_000 + slow;
        Ok(Sample {
            iters,
            wall_ns,
            cpu_ns: wall_ns,
            tsc: wall_ns * 2,
            bout: 0,
        })
    }

    fn bout_config(sample_time_s: f64) -> MeasureConfig {
        MeasureConfig {
            sample_time_s,
            warmup_s: 0.0,
            bout_samples: 3,
            ..Default::default()
        }
    }

    #[test]
    fn a_first_call_fifty_times_slower_is_neither_calibrated_on_nor_timed() {
        // In a bout and in one stretch (`--multi`), the real clocks: 100 µs calls, a 5 ms
        // first call, 2 ms samples. Calibrated on the first call, every sample would be 1 call.
        let multi = MeasureConfig {
            max_time_s: 0.1,
            fixed_duration: true,
            bout_samples: 0,
            ..bout_config(0.002)
        };
        for cfg in [bout_config(0.002), multi] {
            let mut timed = SlowFirstCall {
                calls: 0,
                per_call: std::time::Duration::from_micros(100),
            };
            let m = measure(&mut timed, cell(), &cfg);
            assert!(!m.samples.is_empty(), "{m:?}");
            for s in &m.samples {
                // About 22 calls; a busy machine only makes calls slower, so fewer, never 1.
                assert!(s.iters > 1, "{:?}", m.samples);
                // No sample holds the 5 ms call.
                assert!(s.ns_per_op() < 2_000_000.0, "{:?}", m.samples);
            }
        }
    }

    #[test]
    fn one_slow_call_after_the_first_cannot_settle_the_batch_size() {
        // The made-up clock, 2 ms samples (20 calls of 100 µs): a 50x first call, and then a
        // 5 ms call once more in calibration's first batch or in its second.
        for later in [2, 3, 30] {
            let mut calls = 0;
            let extra = [(1, 4_900_000), (later, 5_000_000)];
            let m = measure_with(
                |iters| slow_on(&mut calls, &extra, iters),
                cell(),
                &bout_config(0.002),
            );
            let iters: Vec<u64> = m.samples.iter().map(|s| s.iters).collect();
            assert!(
                iters.iter().all(|&i| i >= 20),
                "slow call {later}: {iters:?}"
            );
        }
    }

    #[test]
    fn a_call_longer_than_the_sample_time_is_timed_alone() {
        let mut calls = 0;
        // 100 µs calls against a 50 µs sample time.
        let m = measure_with(
            |iters| slow_on(&mut calls, &[], iters),
            cell(),
            &bout_config(0.000_05),
        );
        assert_eq!(m.samples.len(), 3);
        assert!(m.samples.iter().all(|s| s.iters == 1), "{:?}", m.samples);
    }

    #[test]
    fn a_failing_library_call_fails_the_cell() {
        let m = measure(&mut Broken, cell(), &MeasureConfig::default());
        assert_eq!(m.status, Status::Failed);
        assert!(m.reason.unwrap().contains("EVP_Cipher returned 0"));
        assert!(m.samples.is_empty());
    }

    #[test]
    fn twice_the_work_takes_about_twice_the_time() {
        let cfg = MeasureConfig {
            max_time_s: 1.0,
            sample_time_s: 0.002,
            warmup_s: 0.0,
            fixed_duration: false,
            precision: 0.02,
            ..Default::default()
        };
        // A shared machine can disturb one pair of measurements; a sampler that does not scale
        // with the work fails every attempt.
        let mut ratios = Vec::new();
        for _ in 0..5 {
            let a = measure(&mut Spin(2000), cell(), &cfg)
                .summary
                .unwrap()
                .median;
            let b = measure(&mut Spin(4000), cell(), &cfg)
                .summary
                .unwrap()
                .median;
            let ratio = b / a;
            if (1.5..2.6).contains(&ratio) {
                return;
            }
            ratios.push(ratio);
        }
        panic!("twice the work never measured as about twice the time: ratios {ratios:?}");
    }
}
