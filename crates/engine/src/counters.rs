//! Hardware performance counters through perf_event_open(2): cycles, instructions, branch
//! misses and L1D read misses of one process, counted while a cell runs. Where the kernel or
//! the hypervisor offers none (as on most cloud VMs), opening fails and the caller prints the
//! reason in one line; nothing else depends on them. Hand-written: the syscall is four fields
//! of one struct, and the perf crates pull in far more than that.

#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// Bit 0 disabled, bit 5 exclude_kernel, bit 6 exclude_hv.
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_HW_CACHE: u32 = 3;
const ENABLE: u64 = 0x2400;
const DISABLE: u64 = 0x2401;

/// The events, by name.
const EVENTS: [(&str, u32, u64); 4] = [
    ("cycles", PERF_TYPE_HARDWARE, 0),
    ("instructions", PERF_TYPE_HARDWARE, 1),
    ("branch-misses", PERF_TYPE_HARDWARE, 5),
    // L1D, read, miss.
    ("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000),
];

pub struct Counters {
    fds: Vec<(&'static str, i32)>,
}

/// The counts read, by event name; a plain data type so the profile document can carry it.
pub use cryptospeed_model::CounterValues;

impl Counters {
    /// Opens the counters (disabled) on process `pid`; the error says why there are none.
    pub fn open(pid: i32) -> Result<Counters, String> {
        let mut fds = Vec::new();
        for (name, kind, config) in EVENTS {
            let attr = PerfEventAttr {
                kind,
                size: std::mem::size_of::<PerfEventAttr>() as u32,
                config,
                flags: 1 | (1 << 5) | (1 << 6),
                ..Default::default()
            };
            // SAFETY: attr is a valid perf_event_attr (VER0 layout, 64 bytes) that outlives
            // the call; the other arguments are plain integers.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_perf_event_open,
                    &attr as *const PerfEventAttr,
                    pid,
                    -1i32,
                    -1i32,
                    0u64,
                )
            };
            if fd < 0 {
                let err = std::io::Error::last_os_error();
                for (_, f) in &fds {
                    // SAFETY: closing descriptors we opened.
                    unsafe { libc::close(*f) };
                }
                return Err(format!(
                    "no hardware performance counters here (perf_event_open for {name}: {err})"
                ));
            }
            fds.push((name, fd as i32));
        }
        Ok(Counters { fds })
    }

    pub fn enable(&self) {
        for (_, fd) in &self.fds {
            // SAFETY: ioctl on our own perf descriptor.
            unsafe { libc::ioctl(*fd, ENABLE as _, 0) };
        }
    }

    pub fn disable_and_read(&self) -> CounterValues {
        let mut values = Vec::new();
        for (name, fd) in &self.fds {
            let mut v: u64 = 0;
            // SAFETY: ioctl/read on our own perf descriptor into a u64.
            unsafe {
                libc::ioctl(*fd, DISABLE as _, 0);
                libc::read(*fd, &mut v as *mut u64 as *mut libc::c_void, 8);
            }
            values.push((name.to_string(), v));
        }
        CounterValues { values }
    }
}

impl Drop for Counters {
    fn drop(&mut self) {
        for (_, fd) in &self.fds {
            // SAFETY: closing descriptors we opened.
            unsafe { libc::close(*fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn attr_has_the_version_0_layout() {
        assert_eq!(std::mem::size_of::<super::PerfEventAttr>(), 64);
    }

    /// Whether the kernel lists a CPU performance-monitoring unit: the oracle, independent of
    /// perf_event_open, for what opening the counters must do (`cpu`, or `cpu_core`/`cpu_atom`
    /// on hybrid Intel parts).
    fn kernel_lists_a_pmu() -> bool {
        std::fs::read_dir("/sys/bus/event_source/devices").is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("cpu"))
        })
    }

    #[test]
    fn counters_count_where_the_kernel_lists_a_pmu_and_say_why_not_elsewhere() {
        let opened = super::Counters::open(0);
        if !kernel_lists_a_pmu() {
            let e = opened
                .err()
                .expect("no PMU listed, yet the counters opened");
            assert!(
                e.contains("no hardware performance counters here")
                    && e.contains("perf_event_open for cycles"),
                "{e}"
            );
        } else {
            counts_or_is_refused(opened);
        }
    }

    fn counts_or_is_refused(opened: Result<super::Counters, String>) {
        match opened {
            Ok(c) => {
                c.enable();
                let mut x = 0u64;
                for i in 0..1_000_000u64 {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
                }
                let v = c.disable_and_read();
                let get = |n: &str| v.values.iter().find(|(k, _)| k == n).unwrap().1;
                assert!(get("instructions") >= 1_000_000, "{v:?}");
                assert!(get("cycles") > 0, "{v:?}");
            }
            // A PMU the kernel lists may still be closed to this process (perf_event_paranoid,
            // a container's seccomp profile): then the error must say so.
            Err(e) => assert!(
                e.contains("Permission denied") || e.contains("Operation not permitted"),
                "{e}"
            ),
        }
    }
}
