//! The host's part of a sample, removed before a sample counts toward its bout's figure. On a
//! busy machine the measuring thread is descheduled for part of most samples (other processes,
//! the hypervisor stealing the vCPU): its wall time then holds time in which the code did not
//! run. The thread's CPU time does not, so a descheduled sample is **corrected**: its time
//! becomes its thread's CPU time (and its TSC ticks are scaled alike). Only what the host took is
//! removed: a call that loops longer (ML-DSA's rejection loop, RSA's blinding) still runs on
//! the thread and keeps its time. On the development VM at load 10, the CPU time per call of
//! samples whose thread had 30–60% of the CPU agreed with the wall time per call of the samples
//! it ran through within −0.4% to +1.5% in all 8 cells (docs/experiments/host-noise.md). A
//! sample whose thread had the CPU for under [`MIN_CORRECTABLE_SHARE`] of it was switched in
//! and out so often that its caches went cold between slices: it is **set aside**.
//!
//! A thread can also run the whole time and still run slow: a neighbour on the core's other
//! hardware thread, a lower clock. No kernel counter shows that (steal stayed 0 on this VM), but
//! the canary does: the same fixed loop, timed by its thread's CPU time before and after every
//! bout's samples. A bout whose slower canary took more than [`CANARY_SLOWDOWN`] longer than the
//! cell's usual canary ([`canary_reference`]) is **set aside** whole. Dividing the canary's slowdown out instead did
//! not work here: how much a cell slows with the canary ranged from 0.1× (aes-128-cbc at 8 KB)
//! to 2× (sha256 at 16 B) of the canary's own slowdown.

use cryptospeed_model::{BoutDisturbance, Sample};

/// A bout whose canary ran more than this much slower than the cell's usual canary
/// ([`canary_reference`]) was slowed by the host while its thread ran, and is set aside.
pub const CANARY_SLOWDOWN: f64 = 0.05;

/// What a cell's canary takes when the host leaves it alone: the lower quartile of its readings
/// (two a bout), not the fastest. On the development VM at load 7 one reading of a cell came in
/// 13% under all its others (48.9 µs against 56.0–56.1 µs); against the fastest, every other bout
/// of that cell read 15% slow and 8 of its 9 bouts were set aside. A quartile moves only once a
/// quarter of the readings are that fast, and stays on the undisturbed readings while fewer than
/// three quarters are slow.
pub fn canary_reference(disturbances: &[BoutDisturbance]) -> Option<u64> {
    let mut readings: Vec<u64> = disturbances
        .iter()
        .filter(|d| has_canary(d))
        .flat_map(|d| d.canary_ns)
        .collect();
    readings.sort_unstable();
    readings.get(readings.len().saturating_sub(1) / 4).copied()
}

/// The bouts the canary found slowed (see [`CANARY_SLOWDOWN`]), against the same cell's
/// [`canary_reference`]; bouts without a canary are never judged.
pub fn slow_canary_bouts(disturbances: &[BoutDisturbance]) -> Vec<u32> {
    let timed = || disturbances.iter().filter(|d| has_canary(d));
    let Some(reference) = canary_reference(disturbances) else {
        return Vec::new();
    };
    let limit = reference as f64 * (1.0 + CANARY_SLOWDOWN);
    timed()
        .filter(|d| d.canary_ns.iter().any(|c| *c as f64 > limit))
        .map(|d| d.bout)
        .collect()
}

/// Whether the worker timed a canary around the bout (the Rust worker does; others do not).
fn has_canary(d: &BoutDisturbance) -> bool {
    d.canary_ns.iter().all(|c| *c > 0)
}

/// The samples of the bouts the canary did not find slowed.
pub fn without_slow_bouts(samples: &[Sample], disturbances: &[BoutDisturbance]) -> Vec<Sample> {
    let slow = slow_canary_bouts(disturbances);
    samples
        .iter()
        .filter(|s| !slow.contains(&s.bout))
        .copied()
        .collect()
}

