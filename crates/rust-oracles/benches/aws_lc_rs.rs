//! The crosscheck's oracle for the `aws-lc-rs` column: criterion benches of aws-lc-rs's public
//! API, written after aws-lc-rs's own benches (aws/aws-lc-rs/aws-lc-rs/benches:
//! digest_benchmark.rs's `DIGEST-SHA256-one-shot-{16,8192}-bytes`, `digest::digest` over a
//! `vec![1u8; len]`; kem_benchmark.rs's keygen (`generate` then the public key), encapsulate
//! (`EncapsulationKey::new` from bytes, then `encapsulate`) and decapsulate (the private key from
//! bytes, then `decapsulate`), there for Kyber and here for ML_KEM_768 through the same `kem`
//! module). The AEAD, Ed25519 and X25519 benches follow ring's (aws-lc-rs keeps ring's API, and
//! its AEAD bench is ring's bench/aead.rs with the crate swapped): `seal_in_place_separate_tag`
//! with the 13-byte TLS header (by reference, as in ring.rs), a signature over 20 bytes, `agreement::agree` with a private key
//! made once. Where cryptospeed's definition separates what the published KEM bench times in
//! one loop, the benches time each part on its own: `keygen` is `generate` alone,
//! `keygen+encode` adds both keys' bytes, `encaps`/`decaps` use a key parsed once, `encaps+parse`
//! and `decaps+parse` parse in every call as kem_benchmark.rs does.

use aws_lc_rs::aead::{self, BoundKey};
use aws_lc_rs::kem::{Ciphertext, DecapsulationKey, EncapsulationKey, ML_KEM_768};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::{agreement, digest, error, signature};
use criterion::{criterion_group, criterion_main, Criterion};
use cryptospeed_rust_oracles::{aligned, consume, id, MSG_20, TLS_AD};
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
            let chunk = vec![1u8; len];
            b.iter(|| consume(digest::digest(&digest::SHA256, black_box(&chunk))))
        });
    }
}

fn aes_128_gcm(c: &mut Criterion) {
    for len in [16, 8192] {
        c.bench_function(&id(&format!("aes-128-gcm@{len}"), "encrypt"), |b| {
            let mut key_bytes = vec![0u8; aead::AES_128_GCM.key_len()];
            SystemRandom::new().fill(&mut key_bytes).unwrap();
            let unbound = aead::UnboundKey::new(&aead::AES_128_GCM, &key_bytes).unwrap();
            let mut key = aead::SealingKey::new(unbound, NonceSequence(0));
            let mut in_out = aligned(len);
            // The AAD by reference, as in benches/ring.rs: ring's bench/aead.rs passes the
            // 13-byte array by value through black_box, a copy per call (about 3 ns here,
            // crates/rust-oracles/examples/gap.rs, 2026-11-29 02:44 UTC).
            b.iter(|| {
                let aad = aead::Aad::from(black_box(&TLS_AD));
                let tag = key.seal_in_place_separate_tag(aad, in_out.as_mut_slice());
                consume(tag.unwrap());
            })
        });
    }
}

fn ed25519(c: &mut Criterion) {
    c.bench_function(&id("ed25519", "sign"), |b| {
        let pair = signature::Ed25519KeyPair::from_seed_unchecked(&[7u8; 32]).unwrap();
        b.iter(|| consume(pair.sign(black_box(&MSG_20))))
    });
}

fn x25519(c: &mut Criterion) {
    c.bench_function(&id("x25519", "derive"), |b| {
        let key = agreement::PrivateKey::generate(&agreement::X25519).unwrap();
        let peer = agreement::PrivateKey::generate(&agreement::X25519).unwrap();
        let peer = peer.compute_public_key().unwrap();
        b.iter(|| {
            let peer = agreement::UnparsedPublicKey::new(&agreement::X25519, peer.as_ref());
            agreement::agree(&key, peer, (), |secret| {
                consume(secret);
                Ok(())
            })
            .unwrap()
        })
    });
}

fn ml_kem_keygen(c: &mut Criterion) {
    c.bench_function(&id("ml-kem-768", "keygen"), |b| {
        b.iter(|| consume(DecapsulationKey::generate(&ML_KEM_768).unwrap()))
    });
    c.bench_function(&id("ml-kem-768", "keygen+encode"), |b| {
        b.iter(|| {
            let dk = DecapsulationKey::generate(&ML_KEM_768).unwrap();
            let ek = dk.encapsulation_key().unwrap();
            consume((ek.key_bytes().unwrap(), dk.key_bytes().unwrap()));
        })
    });
}

fn ml_kem_encaps(c: &mut Criterion) {
    let keys = || {
        let dk = DecapsulationKey::generate(&ML_KEM_768).unwrap();
        let ek = dk.encapsulation_key().unwrap();
        let ek_bytes = ek.key_bytes().unwrap().as_ref().to_vec();
        (dk, ek, ek_bytes)
    };
    c.bench_function(&id("ml-kem-768", "encaps"), |b| {
        let (_, ek, _) = keys();
        b.iter(|| consume(ek.encapsulate().unwrap()))
    });
    c.bench_function(&id("ml-kem-768", "encaps+parse"), |b| {
        let (_, _, ek_bytes) = keys();
        b.iter(|| {
            let ek = EncapsulationKey::new(&ML_KEM_768, black_box(&ek_bytes)).unwrap();
            consume(ek.encapsulate().unwrap())
        })
    });
}

fn ml_kem_decaps(c: &mut Criterion) {
    let keys = || {
        let dk = DecapsulationKey::generate(&ML_KEM_768).unwrap();
        let (ct, _) = dk.encapsulation_key().unwrap().encapsulate().unwrap();
        let dk_bytes = dk.key_bytes().unwrap().as_ref().to_vec();
        (dk, dk_bytes, ct.as_ref().to_vec())
    };
    c.bench_function(&id("ml-kem-768", "decaps"), |b| {
        let (dk, _, ct) = keys();
        b.iter(|| {
            consume(
                dk.decapsulate(Ciphertext::from(black_box(&ct[..])))
                    .unwrap(),
            )
        })
    });
    c.bench_function(&id("ml-kem-768", "decaps+parse"), |b| {
        let (_, dk_bytes, ct) = keys();
        b.iter(|| {
            let dk = DecapsulationKey::new(&ML_KEM_768, black_box(&dk_bytes)).unwrap();
            consume(dk.decapsulate(Ciphertext::from(&ct[..])).unwrap())
        })
    });
}

criterion_group!(
    benches,
    sha256,
    aes_128_gcm,
    ed25519,
    x25519,
    ml_kem_keygen,
    ml_kem_encaps,
    ml_kem_decaps
);
criterion_main!(benches);
