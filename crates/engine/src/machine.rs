//! Probes the machine a run happens on: CPU model and flags, cores, caches, TSC frequency,
//! kernel and OS, read from /proc and /sys so results from many machines can be told apart.

use cryptospeed_model::Machine;
use std::fs;

fn cpuinfo_field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

fn read_trim(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn caches() -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..8 {
        let base = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let Some(level) = read_trim(&format!("{base}/level")) else {
            break;
        };
        let kind = read_trim(&format!("{base}/type")).unwrap_or_default();
        let size = read_trim(&format!("{base}/size")).unwrap_or_default();
        let ways = read_trim(&format!("{base}/ways_of_associativity")).unwrap_or_default();
        let line = read_trim(&format!("{base}/coherency_line_size")).unwrap_or_default();
        let tag = match kind.as_str() {
            "Data" => "d",
            "Instruction" => "i",
            _ => "",
        };
        out.push(format!("L{level}{tag} {size} {ways}-way {line}B line"));
    }
    out
}

/// This machine's host name (as `uname -n` prints it).
pub fn hostname() -> String {
    uname().0
}

fn uname() -> (String, String, String) {
    // SAFETY: uname fills the struct we own.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return Default::default();
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        field(&u.nodename),
        format!("{} {}", field(&u.sysname), field(&u.release)),
        field(&u.machine),
    )
}

fn os_name() -> String {
    let text = fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Probes this machine. Takes about 100 ms (the TSC is timed against the monotonic clock).
pub fn probe() -> Machine {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<String> = cpuinfo_field(&cpuinfo, "flags")
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let threads = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count() as u32;
    let cores = cpuinfo_field(&cpuinfo, "cpu cores")
        .and_then(|v| v.parse().ok())
        .unwrap_or(threads);
    let (hostname, kernel, arch) = uname();
    Machine {
        hostname,
        cpu_model: cpuinfo_field(&cpuinfo, "model name")
            .unwrap_or("unknown")
            .to_string(),
        constant_tsc: flags.iter().any(|f| f == "constant_tsc"),
        cpu_flags: flags,
        cores,
        threads,
        caches: caches(),
        tsc_hz: crate::clock::tsc_hz(100),
        kernel,
        os: os_name(),
        arch,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn probe_reads_this_machine() {
        let m = super::probe();
        assert!(m.threads >= 1);
        assert!(!m.cpu_model.is_empty());
        assert!(m.kernel.starts_with("Linux"));
        assert!(m.tsc_hz > 1e8);
    }
}