/// The share of the samples' wall time that counts toward the figure: a kept sample's time as
/// corrected (a descheduled one's thread CPU time), over the wall time of all of them; what the
/// host took (descheduled time, set-aside samples, bouts whose canary ran slow) is the rest.
/// 1 without samples.
pub fn counted_time_share(samples: &[Sample], disturbances: &[BoutDisturbance]) -> f64 {
    let all: u64 = samples.iter().map(|s| s.wall_ns).sum();
    let counted: u64 = without_slow_bouts(samples, disturbances)
        .iter()
        .filter_map(corrected)
        .map(|s| s.wall_ns)
        .sum();
    if all == 0 {
        1.0
    } else {
        counted as f64 / all as f64
    }
}

/// Samples whose thread had the CPU for at least this share of their wall time ran through:
/// they are taken as they are.
///
/// A corrected sample loses all its time off the CPU, the host's and the code's own alike. For
/// the cells timed here the code's own is small: the timed loops are single-threaded and do not
/// sleep, and a system call's kernel time (getrandom's included; it blocks only until the
/// kernel's random pool is first ready, at boot) is thread CPU time and is kept. The exception
/// is the Go worker: its collector's mark workers run on other threads (their CPU time is in no
/// thread-timed sample, corrected or not), and its stop-the-world pauses leave the timed thread
/// waiting off the CPU. A pause alone is under this share's 10% of a 5 ms sample unless it lasts
/// 0.5 ms or more, but a sample corrected for being descheduled loses its pauses too, reading
/// the cell a little fast. A batch that ended on another thread is timed by Go's process clock
/// (the collector included), so its share can exceed 1 and it is kept as it is. In the
/// single-P handshake cells (GOMAXPROCS 1) the collector's work takes turns with the timed
/// goroutines on the one P, as on-CPU time, mostly of the same thread. How often these apply
/// has not been measured.
pub const UNDISTURBED_CPU_SHARE: f64 = 0.9;

/// Samples whose thread had the CPU for less than this share of their wall time are set aside;
/// between this and [`UNDISTURBED_CPU_SHARE`] they are corrected.
pub const MIN_CORRECTABLE_SHARE: f64 = 0.25;

/// What the host did to one sample, as judged from its thread's CPU time against its wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// Ran through (or no CPU clock to judge by: a worker that has none reports 0).
    Undisturbed,
    /// Descheduled for part of it: timed by its thread's CPU time instead.
    Corrected,
    /// Descheduled for most of it: left out.
    SetAside,
}

/// The thread's share of the sample's wall time; `None` without a CPU clock.
fn share(s: &Sample) -> Option<f64> {
    (s.cpu_ns > 0).then(|| s.cpu_ns as f64 / s.wall_ns.max(1) as f64)
}

pub fn judge(s: &Sample) -> Judged {
    match share(s) {
        Some(x) if x < MIN_CORRECTABLE_SHARE => Judged::SetAside,
        Some(x) if x < UNDISTURBED_CPU_SHARE => Judged::Corrected,
        _ => Judged::Undisturbed,
    }
}

/// The sample with the host's part removed: a descheduled one timed by its thread's CPU time
/// (its TSC ticks scaled by the same factor); any other as it is. `None` when set aside.
pub fn corrected(s: &Sample) -> Option<Sample> {
    match judge(s) {
        Judged::Undisturbed => Some(*s),
        Judged::SetAside => None,
        Judged::Corrected => Some(Sample {
            wall_ns: s.cpu_ns,
            tsc: (s.tsc as f64 * s.cpu_ns as f64 / s.wall_ns as f64).round() as u64,
            ..*s
        }),
    }
}

/// How much of some samples the host disturbed: set aside, corrected, of how many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostPart {
    pub set_aside: usize,
    pub corrected: usize,
    pub of: usize,
    /// Bouts set aside whole because their canary ran slow, of how many bouts had a canary.
    pub slow_bouts: usize,
    pub canary_bouts: usize,
}

