//! `aws-lc-rs`: Amazon's AWS-LC (a BoringSSL fork) through aws-lc-rs, whose API is ring's plus more;
//! the common calls come from [`crate::ring_like_api`], and this module adds what AWS-LC has
//! beyond ring: SHA3-256, key agreement from fixed private keys (so X25519 and ECDH are
//! checked against RFC 7748 and Wycheproof vectors), and ML-KEM (`kem`, aws_lc_rs_kem.rs). aws-lc-sys prefixes its symbols, so it
//! links beside the dynamically loaded system libcrypto without clashes.
//!
//! It is kept beside `aws-lc` (AWS-LC's whole libcrypto, crate::aws_lc) because it measures what
//! the libcrypto path does not: the Rust API rustls and other Rust programs call (message-level
//! signing, aws-lc-rs's own AEAD and digest wrappers) on the aws-lc-sys build Cargo makes.

use crate::declared::{
    Conformance::{Departs, NotOffered},
    Declared,
    State::*,
};
use crate::suite::{
    AeadFn, DecapsFn, DeriveFn, EncapsFn, HashFn, KemKeygenFn, OpFn, Res, Signer, Suite,
    SuiteImplementation,
};
use crate::ImplOptions;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use cryptospeed_engine::Implementation;
use cryptospeed_model::{Op, Variant};

#[path = "aws_lc_rs_kem.rs"]
mod kem;

mod api {
    crate::ring_like_api!(aws_lc_rs);

    pub fn ecdsa_from_pkcs8(
        alg: &'static signature::EcdsaSigningAlgorithm,
        pkcs8: &[u8],
        _rng: &SystemRandom,
    ) -> Res<signature::EcdsaKeyPair> {
        signature::EcdsaKeyPair::from_pkcs8(alg, pkcs8).map_err(|e| e.to_string())
    }

    pub fn open_separate(
        key: &aws_lc_rs::aead::LessSafeKey,
        nonce: aws_lc_rs::aead::Nonce,
        aad: aws_lc_rs::aead::Aad<&[u8]>,
        tag: &[u8],
        data: &mut [u8],
    ) -> Res<bool> {
        Ok(key
            .open_in_place_separate_tag(nonce, aad, tag, data)
            .is_ok())
    }
}

pub struct AwsLc;

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[
    crate::declared::HASH_THEN_SIGN[0],
    crate::declared::HASH_THEN_SIGN[1],
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic, EncodesPrivate], "AWS-LC's KEM key is its two FIPS 203 encodings: keygen writes both"),
    },
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Departs(&[ParsedPerCall, ExpandedPerCall, ContextPerCall], "AWS-LC's key keeps only its encoding: every call re-checks, re-hashes and unpacks it, in a new EVP_PKEY_CTX with new output buffers (aws-lc-rs's API)"),
    },
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::KeygenEncode],
        note: Departs(&[ContextPerCall], "aws-lc-rs's key_bytes returns each encoding in a buffer it allocates, and encapsulation_key() makes a new key object, per call"),
    },
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::EncapsParse, Op::DecapsParse],
        note: Departs(
            &[ContextPerCall, AllocationPerCall],
            "the key is imported into a new EVP_PKEY, its call boxed and a new EVP_PKEY_CTX and output vectors made, per call (aws-lc-rs's API)",
        ),
    },
    Declared {
        kinds: &["hybrid-kem"],
        ops: &[],
        note: NotOffered("aws-lc-rs's kem module has no X25519MLKEM768 (rustls composes its own)"),
    },
];

pub fn create(_: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    Ok(Box::new(SuiteImplementation::new(AwsLc)))
}

impl Suite for AwsLc {
    fn name(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn describe(&self) -> Variant {
        Variant {
            label: "aws-lc-rs".into(),
            implementation: "aws-lc-rs".into(),
            version: "aws-lc-rs 1 (aws-lc-sys, statically linked)".into(),
            library: "statically linked into cryptospeed".into(),
            ..Default::default()
        }
    }
    crate::ring_like_suite_methods!("aws-lc-rs");
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        if p.id == "sha3-256" {
            return Ok(Box::new(|msg, out| {
                out.copy_from_slice(
                    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA3_256, msg).as_ref(),
                );
                Ok(())
            }));
        }
        api::hash("aws-lc-rs", p)
    }
    fn kem_keygen(&self, p: &Primitive, seed: Option<&[u8]>) -> Res<KemKeygenFn<'_>> {
        kem::keygen(p, seed)
    }
    fn kem_encaps(&self, p: &Primitive, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'_>> {
        kem::encaps(p, ek, m)
    }
    fn kem_decaps(&self, p: &Primitive, dk: &[u8]) -> Res<DecapsFn<'_>> {
        kem::decaps(p, dk)
    }
    fn kem_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        kem::keygen_timed(p)
    }
    fn kem_keygen_encode_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        kem::keygen_encode_timed(p)
    }
    fn kem_encaps_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        kem::encaps_timed(p, ek)
    }
    fn kem_decaps_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        kem::decaps_timed(p, dk, c)
    }
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        use aws_lc_rs::agreement;
        let alg = match p.algorithm {
            Algorithm::Ecdh { curve: Curve::P256 } => &agreement::ECDH_P256,
            Algorithm::Ecdh { curve: Curve::P384 } => &agreement::ECDH_P384,
            Algorithm::Ecdh { curve: Curve::P521 } => &agreement::ECDH_P521,
            Algorithm::Ecdh {
                curve: Curve::X25519,
            } => &agreement::X25519,
            _ => return Err(format!("aws-lc does not offer {}", p.id)),
        };
        let key = agreement::PrivateKey::from_private_key(alg, private)
            .map_err(|e| format!("private key rejected: {e}"))?;
        let peer = peer.to_vec();
        Ok(Box::new(move || {
            agreement::agree(
                &key,
                agreement::UnparsedPublicKey::new(alg, &peer),
                "key agreement failed".to_string(),
                |secret| Ok(secret.to_vec()),
            )
        }))
    }
}
