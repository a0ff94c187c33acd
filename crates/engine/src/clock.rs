//! The three clocks read around every sample: monotonic wall time, the thread's CPU time and the
//! time-stamp counter. Each is read once per batch, never per call, and the thread's CPU clock (a
//! system call, about 0.6 µs here, where the other two are read in user space) outside the wall
//! and TSC windows ([`Stamp::before_batch`], [`Stamp::after_batch`]).

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

/// The three clocks as a sample reads them: the real ones ([`Real`]), or a test's.
pub trait Clocks {
    fn wall(&mut self) -> u64;
    fn cpu(&mut self) -> u64;
    fn tsc(&mut self) -> u64;
}

/// The machine's clocks: [`wall_ns`], [`thread_cpu_ns`], [`tsc`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Real;

impl Clocks for Real {
    #[inline]
    fn wall(&mut self) -> u64 {
        wall_ns()
    }
    #[inline]
    fn cpu(&mut self) -> u64 {
        thread_cpu_ns()
    }
    #[inline]
    fn tsc(&mut self) -> u64 {
        tsc()
    }
}

/// A point in time on all three clocks.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub wall: u64,
    pub cpu: u64,
    pub tsc: u64,
}

impl Stamp {
    /// Read just before a batch: the CPU clock first, the TSC last, so that the wall and TSC
    /// windows hold the batch and not the CPU clock's system call.
    #[inline]
    pub fn before_batch() -> Stamp {
        Stamp::before_on(&mut Real)
    }

    /// Read just after a batch, in the opposite order to [`Stamp::before_batch`].
    #[inline]
    pub fn after_batch() -> Stamp {
        Stamp::after_on(&mut Real)
    }

    #[inline]
    pub fn before_on(clocks: &mut impl Clocks) -> Stamp {
        let cpu = clocks.cpu();
        let wall = clocks.wall();
        let tsc = clocks.tsc();
        Stamp { wall, cpu, tsc }
    }

    #[inline]
    pub fn after_on(clocks: &mut impl Clocks) -> Stamp {
        let tsc = clocks.tsc();
        let wall = clocks.wall();
        let cpu = clocks.cpu();
        Stamp { wall, cpu, tsc }
    }

    /// The sample of `iters` calls between `start` and this stamp.
    pub fn elapsed_since(self, start: Stamp, iters: u64) -> cryptospeed_model::Sample {
        cryptospeed_model::Sample {
            iters,
            wall_ns: self.wall.saturating_sub(start.wall).max(1),
            cpu_ns: self.cpu.saturating_sub(start.cpu),
            tsc: self.tsc.saturating_sub(start.tsc),
            bout: 0,
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
        let a = Stamp::before_batch();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let b = Stamp::after_batch();
        assert!(b.wall > a.wall);
        assert!(b.cpu > a.cpu);
        assert!(b.tsc > a.tsc);
    }

    /// A made-up machine on which reading the CPU clock takes 600 ns (a system call) and the
    /// other two clocks nothing; all three read one counter.
    struct Slow600 {
        now: u64,
    }
    impl Clocks for Slow600 {
        fn wall(&mut self) -> u64 {
            self.now
        }
        fn cpu(&mut self) -> u64 {
            let t = self.now;
            self.now += 600;
            t
        }
        fn tsc(&mut self) -> u64 {
            self.now
        }
    }

    #[test]
    fn the_cpu_clock_is_read_outside_the_wall_and_tsc_windows() {
        let mut clocks = Slow600 { now: 1_000 };
        let a = Stamp::before_on(&mut clocks);
        clocks.now += 5_000; // the batch
        let b = Stamp::after_on(&mut clocks);
        // Neither read of the CPU clock shows in the batch's wall time or TSC ticks.
        assert_eq!(b.wall - a.wall, 5_000);
        assert_eq!(b.tsc - a.tsc, 5_000);
        // The CPU window holds the batch and no more than one read's cost.
        assert!(
            (5_000..=5_600).contains(&(b.cpu - a.cpu)),
            "{}",
            b.cpu - a.cpu
        );
    }

    #[test]
    fn tsc_frequency_is_plausible() {
        let hz = tsc_hz(20);
        assert!(hz > 1e8 && hz < 1e10, "{hz}");
    }
}