impl HostPart {
    /// Of a measurement: its samples' judgement and its bouts' canaries (a sample of a slowed
    /// bout counts as set aside).
    pub fn of_measurement(m: &cryptospeed_model::Measurement) -> HostPart {
        HostPart::of_bouts(&m.samples, &m.disturbances)
    }

    /// Of a cell's samples and its bouts' disturbance records, as [`HostPart::of_measurement`].
    pub fn of_bouts(samples: &[Sample], disturbances: &[BoutDisturbance]) -> HostPart {
        let slow = slow_canary_bouts(disturbances);
        let kept = without_slow_bouts(samples, disturbances);
        let mut h = HostPart::of(&kept);
        h.set_aside += samples.len() - kept.len();
        h.of = samples.len();
        h.slow_bouts = slow.len();
        h.canary_bouts = disturbances.iter().filter(|d| has_canary(d)).count();
        h
    }

    pub fn of(samples: &[Sample]) -> HostPart {
        let mut h = HostPart {
            of: samples.len(),
            ..Default::default()
        };
        for s in samples {
            match judge(s) {
                Judged::SetAside => h.set_aside += 1,
                Judged::Corrected => h.corrected += 1,
                Judged::Undisturbed => {}
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(wall_ns: u64, cpu_ns: u64) -> Sample {
        Sample {
            iters: 10,
            wall_ns,
            cpu_ns,
            tsc: 2 * wall_ns,
            bout: 0,
        }
    }

    #[test]
    fn the_thresholds_are_where_they_say_on_either_side() {
        // 90%: at it taken as is, just under it corrected.
        assert_eq!(judge(&sample(1000, 900)), Judged::Undisturbed);
        assert_eq!(judge(&sample(1000, 899)), Judged::Corrected);
        // 25%: at it corrected, just under it set aside.
        assert_eq!(judge(&sample(1000, 250)), Judged::Corrected);
        assert_eq!(judge(&sample(1000, 249)), Judged::SetAside);
        // No CPU clock: never judged; a process clock past the wall (Go): ran through.
        assert_eq!(judge(&sample(1000, 0)), Judged::Undisturbed);
        assert_eq!(judge(&sample(1000, 1500)), Judged::Undisturbed);
    }

    #[test]
    fn a_descheduled_sample_is_timed_by_its_threads_cpu_time() {
        let c = corrected(&sample(1000, 600)).unwrap();
        assert_eq!((c.wall_ns, c.cpu_ns, c.tsc, c.iters), (600, 600, 1200, 10));
        assert_eq!(corrected(&sample(1000, 950)), Some(sample(1000, 950)));
        assert_eq!(corrected(&sample(1000, 100)), None);
        let samples = [
            sample(1000, 1000),
            sample(1000, 600),
            sample(1000, 300),
            sample(1000, 100),
        ];
        assert_eq!(
            HostPart::of(&samples),
            HostPart {
                set_aside: 1,
                corrected: 2,
                of: 4,
                ..Default::default()
            }
        );
        // Of 4000 ns of wall time, 1000 + 600 + 300 counts (the 100-ns one is set aside).
        assert_eq!(counted_time_share(&samples, &[]), 1900.0 / 4000.0);
    }

    #[test]
    fn corrected_samples_give_the_interval_scipy_gives_for_the_undisturbed_figures() {
        // SciPy 1.17.1 on np.log([100, 103, 98, 101, 99.5, 120, 97, 102]) with trim=0.25 (the
        // figures of crates/stats/src/bouts.rs' eight-bout test): center 100.62042713344752,
        // 95% interval (97.76500093844372, 103.55925187268339). Bout 2's sample was descheduled
        // for half of it (its wall time reads 196 ns a call) and a ninth bout's for 80%: the
        // first is corrected to 98, the second set aside, and the interval is SciPy's.
        let figures = [100.0, 103.0, 98.0, 101.0, 99.5, 120.0, 97.0, 102.0];
        let mut samples: Vec<Sample> = figures
            .iter()
            .enumerate()
            .map(|(b, ns)| Sample {
                iters: 10,
                wall_ns: (ns * 10.0) as u64,
                cpu_ns: (ns * 10.0) as u64,
                tsc: 0,
                bout: b as u32,
            })
            .collect();
        samples[2].wall_ns = 1960;
        samples.push(Sample {
            bout: 8,
            ..sample(5000, 1000)
        });
        let e = crate::bout_estimate(&crate::by_bout(&samples), 0.95).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() / y < 1e-9;
        assert_eq!(e.bouts, 8);
        assert!(close(e.center, 100.62042713344752), "{e:?}");
        assert!(close(e.ci.0, 97.76500093844372) && close(e.ci.1, 103.55925187268339));
    }

    fn bout(bout: u32, before: u64, after: u64) -> BoutDisturbance {
        BoutDisturbance {
            bout,
            canary_ns: [before, after],
            ..Default::default()
        }
    }

    #[test]
    fn one_fast_canary_reading_does_not_set_the_cells_other_bouts_aside() {
        // As read at load 7: one reading 13% under the others. Against the fastest every other
        // bout would be 15% slow; against the lower quartile only the bout 10% slow is.
        let mut d: Vec<BoutDisturbance> = (0..9).map(|b| bout(b, 56_050, 56_060)).collect();
        d[5].canary_ns[0] = 48_943;
        d[7].canary_ns[1] = 61_700;
        assert_eq!(canary_reference(&d), Some(56_050));
        assert_eq!(slow_canary_bouts(&d), [7]);
        // The lower quartile of eight readings is the second fastest; of none, nothing.
        let d = [
            bout(0, 900, 1000),
            bout(1, 1000, 1000),
            bout(2, 1000, 1300),
            bout(3, 1052, 1000),
        ];
        assert_eq!(canary_reference(&d), Some(1000));
        assert_eq!(slow_canary_bouts(&d), [2, 3]);
        assert_eq!(canary_reference(&[bout(0, 0, 0)]), None);
    }

    #[test]
    fn a_bout_whose_canary_ran_over_five_percent_slow_is_set_aside_whole() {
        // Usual canary 1000 ns: 1050 is at the limit and kept, 1051 (before or after) is not.
        let d = [
            bout(0, 1000, 1010),
            bout(1, 1050, 1049),
            bout(2, 1000, 1051),
            bout(3, 1300, 1001),
            // No canary (another worker): never judged.
            bout(4, 0, 0),
        ];
        assert_eq!(slow_canary_bouts(&d), [2, 3]);
        assert!(slow_canary_bouts(&[]).is_empty());
        let samples: Vec<Sample> = (0..5)
            .flat_map(|b| {
                [Sample {
                    bout: b,
                    ..sample(1000, 1000)
                }; 2]
            })
            .collect();
        let kept: Vec<u32> = without_slow_bouts(&samples, &d)
            .iter()
            .map(|s| s.bout)
            .collect();
        assert_eq!(kept, [0, 0, 1, 1, 4, 4]);
        let m = cryptospeed_model::Measurement {
            samples,
            disturbances: d.to_vec(),
            ..cryptospeed_model::Measurement::not_timed(
                cryptospeed_model::CellSpec {
                    primitive: "md5".into(),
                    op: cryptospeed_model::Op::Hash,
                    bytes: Some(16),
                    misalign: 0,
                },
                cryptospeed_model::Status::Ok,
                "",
            )
        };
        let h = HostPart::of_measurement(&m);
        assert_eq!(
            (h.set_aside, h.corrected, h.of, h.slow_bouts, h.canary_bouts),
            (4, 0, 10, 2, 4)
        );
        // Bouts 2 and 3 set aside: 6 of 10 equal samples' time counts.
        assert_eq!(counted_time_share(&m.samples, &m.disturbances), 0.6);
        assert_eq!(counted_time_share(&[], &[]), 1.0);
    }
}
