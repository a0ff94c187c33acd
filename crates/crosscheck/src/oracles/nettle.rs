//! Nettle's own benchmarks, `examples/nettle-benchmark` (symmetric, 10240-byte blocks for
//! 0.1 s repeated, Mbyte/s = 2^20 bytes/s) and `examples/hogweed-benchmark` (public key,
//! sign/ms), from Debian's nettle source, linked against the installed libnettle/libhogweed.
//! hogweed-benchmark times each operation in one window of just over its `BENCH_INTERVAL`
//! (0.1 s): one short slowdown of the host moved a round's figure by up to 30% (idle runs of
//! 2026-11-29), so it is built from a copy with the window at 0.5 s, the loop unchanged.

use super::{debian_build, figure, program, Build};
use crate::{expand_args, Cell, Clock, Difference, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct Nettle;

const MIB: f64 = 1_048_576.0;

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(10240),
        args: &["nettle-benchmark", "sha256"],
        row: "sha256 update",
        oracle_loop: "sha256_update over one 10240-byte block per call on one context, no digest \
            (streaming), repeated for >= 0.1 s",
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(10240),
        args: &["nettle-benchmark", "aes128"],
        row: "aes128 CBC encrypt",
        oracle_loop:
            "cbc_encrypt(aes128_encrypt) over one 10240-byte block in place, key set once, \
            the IV chained on",
        difference: None,
    },
    Cell {
        primitive: "hmac-sha256",
        op: Op::Mac,
        bytes: Some(64),
        args: &["nettle-benchmark", "hmac-sha256"],
        row: "hmac-sha256 64 bytes",
        oracle_loop: "hmac_sha256_update of 64 bytes then hmac_sha256_digest (which re-keys the \
            context from the saved inner/outer states), 160 messages per 10240-byte block",
        difference: Some(HMAC_LAYOUT),
    },
    Cell {
        primitive: "rsa-2048",
        op: Op::Sign,
        bytes: None,
        args: &[HOGWEED, "rsa-tr"],
        row: "rsa-tr 2048",
        oracle_loop: "rsa_sha256_sign_digest_tr (blinded, result checked) on a fixed SHA-256 \
            digest, key generated once",
        difference: None,
    },
    Cell {
        primitive: "ed25519",
        op: Op::Sign,
        bytes: None,
        args: &[HOGWEED, "eddsa"],
        row: "eddsa 255",
        oracle_loop: "ed25519_sha512_sign of a 3-byte message with a key pair made once",
        difference: None,
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &[HOGWEED, "ecdsa"],
        row: "ecdsa 256",
        oracle_loop: "ecdsa_sign on a fixed digest with a random k (knuth-lfib generator)",
        difference: None,
    },
];

/// HMAC-SHA256 of 64 bytes follows the calling binary's code layout, not its calls (shown by
/// two builds of one Rust program that move the same call).
const HMAC_LAYOUT: Difference = Difference {
    kind: crate::Kind::Layout,
    what: "not a difference in the calls: the calling binary's code layout. The benchmark's \
        loop and the column's calls (generic hmac_update/hmac_digest on three heap contexts, \
        one fixed message, a heap digest) read alike in C (135-140 ns); in a Rust process the \
        same boxed call read 134.7-136.1 ns in three builds and 148.4-149.2 ns in one that \
        only added an unrelated loop, the column's own timed loop 148-150 ns in both",
    band: (0.89, 0.97),
    measured: "`taskset -c 1` C loops against libnettle.so.8 (2026-11-28 23:11 UTC, load 0.0): \
        benchmark loop 135.7-136.5 ns, the column's calls 135.2-139.5; \
        crates/impls/examples/nettle_hmac_loops.rs, four builds (23:13-23:22 UTC, load 1.8-2.1): \
        boxed call 134.7-136.1 then 148.4-149.2 ns, column's loop 148.0-149.5 ns in both, so \
        136/150-136/148 = 0.90-0.92, and 0.91-0.92 in the crosscheck runs of 18:23 and 20:04",
};

