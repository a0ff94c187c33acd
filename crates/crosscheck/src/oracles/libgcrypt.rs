//! libgcrypt's own `tests/bench-slope` (`--csv`): the slope of time over message length (ns per
//! byte, fixed per-call costs excluded by construction, so it offers long messages only) and,
//! for public key, ns per operation; from Debian's libgcrypt20 source, linked against the
//! installed libgcrypt. A slope is the long-message limit, so ours is taken at 1 MiB, where a
//! call's fixed cost (an HMAC's finalisation: about 180 ns, 1.1% at 16 KiB) is under 0.02%.

use super::{debian_build, figure, Build};
use crate::{expand_args, Cell, Clock, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct Libgcrypt;

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(1_048_576),
        args: &["--csv", "hash", "sha256"],
        row: "hash SHA256",
        oracle_loop: "gcry_md_reset, gcry_md_write of the buffer, gcry_md_final per call; the \
            figure is the slope over buffer lengths (per-call cost excluded)",
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(1_048_576),
        args: &["--csv", "cipher", "aes"],
        row: "cipher AES CBC enc",
        oracle_loop: "gcry_cipher_encrypt of the buffer in place, key and IV set once; slope \
            over buffer lengths",
        difference: None,
    },
    Cell {
        primitive: "hmac-sha256",
        op: Op::Mac,
        bytes: Some(1_048_576),
        args: &["--csv", "mac", "hmac_sha256"],
        row: "mac HMAC_SHA256",
        oracle_loop: "gcry_mac_reset, gcry_mac_write, gcry_mac_read per call; slope over buffer \
            lengths",
        difference: None,
    },
    Cell {
        primitive: "ed25519",
        op: Op::Sign,
        bytes: None,
        args: &["--csv", "ecc", "Ed25519"],
        row: "ecc Ed25519 sign",
        oracle_loop: "gcry_pk_sign of a prepared (data (flags eddsa)(hash-algo sha512)(value …)) \
            S-expression; slope over iteration counts",
        difference: None,
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &["--csv", "ecc", "NIST-P256"],
        row: "ecc NIST-P256 sign",
        oracle_loop: "gcry_pk_sign of a prepared (data (flags raw)(value …)) S-expression, random \
            k; slope over iteration counts",
        difference: None,
    },
];

const BENCH_SLOPE: &[&str] = &[
    "gcc",
    "-O2",
    "-I.",
    "-I..",
    "-I../src",
    "-DHAVE_CONFIG_H",
    "-o",
    "bench-slope",
    "bench-slope.c",
    "-lgcrypt",
    "-lgpg-error",
    "-lm",
];

impl Oracle for Libgcrypt {
    fn column(&self) -> &'static str {
        "libgcrypt"
    }
    fn name(&self) -> &'static str {
        "tests/bench-slope"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        let src = crate::debsrc::fetch("libgcrypt20", "libgcrypt20", dir, log)?;
        if !src.dir.join("config.h").exists() {
            crate::debsrc::run(&["./configure", "-q", "--disable-doc"], &src.dir, log)?;
        }
        let builds = [Build {
            program: "bench-slope",
            cwd: "tests",
            argv: BENCH_SLOPE,
        }];
        debian_build("libgcrypt20", "libgcrypt20", dir, &builds, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = vec![built.programs[0].display().to_string()];
        argv.extend(expand_args(cell));
        argv
    }
    fn clock(&self) -> Clock {
        Clock::Undisturbed // the median of 64 short repetitions per point (bench-slope.c)
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        // ns/B or ns/iter: the rate is its inverse.
        Ok(1e9 / figure(output, cell.row, 0, 1.0)?)
    }
}
