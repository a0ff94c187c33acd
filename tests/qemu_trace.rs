//! The qemu tracer (crates/sim/qemu/cstrace_qemu.c, a qemu-user TCG plugin built on first use)
//! against an independent count: qemu's own execution log. A known loop, cross-compiled for
//! ppc64le by Debian's cross compiler, is traced by the plugin and read by the same reader
//! `profile` uses for the valgrind tool's trace; qemu run again with one instruction per block
//! (`-singlestep`), unchained (`-d exec,nochain`), logs one `Trace` line per executed
//! instruction, and the two counts must be equal. A marker at `main` appears once.

mod common;

use cryptospeed_sim::decode::{Decoded, InstrInfo};
use cryptospeed_sim::trace::{read_cstrace, DataAccess, Sink};
use std::path::Path;
use std::process::Command;

#[derive(Default)]
struct Count {
    instructions: u64,
    reads: u64,
    writes: u64,
}

impl Sink for Count {
    fn instruction(&mut self, _info: &InstrInfo) {
        self.instructions += 1;
    }
    fn data(&mut self, access: DataAccess) {
        match access.access {
            cryptospeed_sim::trace::Access::Write => self.writes += 1,
            _ => self.reads += 1,
        }
    }
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
    let mut count = Count::default();
    let mut decoded = Decoded::default();
    let totals = read_cstrace(
        std::fs::File::open(&trace).unwrap(),
        &mut decoded,
        &mut count,
    )
    .unwrap();
    assert_eq!(totals.markers, 1, "main runs once");

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
    assert_eq!(count.instructions, totals.instructions);
    // The volatile sum: at least one load and one store per iteration.
    assert!(
        count.reads >= 100_000 && count.writes >= 100_000,
        "{} reads, {} writes",
        count.reads,
        count.writes
    );
}
