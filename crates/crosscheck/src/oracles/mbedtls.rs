//! Mbed TLS's own `programs/test/benchmark` (every figure at its fixed 1024-byte buffer;
//! symmetric loops run for an alarm of 1 s and print KiB/s, public key for 3 s and print ops/s),
//! from Debian's mbedtls source, linked against the installed libmbedcrypto.

use super::{debian_build, figure, Build};
use crate::{expand_args, Cell, Difference, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct MbedTls;

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(1024),
        args: &["sha256"],
        row: "SHA-256 :",
        oracle_loop: "mbedtls_sha256_ret (one-shot: init, update, final) of the 1024-byte buffer, \
            counted over a 1 s alarm",
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(1024),
        args: &["aes_cbc"],
        row: "AES-CBC-128 :",
        oracle_loop: "mbedtls_aes_crypt_cbc of 1024 bytes in place, key set once, the IV chained \
            on, counted over a 1 s alarm",
        difference: None,
    },
    Cell {
        primitive: "chacha20-poly1305",
        op: Op::Encrypt,
        bytes: Some(1024),
        args: &["chachapoly"],
        row: "ChaCha20-Poly1305 :",
        oracle_loop: "mbedtls_chachapoly_encrypt_and_tag of 1024 bytes, no AAD, fixed nonce, \
            key set once",
        difference: None,
    },
    Cell {
        primitive: "rsa-2048",
        op: Op::Sign,
        bytes: None,
        args: &["rsa"],
        row: "RSA-2048 :",
        oracle_loop: "mbedtls_rsa_private on a raw 256-byte block (blinded with the benchmark's \
            generator), no padding, no hash",
        difference: Some(Difference {
            kind: crate::Kind::Definition,
            what: "our mbedtls_pk_sign (PKCS#1 v1.5) checks its signature with a public-key \
                operation before returning (rsa.c: against Lenstra's attack) and hashes and pads; \
                the oracle times the private-key operation alone",
            band: (0.94, 0.985),
            measured: "one public op costs 1.8% of a private op by the oracle's own RSA-2048 \
                public/s and private/s (24223 and 439 here, 2026-11-28): 1/1.018 = 0.982, \
                with the cell's round-to-round spread of about ±3%",
        }),
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &["ecdsa"],
        row: "ECDSA-secp256r1 :",
        oracle_loop: "mbedtls_ecdsa_write_signature of a 32-byte input (deterministic k, RFC \
            6979, where the library defines it), DER-encoded",
        difference: None,
    },
];

const BENCHMARK: &[&str] = &[
    "gcc",
    "-O2",
    "-o",
    "benchmark",
    "benchmark.c",
    "-lmbedtls",
    "-lmbedx509",
    "-lmbedcrypto",
];

impl Oracle for MbedTls {
    fn column(&self) -> &'static str {
        "mbedtls"
    }
    fn name(&self) -> &'static str {
        "programs/test/benchmark"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        let builds = [Build {
            program: "benchmark",
            cwd: "programs/test",
            argv: BENCHMARK,
        }];
        debian_build("mbedtls", "libmbedcrypto7", dir, &builds, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = vec![built.programs[0].display().to_string()];
        argv.extend(expand_args(cell));
        argv
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        let scale = if cell.bytes.is_some() { 1024.0 } else { 1.0 };
        if cell.primitive == "rsa-2048" {
            // "RSA-2048 : N public/s" comes first, then "RSA-2048 : N private/s".
            let private = output
                .lines()
                .filter(|l| l.contains("private/s"))
                .collect::<Vec<_>>();
            return figure(&private.join("\n"), cell.row, 0, scale);
        }
        figure(output, cell.row, 0, scale)
    }
}
