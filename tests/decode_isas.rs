//! The ppc64le, aarch64 and riscv64 decoders (crates/sim/src/decode) against real execution:
//! a SHA-256 program in C, cross-compiled at -O2 by Debian's cross compilers, runs under
//! qemu-user with cryptospeed's qemu tracer, and every executed instruction is checked against
//! what qemu did next, which owes nothing to the decoder: the instruction decoded; in the
//! program's own functions (`nm -S`) it made a data read iff decoded as reading memory and a
//! write iff decoded as writing it (qemu's memory callbacks); a direct jump or call went to its
//! decoded target, a conditional branch to its target or the next instruction, and anything
//! that is not a branch to the next instruction (`addr + len`). The program checks its own
//! digest of "abc" against FIPS 180-2's, so it ran as written.

mod common;

use cryptospeed_sim::decode::{BranchKind, Decoded, InstrInfo};
use cryptospeed_sim::isa::Isa;
use cryptospeed_sim::trace::{read_cstrace, Access, DataAccess, Sink};
use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"#include <stdint.h>
#include <stddef.h>
static const uint32_t K[64] = { 0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 };
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
__attribute__((noinline)) void sha256_blocks(uint32_t h[8], const unsigned char *p, size_t n) {
    for (; n; n--, p += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
}
static unsigned char buf[64 * 16];
__attribute__((noinline)) static unsigned step(unsigned x) { return x * 2654435761u / (x | 1); }
typedef unsigned (*step_fn)(unsigned);
int main(int argc, char **argv) {
    (void)argv;
    uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    unsigned char abc[64] = { 'a', 'b', 'c', 0x80 };
    abc[63] = 24;
    sha256_blocks(h, abc, 1);
    if (h[0] != 0xba7816bf || h[7] != 0xf20015ad) return 1;
    volatile step_fn f = step;
    for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)f(i + (unsigned)argc);
    sha256_blocks(h, buf, 16);
    return h[0] == 0;
}
"#;

/// What one executed instruction was decoded as, kept until the next one shows where it went.
struct Pending {
    addr: u64,
    bytes: Vec<u8>,
    len: u64,
    branch: BranchKind,
    target: Option<u64>,
    reads_memory: bool,
    writes_memory: bool,
    read: bool,
    wrote: bool,
    /// In the program's own functions, where the memory check applies.
    own: bool,
}

/// Checks each executed instruction against its successor: decoded and control flow
/// everywhere (the C library's startup and exit too), data accesses in the program's own code
/// (qemu runs a store-conditional as a compare-and-swap, which reads, and a predicated SVE load
/// or store in the C library may access nothing).
struct Checker {
    own: Vec<(u64, u64)>,
    pending: Option<Pending>,
    checked: u64,
    branches: u64,
    failures: Vec<String>,
}

impl Checker {
    fn own(&self, addr: u64) -> bool {
        self.own.iter().any(|(a, n)| (*a..a + n).contains(&addr))
    }

    fn settle(&mut self, next: u64) {
        let Some(p) = self.pending.take() else {
            return;
        };
        self.checked += 1;
        let fall = p.addr + p.len;
        let ok_flow = match p.branch {
            BranchKind::None => next == fall,
            BranchKind::Direct => Some(next) == p.target,
            // A conditional return or jump through a register (POWER's beqlr, bnectr) has no
            // decoded target.
            BranchKind::Conditional => next == fall || p.target.is_none_or(|t| next == t),
            BranchKind::Return | BranchKind::Indirect => true,
        };
        if p.branch != BranchKind::None {
            self.branches += 1;
        }
        let mut why = Vec::new();
        if !ok_flow {
            why.push(format!(
                "{:?} target {:x?} but next {next:#x}",
                p.branch, p.target
            ));
        }
        if p.own && (p.read != p.reads_memory || p.wrote != p.writes_memory) {
            why.push(format!(
                "decoded reads/writes {}/{} but qemu saw {}/{}",
                p.reads_memory, p.writes_memory, p.read, p.wrote
            ));
        }
        if !why.is_empty() && self.failures.len() < 20 {
            let at = format!("{:#x} ({:02x?})", p.addr, p.bytes);
            self.failures.push(format!("{at}: {}", why.join("; ")));
        }
    }
}

