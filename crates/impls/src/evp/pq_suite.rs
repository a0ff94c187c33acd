//! The post-quantum primitives of the openssl, aws-lc and boringssl columns as one [`Suite`], so
//! their known-answer tests, agreement, cross-checks and timed loops are the suite's
//! (suite/mod.rs, suite/timed.rs) rather than a copy per library API. `Evp` hands every
//! primitive of `Family::Kem` and `Family::SeededSignature` to it.
//!
//! Per primitive it picks the backend the library has: OpenSSL 3.5's EVP calls (kem.rs, dsa.rs),
//! else the first of the library-specific [`PqBackend`]s given to it that recognises the library
//! (AWS-LC's own calls in crate::aws_lc, BoringSSL's in crate::boringssl). Each backend offers
//! its calls through the traits of pq_calls.rs; what each timed operation includes is said in
//! its module comment. X25519MLKEM768 is the library's own where EVP has it (OpenSSL 3.5), else
//! composed (crate::hybrid_kem) from whichever backend serves ML-KEM-768 and the library's own
//! X25519 (x25519.rs): a library of the family gets the hybrid with its ML-KEM-768.

use super::ffi::Api;
use super::pq_calls::{kem_box, sig_box, AnyKem, AnySig, KemCalls, PqBackend};
use super::x25519::X25519Api;
use super::{dsa, kem};
use crate::hybrid_kem::{self, Hybrid};
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res, Signer, Suite};
use cryptospeed_catalog::{Algorithm, Primitive};
use cryptospeed_model::Variant;

/// The post-quantum calls of one libcrypto (its own handle on it, beside `Evp`'s).
pub(crate) struct PqSuite {
    name: &'static str,
    api: Api,
    /// Tried in order after EVP's calls.
    backends: &'static [&'static dyn PqBackend],
    /// Which backend served each KEM and signature already (`None`: EVP's calls), so a later
    /// request (the known-answer calls, one per vector) does not retry the ones that failed,
    /// with their error strings. No timed call asks for a backend: the from-bytes operations
    /// get theirs before timing (`*_parse_timed`).
    served: std::sync::Mutex<std::collections::HashMap<&'static str, Option<usize>>>,
    /// The library's own X25519, loaded when a hybrid is first composed.
    x25519: std::sync::OnceLock<Res<X25519Api>>,
}

impl PqSuite {
    pub(crate) fn load(
        name: &'static str,
        path: &str,
        backends: &'static [&'static dyn PqBackend],
    ) -> Res<PqSuite> {
        Ok(PqSuite {
            name,
            api: Api::load(path)?,
            backends,
            served: Default::default(),
            x25519: Default::default(),
        })
    }

    /// The backend of KEM `p`, or why the library has none.
    fn kem(&self, p: &Primitive) -> Res<AnyKem<'_>> {
        let api = &self.api;
        if let Some(Some(i)) = self.served(p) {
            if let Some(k) = self.backends[i].kem(api, p, "")? {
                return Ok(k);
            }
        }
        let e = match kem::Kem::new(api, p) {
            Ok(k) => return Ok(kem_box(k)),
            Err(e) => e,
        };
        if matches!(p.algorithm, Algorithm::HybridKem { .. }) {
            return self.composed(e);
        }
        for (i, backend) in self.backends.iter().enumerate() {
            if let Some(k) = backend.kem(api, p, &e)? {
                self.remember(p, i);
                return Ok(k);
            }
        }
        // A library of none of the backends' kinds (OpenSSL) keeps EVP's reason.
        Err(e)
    }

    /// X25519MLKEM768 composed from the library's ML-KEM-768 and X25519, for a library whose
    /// EVP has no hybrid (`evp`: why); a library without ML-KEM-768 keeps EVP's reason.
    fn composed(&self, evp: String) -> Res<AnyKem<'_>> {
        self.kem(hybrid_kem::half()).map_err(|_| evp.clone())?;
        let x = self
            .x25519
            .get_or_init(|| X25519Api::load(&self.api.path))
            .as_ref()
            .map_err(|e| format!("{evp}; nor composed: no X25519 of its own ({e})"))?;
        Ok(kem_box(Hybrid { half: self, x }))
    }

    /// The backend of signature `p`, or why the library has none.
    fn sig(&self, p: &Primitive) -> Res<AnySig<'_>> {
        let api = &self.api;
        if let Some(Some(i)) = self.served(p) {
            if let Some(s) = self.backends[i].sig(api, p, "")? {
                return Ok(s);
            }
        }
        let e = match dsa::Dsa::new(api, p) {
            Ok(d) => return Ok(sig_box(d)),
            Err(e) => e,
        };
        for (i, backend) in self.backends.iter().enumerate() {
            if let Some(s) = backend.sig(api, p, &e)? {
                self.remember(p, i);
                return Ok(s);
            }
        }
        Err(e)
    }
}

impl PqSuite {
    /// The backend that served `p` before, if one did.
    fn served(&self, p: &Primitive) -> Option<Option<usize>> {
        self.served.lock().ok()?.get(p.id).copied()
    }

    fn remember(&self, p: &Primitive, backend: usize) {
        if let Ok(mut served) = self.served.lock() {
            served.insert(p.id, Some(backend));
        }
    }
}

impl Suite for PqSuite {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Not used: `Evp` describes the variant.
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

    fn kem_keygen_share_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        self.kem(p)?.keygen_share_timed()
    }

    fn kem_keygen_encode_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        self.kem(p)?.keygen_encode_timed()
    }

    fn kem_encaps_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.encaps_timed(ek)
    }

    fn kem_decaps_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.decaps_timed(dk, c)
    }

    /// The backend is found once, here; each call parses and encapsulates.
    fn kem_encaps_parse_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.encaps_parse_timed(ek)
    }

    fn kem_decaps_parse_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        self.kem(p)?.decaps_parse_timed(dk, c)
    }

    fn verify_parse_timed(
        &self,
        p: &Primitive,
        public: &[u8],
        msg: &[u8],
        sig: &[u8],
    ) -> Res<OpFn<'_>> {
        self.sig(p)?.verify_parse_timed(public, msg, sig)
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

/// The composed hybrid as this suite's KEM backend: each call is crate::hybrid_kem's.
impl<'a> KemCalls<'a> for Hybrid<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        Hybrid::keygen(*self, seed)
    }
    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        Hybrid::encaps(*self, ek, m)
    }
    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        Hybrid::decaps(*self, dk)
    }
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        Hybrid::keygen_timed(*self)
    }
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        Hybrid::keygen_encode_timed(*self)
    }
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        Hybrid::encaps_timed(*self, ek)
    }
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        Hybrid::decaps_timed(*self, dk, c)
    }
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        Hybrid::encaps_parse_timed(*self, ek)
    }
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        Hybrid::decaps_parse_timed(*self, dk, c)
    }
}
