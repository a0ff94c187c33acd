//! The `rustcrypto` column's oracle: criterion benches of the RustCrypto crates' public APIs
//! after their published benches (crates/rust-oracles/benches/rustcrypto.rs), built against the
//! crates the column links.

use super::criterion::{self, cell};
use crate::{Cell, Difference, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct RustCrypto;

/// The column's AEAD call is a boxed closure over buffers; criterion's loop inlines the seal.
const BOXED_SEAL: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "cryptospeed's timed call goes through the column's boxed AeadFn (an indirect call \
        returning a Result; the nonce and AAD read from the cell's buffers through \
        GenericArray::from_slice, the tag copied out to the cell's buffer); criterion's loop \
        inlines encrypt_in_place_detached on a constant nonce and AAD and keeps the tag where \
        it was made: about 8 ns per call, which only the 16-byte cell shows",
    band: (0.86, 0.97),
    measured: "crates/rust-oracles/examples/gap.rs, both loops and the column's closure body \
        inlined in one process, alternating 5 ms blocks (2026-11-28 16:03 UTC, load 4.0-5.1, \
        CPU 1, 6 rounds): the column's loop 111.1-114.0 ns, the bench's 103.3-104.9 ns, ours/oracle \
        0.920-0.932; the column's closure body inlined 107.1-108.2 ns (half the gap is the box, \
        half the buffers and the tag copy)",
};

static CELLS: &[Cell] = &[
    cell(
        "sha256",
        Op::Hash,
        Some(16),
        "sha256@16 hash",
        "sha2 Sha256::digest of 16 bytes",
    ),
    cell(
        "sha256",
        Op::Hash,
        Some(8192),
        "sha256@8192 hash",
        "sha2 Sha256::digest of 8192 bytes",
    ),
    Cell {
        difference: Some(BOXED_SEAL),
        ..cell(
            "aes-128-gcm",
            Op::Encrypt,
            Some(16),
            "aes-128-gcm@16 encrypt",
            "aes-gcm Aes128Gcm::encrypt_in_place_detached of 16 bytes, 13 bytes of AAD",
        )
    },
    cell(
        "aes-128-gcm",
        Op::Encrypt,
        Some(8192),
        "aes-128-gcm@8192 encrypt",
        "aes-gcm Aes128Gcm::encrypt_in_place_detached of 8192 bytes, 13 bytes of AAD",
    ),
    cell(
        "ed25519",
        Op::Sign,
        None,
        "ed25519 sign",
        "ed25519-dalek SigningKey::sign of 20 bytes (ed25519-dalek benches `Ed25519 signing`)",
    ),
    cell(
        "x25519",
        Op::Derive,
        None,
        "x25519 derive",
        "x25519-dalek StaticSecret::diffie_hellman(&PublicKey) (x25519-dalek benches)",
    ),
    cell(
        "ml-kem-768",
        Op::Keygen,
        None,
        "ml-kem-768 keygen",
        "ml-kem MlKem768::generate(ChaCha20), the key objects kept",
    ),
    cell(
        "ml-kem-768",
        Op::KeygenEncode,
        None,
        "ml-kem-768 keygen+encode",
        "MlKem768::generate, then both keys' as_bytes (ml-kem benches/mlkem.rs keygen)",
    ),
    cell(
        "ml-kem-768",
        Op::Encaps,
        None,
        "ml-kem-768 encaps",
        "EncapsulationKey::encapsulate(ChaCha20) on a key made once",
    ),
    cell(
        "ml-kem-768",
        Op::Decaps,
        None,
        "ml-kem-768 decaps",
        "DecapsulationKey::decapsulate on a key made once",
    ),
    cell(
        "ml-kem-768",
        Op::EncapsParse,
        None,
        "ml-kem-768 encaps+parse",
        "EncapsulationKey::from_bytes, the re-encoding compared (FIPS 203 7.2), encapsulate \
        (ml-kem benches/mlkem.rs encapsulate, plus the check)",
    ),
    cell(
        "ml-kem-768",
        Op::DecapsParse,
        None,
        "ml-kem-768 decaps+parse",
        "DecapsulationKey::from_bytes, then decapsulate (ml-kem benches/mlkem.rs decapsulate)",
    ),
    cell(
        "ml-dsa-65",
        Op::Keygen,
        None,
        "ml-dsa-65 keygen",
        "ml-dsa MlDsa65::key_gen(ChaCha20), the KeyPair kept, nothing encoded",
    ),
    cell(
        "ml-dsa-65",
        Op::KeygenEncode,
        None,
        "ml-dsa-65 keygen+encode",
        "MlDsa65::key_gen, then both keys encoded (ml-dsa benches/ml_dsa.rs keygen)",
    ),
    cell(
        "ml-dsa-65",
        Op::Sign,
        None,
        "ml-dsa-65 sign",
        "SigningKey::sign_randomized of 32 bytes, empty context, on the KeyPair made once \
        (it holds Â and the NTT forms), signature encoded",
    ),
    cell(
        "ml-dsa-65",
        Op::Verify,
        None,
        "ml-dsa-65 verify",
        "Signature::decode, then VerifyingKey::verify_with_context on the key made once",
    ),
    cell(
        "ml-dsa-65",
        Op::VerifyParse,
        None,
        "ml-dsa-65 verify+parse",
        "VerifyingKey::decode, Signature::decode, verify_with_context (ml-dsa benches/ml_dsa.rs \
        verify)",
    ),
];

impl Oracle for RustCrypto {
    fn column(&self) -> &'static str {
        "rustcrypto"
    }
    fn name(&self) -> &'static str {
        "criterion benches/rustcrypto.rs"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, _dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        let crates = [
            "sha2",
            "aes-gcm",
            "ed25519-dalek",
            "x25519-dalek",
            "ml-kem",
            "ml-dsa",
        ];
        criterion::build("rustcrypto", &crates, log)
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
