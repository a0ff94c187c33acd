//! What the host did to a bout, read by the worker around the bout's samples: the time of a
//! canary (a fixed reference loop, the same work in every bout of every cell) just before and just
//! after the samples, and the kernel's counters for the same stretch — the thread's involuntary
//! context switches (getrusage RUSAGE_THREAD), its run-queue wait (/proc/thread-self/schedstat)
//! and the steal time of the CPU it ran on (/proc/stat). A thread that was descheduled shows in
//! its CPU time already; a neighbour on the core's other hardware thread, or a slower clock,
//! shows in no counter, only in the canary running slower (docs/experiments/host-noise.md).

use cryptospeed_model::BoutDisturbance;

/// Rounds of the canary's loop: about 50 µs of a release build on the development VM.
pub const CANARY_ROUNDS: u64 = 40_000;

/// The canary: `rounds` rounds of an add-rotate-xor mix over four words (SipHash's round), a
/// fixed amount of integer work that depends on nothing outside it. Returns the nanoseconds of
/// CPU time its thread took: a preemption during it is not the hardware running slower, and
/// would hide what the canary is for.
pub fn canary(rounds: u64) -> u64 {
    let start = crate::clock::thread_cpu_ns();
    let mut v = std::hint::black_box([
        0x736f_6d65_7073_6575u64,
        0x646f_7261_6e64_6f6d,
        0x6c79_6765_6e65_7261,
        0x7465_6462_7974_6573,
    ]);
    for i in 0..rounds {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]) ^ i;
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    std::hint::black_box(v);
    crate::clock::thread_cpu_ns().saturating_sub(start)
}

/// The kernel's counters for the calling thread at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub nivcsw: u64,
    pub run_delay_ns: u64,
    /// Steal of the CPU the thread is on, in nanoseconds.
    pub steal_ns: u64,
}

impl Counters {
    /// Reads them now; a counter the system does not offer reads 0.
    pub fn now() -> Counters {
        Counters {
            nivcsw: nivcsw(),
            run_delay_ns: std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()
                .and_then(|t| run_delay(&t))
                .unwrap_or(0),
            steal_ns: current_cpu()
                .and_then(|cpu| {
                    let stat = std::fs::read_to_string("/proc/stat").ok()?;
                    cpu_steal_ticks(&stat, cpu)
                })
                .map_or(0, |ticks| ticks * 1_000_000_000 / ticks_per_s()),
        }
    }
}

fn nivcsw() -> u64 {
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut r) == 0 {
            r.ru_nivcsw as u64
        } else {
            0
        }
    }
}

fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments; -1 on failure.
    let cpu = unsafe { libc::sched_getcpu() };
    (cpu >= 0).then_some(cpu as usize)
}

fn ticks_per_s() -> u64 {
    // SAFETY: sysconf reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as u64
    } else {
        100
    }
}

/// The second field of /proc/thread-self/schedstat: nanoseconds spent waiting on a run queue.
fn run_delay(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().nth(1)?.parse().ok()
}

/// The steal field (the eighth number) of the `cpuN` line of /proc/stat, in clock ticks.
fn cpu_steal_ticks(stat: &str, cpu: usize) -> Option<u64> {
    let name = format!("cpu{cpu}");
    let line = stat
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name.as_str()))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

/// A bout's probe, started just before its samples and finished just after them.
pub struct Probe {
    canary_before: u64,
    start: Counters,
}

impl Probe {
    pub fn start() -> Probe {
        let canary_before = canary(CANARY_ROUNDS);
        Probe {
            canary_before,
            start: Counters::now(),
        }
    }

    /// What the host did over the samples (bout 0: the orchestrator numbers bouts).
    pub fn finish(self) -> BoutDisturbance {
        let end = Counters::now();
        BoutDisturbance {
            bout: 0,
            canary_ns: [self.canary_before, canary(CANARY_ROUNDS)],
            nivcsw: end.nivcsw.saturating_sub(self.start.nivcsw),
            run_delay_ns: end.run_delay_ns.saturating_sub(self.start.run_delay_ns),
            steal_ns: end.steal_ns.saturating_sub(self.start.steal_ns),
            // The orchestrator stamps the machine's quiet reference and canary floor.
            canary_quiet_ns: 0,
            canary_floor_ns: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_lines_are_read_by_field() {
        // Real lines (Linux 6.1, this 2-vCPU VM): schedstat is runtime, run delay, timeslices.
        assert_eq!(run_delay("2468012 13579 42\n"), Some(13579));
        assert_eq!(run_delay("garbage"), None);
        let stat = "cpu  4705 150 1120 1670000 300 0 45 2000 0 0\n\
                    cpu0 2000 75 560 835000 150 0 20 1000 0 0\n\
                    cpu1 2705 75 560 835000 150 0 25 1007 0 0\n\
                    cpu10 1 1 1 1 1 1 1 55 0 0\n";
        assert_eq!(cpu_steal_ticks(stat, 0), Some(1000));
        assert_eq!(cpu_steal_ticks(stat, 1), Some(1007));
        assert_eq!(cpu_steal_ticks(stat, 10), Some(55), "cpu10 is not cpu1");
        assert_eq!(cpu_steal_ticks(stat, 2), None);
    }

    #[test]
    fn a_thread_that_sleeps_counts_no_involuntary_switch() {
        // A sleep is a voluntary switch, not a disturbance. On a busy machine the thread may
        // also be preempted around one sleep, so one try in five without an involuntary switch
        // is enough; a counter of every switch would count each sleep. (A competing thread's
        // involuntary switches and run-queue wait: crates/engine/tests/disturbed_bout.rs.)
        let quiet = (0..5).any(|_| {
            let a = Counters::now();
            std::thread::sleep(std::time::Duration::from_millis(2));
            Counters::now().nivcsw == a.nivcsw
        });
        assert!(quiet, "every sleep counted an involuntary switch");
    }

    #[test]
    fn the_canary_does_fixed_work_in_proportion_to_its_rounds() {
        // Minimum of several tries each, the two lengths taking turns, so a preemption in one
        // does not decide. The bounds leave room for a host at two speeds: its fast state comes
        // in stretches of a millisecond or two (docs/experiments/host-noise.md, "How long the
        // host's states last"), which the short canary can fit in and the long one miss, 1.5x
        // slower (the suite here read 6.01 once). Constant work reads about 1, work growing as
        // the square of the rounds about 16: both fail.
        let (mut short, mut long) = (u64::MAX, u64::MAX);
        for _ in 0..9 {
            short = short.min(canary(CANARY_ROUNDS));
            long = long.min(canary(4 * CANARY_ROUNDS));
        }
        let ratio = long as f64 / short as f64;
        assert!((2.5..8.0).contains(&ratio), "{ratio}");
    }
}
