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
//! cell's usual canary ([`canary_reference`]) is **set aside** whole. Dividing a burst's canary
//! slowdown out instead did not work here: how much a cell slows with the canary in a burst
//! ranged from 0.1× (aes-128-cbc at 8 KB) to 2× (sha256 at 16 B) of the canary's own slowdown.
//!
//! A slowdown every bout of a run shares (the core's other hardware thread kept busy by compilers
//! for minutes) moves the cell's usual canary with it, so nothing is set aside and the figure
//! reads slow. Against the machine's quiet canary reference, which the run learns from its
//! earlier runs and stamps on every bout record (`BoutDisturbance::canary_quiet_ns`), such a
//! shift shows: when the kept bouts' canaries sit more than [`CANARY_SHIFT_FLOOR`] above it
//! ([`canary_shift`]), each kept bout is **corrected**, its times divided by its own canary's
//! ratio to the reference. Within 5% of the reference the cells slowed in proportion to the
//! canary at the busy hour measured (per-bout slopes 0.88–1.00, docs/experiments/host-noise.md),
//! and at quiet hours the cells' shifts stay under 0.1%, so nothing is corrected there.

use crate::canary_floor::{has_canary, slower};
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
/// [`canary_reference`]; where the host ran the canary at two speeds and the cell reached the
/// floor, every bout above it ([`crate::canary_floor`]). Bouts without a canary are never
/// judged.
pub fn slow_canary_bouts(disturbances: &[BoutDisturbance]) -> Vec<u32> {
    if let Some(above) = crate::canary_floor::above_floor_bouts(disturbances) {
        return above;
    }
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

/// The samples of the bouts the canary did not find slowed; where the cell's canaries sat above
/// the machine's quiet reference throughout ([`canary_shift`]), each divided by its bout's
/// canary ratio to that reference ([`canary_divided`]).
pub fn without_slow_bouts(samples: &[Sample], disturbances: &[BoutDisturbance]) -> Vec<Sample> {
    let slow = slow_canary_bouts(disturbances);
    let kept = samples.iter().filter(|s| !slow.contains(&s.bout));
    match canary_shift(disturbances) {
        Some(shift) if shift.corrects() => kept
            .map(|s| canary_divided(s, shift.ratio_of(disturbances, s.bout)))
            .collect(),
        _ => kept.copied().collect(),
    }
}

/// A cell's kept bouts' canaries over the machine's quiet reference at or under this (a share:
/// 0.002 = 0.2%) are the reference's own noise, and nothing is corrected: on the development VM
/// the cells' shifts at quiet hours were −0.08% to +0.06% (88 cells), at the busy hour +0.23% to
/// +3.0% (44 cells).
pub const CANARY_SHIFT_FLOOR: f64 = 0.002;

/// How far a cell's canaries sat above the machine's quiet reference over its kept bouts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CanaryShift {
    /// The machine's quiet reference (nanoseconds of the slower of a bout's two readings).
    pub reference_ns: u64,
    /// The 25%-trimmed mean of ln(slower reading / reference) over the kept bouts.
    pub log_shift: f64,
    /// Kept bouts with a canary (the ones corrected when [`CanaryShift::corrects`]).
    pub bouts: usize,
}

impl CanaryShift {
    /// Whether the shift is past the reference's own noise ([`CANARY_SHIFT_FLOOR`]).
    pub fn corrects(&self) -> bool {
        self.log_shift > CANARY_SHIFT_FLOOR.ln_1p()
    }

    /// The shift as a share (0.015: the canaries ran 1.5% slower than the reference).
    pub fn share(&self) -> f64 {
        self.log_shift.exp_m1()
    }

    /// Bout `bout`'s slower canary reading over the reference; 1 without a canary.
    fn ratio_of(&self, disturbances: &[BoutDisturbance], bout: u32) -> f64 {
        disturbances
            .iter()
            .find(|d| d.bout == bout && has_canary(d))
            .map_or(1.0, |d| slower(d) as f64 / self.reference_ns as f64)
    }
}

