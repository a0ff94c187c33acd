//! The crosscheck's oracle for the `ring` column: criterion benches of ring's public API, written
//! after ring's own benches at its 0.17.14 release (briansmith/ring/bench: digest.rs's
//! `digest::oneshot` over a 64-byte-aligned input, aead.rs's `seal_in_place_separate_tag` with a
//! `SealingKey` whose nonce sequence advances per record and the 13-byte TLS header as AAD,
//! ecdsa.rs's `ecdsa_p256_sign` with a key made by `generate_pkcs8`/`from_pkcs8`), criterion 0.5
//! without default features as ring's bench/Cargo.toml takes it. ring publishes no Ed25519 bench;
//! that one follows ecdsa.rs's shape. Departures from ring's benches, for cryptospeed's
//! definitions: the sizes (16 and 8192 bytes), the 20-byte signed message (ring's sign an
//! empty one; both are one SHA-256 block), and the AAD passed by reference to a header made
//! before timing, as cryptospeed's definition has it: ring's aead.rs passes the 13-byte array by
//! value through `black_box`, a copy through the stack on every call that cost 8-9 ns (10% of a
//! 16-byte seal, `cargo run --example gap -- ring aes-128-gcm@16 encrypt`).

use criterion::{criterion_group, criterion_main, Criterion};
use cryptospeed_rust_oracles::{aligned, consume, id, MSG_20, TLS_AD};
use ring::aead::{self, BoundKey};
use ring::rand::{SecureRandom, SystemRandom};
use ring::{digest, error, signature};
use std::hint::black_box;

/// ring bench/aead.rs's nonce sequence: a counter in the nonce's last 8 bytes.
struct NonceSequence(u64);

impl aead::NonceSequence for NonceSequence {
    fn advance(&mut self) -> Result<aead::Nonce, error::Unspecified> {
        let mut result = [0u8; aead::NONCE_LEN];
        result[4..].copy_from_slice(&u64::to_be_bytes(self.0));
        self.0 = self.0.checked_add(1).ok_or(error::Unspecified)?;
        Ok(aead::Nonce::assume_unique_for_key(result))
    }
}

fn sha256(c: &mut Criterion) {
    for len in [16, 8192] {
        c.bench_function(&id(&format!("sha256@{len}"), "hash"), |b| {
            let input = aligned(len);
            b.iter(|| consume(digest::digest(&digest::SHA256, black_box(input.as_slice()))))
        });
    }
}

fn aes_128_gcm(c: &mut Criterion) {
    for len in [16, 8192] {
        c.bench_function(&id(&format!("aes-128-gcm@{len}"), "encrypt"), |b| {
            let rng = SystemRandom::new();
            let mut key_bytes = vec![0u8; aead::AES_128_GCM.key_len()];
            rng.fill(&mut key_bytes).unwrap();
            let unbound = aead::UnboundKey::new(&aead::AES_128_GCM, &key_bytes).unwrap();
            let mut key = aead::SealingKey::new(unbound, NonceSequence(0));
            let mut in_out = aligned(len);
            b.iter(|| {
                let aad = aead::Aad::from(black_box(&TLS_AD));
                let tag = key.seal_in_place_separate_tag(aad, in_out.as_mut_slice());
                consume(tag.unwrap());
            })
        });
    }
}

fn ecdsa_p256(c: &mut Criterion) {
    c.bench_function(&id("ecdsa-p256", "sign"), |b| {
        let rng = SystemRandom::new();
        let alg = &signature::ECDSA_P256_SHA256_ASN1_SIGNING;
        let pkcs8 = signature::EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = signature::EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        b.iter(|| consume(pair.sign(&rng, black_box(&MSG_20)).unwrap()))
    });
}

fn ed25519(c: &mut Criterion) {
    c.bench_function(&id("ed25519", "sign"), |b| {
        let pair = signature::Ed25519KeyPair::from_seed_unchecked(&[7u8; 32]).unwrap();
        b.iter(|| consume(pair.sign(black_box(&MSG_20))))
    });
}

criterion_group!(benches, sha256, aes_128_gcm, ecdsa_p256, ed25519);
criterion_main!(benches);
