//! The qemu tracer (crates/sim/qemu/cstrace_qemu.c, a qemu-user TCG plugin built on first use)
//! against an independent count: qemu's own execution log. A known loop, cross-compiled for
//! ppc64le by Debian's cross compiler, is traced by the plugin and read by the same reader
//! `profile` uses for the valgrind tool's trace; qemu run again with one instruction per block
//! (`-singlestep`), unchained (`-d exec,nochain`), logs one `Trace` line per executed
//! instruction, and the two counts must be equal. A marker at `main` appears once.
//!
//! On x86-64 the same loop, between two marker functions that also make cstrace's client
//! request, is traced by qemu-x86_64 with the plugin and by valgrind with cstrace (the tracer
//! `profile` uses there): instructions and data accesses between the markers agree within 0.1%,
//! and so do the misses of cachegrind's default hierarchy (I1, D1, LL) replayed from each trace,
//! for a walk over two arrays larger than its caches, markers found by symbol name as `profile`
//! finds the workers'.

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

/// Reads of one 1 MB array and writes to another (each more than cachegrind's default D1 and
/// LL), a line apart, four times between the markers: read and write misses in every level, at
/// the same static addresses under both tracers.
const MARKED_WALK: &str = r#"#include <valgrind/valgrind.h>
#define MARK(code) VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ_TOOL_BASE('C', 'S'), code, 0, 0, 0, 0)
__attribute__((noinline)) void cs_mark_measure(void) { MARK(2); }
__attribute__((noinline)) void cs_mark_end(void) { MARK(3); }
unsigned char in[1 << 20], out[1 << 20]; /* external: the compiler keeps every access */
int main(void) {
    volatile unsigned s = 0;
    cs_mark_measure();
    for (unsigned r = 0; r < 4; r++)
        for (unsigned i = 0; i < sizeof in; i += 64) {
            s += in[i];
            out[i] = (unsigned char)s;
        }
    cs_mark_end();
    return s == 12345;
}
"#;

/// cachegrind's default hierarchy (the geometry it falls back to when it cannot read the host's:
/// I1 and D1 65536 B 2-way, LL 262144 B 8-way, 64-byte lines, LRU), counting only between the
/// markers 2 and 3 while every reference warms the caches.
struct Windowed(cryptospeed_sim::hierarchy::Hierarchy);

impl Sink for Windowed {
    fn instruction(&mut self, info: &InstrInfo) {
        self.0.fetch(info.addr, info.len as u32);
    }
    fn data(&mut self, access: DataAccess) {
        self.0.data_access(access);
    }
    fn marker(&mut self, code: u32) {
        self.0.counting = code == 2;
    }
}

fn cachegrind_default_counts(trace: &Path) -> cryptospeed_sim::hierarchy::HierarchyCounts {
    use cryptospeed_sim::cache::CacheConfig;
    let l1 = CacheConfig::new(65536, 64, 2, "lru").unwrap();
    let ll = CacheConfig::new(262144, 64, 8, "lru").unwrap();
    let mut h = cryptospeed_sim::hierarchy::Hierarchy::new(&l1, &l1, &ll);
    h.counting = false;
    let mut sink = Windowed(h);
    read_cstrace(
        std::fs::File::open(trace).unwrap(),
        &mut Decoded::default(),
        &mut sink,
    )
    .unwrap();
    sink.0.counts
}

#[test]
fn on_x86_64_the_qemu_and_valgrind_tracers_give_the_same_cachegrind_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("walk.c");
    let exe = tmp.path().join("walk");
    std::fs::write(&src, MARKED_WALK).unwrap();
    run(Command::new("gcc")
        .args(["-O1", "-static", "-no-pie", "-o"])
        .arg(&exe)
        .arg(&src));
    let plugin =
        cryptospeed_sim::qemu::ensure(&common::test_cache().join("qemu-tool"), "qemu-x86_64")
            .unwrap();
    // The markers found by their symbols, as `profile` finds the workers'.
    let by_qemu = tmp.path().join("qemu.trace");
    let marks = [("cs_mark_measure", 2), ("cs_mark_end", 3)];
    run(Command::new("qemu-x86_64")
        .arg("-plugin")
        .arg(cryptospeed_sim::qemu::plugin_arg_named(
            &plugin, &by_qemu, &marks,
        ))
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
    let q = cachegrind_default_counts(&by_qemu);
    let v = cachegrind_default_counts(&by_valgrind);
    // 4 passes × 16384 lines of each array: D1 and LL miss on each of them.
    assert!(v.d1mr >= 65_536 && v.dlmr >= 65_536, "{v:?}");
    assert!(v.d1mw >= 65_536 && v.dlmw >= 65_536, "{v:?}");
    let close = |what: &str, a: u64, b: u64| {
        assert!(
            (a as f64 - b as f64).abs() <= 0.001 * b as f64,
            "{what}: qemu {a} valgrind {b}\nqemu {q:?}\nvalgrind {v:?}"
        )
    };
    close("Ir", q.ir, v.ir);
    close("Dr", q.dr, v.dr);
    close("Dw", q.dw, v.dw);
    close("D1 read misses", q.d1mr, v.d1mr);
    close("D1 write misses", q.d1mw, v.d1mw);
    close("LL data read misses", q.dlmr, v.dlmr);
    close("LL data write misses", q.dlmw, v.dlmw);
    eprintln!("qemu     {q:?}\nvalgrind {v:?}");
    // A handful of cold instruction misses. qemu marks the entry of a marker function and
    // valgrind its client request inside it, so qemu's window also fetches the rest of
    // cs_mark_measure, cold (its first call): a line or two more.
    assert!(
        q.i1mr.abs_diff(v.i1mr) <= 2,
        "I1: qemu {q:?} valgrind {v:?}"
    );
    assert!(
        q.ilmr.abs_diff(v.ilmr) <= 2,
        "LL instr: qemu {q:?} valgrind {v:?}"
    );
}
