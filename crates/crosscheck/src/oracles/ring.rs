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
        buffer: about 2-4 ns per call, which only the 16-byte cell shows",
    band: (1.00, 1.05),
    measured: "crates/rust-oracles/examples/gap.rs, the loops in one process, alternating 5 ms \
        blocks (2026-11-29 05:54 UTC, load 1.3, CPU 1, 5 rounds): the bench's loop 82.6-83.1 ns, \
        the same with a LessSafeKey and a fixed nonce 79.1-79.6 ns (the nonce sequence alone: \
        1.041-1.047), the column's loop 81.6-82.0 ns (ours/oracle 1.012-1.014, its boxed call \
        taking part of it back); band from 1.00 to the nonce sequence alone, rounded out. \
        (2026-11-28 15:40 UTC, load 4.4-5.5: 1.025-1.027 alone, the column's loop 1.001-1.013.) \
        The crosscheck read 1.028 (1.013-1.043) at 03:40 and 1.029 (1.020-1.037) at 05:45 UTC",
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

#[cfg(test)]
mod tests {
    use crate::rejudge::rejudge;
    use crate::rule::Verdict;

    /// aes-128-gcm@16 as the crosscheck of 2026-11-29 05:45 UTC measured it (12 rounds,
    /// docs/experiments/crosscheck.md): 1.020-1.037, undecided under the band 1.00-1.02, explained by the
    /// nonce sequence measured alone (1.041-1.047, band 1.00-1.05).
    #[test]
    fn the_nonce_sequence_explains_the_aes_gcm_16_cell() {
        let mut json = serde_json::json!([{"column": "ring", "cells": [{
            "cell": "aes-128-gcm@16", "op": "encrypt", "verdict": "undecided",
            "oracle_figures": [191151590.9, 191554443.3, 193017199.0, 207763666.6, 190797268.4, 200224643.7, 196331600.0, 191243263.6, 191530542.3, 191508649.4, 189871010.8, 191893720.7],
            "our_figures": [197860398.6, 197639186.7, 197233671.4, 197026514.1, 197042537.9, 196323229.9, 197411446.4, 198134371.8, 197261431.5, 197799381.2, 195343445.5, 196872053.2],
        }]}]);
        let cell = &rejudge(&mut json).unwrap()[0];
        assert!(cell.ci[0] > 1.019 && cell.ci[1] < 1.038, "{cell:?}");
        assert_eq!(cell.verdict, Verdict::Explained);
        assert_eq!(
            json[0]["cells"][0]["difference"]["band"],
            serde_json::json!([1.0, 1.05])
        );
        let old = crate::Difference {
            band: (1.00, 1.02),
            ..super::NONCE_SEQUENCE
        };
        assert_eq!(
            crate::rule::verdict(cell.ci, Some(&old)),
            Verdict::Undecided
        );
    }
}
