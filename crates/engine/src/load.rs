//! What else the machine was doing while a run measured: CPU time stolen by the hypervisor and
//! the load besides the measuring worker, from /proc/stat at the start and end of the run, and the
//! CPU frequency where /proc/cpuinfo shows it. A careful reader judges a run's numbers by these.

use cryptospeed_model::RunConditions;

/// The aggregate `cpu` line of /proc/stat, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTimes {
    pub busy: u64,
    pub steal: u64,
    pub total: u64,
    /// The `cpuN` lines: CPUs the aggregate covers (not this process's affinity).
    pub cpus: u32,
}

impl CpuTimes {
    /// Reads /proc/stat now; `None` where it is not readable (not Linux).
    pub fn now() -> Option<CpuTimes> {
        parse_stat(&std::fs::read_to_string("/proc/stat").ok()?)
    }
}

/// Parses the first line of /proc/stat: user nice system idle iowait irq softirq steal ….
fn parse_stat(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 8 {
        return None;
    }
    let cpus = text
        .lines()
        .filter(|l| l.starts_with("cpu") && l[3..].starts_with(|c: char| c.is_ascii_digit()))
        .count() as u32;
    Some(CpuTimes {
        busy: v[0] + v[1] + v[2] + v[5] + v[6],
        steal: v[7],
        total: v.iter().sum(),
        cpus: cpus.max(1),
    })
}

/// Mean of the `cpu MHz` lines of /proc/cpuinfo, where the kernel shows them.
pub fn mean_mhz() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let mhz: Vec<f64> = text
        .lines()
        .filter(|l| l.starts_with("cpu MHz"))
        .filter_map(|l| l.split(':').nth(1)?.trim().parse().ok())
        .collect();
    (!mhz.is_empty()).then(|| mhz.iter().sum::<f64>() / mhz.len() as f64)
}

/// The conditions between two readings, for a run whose measuring worker kept one CPU busy.
pub fn conditions(start: CpuTimes, end: CpuTimes, seconds: f64) -> RunConditions {
    let cpus = end.cpus;
    let total = end.total.saturating_sub(start.total).max(1) as f64;
    let busy_cpus = end.busy.saturating_sub(start.busy) as f64 / total * cpus as f64;
    RunConditions {
        seconds,
        cpus,
        steal: end.steal.saturating_sub(start.steal) as f64 / total,
        busy_cpus,
        other_load: (busy_cpus - 1.0).max(0.0),
        mhz: mean_mhz(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_by_field() {
        // A real /proc/stat head (Linux 6.1, 2 vCPUs).
        let text = "cpu  4705 150 1120 1670000 300 0 45 2000 0 0\ncpu0 2000 75 560 835000 150 0 20 1000 0 0\n";
        let t = parse_stat(text).unwrap();
        assert_eq!(t.busy, 4705 + 150 + 1120 + 45);
        assert_eq!(t.steal, 2000);
        assert_eq!(t.total, 4705 + 150 + 1120 + 1670000 + 300 + 45 + 2000);
        assert_eq!(t.cpus, 1, "one cpuN line in this excerpt");
        assert!(parse_stat("intr 1 2 3\n").is_none());
    }

    #[test]
    fn one_busy_cpu_of_two_is_no_other_load() {
        let a = CpuTimes {
            busy: 0,
            steal: 0,
            total: 0,
            cpus: 2,
        };
        let b = CpuTimes {
            busy: 100,
            steal: 10,
            total: 200,
            cpus: 2,
        };
        let c = conditions(a, b, 1.0);
        assert!((c.busy_cpus - 1.0).abs() < 1e-12 && c.other_load == 0.0);
        assert!((c.steal - 0.05).abs() < 1e-12);
        let d = CpuTimes {
            busy: 180,
            steal: 0,
            total: 200,
            cpus: 2,
        };
        assert!((conditions(a, d, 1.0).other_load - 0.8).abs() < 1e-12);
    }

    #[test]
    fn this_machine_is_readable() {
        // /proc is there on every Linux machine the tests run on.
        let t = CpuTimes::now().unwrap();
        assert!(t.total > 0 && t.busy <= t.total);
    }
}
