//! What a post-quantum backend of the OpenSSL family offers the suite (pq_suite.rs): the calls
//! of one KEM or seeded signature parameter set ([`KemCalls`], [`SigCalls`]), signing with keys
//! made once ([`SignWith`], [`KeySigner`]) and a library's own backend ([`PqBackend`]). Below
//! both EVP's backends (kem.rs, dsa.rs) and the libraries' (crate::aws_lc, crate::boringssl).

use super::ffi::Api;
use crate::suite::{verified, DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res, Signer};
use cryptospeed_catalog::Primitive;

/// One KEM parameter set (or hybrid) of one library, consumed by the call it makes: each
/// closure owns the backend and what it set up (keys parsed, contexts, output buffers).
pub(crate) trait KemCalls<'a> {
    /// [`Suite::kem_keygen`].
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>>;
    /// [`Suite::kem_encaps`].
    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>>;
    /// [`Suite::kem_decaps`].
    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>>;
    /// [`Suite::kem_keygen_timed`].
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>>;
    /// [`Suite::kem_keygen_share_timed`]: [`KemCalls::keygen_timed`], by default (a library
    /// whose key generation writes the encapsulation key anyway).
    fn keygen_share_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        self.keygen_timed()
    }
    /// [`Suite::kem_keygen_encode_timed`]: [`KemCalls::keygen`]'s closure in every call, by
    /// default.
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>>
    where
        Self: 'a,
    {
        let mut f = self.keygen(None)?;
        Ok(Box::new(move || {
            f().map(|keys| drop(std::hint::black_box(keys)))
        }))
    }
    /// [`Suite::kem_encaps_timed`].
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>>;
    /// [`Suite::kem_decaps_timed`].
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>>;
    /// [`Suite::kem_encaps_parse_timed`]: only the parse of `ek` and the encapsulation in each
    /// call, the library's calls resolved when `self` was made.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>>;
    /// [`Suite::kem_decaps_parse_timed`], likewise.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>>;
}

/// One seeded signature parameter set (ML-DSA, SLH-DSA) of one library.
pub(crate) trait SigCalls<'a> {
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
    /// [`Suite::verify_parse_timed`]: [`SigCalls::verify`] in every call, by default.
    fn verify_parse_timed(self: Box<Self>, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<OpFn<'a>>
    where
        Self: 'a,
    {
        let (public, msg, sig) = (public.to_vec(), msg.to_vec(), sig.to_vec());
        Ok(Box::new(move || verified(self.verify(&public, &msg, &sig))))
    }
}

/// Signing and verifying with what a signature backend made once for a key pair.
pub(crate) trait SignWith {
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
pub(crate) struct KeySigner<D: SignWith> {
    pub(crate) signing: D::Signing,
    pub(crate) verifying: D::Verifying,
    /// The encoded public key.
    pub(crate) public: Vec<u8>,
    /// Where timed signing writes (nothing allocated per call), as long as the longest
    /// signature.
    pub(crate) out: Vec<u8>,
    pub(crate) dsa: D,
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

/// One KEM backend, boxed.
pub(crate) type AnyKem<'a> = Box<dyn KemCalls<'a> + 'a>;
/// One signature backend, boxed.
pub(crate) type AnySig<'a> = Box<dyn SigCalls<'a> + 'a>;

pub(crate) fn kem_box<'a>(k: impl KemCalls<'a> + 'a) -> AnyKem<'a> {
    Box::new(k)
}

pub(crate) fn sig_box<'a>(s: impl SigCalls<'a> + 'a) -> AnySig<'a> {
    Box::new(s)
}

/// The post-quantum calls of one library of the family beyond EVP's, tried when OpenSSL 3.5's
/// EVP calls are not there. Each recognises its library by its symbols: `Ok(None)` for a
/// library that is not one of its kind, `Err` for one that is but lacks what `p` needs (the
/// reason, which may quote EVP's, `evp`).
pub(crate) trait PqBackend: Sync {
    /// The backend of KEM (or hybrid) `p`.
    fn kem<'a>(&self, api: &'a Api, p: &Primitive, evp: &str) -> Res<Option<AnyKem<'a>>>;
    /// The backend of seeded signature `p`.
    fn sig<'a>(&self, api: &'a Api, p: &Primitive, evp: &str) -> Res<Option<AnySig<'a>>>;
}
