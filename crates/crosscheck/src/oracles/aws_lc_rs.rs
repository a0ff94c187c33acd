//! The `aws-lc-rs` column's oracle: criterion benches of aws-lc-rs's public API after its own
//! benches (crates/rust-oracles/benches/aws_lc_rs.rs), built against the aws-lc-rs and
//! aws-lc-sys the column links.

use super::criterion::{self, cell};
use crate::{Cell, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct AwsLcRs;

static CELLS: &[Cell] = &[
    cell(
        "sha256",
        Op::Hash,
        Some(16),
        "sha256@16 hash",
        "digest::digest(&SHA256, 16 bytes) (aws-lc-rs benches/digest_benchmark.rs one-shot)",
    ),
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
