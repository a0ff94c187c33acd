//! The post-quantum primitives of the openssl, aws-lc and boringssl columns as one [`Suite`], so
//! their known-answer tests, agreement, cross-checks and timed loops are the suite's
//! (suite/mod.rs, suite/timed.rs) rather than a copy per library API. `OpenSsl` hands every
//! primitive of `Family::Kem` and `Family::SeededSignature` to it.
//!
//! Per primitive it picks the backend the library has: OpenSSL 3.5's EVP calls (kem.rs, dsa.rs),
//! else AWS-LC's own (aws_pq.rs; its hybrid: aws_hybrid.rs), else BoringSSL's own (bssl_pq.rs,
//! bssl_dsa.rs, bssl_slh.rs; its hybrid: bssl_hybrid.rs). Each backend offers its calls through
//! [`KemCalls`] or [`SigCalls`]; what each timed operation includes is said in its module comment.

use super::ffi::Api;
use super::{aws_hybrid, aws_pq, bssl_dsa, bssl_hybrid, bssl_pq, bssl_slh, dsa, kem};
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res, Signer, Suite};
use cryptospeed_catalog::{Algorithm, Primitive};
use cryptospeed_model::Variant;

/// One KEM parameter set (or hybrid) of one library, consumed by the call it makes: each
/// closure owns the backend and what it set up (keys parsed, contexts, output buffers).
pub(super) trait KemCalls<'a> {
    /// [`Suite::kem_keygen`].
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>>;
    /// [`Suite::kem_encaps`].
    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>>;
    /// [`Suite::kem_decaps`].
    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>>;
    /// [`Suite::kem_keygen_timed`].
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>>;
    /// [`Suite::kem_encaps_timed`].
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>>;
    /// [`Suite::kem_decaps_timed`].
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>>;
}

/// One seeded signature parameter set (ML-DSA, SLH-DSA) of one library.
pub(super) trait SigCalls<'a> {
    /// The signer of the seed's key pair, or of a fresh one: pure signing with an empty
    /// context, hedged, its keys parsed and contexts made at creation.
    fn signer(self: Box<Self>, seed: Option<&[u8]>) -> Res<Box<dyn Signer + 'a>>;
    /// [`Suite::sig_keygen_timed`].
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>>;
    /// [`Suite::sign_internal`].
    fn sign_internal(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>>;
    /// [`Suite::verify_internal`].
    fn verify_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool>;
    /// Whether another library's pure signature (empty context) verifies here.
    fn verify(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool>;
}

/// Signing and verifying with what a signature backend made once for a key pair.
pub(super) trait SignWith {
    /// What signing takes: a context (and the key it was made for), or a private key.
    type Signing;
    /// What verifying takes: a context, or a parsed public key.
    type Verifying;
    /// Signs into `sig` (room for the longest signature); the length written.
    fn sign_into(&self, key: &Self::Signing, msg: &[u8], sig: &mut [u8]) -> Res<usize>;
    fn verify_with(&self, key: &Self::Verifying, msg: &[u8], sig: &[u8]) -> Res<bool>;
}

/// A key pair made once, as the suite's [`Signer`] (pure signing, empty context, hedged).
// Fields drop in order: contexts and keys before the backend whose table frees them.
pub(super) struct KeySigner<D: SignWith> {
    pub(super) signing: D::Signing,
    pub(super) verifying: D::Verifying,
    /// The encoded public key.
    pub(super) public: Vec<u8>,
    /// Where timed signing writes (nothing allocated per call), as long as the longest
    /// signature.
    pub(super) out: Vec<u8>,
    pub(super) dsa: D,
}

impl<D: SignWith> Signer for KeySigner<D> {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let mut sig = vec![0u8; self.out.len()];
        let len = self.dsa.sign_into(&self.signing, msg, &mut sig)?;
        sig.truncate(len);
        Ok(sig)
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        self.dsa.verify_with(&self.verifying, msg, sig)
    }

    fn sign_timed(&mut self, msg: &[u8]) -> Res<()> {
        std::hint::black_box(self.dsa.sign_into(&self.signing, msg, &mut self.out)?);
        Ok(())
    }

    fn public(&self) -> Vec<u8> {
        self.public.clone()
    }
}

type AnyKem<'a> = Box<dyn KemCalls<'a> + 'a>;
type AnySig<'a> = Box<dyn SigCalls<'a> + 'a>;

