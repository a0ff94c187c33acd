//! The three clocks read around every sample: monotonic wall time, the thread's CPU time and the
//! time-stamp counter. Each is read once per batch, never per call.

/// Nanoseconds of `CLOCK_MONOTONIC`.
#[inline]
pub fn wall_ns() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// Nanoseconds of CPU time consumed by the calling thread.
#[inline]
pub fn thread_cpu_ns() -> u64 {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

#[inline]
fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; both clock ids exist on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The time-stamp counter: reference cycles at a constant rate on modern x86.
#[inline]
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc is available on every x86_64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        wall_ns()
    }
}

/// Measures the TSC frequency against the monotonic clock over `window_ms` milliseconds.
pub fn tsc_hz(window_ms: u64) -> f64 {
    let (w0, t0) = paired_reading();
    std::thread::sleep(std::time::Duration::from_millis(window_ms));
    let (w1, t1) = paired_reading();
    (t1 - t0) as f64 / ((w1 - w0) as f64 / 1e9)
}

/// The monotonic clock and the TSC read at one moment: of a few `tsc, wall, tsc` triples, the one
/// whose two TSC reads lie closest together, so a preemption between the reads (a busy host)
/// cannot skew the frequency.
fn paired_reading() -> (u64, u64) {
    (0..8)
        .map(|_| {
            let before = tsc();
            let wall = wall_ns();
            let after = tsc();
            (after.saturating_sub(before), wall, before / 2 + after / 2)
        })
        .min()
        .map(|(_, wall, tsc)| (wall, tsc))
        .unwrap()
}

/// A point in time on all three clocks.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub wall: u64,
    pub cpu: u64,
    pub tsc: u64,
}

impl Stamp {
    #[inline]
    pub fn now() -> Stamp {
        Stamp {
            cpu: thread_cpu_ns(),
            wall: wall_ns(),
            tsc: tsc(),
        }
    }
}

/// Pins the calling thread to one CPU.
pub fn pin_to_cpu(cpu: usize) -> Result<(), String> {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(format!(
                "cannot pin to CPU {cpu}: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_advance() {
        let a = Stamp::now();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let b = Stamp::now();
        assert!(b.wall > a.wall);
        assert!(b.cpu > a.cpu);
        assert!(b.tsc > a.tsc);
    }

    #[test]
    fn tsc_frequency_is_plausible() {
        let hz = tsc_hz(20);
        assert!(hz > 1e8 && hz < 1e10, "{hz}");
    }
}
