//! The `aws-lc-rs` column's oracle: criterion benches of aws-lc-rs's public API after its own
//! benches (crates/rust-oracles/benches/aws_lc_rs.rs), built against the aws-lc-rs and
//! aws-lc-sys the column links.

use super::criterion::{self, cell};
use crate::{Cell, Difference, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct AwsLcRs;

/// The column's timed call is a boxed closure; criterion's loop inlines `digest::digest`.
const BOXED_HASH: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "cryptospeed's timed call goes through the column's boxed closure (an indirect call \
        returning a Result, the 80-byte Digest built in memory and the digest copied to the \
        caller's buffer); criterion's loop inlines digest::digest: about 6 ns per call, which \
        only the 16-byte cell shows",
    band: (0.86, 0.97),
    measured: "criterion, both loops in one bench binary against the same aws-lc-sys \
        (2026-11-28 14:02-14:03 UTC, load 3.3-3.8, CPU 1, 5 rounds): digest::digest alone \
        58.5-69.0 ns, through a Box<dyn FnMut(&[u8], &mut [u8]) -> Result<(), String>> as the \
        column's HashFn 64.9-82.2 ns; ours/oracle 0.900 and 0.912 in the two rounds with \
        intervals under 2%, 0.774-0.963 in all five",
};

static CELLS: &[Cell] = &[
    Cell {
        difference: Some(BOXED_HASH),
        ..cell(
            "sha256",
            Op::Hash,
            Some(16),
            "sha256@16 hash",
            "digest::digest(&SHA256, 16 bytes) (aws-lc-rs benches/digest_benchmark.rs one-shot)",
        )
    },
    cell(
        "sha256",
        Op::Hash,
        Some(8192),
        "sha256@8192 hash",
        "digest::digest(&SHA256, 8192 bytes) (aws-lc-rs benches/digest_benchmark.rs one-shot)",
    ),
    cell(
        "aes-128-gcm",
        Op::Encrypt,
        Some(16),
        "aes-128-gcm@16 encrypt",
        "SealingKey::seal_in_place_separate_tag of 16 bytes, the 13-byte TLS header as AAD, the \
        nonce advanced per record (ring's bench/aead.rs on aws-lc-rs)",
    ),
    cell(
        "aes-128-gcm",
        Op::Encrypt,
        Some(8192),
        "aes-128-gcm@8192 encrypt",
        "SealingKey::seal_in_place_separate_tag of 8192 bytes, the 13-byte TLS header as AAD, \
        the nonce advanced per record (ring's bench/aead.rs on aws-lc-rs)",
    ),
    cell(
        "ed25519",
        Op::Sign,
        None,
        "ed25519 sign",
        "Ed25519KeyPair::sign of 20 bytes, the pair made once from a seed",
    ),
    cell(
        "x25519",
        Op::Derive,
        None,
        "x25519 derive",
        "agreement::agree(&PrivateKey made once, UnparsedPublicKey of the peer's 32 bytes)",
    ),
    cell(
        "ml-kem-768",
        Op::Keygen,
        None,
        "ml-kem-768 keygen",
        "DecapsulationKey::generate(&ML_KEM_768), nothing encoded by the bench",
    ),
    cell(
        "ml-kem-768",
        Op::KeygenEncode,
        None,
        "ml-kem-768 keygen+encode",
        "DecapsulationKey::generate, encapsulation_key(), both key_bytes()",
    ),
    cell(
        "ml-kem-768",
        Op::Encaps,
        None,
        "ml-kem-768 encaps",
        "EncapsulationKey::encapsulate() on a key made once",
    ),
    cell(
        "ml-kem-768",
        Op::Decaps,
        None,
        "ml-kem-768 decaps",
        "DecapsulationKey::decapsulate(Ciphertext::from(bytes)) on a key made once",
    ),
    cell(
        "ml-kem-768",
        Op::EncapsParse,
        None,
        "ml-kem-768 encaps+parse",
        "EncapsulationKey::new(&ML_KEM_768, ek bytes), then encapsulate(), per call \
        (aws-lc-rs benches/kem_benchmark.rs encapsulate)",
    ),
    cell(
        "ml-kem-768",
        Op::DecapsParse,
        None,
        "ml-kem-768 decaps+parse",
        "DecapsulationKey::new(&ML_KEM_768, expanded dk bytes), then decapsulate, per call \
        (aws-lc-rs benches/kem_benchmark.rs decapsulate)",
    ),
];

impl Oracle for AwsLcRs {
    fn column(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn name(&self) -> &'static str {
        "criterion benches/aws_lc_rs.rs"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, _dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        criterion::build("aws_lc_rs", &["aws-lc-rs", "aws-lc-sys"], log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        criterion::command(built, cell)
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        criterion::parse(cell, output)
    }
    fn window_starts(&self, line: &str) -> bool {
        criterion::window_starts(line)
    }
}
