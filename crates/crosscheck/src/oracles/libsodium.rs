//! libsodium's own benchmark mode of its tests (test/default/cmptest.h with `-DBENCHMARKS`): a
//! test program's `xmain` (its `main`, renamed) is run `ITERATIONS` times between two
//! `gettimeofday` reads, printing disabled, and the program prints picoseconds per run. A test
//! that makes several calls has no figure of one cell, so the oracle uses only tests whose
//! `xmain` makes exactly one call of one cell's operation (read from their source, below); each
//! is built with a larger `ITERATIONS` (cmptest.h's own knob: `#ifndef ITERATIONS`) so one run
//! lasts about a second. From Debian's libsodium source, linked against the installed
//! libsodium23, the library the column loads.

use super::{debian_build, program, Build};
use crate::{expand_args, Cell, Oracle, Provenance};
use anyhow::{Context, Result};
use cryptospeed_model::Op;
use std::path::Path;

pub struct Libsodium;

static CELLS: &[Cell] = &[
    Cell {
        primitive: "x25519",
        op: Op::Derive,
        bytes: None,
        args: &["bench-scalarmult5"],
        row: "picoseconds per xmain",
        oracle_loop: "scalarmult5.c: one crypto_scalarmult (crypto_scalarmult_curve25519 and its \
            all-zero result check) of a fixed secret and peer key in static buffers per xmain, \
            the result asserted; 32768 runs over gettimeofday",
        difference: None,
    },
    Cell {
        primitive: "sha512",
        op: Op::Hash,
        bytes: Some(8),
        args: &["bench-hash3"],
        row: "picoseconds per xmain",
        oracle_loop: "hash3.c: one crypto_hash (SHA-512) of the 8 bytes \"testing\\n\" per \
            xmain (its printf loop is compiled out); 4194304 runs over gettimeofday",
        difference: None,
    },
    Cell {
        primitive: "hmac-sha256",
        op: Op::Mac,
        bytes: Some(50),
        args: &["bench-auth2"],
        row: "picoseconds per xmain",
        oracle_loop: "auth2.c: one crypto_auth_hmacsha256 (init with the 32-byte key, update of \
            the 50-byte message, final) per xmain (RFC 4868 AUTH256-4); 1048576 runs over \
            gettimeofday",
        difference: None,
    },
];

/// `gcc` for one test in benchmark mode, `iterations` runs of its xmain, linked against the
/// installed libsodium.
macro_rules! bench_build {
    ($test:literal, $iterations:literal) => {
        Build {
            program: concat!("bench-", $test),
            cwd: "test/default",
            argv: &[
                "gcc",
                "-O2",
                "-DBENCHMARKS",
                concat!("-DITERATIONS=", $iterations),
                "-I.",
                "-I../quirks",
                "-o",
                concat!("bench-", $test),
                concat!($test, ".c"),
                "-lsodium",
            ],
        }
    };
}

impl Oracle for Libsodium {
    fn column(&self) -> &'static str {
        "libsodium"
    }
    fn name(&self) -> &'static str {
        "test/default benchmark mode (cmptest.h -DBENCHMARKS)"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        let builds = [
            bench_build!("scalarmult5", "32768"),
            bench_build!("hash3", "4194304"),
            bench_build!("auth2", "1048576"),
        ];
        debian_build("libsodium", "libsodium23", dir, &builds, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = expand_args(cell);
        argv[0] = program(built, &argv[0]);
        argv
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        let ps: f64 = output
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .next_back()
            .context("no picoseconds-per-run line in the output")?;
        Ok(cell.bytes.map_or(1.0, |b| b as f64) * 1e12 / ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_picoseconds_per_run() {
        let one_call = &CELLS[1]; // sha512@8
        let rate = Libsodium.parse(one_call, "286102\n").unwrap();
        assert!((rate - 8.0 * 1e12 / 286102.0).abs() < 1e-6);
        assert!(Libsodium
            .parse(one_call, "** memory leaks detected **\n")
            .is_err());
    }
}
