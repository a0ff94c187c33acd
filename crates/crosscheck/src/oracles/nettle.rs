//! Nettle's own benchmarks, `examples/nettle-benchmark` (symmetric, 10240-byte blocks for
//! 0.1 s repeated, Mbyte/s = 2^20 bytes/s) and `examples/hogweed-benchmark` (public key,
//! sign/ms), from Debian's nettle source, linked against the installed libnettle/libhogweed.

use super::{debian_build, figure, program, Build};
use crate::{expand_args, Cell, Clock, Oracle, Provenance};
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
        difference: None,
    },
    Cell {
        primitive: "rsa-2048",
        op: Op::Sign,
        bytes: None,
        args: &["hogweed-benchmark", "rsa-tr"],
        row: "rsa-tr 2048",
        oracle_loop: "rsa_sha256_sign_digest_tr (blinded, result checked) on a fixed SHA-256 \
            digest, key generated once",
        difference: None,
    },
    Cell {
        primitive: "ed25519",
        op: Op::Sign,
        bytes: None,
        args: &["hogweed-benchmark", "eddsa"],
        row: "eddsa 255",
        oracle_loop: "ed25519_sha512_sign of a 3-byte message with a key pair made once",
        difference: None,
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &["hogweed-benchmark", "ecdsa"],
        row: "ecdsa 256",
        oracle_loop: "ecdsa_sign on a fixed digest with a random k (knuth-lfib generator)",
        difference: None,
    },
];

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
const HOGWEED_BENCH: &[&str] = &[
    "gcc",
    "-O2",
    "-I.",
    "-I..",
    "-DHAVE_CONFIG_H",
    "-o",
    "hogweed-benchmark",
    "hogweed-benchmark.c",
    "timing.c",
    "-lhogweed",
    "-lnettle",
    "-lgmp",
    "-lm",
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
                program: "hogweed-benchmark",
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
