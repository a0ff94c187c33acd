//! wolfSSL's own `wolfcrypt/benchmark` (`-csv -base10`, the block size as its last argument,
//! `-dgst_full` so a hash is one-shot like ours, `-rsa_sign` so RSA times sign rather than
//! private decrypt), from Debian's wolfssl source, compiled with the installed `options.h` and
//! linked against the installed libwolfssl.

use super::{debian_build, figure, Build};
use crate::{expand_args, Cell, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct WolfSsl;

const SHA: &str = "wc_InitSha256_ex, wc_Sha256Update of the block, wc_Sha256Final per block \
    (-dgst_full), for >= 1 s";
const GCM: &str = "wc_AesGcmEncrypt of one block with a 12-byte IV, 13 bytes of AAD and a \
    16-byte tag, key set once, for >= 1 s";

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(16),
        args: &["-sha256", "-dgst_full", "-csv", "-base10", "{bytes}"],
        row: "SHA-256",
        oracle_loop: SHA,
        difference: None,
    },
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(8192),
        args: &["-sha256", "-dgst_full", "-csv", "-base10", "{bytes}"],
        row: "SHA-256",
        oracle_loop: SHA,
        difference: None,
    },
    Cell {
        primitive: "aes-128-gcm",
        op: Op::Encrypt,
        bytes: Some(16),
        args: &["-aes-gcm", "-csv", "-base10", "{bytes}"],
        row: "AES-128-GCM-enc",
        oracle_loop: GCM,
        difference: None,
    },
    Cell {
        primitive: "aes-128-gcm",
        op: Op::Encrypt,
        bytes: Some(8192),
        args: &["-aes-gcm", "-csv", "-base10", "{bytes}"],
        row: "AES-128-GCM-enc",
        oracle_loop: GCM,
        difference: None,
    },
    Cell {
        primitive: "rsa-2048",
        op: Op::Sign,
        bytes: None,
        args: &["-rsa", "-rsa_sign", "-csv"],
        row: "RSA 2048 sign",
        oracle_loop: "wc_RsaSSL_Sign (PKCS#1 v1.5 type 1 over a short message, no hash) with the \
            benchmark's RNG for blinding, key loaded once",
        difference: None,
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &["-ecc", "-p256", "-csv"],
        row: "SECP256R1] 256 sign",
        oracle_loop: "wc_ecc_sign_hash of a 32-byte digest, random k from the benchmark's RNG, \
            DER signature",
        difference: None,
    },
];

const BENCH: &[&str] = &[
    "gcc",
    "-O2",
    "-iquote",
    ".",
    "-include",
    "/usr/include/wolfssl/options.h",
    "-o",
    "wolfcrypt-benchmark",
    "wolfcrypt/benchmark/benchmark.c",
    "-lwolfssl",
    "-lm",
    "-lpthread",
];

impl Oracle for WolfSsl {
    fn column(&self) -> &'static str {
        "wolfssl"
    }
    fn name(&self) -> &'static str {
        "wolfcrypt/benchmark"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        let builds = [Build {
            program: "wolfcrypt-benchmark",
            cwd: ".",
            argv: BENCH,
        }];
        debian_build("wolfssl", "libwolfssl35", dir, &builds, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = vec![built.programs[0].display().to_string()];
        argv.extend(expand_args(cell));
        argv
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        if cell.bytes.is_some() {
            figure(output, cell.row, 0, 1e6) // MB/s, base 10
        } else {
            figure(output, cell.row, 1, 1.0) // avg ms, then ops/sec
        }
    }
}
