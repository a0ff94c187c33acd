//! The qemu tracer (crates/sim/qemu/cstrace_qemu.c, a qemu-user TCG plugin built on first use)
//! against an independent count: qemu's own execution log. A known loop, cross-compiled for
//! ppc64le by Debian's cross compiler, is traced by the plugin and read by the same reader
//! `profile` uses for the valgrind tool's trace; qemu run again with one instruction per block
//! (`-singlestep`), unchained (`-d exec,nochain`), logs one `Trace` line per executed
//! instruction, and the two counts must be equal. A marker at `main` appears once.
//!
//! On x86-64 the same loop, between two marker functions that also make cstrace's client
//! request, is traced by qemu-x86_64 with the plugin and by valgrind with cstrace (the tracer
//! `profile` uses there): instructions and data accesses between the markers agree within 0.1%.

mod common;

use cryptospeed_sim::decode::{Decoded, InstrInfo};
use cryptospeed_sim::trace::{read_cstrace, DataAccess, Sink};
use std::path::Path;
use std::process::Command;

/// Counts what a trace holds; with `windowed`, only between markers 2 (measure) and 3 (end).
#[derive(Default)]
struct Count {
    windowed: bool,
    inside: bool,
    instructions: u64,
    reads: u64,
    writes: u64,
}

impl Sink for Count {
    fn instruction(&mut self, _info: &InstrInfo) {
        if self.inside || !self.windowed {
            self.instructions += 1;
        }
    }
    fn data(&mut self, access: DataAccess) {
        if self.windowed && !self.inside {
            return;
        }
        match access.access {
            cryptospeed_sim::trace::Access::Write => self.writes += 1,
            _ => self.reads += 1,
        }
    }
    fn marker(&mut self, code: u32) {
        self.inside = code == 2;
    }
}

/// Reads a cstrace-format trace into a [`Count`].
fn count(trace: &Path, windowed: bool) -> (Count, u64) {
    let mut count = Count {
        windowed,
        ..Count::default()
    };
    let mut decoded = Decoded::default();
    let totals = read_cstrace(
        std::fs::File::open(trace).unwrap(),
        &mut decoded,
        &mut count,
    )
    .unwrap();
    (count, totals.markers)
}

/// A loop whose volatile sum makes one load and one store per iteration.
const LOOP: &str = "int main(void) { volatile unsigned s = 0; for (unsigned i = 0; i < 100000; i++) s += i; return s == 0; }\n";

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `main`'s address in a static ELF, as the cross `nm` gives it.
fn symbol(nm: &str, exe: &Path, name: &str) -> u64 {
    let text = run(Command::new(nm).arg(exe));
    let line = text
        .lines()
        .find(|l| l.split_whitespace().nth(2) == Some(name))
        .unwrap_or_else(|| panic!("{name} in nm {}", exe.display()));
    u64::from_str_radix(line.split_whitespace().next().unwrap(), 16).unwrap()
}

#[test]
fn the_ppc64le_trace_counts_what_qemus_own_execution_log_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("loop.c");
    let exe = tmp.path().join("loop");
    std::fs::write(&src, LOOP).unwrap();
    run(Command::new("powerpc64le-linux-gnu-gcc")
        .args(["-O1", "-static", "-o"])
        .arg(&exe)
        .arg(&src));
    let plugin =
        cryptospeed_sim::qemu::ensure(&common::test_cache().join("qemu-tool"), "qemu-ppc64le")
            .unwrap();
    let main = symbol("powerpc64le-linux-gnu-nm", &exe, "main");
    let trace = tmp.path().join("loop.trace");
    run(Command::new("qemu-ppc64le")
        .arg("-plugin")
        .arg(cryptospeed_sim::qemu::plugin_arg(
            &plugin,
            &trace,
            &[(main, 2)],
        ))
        .arg(&exe));
    let (count, markers) = count(&trace, false);
    assert_eq!(markers, 1, "main runs once");

    let log = tmp.path().join("exec.log");
    run(Command::new("qemu-ppc64le")
        .args(["-singlestep", "-d", "exec,nochain", "-D"])
        .arg(&log)
        .arg(&exe));
    let logged = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("Trace "))
        .count() as u64;
    assert!(logged > 500_000, "{logged} instructions in qemu's log");
    assert_eq!(count.instructions, logged);
    // The volatile sum: at least one load and one store per iteration.
    assert!(
        count.reads >= 100_000 && count.writes >= 100_000,
        "{} reads, {} writes",
        count.reads,
        count.writes
    );
}

/// The loop between two marker functions, each making cstrace's client request (valgrind.h).
const MARKED_LOOP: &str = r#"#include <valgrind/valgrind.h>
#define MARK(code) VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ_TOOL_BASE('C', 'S'), code, 0, 0, 0, 0)
__attribute__((noinline)) void cs_mark_measure(void) { MARK(2); }
__attribute__((noinline)) void cs_mark_end(void) { MARK(3); }
int main(void) {
    volatile unsigned s = 0;
    cs_mark_measure();
    for (unsigned i = 0; i < 200000; i++) s += i;
    cs_mark_end();
    return s == 0;
}
"#;

#[test]
fn on_x86_64_the_qemu_and_valgrind_tracers_count_the_same_window() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("marked.c");
    let exe = tmp.path().join("marked");
    std::fs::write(&src, MARKED_LOOP).unwrap();
    run(Command::new("gcc")
        .args(["-O1", "-static", "-no-pie", "-o"])
        .arg(&exe)
        .arg(&src));
    let marks = [
        (symbol("nm", &exe, "cs_mark_measure"), 2),
        (symbol("nm", &exe, "cs_mark_end"), 3),
    ];
    let plugin =
        cryptospeed_sim::qemu::ensure(&common::test_cache().join("qemu-tool"), "qemu-x86_64")
            .unwrap();
    let by_qemu = tmp.path().join("qemu.trace");
    run(Command::new("qemu-x86_64")
        .arg("-plugin")
        .arg(cryptospeed_sim::qemu::plugin_arg(&plugin, &by_qemu, &marks))
        .arg(&exe));
    let tool = cryptospeed_sim::tool::ensure(&common::test_cache().join("valgrind-tool")).unwrap();
    let by_valgrind = tmp.path().join("valgrind.trace");
    run(Command::new("valgrind")
        .args([
            "--tool=cstrace",
            "--vex-guest-chase=no",
            "--log-file=/dev/null",
        ])
        .arg(format!("--out={}", by_valgrind.display()))
        .arg(&exe)
        .env("VALGRIND_LIB", &tool.lib_dir));
    let (q, q_marks) = count(&by_qemu, true);
    let (v, v_marks) = count(&by_valgrind, true);
    assert_eq!((q_marks, v_marks), (2, 2));
    assert!(v.instructions > 800_000, "{} instructions", v.instructions);
    let close = |a: u64, b: u64| (a as f64 - b as f64).abs() <= 0.001 * b as f64;
    assert!(
        close(q.instructions, v.instructions),
        "instructions: qemu {} valgrind {}",
        q.instructions,
        v.instructions
    );
    assert!(
        close(q.reads, v.reads),
        "reads: qemu {} valgrind {}",
        q.reads,
        v.reads
    );
    assert!(
        close(q.writes, v.writes),
        "writes: qemu {} valgrind {}",
        q.writes,
        v.writes
    );
}