fn kem_box<'a>(k: impl KemCalls<'a> + 'a) -> AnyKem<'a> {
    Box::new(k)
}

fn sig_box<'a>(s: impl SigCalls<'a> + 'a) -> AnySig<'a> {
    Box::new(s)
}

/// The post-quantum calls of one libcrypto (its own handle on it, beside `OpenSsl`'s).
pub(super) struct PqSuite {
    name: &'static str,
    api: Api,
}

impl PqSuite {
    pub(super) fn load(name: &'static str, path: &str) -> Res<PqSuite> {
        Ok(PqSuite {
            name,
            api: Api::load(path)?,
        })
    }

    /// The backend of KEM `p`, or why the library has none.
    fn kem(&self, p: &Primitive) -> Res<AnyKem<'_>> {
        let api = &self.api;
        let hybrid = matches!(p.algorithm, Algorithm::HybridKem { .. });
        let e = match kem::Kem::new(api, p) {
            Ok(k) => return Ok(kem_box(k)),
            Err(e) => e,
        };
        let aws = if hybrid {
            aws_hybrid::Hybrid::new(api, p).map(|h| h.map(kem_box))
        } else {
            aws_pq::Kem::new(api, p).map(|k| k.map(kem_box))
        };
        match aws {
            Ok(Some(x)) => return Ok(x),
            Err(e2) => return Err(format!("{e}; nor through AWS-LC's ML-KEM API: {e2}")),
            Ok(None) => {}
        }
        let bssl = if hybrid {
            bssl_hybrid::Hybrid::new(api, p).map(|h| h.map(kem_box))
        } else {
            bssl_pq::Kem::new(api, p).map(|k| k.map(kem_box))
        };
        // A BoringSSL's own reason stands alone; a library of neither family (OpenSSL) keeps
        // OpenSSL's.
        bssl?.ok_or(e)
    }

    /// The backend of signature `p`, or why the library has none.
    fn sig(&self, p: &Primitive) -> Res<AnySig<'_>> {
        let api = &self.api;
        let e = match dsa::Dsa::new(api, p) {
            Ok(d) => return Ok(sig_box(d)),
            Err(e) => e,
        };
        match aws_pq::Dsa::new(api, p) {
            Ok(Some(x)) => Ok(sig_box(x)),
            Err(e2) => Err(format!("{e}; nor through AWS-LC's ML-DSA API: {e2}")),
            // A BoringSSL's own reason stands alone; a library of neither family (OpenSSL)
            // keeps OpenSSL's.
            Ok(None) if matches!(p.algorithm, Algorithm::SlhDsa { .. }) => {
                bssl_slh::Slh::new(api, p)?.map(sig_box).ok_or(e)
            }
            Ok(None) => bssl_dsa::Dsa::new(api, p)?.map(sig_box).ok_or(e),
        }
    }
}

impl Suite for PqSuite {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Not used: `OpenSsl` describes the variant.
    fn describe(&self) -> Variant {
        Variant::default()
    }

    fn kem_keygen(&self, p: &Primitive, seed: Option<&[u8]>) -> Res<KemKeygenFn<'_>> {
        self.kem(p)?.keygen(seed)
    }

    fn kem_encaps(&self, p: &Primitive, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'_>> {
        self.kem(p)?.encaps(ek, m)
    }

    fn kem_decaps(&self, p: &Primitive, dk: &[u8]) -> Res<DecapsFn<'_>> {
        self.kem(p)?.decaps(dk)
    }

    fn kem_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        self.kem(p)?.keygen_timed()
    }

    fn kem_encaps_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.encaps_timed(ek)
    }

    fn kem_decaps_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.decaps_timed(dk, c)
    }

    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer + '_>> {
        self.sig(p)?.signer(key)
    }

    fn verify_foreign(
        &self,
        p: &Primitive,
        public: &[u8],
        _digest: &str,
        msg: &[u8],
        sig: &[u8],
    ) -> Res<bool> {
        self.sig(p)?.verify(public, msg, sig)
    }

    fn sig_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        self.sig(p)?.keygen_timed()
    }

    fn sign_internal(&self, p: &Primitive, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        self.sig(p)?.sign_internal(private, msg)
    }

    fn verify_internal(&self, p: &Primitive, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        self.sig(p)?.verify_internal(public, msg, sig)
    }
}
