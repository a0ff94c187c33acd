//! The `ring` column's oracle: criterion benches of ring's public API after ring's own benches
//! (crates/rust-oracles/benches/ring.rs), built against the ring the column links.

use super::criterion::{self, cell};
use crate::{Cell, Difference, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct Ring;

/// The column's timed call is a boxed closure; criterion's loop inlines `digest::digest`.
const BOXED_HASH: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "cryptospeed's timed call goes through the column's boxed closure (an indirect call \
        returning a Result, the digest copied to the caller's buffer); criterion's loop inlines \
        digest::digest and keeps the digest where it was made: about 7 ns per call, which only \
        the 16-byte cell shows",
    band: (0.86, 0.97),
    measured: "criterion, both loops in one bench binary against the same ring (2026-11-28 \
        14:02-14:03 UTC, load 3.3-3.8, CPU 1, 5 rounds): digest::digest alone 83.1-125.7 ns, \
        through a Box<dyn FnMut(&[u8], &mut [u8]) -> Result<(), String>> as the column's \
        HashFn 89.8-118.7 ns; ours/oracle 0.880-0.954 in four rounds (0.925 in the one with \
        intervals under 1%), 1.059 in one disturbed round",
};

/// ring's bench seals through a `SealingKey`, whose nonce sequence makes each record's nonce.
const NONCE_SEQUENCE: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "criterion's loop seals through a SealingKey whose NonceSequence makes a counter \
        nonce per record (ring bench/aead.rs: the counter checked and incremented, the nonce \
        built) before the seal; the column's LessSafeKey takes the cell's fixed nonce from its \
        buffer: about 2 ns per call, which only the 16-byte cell shows",
    band: (1.00, 1.02),
    measured: "band from the column's in-process ratio 1.001-1.013 below, rounded out to \
        1.00-1.02; crates/rust-oracles/examples/gap.rs, the loops in one process, alternating 5 ms \
        blocks (2026-11-28 15:40 UTC, load 4.4-5.5, CPU 1, 3 rounds): the bench's loop \
        82.1-82.5 ns, the same with a LessSafeKey and a fixed nonce 79.9-80.5 ns (1.025-1.027), \
        the column's loop 81.1-82.4 ns (ours/oracle 1.001-1.013); the crosscheck at 16:13 UTC \
        (load 3.9-4.9, 3 rounds) read 1.034 (1.008-1.071), outside this band",
};

static CELLS: &[Cell] = &[
    Cell {
        difference: Some(BOXED_HASH),
        ..cell(
            "sha256",
            Op::Hash,
            Some(16),
            "sha256@16 hash",
            "digest::digest(&SHA256, 16 bytes of a 64-byte-aligned buffer) (ring bench/digest.rs)",
        )
    },
    cell(
        "sha256",
        Op::Hash,
        Some(8192),
        "sha256@8192 hash",
        "digest::digest(&SHA256, 8192 bytes of a 64-byte-aligned buffer) (ring bench/digest.rs)",
    ),
    Cell {
        difference: Some(NONCE_SEQUENCE),
        ..cell(
            "aes-128-gcm",
            Op::Encrypt,
            Some(16),
            "aes-128-gcm@16 encrypt",
            "SealingKey::seal_in_place_separate_tag of 16 bytes, the 13-byte TLS header as AAD \
            (by reference), the nonce advanced per record (ring bench/aead.rs)",
        )
    },
    cell(
        "aes-128-gcm",
        Op::Encrypt,
        Some(8192),
        "aes-128-gcm@8192 encrypt",
        "SealingKey::seal_in_place_separate_tag of 8192 bytes, the 13-byte TLS header as AAD \
        (by reference), the nonce advanced per record (ring bench/aead.rs)",
    ),
    cell(
        "ecdsa-p256",
        Op::Sign,
        None,
        "ecdsa-p256 sign",
        "EcdsaKeyPair::sign(&SystemRandom, 20 bytes), ECDSA_P256_SHA256_ASN1_SIGNING: the \
        message hashed, a fresh k, a DER signature (ring bench/ecdsa.rs)",
    ),
    cell(
        "ed25519",
        Op::Sign,
        None,
        "ed25519 sign",
        "Ed25519KeyPair::sign of 20 bytes, the pair made once from a seed",
    ),
];

impl Oracle for Ring {
    fn column(&self) -> &'static str {
        "ring"
    }
    fn name(&self) -> &'static str {
        "criterion benches/ring.rs"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, _dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        criterion::build("ring", &["ring"], log)
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