impl Sink for Checker {
    fn instruction(&mut self, info: &InstrInfo) {
        self.settle(info.addr);
        if !info.decoded && self.failures.len() < 20 {
            self.failures
                .push(format!("{:#x}: undecoded {:02x?}", info.addr, info.bytes));
        }
        self.pending = Some(Pending {
            addr: info.addr,
            bytes: info.bytes.clone(),
            len: info.len as u64,
            branch: info.branch,
            target: info.target,
            reads_memory: info.reads_memory,
            writes_memory: info.writes_memory,
            read: false,
            wrote: false,
            own: self.own(info.addr),
        });
    }

    fn data(&mut self, access: DataAccess) {
        if let Some(p) = &mut self.pending {
            match access.access {
                Access::Write => p.wrote = true,
                Access::Modify => (p.read, p.wrote) = (true, true),
                _ => p.read = true,
            }
        }
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} (Debian's cross toolchains, scripts/setup): {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Address and size of each function the program defines, by `nm -S`.
fn own_functions(nm: &str, exe: &Path) -> Vec<(u64, u64)> {
    let text = run(Command::new(nm).arg("-S").arg(exe));
    let own: Vec<(u64, u64)> = text
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let named = w.len() == 4 && ["main", "sha256_blocks", "step"].contains(&w[3]);
            named.then(|| {
                let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
                (hex(w[0]), hex(w[1]))
            })
        })
        .collect();
    assert_eq!(
        own.len(),
        3,
        "main, sha256_blocks and step in nm -S:\n{text}"
    );
    own
}

/// Builds, traces and checks the program for one instruction set.
fn executes_as_decoded(isa: Isa, triple: &str, emulator: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (src, exe) = (tmp.path().join("sha.c"), tmp.path().join("sha"));
    std::fs::write(&src, PROGRAM).unwrap();
    run(Command::new(format!("{triple}-gcc"))
        .args(["-O2", "-static", "-o"])
        .arg(&exe)
        .arg(&src));
    let own = own_functions(&format!("{triple}-nm"), &exe);
    let plugin =
        cryptospeed_sim::qemu::ensure(&common::test_cache().join("qemu-tool"), emulator).unwrap();
    let trace = tmp.path().join("sha.trace");
    run(Command::new(emulator)
        .arg("-plugin")
        .arg(cryptospeed_sim::qemu::plugin_arg(&plugin, &trace, &[]))
        .arg(&exe));
    let mut checker = Checker {
        own,
        pending: None,
        checked: 0,
        branches: 0,
        failures: vec![],
    };
    let mut decoded = Decoded::new(isa);
    read_cstrace(
        std::fs::File::open(&trace).unwrap(),
        &mut decoded,
        &mut checker,
    )
    .unwrap();
    eprintln!(
        "{}: {} executed instructions checked, {} of them branches",
        isa.name(),
        checker.checked,
        checker.branches
    );
    assert!(checker.failures.is_empty(), "{:#?}", checker.failures);
    // 17 blocks of 64 rounds and 1024 calls through a pointer: well over 50 000 instructions.
    assert!(
        checker.checked > 50_000 && checker.branches > 1_000,
        "{} instructions, {} branches checked",
        checker.checked,
        checker.branches
    );
}

#[test]
fn ppc64le_code_executes_as_decoded() {
    executes_as_decoded(Isa::Ppc64le, "powerpc64le-linux-gnu", "qemu-ppc64le");
}

#[test]
fn aarch64_code_executes_as_decoded() {
    executes_as_decoded(Isa::Aarch64, "aarch64-linux-gnu", "qemu-aarch64");
}

#[test]
fn riscv64_code_executes_as_decoded() {
    executes_as_decoded(Isa::Riscv64, "riscv64-linux-gnu", "qemu-riscv64");
}
