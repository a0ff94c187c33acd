//! Where an analysis spends its time, when asked: with `CRYPTOSPEED_SPANS` set, each named step
//! prints its wall time and the CPU time of the thread that ran it to stderr. CPU time per
//! thread, not wall time, is what says which step to make faster on a machine shared with
//! other work. Each line ends with when the step began (seconds since the first step), so the
//! lines also draw a timeline: which steps ran side by side, and where a CPU waited.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CRYPTOSPEED_SPANS").is_some())
}

/// CPU seconds this thread has run (Linux's schedstat), 0 where it cannot be read.
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// Runs `f`, and reports how long it took when spans are on.
pub fn span<R>(name: impl FnOnce() -> String, f: impl FnOnce() -> R) -> R {
    if !enabled() {
        return f();
    }
    static FIRST: OnceLock<Instant> = OnceLock::new();
    let (wall, cpu) = (Instant::now(), thread_cpu_seconds());
    let first = *FIRST.get_or_init(|| wall);
    let r = f();
    eprintln!(
        "span {:<40} {:8.3} s wall {:8.3} s CPU from {:.3} s",
        name(),
        wall.elapsed().as_secs_f64(),
        thread_cpu_seconds() - cpu,
        wall.duration_since(first).as_secs_f64()
    );
    r
}