/// The shift of the cell's kept bouts' canaries over the quiet reference their records carry
/// (the latest bout's, should a resumed run have learnt another); `None` without a reference or
/// with fewer than two kept bouts with a canary.
pub fn canary_shift(disturbances: &[BoutDisturbance]) -> Option<CanaryShift> {
    let reference_ns = disturbances
        .iter()
        .filter(|d| d.canary_quiet_ns > 0)
        .max_by_key(|d| d.bout)?
        .canary_quiet_ns;
    let slow = slow_canary_bouts(disturbances);
    let mut logs: Vec<f64> = disturbances
        .iter()
        .filter(|d| has_canary(d) && !slow.contains(&d.bout))
        .map(|d| (slower(d) as f64 / reference_ns as f64).ln())
        .collect();
    if logs.len() < 2 {
        return None;
    }
    logs.sort_by(f64::total_cmp);
    let g = logs.len() / 4;
    let kept = &logs[g..logs.len() - g];
    Some(CanaryShift {
        reference_ns,
        log_shift: kept.iter().sum::<f64>() / kept.len() as f64,
        bouts: logs.len(),
    })
}

/// The sample with its times divided by `ratio` (its bout's canary over the quiet reference).
fn canary_divided(s: &Sample, ratio: f64) -> Sample {
    let scale = |x: u64| (x as f64 / ratio).round() as u64;
    Sample {
        wall_ns: scale(s.wall_ns),
        cpu_ns: scale(s.cpu_ns),
        tsc: scale(s.tsc),
        ..*s
    }
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
    /// Bouts divided by their canary's ratio to the machine's quiet reference
    /// ([`canary_shift`]), and the cell's shift in parts per million (0 when none corrected).
    pub shifted_bouts: usize,
    pub shift_ppm: i64,
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
        if let Some(shift) = canary_shift(disturbances).filter(CanaryShift::corrects) {
            h.shifted_bouts = shift.bouts;
            h.shift_ppm = (shift.share() * 1e6).round() as i64;
        }
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

    /// sha256 at 8 KB of the OpenSSL 3.5.5 variant, one run each (2026-11-29, the stored
    /// `scripts/bench-noisy` runs): per bout its time per call (ps) over the samples its thread
    /// ran through, and its canary readings (ns). The 02:45 UTC run, while other builds kept the
    /// other CPUs busy, and the 03:36 UTC run at a quiet hour, which read 4671.3 ns ±0.93%.
    const BUSY_0245: [(u64, u64, u64); 37] = [
        (5053250, 67530, 57846),
        (4911124, 56854, 60430),
        (4745200, 56845, 58126),
        (4695150, 56834, 56514),
        (5070404, 73980, 57766),
        (4798024, 69052, 56934),
        (4670826, 56043, 61120),
        (4692607, 56074, 56193),
        (4755236, 56073, 56975),
        (4847418, 61101, 74851),
        (4805062, 80749, 56614),
        (4692751, 57234, 56924),
        (4754731, 56844, 56184),
        (4730707, 56083, 56684),
        (4868588, 58898, 57525),
        (4695264, 56023, 72517),
        (5174713, 68030, 65396),
        (4802552, 58436, 58117),
        (4849539, 58046, 141690),
        (4826199, 56494, 68522),
        (4954819, 65027, 77725),
        (4727862, 71857, 56594),
        (4826971, 57245, 57766),
        (4932110, 58437, 58536),
        (4828218, 57285, 57345),
        (4891110, 56844, 58637),
        (4702219, 56844, 56984),
        (4866853, 70885, 57214),
        (4842829, 58026, 58507),
        (4766296, 57646, 57835),
        (4715498, 56594, 56214),
        (4855465, 56214, 63694),
        (4873735, 56153, 58247),
        (4922568, 57225, 57756),
        (4887383, 57996, 56624),
        (4812787, 57224, 57575),
        (4740403, 56954, 59398),
    ];
    const QUIET_0336: [(u64, u64, u64); 13] = [
        (4822212, 56083, 56163),
        (4776652, 56073, 56253),
        (5039833, 71767, 67741),
        (4698333, 56053, 56203),
        (4901966, 62963, 56213),
        (4652086, 56083, 56554),
        (4659597, 56083, 55012),
        (4650375, 56073, 56174),
        (4875389, 75441, 81020),
        (4652532, 56063, 56143),
        (4649936, 56083, 56154),
        (4631459, 56063, 56194),
        (4715410, 56073, 55061),
    ];
    /// The machine's quiet reference as the 03:36 run would have left it: the median of its
    /// bouts' slower canary readings.
    const QUIET_REFERENCE: u64 = 56_213;

    /// One sample of 1000 calls per bout, and the bout's canary record stamped with `reference`.
    fn recorded(bouts: &[(u64, u64, u64)], reference: u64) -> (Vec<Sample>, Vec<BoutDisturbance>) {
        bouts
            .iter()
            .enumerate()
            .map(|(b, &(ps, before, after))| {
                // 1000 calls of `ps` picoseconds each take `ps` nanoseconds.
                let s = Sample {
                    iters: 1000,
                    wall_ns: ps,
                    cpu_ns: ps,
                    tsc: 2 * ps,
                    bout: b as u32,
                };
                let d = BoutDisturbance {
                    canary_quiet_ns: reference,
                    canary_floor_ns: 0,
                    ..bout(b as u32, before, after)
                };
                (s, d)
            })
            .unzip()
    }

    fn estimate(samples: &[Sample], d: &[BoutDisturbance]) -> crate::BoutEstimate {
        let kept = without_slow_bouts(samples, d);
        crate::bout_estimate(&crate::by_bout(&kept), 0.95).unwrap()
    }

    #[test]
    fn a_slowdown_every_bout_shares_is_divided_out_against_the_quiet_reference() {
        let quiet_hour = 4671.3;
        // Without a reference the busy run reads 2.5% slow and its interval does not hold the
        // quiet hour's figure: every bout's canary was slow, so the cell's own lower quartile
        // (56.84 µs) moved with them.
        let (samples, d) = recorded(&BUSY_0245, 0);
        let e = estimate(&samples, &d);
        assert!((e.center - 4789.34).abs() < 0.05, "{e:?}");
        assert!(e.ci.0 > quiet_hour, "{e:?}");
        assert_eq!(canary_shift(&d), None);
        // Against the machine's quiet reference its kept bouts' canaries sat 2.6% high: each
        // bout is divided by its own canary's ratio, and the interval holds the quiet figure.
        let (samples, d) = recorded(&BUSY_0245, QUIET_REFERENCE);
        let shift = canary_shift(&d).unwrap();
        assert!((shift.share() - 0.02624).abs() < 1e-4, "{shift:?}");
        assert!(shift.corrects());
        let e = estimate(&samples, &d);
        assert!((e.center - 4677.45).abs() < 0.05, "{e:?}");
        assert!(e.ci.0 < quiet_hour && quiet_hour < e.ci.1, "{e:?}");
        // What the run reports: the bouts divided and the cell's shift.
        let h = HostPart::of_bouts(&samples, &d);
        assert_eq!(
            (h.slow_bouts, h.shifted_bouts, h.shift_ppm),
            (15, 22, 26235)
        );
    }

    #[test]
    fn at_a_quiet_hour_the_reference_changes_nothing() {
        // The 03:36 run's canaries sat 0.07% under the reference: within its noise.
        let (plain, d0) = recorded(&QUIET_0336, 0);
        let (samples, d) = recorded(&QUIET_0336, QUIET_REFERENCE);
        let shift = canary_shift(&d).unwrap();
        assert!(
            !shift.corrects() && shift.share().abs() < 0.001,
            "{shift:?}"
        );
        assert_eq!(
            without_slow_bouts(&samples, &d),
            without_slow_bouts(&plain, &d0)
        );
        let e = estimate(&samples, &d);
        assert!((e.center - 4671.32).abs() < 0.05, "{e:?}");
        assert_eq!(HostPart::of_bouts(&samples, &d).shifted_bouts, 0);
        // Just past the floor (0.2%) a shift corrects; at it, not.
        let at = |pct: f64| {
            let c = (QUIET_REFERENCE as f64 * (1.0 + pct)).round() as u64;
            let d: Vec<BoutDisturbance> = (0..4)
                .map(|b| BoutDisturbance {
                    canary_quiet_ns: QUIET_REFERENCE,
                    ..bout(b, c - 50, c)
                })
                .collect();
            canary_shift(&d).unwrap().corrects()
        };
        assert!(!at(0.0019) && at(0.0021));
    }
}