const NETTLE_BENCH: &[&str] = &[
    "gcc",
    "-O2",
    "-I.",
    "-I..",
    "-DHAVE_CONFIG_H",
    "-o",
    "nettle-benchmark",
    "nettle-benchmark.c",
    "nettle-openssl.c",
    "../nettle-internal.c",
    "timing.c",
    "../getopt.c",
    "../getopt1.c",
    "-lnettle",
    "-lm",
];
/// hogweed-benchmark built from a copy of its source whose one change is the timing window,
/// `BENCH_INTERVAL` 0.1 s -> 0.5 s (each operation timed in one window of 0.5-1 s, after its
/// calibration), checked to have taken.
const HOGWEED: &str = "hogweed-benchmark-0.5s";
const HOGWEED_BENCH: &[&str] = &[
    "sh",
    "-c",
    "sed 's/^#define BENCH_INTERVAL 0.1$/#define BENCH_INTERVAL 0.5/' hogweed-benchmark.c \
        > hogweed-benchmark-0.5s.c \
        && grep -q '^#define BENCH_INTERVAL 0.5$' hogweed-benchmark-0.5s.c \
        && gcc -O2 -I. -I.. -DHAVE_CONFIG_H -o hogweed-benchmark-0.5s hogweed-benchmark-0.5s.c \
        timing.c -lhogweed -lnettle -lgmp -lm",
];

impl Oracle for Nettle {
    fn column(&self) -> &'static str {
        "nettle"
    }
    fn name(&self) -> &'static str {
        "nettle-benchmark / hogweed-benchmark"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        debsrc_configured(dir, log)?;
        let builds = [
            Build {
                program: "nettle-benchmark",
                cwd: "examples",
                argv: NETTLE_BENCH,
            },
            Build {
                program: HOGWEED,
                cwd: "examples",
                argv: HOGWEED_BENCH,
            },
        ];
        debian_build("nettle", "libnettle8", dir, &builds, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = expand_args(cell);
        argv[0] = program(built, &argv[0]);
        argv
    }
    fn clock(&self) -> Clock {
        Clock::Undisturbed // timing.c: CLOCK_PROCESS_CPUTIME_ID
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        if cell.bytes.is_some() {
            figure(output, cell.row, 0, MIB)
        } else {
            figure(output, cell.row, 0, 1000.0)
        }
    }
}

/// The tree fetched and configured (the benchmarks read its config.h; nothing of it is built).
fn debsrc_configured(dir: &Path, log: &mut dyn FnMut(&str)) -> Result<()> {
    let src = crate::debsrc::fetch("nettle", "libnettle8", dir, log)?;
    if !src.dir.join("config.h").exists() {
        crate::debsrc::run(
            &[
                "./configure",
                "-q",
                "--disable-openssl",
                "--disable-documentation",
            ],
            &src.dir,
            log,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The public-key cells run the copy with the 0.5 s window, and its build checks that the
    /// one change took before compiling (a tree whose line differs fails the build, not the
    /// figures).
    #[test]
    fn the_public_key_cells_run_the_copy_with_the_longer_window() {
        for cell in CELLS.iter().filter(|c| c.bytes.is_none()) {
            assert_eq!(cell.args[0], HOGWEED, "{}", cell.primitive);
        }
        let script = HOGWEED_BENCH[2];
        let (sed, rest) = script.split_once("&&").unwrap();
        assert!(
            sed.contains("BENCH_INTERVAL 0.1$/#define BENCH_INTERVAL 0.5/"),
            "{sed}"
        );
        assert!(
            rest.contains("grep -q '^#define BENCH_INTERVAL 0.5$'"),
            "{rest}"
        );
        assert!(script.ends_with("-lhogweed -lnettle -lgmp -lm"), "{script}");
    }
}
