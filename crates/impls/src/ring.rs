//! `ring`: Brian Smith's library (BoringSSL-derived assembly, Rust around it), linked statically.
//! Offers SHA-1/256/512, HMAC-SHA256, AES-GCM, ChaCha20-Poly1305, Ed25519, ECDSA P-256/P-384 and
//! RSA (2048–8192-bit signing). Its key agreement takes only ephemeral keys, so X25519 and ECDH
//! cannot be checked against published vectors and are listed as unavailable.

use crate::declared::Declared;
use crate::suite::{AeadFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Variant;

mod api {
    crate::ring_like_api!(ring);

    pub fn ecdsa_from_pkcs8(
        alg: &'static signature::EcdsaSigningAlgorithm,
        pkcs8: &[u8],
        rng: &SystemRandom,
    ) -> Res<signature::EcdsaKeyPair> {
        signature::EcdsaKeyPair::from_pkcs8(alg, pkcs8, rng).map_err(|e| e.to_string())
    }

    pub fn open_separate(
        key: &ring::aead::LessSafeKey,
        nonce: ring::aead::Nonce,
        aad: ring::aead::Aad<&[u8]>,
        tag: &[u8],
        data: &mut [u8],
    ) -> Res<bool> {
        let tag = ring::aead::Tag::try_from(tag).map_err(|_| "bad tag length".to_string())?;
        Ok(key
            .open_in_place_separate_tag(nonce, aad, tag, data, 0..)
            .is_ok())
    }
}

pub struct Ring;

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &crate::declared::HASH_THEN_SIGN;

pub fn create(_: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    Ok(Box::new(SuiteImplementation::new(Ring)))
}

impl Suite for Ring {
    fn name(&self) -> &'static str {
        "ring"
    }
    fn describe(&self) -> Variant {
        Variant {
            label: "ring-0.17".into(),
            implementation: "ring".into(),
            version: "0.17 (crates.io, statically linked)".into(),
            library: "statically linked into cryptospeed".into(),
            ..Default::default()
        }
    }
    crate::ring_like_suite_methods!("ring");
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        api::hash("ring", p)
    }
}
