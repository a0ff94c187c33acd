//! The shape most libraries share: a library exposes a hash, a MAC, a cipher, an AEAD, a signer
//! or a key agreement for a primitive as a few calls. A [`Suite`] hands those calls over as
//! closures, and [`SuiteImplementation`] turns any suite into an engine [`Implementation`]: the
//! known-answer tests, the agreement computation and the timed loops are written once here, so an
//! implementation module only maps primitives to its library's calls.
//!
//! The timed loops call the closure once per operation; a boxed closure costs one indirect call,
//! the same as a call through a shared library's PLT, and is negligible beside the work measured.

mod from_bytes;
mod known_answer;
mod timed;

use crate::kat::{corrupt, mismatch};
use cryptospeed_catalog::agreement::{signature_digest, AgreementCase, AgreementKind};
use cryptospeed_catalog::{unhex, Algorithm, Curve, Family, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Implementation, Timed};
use cryptospeed_model::{CellSpec, Variant};
pub(crate) use known_answer::known_answer;
use num_bigint::BigUint;
use std::collections::HashMap;

pub type Res<T> = Result<T, String>;
/// Hashes or MACs a message into `out` (sized by the caller to the output length).
pub type HashFn = Box<dyn FnMut(&[u8], &mut [u8]) -> Res<()>>;
/// Encrypts or decrypts in place; chaining state (CBC IV, CTR counter) carries over between calls,
/// as in `openssl speed`.
pub type CipherFn = Box<dyn FnMut(&mut [u8]) -> Res<()>>;
/// Seals (writes the tag) or opens (checks the tag; `Ok(false)` when it does not authenticate)
/// in place: `(nonce, aad, data, tag)`.
pub type AeadFn = Box<dyn FnMut(&[u8], &[u8], &mut [u8], &mut [u8]) -> Res<bool>>;
/// Computes a shared secret with the key pair fixed at creation.
pub type DeriveFn = Box<dyn FnMut() -> Res<Vec<u8>>>;
/// Makes a KEM key pair: (encapsulation key, decapsulation key), each in its standard encoding
/// (FIPS 203's for ML-KEM: the expanded decapsulation key, or the 64-byte seed d ‖ z where the
/// library keeps no other, which [`Suite::kem_decaps`] then takes). The post-quantum signature
/// schemes' (public, private) pairs use the same type. The closures of the KEM calls may borrow
/// the suite (`'a`).
pub type KemKeygenFn<'a> = Box<dyn FnMut() -> Res<(Vec<u8>, Vec<u8>)> + 'a>;
/// Encapsulates to the key fixed at creation: (ciphertext, shared secret).
pub type EncapsFn<'a> = Box<dyn FnMut() -> Res<(Vec<u8>, Vec<u8>)> + 'a>;
/// Decapsulates a ciphertext with the key fixed at creation.
pub type DecapsFn<'a> = Box<dyn FnMut(&[u8]) -> Res<Vec<u8>> + 'a>;
/// One timed operation, everything it needs set up at creation, its result thrown away: a
/// library may write into buffers it keeps and skip encoding what the timed operation does not
/// return (`EVP_PKEY_generate` makes a key without serialising it).
pub type OpFn<'a> = Box<dyn FnMut() -> Res<()> + 'a>;

/// A key pair that signs and verifies.
pub trait Signer {
    /// Signs a message. Hash-and-sign schemes hash with [`signature_digest`] first when the
    /// library's API signs messages; EdDSA signs the message itself.
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>>;
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool>;
    /// The timed signing: [`Signer::sign`], the signature thrown away, by default; a signer may
    /// write into a buffer it keeps instead.
    fn sign_timed(&mut self, msg: &[u8]) -> Res<()> {
        self.sign(msg).map(|s| drop(std::hint::black_box(s)))
    }
    /// The public key as other implementations read it: a SEC1 uncompressed point for ECDSA.
    fn public(&self) -> Vec<u8>;
}

/// A timed verification's outcome: a signature that no longer verifies is an error.
pub(crate) fn verified(outcome: Res<bool>) -> Res<()> {
    match outcome {
        Ok(true) => Ok(()),
        Ok(false) => Err("the signature no longer verifies".into()),
        Err(e) => Err(e),
    }
}

fn not_offered<T>(suite: &str, p: &Primitive) -> Res<T> {
    Err(format!("{suite} does not offer {}", p.id))
}

/// One library's calls, primitive by primitive. Every method has a default that says the
/// primitive is not offered, so a suite implements only what its library has.
pub trait Suite {
    fn name(&self) -> &'static str;
    fn describe(&self) -> Variant;
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        not_offered(self.name(), p)
    }
    /// `iv` is used by GMAC only.
    fn mac(&self, p: &Primitive, key: &[u8], iv: &[u8]) -> Res<HashFn> {
        let _ = (key, iv);
        not_offered(self.name(), p)
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let _ = (key, iv, encrypt);
        not_offered(self.name(), p)
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let _ = (key, encrypt);
        not_offered(self.name(), p)
    }
    /// `key`: PKCS#8 DER for RSA and DSA, the raw seed for EdDSA; `None` for ECDSA asks for a
    /// fresh key pair.
    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer + '_>> {
        let _ = key;
        not_offered(self.name(), p)
    }
    /// Verifies a signature made elsewhere. `public` is a SEC1 point (ECDSA) or a DER
    /// SubjectPublicKeyInfo (DSA); `digest` names the hash the signature is over.
    fn verify_foreign(
        &self,
        p: &Primitive,
        public: &[u8],
        digest: &str,
        msg: &[u8],
        sig: &[u8],
    ) -> Res<bool> {
        let _ = (public, digest, msg, sig);
        not_offered(self.name(), p)
    }
    /// Key agreement between a raw private key (scalar, X25519/X448 bytes or FFDH exponent) and
    /// a peer public key (SEC1 point, raw u-coordinate or FFDH public value).
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        let _ = (private, peer);
        not_offered(self.name(), p)
    }
    /// Finite-field Diffie-Hellman: a fresh key pair (private exponent, public value, both
    /// unsigned big-endian) in the primitive's RFC 7919 group. [`Suite::derive`] then takes
    /// the private exponent and the peer's public value.
    fn ffdh_keygen(&self, p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
        not_offered(self.name(), p)
    }
    /// KEM key generation: from `seed` (ML-KEM: d ‖ z, 64 bytes) when given, else from the
    /// library's random generator.
    fn kem_keygen(&self, p: &Primitive, seed: Option<&[u8]>) -> Res<KemKeygenFn<'_>> {
        let _ = seed;
        not_offered(self.name(), p)
    }
    /// Encapsulation to `ek` (parsed once); `m` derandomises it (the known-answer test).
    fn kem_encaps(&self, p: &Primitive, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'_>> {
        let _ = (ek, m);
        not_offered(self.name(), p)
    }
    /// Decapsulation with `dk` (parsed once).
    fn kem_decaps(&self, p: &Primitive, dk: &[u8]) -> Res<DecapsFn<'_>> {
        let _ = dk;
        not_offered(self.name(), p)
    }
    /// The timed key generation: [`Suite::kem_keygen`]'s from the generator, by default.
    fn kem_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        let mut f = self.kem_keygen(p, None)?;
        Ok(Box::new(move || f().map(|r| drop(std::hint::black_box(r)))))
    }
    /// The timed key generation with the encapsulation key written (X25519MLKEM768's share,
    /// crate::hybrid_kem): [`Suite::kem_keygen_timed`]'s by default, for a library whose key
    /// generation writes it anyway.
    fn kem_keygen_share_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        self.kem_keygen_timed(p)
    }
    /// The timed `keygen+encode`: a key pair from the generator and both keys encoded, in
    /// every call; by default [`Suite::kem_keygen`]'s (a suite whose keygen closure makes a
    /// context or fetches its algorithm by name per call makes them once here instead).
    fn kem_keygen_encode_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        let mut f = self.kem_keygen(p, None)?;
        Ok(Box::new(move || f().map(|r| drop(std::hint::black_box(r)))))
    }
    /// The timed encapsulation to `ek`: [`Suite::kem_encaps`]'s, by default.
    fn kem_encaps_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        let mut f = self.kem_encaps(p, ek, None)?;
        Ok(Box::new(move || f().map(|r| drop(std::hint::black_box(r)))))
    }
    /// The timed decapsulation of `c` with `dk`: [`Suite::kem_decaps`]'s, by default.
    fn kem_decaps_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        let (mut f, c) = (self.kem_decaps(p, dk)?, c.to_vec());
        Ok(Box::new(move || {
            f(&c).map(|k| drop(std::hint::black_box(k)))
        }))
    }
    /// The timed `encaps+parse` (catalog definitions.rs): `ek` parsed, then encapsulation, in
    /// every call. By default [`Suite::kem_encaps`] made and called in every call, for a suite
    /// whose `kem_encaps` does nothing but parse; a suite that looks its library's calls up
    /// there resolves them once here instead.
    fn kem_encaps_parse_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        let (p, ek) = (*p, ek.to_vec());
        Ok(Box::new(move || {
            self.kem_encaps(&p, &ek, None)?().map(|r| drop(std::hint::black_box(r)))
        }))
    }
    /// The timed `decaps+parse`: `dk` parsed, then decapsulation of `c`, in every call; by
    /// default as [`Suite::kem_encaps_parse_timed`]'s.
    fn kem_decaps_parse_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        let (p, dk, c) = (*p, dk.to_vec(), c.to_vec());
        Ok(Box::new(move || {
            self.kem_decaps(&p, &dk)?(&c).map(|k| drop(std::hint::black_box(k)))
        }))
    }
    /// The timed `verify+parse`: `public` parsed, then verification of `sig` over `msg`, in
    /// every call; by default [`Suite::verify_foreign`] in every call.
    fn verify_parse_timed(
        &self,
        p: &Primitive,
        public: &[u8],
        msg: &[u8],
        sig: &[u8],
    ) -> Res<OpFn<'_>> {
        let (p, public, msg, sig) = (*p, public.to_vec(), msg.to_vec(), sig.to_vec());
        Ok(Box::new(move || {
            verified(self.verify_foreign(&p, &public, "", &msg, &sig))
        }))
    }
    /// Post-quantum signature key pairs (public, private) from the library's generator. (The
    /// [`Signer`] of [`Suite::signer`] with `key` = the seed makes the deterministic one.)
    fn sig_keygen(&self, p: &Primitive) -> Res<KemKeygenFn<'_>> {
        not_offered(self.name(), p)
    }
    /// The timed signature key generation: [`Suite::sig_keygen`]'s, by default.
    fn sig_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        let mut f = self.sig_keygen(p)?;
        Ok(Box::new(move || f().map(|r| drop(std::hint::black_box(r)))))
    }
    /// Deterministic signing through the internal interface (ML-DSA: M' and rnd = 0).
    fn sign_internal(&self, p: &Primitive, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        let _ = (private, msg);
        not_offered(self.name(), p)
    }
    /// Verification through the internal interface.
    fn verify_internal(&self, p: &Primitive, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let _ = (public, msg, sig);
        not_offered(self.name(), p)
    }
    /// Notes about how this library's calls differ from `openssl speed`'s, for the variant's
    /// build information.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The SEC1 point inside an EC SubjectPublicKeyInfo: the BIT STRING's content, which is the
/// last `1 + 2 × field bytes` bytes.
pub fn spki_point(curve: Curve, spki: &[u8]) -> Res<&[u8]> {
    let len = 1 + 2 * field_bytes(curve);
    if spki.len() < len || spki[spki.len() - len] != 0x04 {
        return Err("not an uncompressed EC SubjectPublicKeyInfo".into());
    }
    Ok(&spki[spki.len() - len..])
}

pub fn field_bytes(curve: Curve) -> usize {
    match curve {
        Curve::P256 | Curve::X25519 | Curve::Ed25519 => 32,
        Curve::P384 => 48,
        Curve::P521 => 66,
        Curve::X448 => 56,
        Curve::Ed448 => 57,
    }
}

/// Output length of a hash primitive.
pub(super) fn digest_len(p: &Primitive) -> Res<usize> {
    p.kats
        .iter()
        .find_map(|k| match k {
            Kat::Digest { out, .. } => Some(unhex(out).len()),
            _ => None,
        })
        .ok_or_else(|| format!("{} has no digest vector to size its output", p.id))
}

pub(super) fn mac_len(p: &Primitive) -> Res<usize> {
    p.kats
        .iter()
        .find_map(|k| match k {
            Kat::Mac { out, .. } => Some(unhex(out).len()),
            _ => None,
        })
        .ok_or_else(|| format!("{} has no MAC vector to size its output", p.id))
}

pub(super) fn aead_tag_len(p: &Primitive) -> usize {
    match p.algorithm {
        Algorithm::Aead { tag_len, .. } => tag_len,
        _ => 16,
    }
}

/// Reads one DER TLV; returns (tag, content, rest). Enough DER to pull n and e out of a PKCS#8
/// RSA key for the independent signature check; hand-written because that is all it needs.
pub(crate) fn der_next(input: &[u8]) -> Res<(u8, &[u8], &[u8])> {
    let bad = || "malformed DER".to_string();
    let (&tag, rest) = input.split_first().ok_or_else(bad)?;
    let (&first, mut rest) = rest.split_first().ok_or_else(bad)?;
    let len = if first < 0x80 {
        first as usize
    } else {
        let n = (first & 0x7f) as usize;
        if n > 4 || rest.len() < n {
            return Err(bad());
        }
        let l = rest[..n].iter().fold(0usize, |a, &b| a << 8 | b as usize);
        rest = &rest[n..];
        l
    };
    if rest.len() < len {
        return Err(bad());
    }
    Ok((tag, &rest[..len], &rest[len..]))
}

/// Modulus and public exponent of a PKCS#8 RSA private key.
pub fn rsa_public_from_pkcs8(der: &[u8]) -> Res<(BigUint, BigUint)> {
    let (_, pkcs8, _) = der_next(der)?;
    let (_, _version, rest) = der_next(pkcs8)?;
    let (_, _alg, rest) = der_next(rest)?;
    let (_, octets, _) = der_next(rest)?;
    let (_, rsa, _) = der_next(octets)?;
    let (_, _v, rest) = der_next(rsa)?;
    let (_, n, rest) = der_next(rest)?;
    let (_, e, _) = der_next(rest)?;
    Ok((BigUint::from_bytes_be(n), BigUint::from_bytes_be(e)))
}

/// EMSA-PKCS1-v1_5 encoding of a SHA-256 digest (RFC 8017 section 9.2).
fn pkcs1_sha256(digest: &[u8], k: usize) -> Vec<u8> {
    let prefix = unhex("3031300d060960864801650304020105000420");
    let t: Vec<u8> = prefix.iter().chain(digest).copied().collect();
    let mut em = vec![0x00, 0x01];
    em.resize(k - t.len() - 1, 0xff);
    em.push(0x00);
    em.extend(t);
    em
}

/// SHA-256 from the RustCrypto crate, for encodings the suites are checked against.
pub fn sha256(msg: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(msg).to_vec()
}

/// The prime of an RFC 7919 group. ffdhe2048 is RFC 7919 appendix A.1's
/// p = 2^2048 - 2^1984 + (floor(2^1918 * e) + 560316) * 2^64 - 1, checked against that formula
/// (the unit test recomputes it)
/// and against OpenSSL's `group:ffdhe2048` parameters when it was written here.
pub(crate) fn ffdh_prime(group: &str) -> Res<BigUint> {
    let hex = match group {
        "ffdhe2048" => concat!(
            "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695A9E13641146433FBCC93",
            "9DCE249B3EF97D2FE363630C75D8F681B202AEC4617AD3DF1ED5D5FD65612433F51F5F066ED085636555",
            "3DED1AF3B557135E7F57C935984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A",
            "797ABC0AB182B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4AE56EDE76372BB19",
            "0B07A7C8EE0A6D709E02FCE1CDF7E2ECC03404CD28342F619172FE9CE98583FF8E4F1232EEF28183C3FE",
            "3B1B4C6FAD733BB5FCBC2EC22005C58EF1837D1683B2C6F34A26C1B2EFFA886B423861285C97FFFFFFFF",
            "FFFFFFFF"
        ),
        _ => return Err(format!("no prime for group {group}")),
    };
    Ok(BigUint::from_bytes_be(&unhex(hex)))
}

/// The FFDH timing setup, as `openssl speed` has it: two fresh key pairs, the first one's
/// private exponent and the second one's public value fixed in the derivation.
pub(super) fn ffdh_derive(s: &dyn Suite, p: &Primitive) -> Res<DeriveFn> {
    let (a, _) = s.ffdh_keygen(p)?;
    let (_, b) = s.ffdh_keygen(p)?;
    s.derive(p, &a, &b)
}

/// A signature for the agreement check: RSA and EdDSA are deterministic, compared as bytes;
/// ECDSA (any key) and the seeded schemes (the case's seed) report their public key for the
/// others to verify with.
fn signature_agreement(s: &dyn Suite, p: &Primitive, case: &AgreementCase) -> Res<AgreementOutput> {
    let key = match p.algorithm {
        Algorithm::Ecdsa { .. } => None,
        _ => Some(case.key.as_slice()),
    };
    let mut signer = s.signer(p, key)?;
    let output = signer.sign(&case.msg)?;
    let public = match p.agreement_kind() {
        Some(AgreementKind::CrossVerify) => signer.public(),
        _ => Vec::new(),
    };
    Ok(AgreementOutput { output, public })
}

/// Bytes of the message the seeded (post-quantum) signature schemes sign.
pub(super) const SEEDED_MSG_LEN: usize = 32;

/// The timing key pair: the shipped key for RSA/DSA, a fixed seed for EdDSA, a fresh pair
/// for ECDSA.
pub(super) fn timing_signer<'a>(suite: &'a dyn Suite, p: &Primitive) -> Res<Box<dyn Signer + 'a>> {
    match p.algorithm {
        Algorithm::Rsa { .. } | Algorithm::Dsa { .. } => {
            let pem = cryptospeed_catalog::agreement::private_key_pem(&p.algorithm)
                .ok_or("no shipped key of this size")?;
            suite.signer(p, Some(&cryptospeed_catalog::agreement::pem_to_der(pem)))
        }
        Algorithm::Eddsa { .. } => {
            let case = p.agreement_case().ok_or("no EdDSA seed")?;
            suite.signer(p, Some(&case.key))
        }
        _ => suite.signer(p, None),
    }
}

/// Whether the suite can set the primitive up: it is available exactly when its calls can be
/// constructed.
pub(crate) fn probe(s: &dyn Suite, p: &Primitive) -> Res<()> {
    let case = p.agreement_case().unwrap_or_default();
    match p.family() {
        Family::Digest => s.hash(p).map(drop),
        Family::Mac => s.mac(p, &case.key, &case.iv).map(drop),
        Family::Cipher => s.cipher(p, &case.key, &case.iv, true).map(drop),
        Family::Aead => s.aead(p, &case.key, true).map(drop),
        Family::Signature | Family::SeededSignature => timing_signer(s, p).map(drop),
        Family::KeyAgreement => match p.algorithm {
            Algorithm::Ffdh { .. } => ffdh_derive(s, p).map(drop),
            _ => s.derive(p, &case.key, &case.peer).map(drop),
        },
        Family::Kem => s.kem_keygen(p, None).map(drop),
        Family::Handshake => Err(format!("{} is a TLS handshake (the tls columns)", p.id)),
    }
}

/// Every known-answer vector of the primitive through the suite, the first failure with its
/// source.
pub(crate) fn known_answers(s: &dyn Suite, p: &Primitive) -> Res<()> {
    for kat in p.kats {
        known_answer(s, p, kat).map_err(|e| format!("{e} ({})", kat.source()))?;
    }
    Ok(())
}

/// The suite's output for the agreement check across implementations.
pub(crate) fn agree(s: &dyn Suite, p: &Primitive, case: &AgreementCase) -> Res<AgreementOutput> {
    let bytes = |output: Vec<u8>| AgreementOutput {
        output,
        public: Vec::new(),
    };
    Ok(match p.family() {
        Family::Digest => {
            let mut out = vec![0; timed::hash_len(p)?];
            s.hash(p)?(&case.msg, &mut out)?;
            bytes(out)
        }
        Family::Mac => {
            let mut out = vec![0; mac_len(p)?];
            s.mac(p, &case.key, &case.iv)?(&case.msg, &mut out)?;
            bytes(out)
        }
        Family::Cipher => {
            let mut buf = case.msg.clone();
            s.cipher(p, &case.key, &case.iv, true)?(&mut buf)?;
            bytes(buf)
        }
        Family::Aead => {
            let mut buf = case.msg.clone();
            let mut tag = vec![0; aead_tag_len(p)];
            s.aead(p, &case.key, true)?(&case.iv, &case.aad, &mut buf, &mut tag)?;
            buf.extend(tag);
            bytes(buf)
        }
        _ if p.agreement_kind().is_none() => {
            return Err(format!("{} has no agreement check", p.id))
        }
        Family::Signature | Family::SeededSignature => signature_agreement(s, p, case)?,
        Family::KeyAgreement => bytes(s.derive(p, &case.key, &case.peer)?()?),
        Family::Handshake => return Err(format!("{} has no agreement check", p.id)),
        Family::Kem => {
            let (ek, _) = s.kem_keygen(p, Some(&case.key))?()?;
            let (c, k) = s.kem_encaps(p, &ek, None)?()?;
            AgreementOutput {
                output: c,
                public: k,
            }
        }
    })
}

/// Whether another implementation's signature verifies here, or (a KEM) its ciphertext to the
/// agreement seed's key decapsulates here to its secret (`public`).
pub(crate) fn check_signature(
    s: &dyn Suite,
    p: &Primitive,
    public: &[u8],
    msg: &[u8],
    signature: &[u8],
) -> Res<bool> {
    if p.agreement_kind() != Some(AgreementKind::CrossVerify) {
        return Err(format!("{} signatures are compared as bytes", p.id));
    }
    if p.family() == Family::Kem {
        let case = p.agreement_case().ok_or("no agreement seed")?;
        let (_, dk) = s.kem_keygen(p, Some(&case.key))?()?;
        return Ok(s.kem_decaps(p, &dk)?(signature)? == public);
    }
    let digest = signature_digest(&p.algorithm).unwrap_or("");
    s.verify_foreign(p, public, digest, msg, signature)
}

/// The timed loop of a cell (suite/timed.rs).
pub(crate) fn prepare<'a>(
    s: &'a dyn Suite,
    p: &Primitive,
    cell: &CellSpec,
) -> Res<Box<dyn Timed + 'a>> {
    timed::prepare(s, p, cell)
}

/// Any [`Suite`] as an engine implementation.
pub struct SuiteImplementation<S: Suite> {
    suite: S,
    availability: HashMap<&'static str, Res<()>>,
}

impl<S: Suite> SuiteImplementation<S> {
    pub fn new(suite: S) -> Self {
        SuiteImplementation {
            suite,
            availability: HashMap::new(),
        }
    }
}

impl<S: Suite> Implementation for SuiteImplementation<S> {
    fn name(&self) -> &'static str {
        self.suite.name()
    }

    fn describe(&self) -> Variant {
        let mut v = self.suite.describe();
        v.build_info.extend(self.suite.notes());
        v
    }

    fn availability(&mut self, p: &Primitive) -> Res<()> {
        if let Some(r) = self.availability.get(p.id) {
            return r.clone();
        }
        let r = probe(&self.suite, p);
        self.availability.insert(p.id, r.clone());
        r
    }

    fn known_answer_test(&mut self, p: &Primitive) -> Res<()> {
        self.availability(p)?;
        known_answers(&self.suite, p)
    }

    fn prepare(&mut self, p: &Primitive, cell: &CellSpec) -> Res<Box<dyn Timed + '_>> {
        timed::prepare(&self.suite, p, cell)
    }

    fn agree(&mut self, p: &Primitive, case: &AgreementCase) -> Res<AgreementOutput> {
        agree(&self.suite, p, case)
    }

    fn check_signature(
        &mut self,
        p: &Primitive,
        public: &[u8],
        msg: &[u8],
        signature: &[u8],
    ) -> Res<bool> {
        check_signature(&self.suite, p, public, msg, signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkcs8_rsa_public_parts_are_found() {
        let pem = cryptospeed_catalog::agreement::private_key_pem(&Algorithm::Rsa { bits: 2048 })
            .unwrap();
        let (n, e) =
            rsa_public_from_pkcs8(&cryptospeed_catalog::agreement::pem_to_der(pem)).unwrap();
        assert_eq!(n.bits(), 2048);
        assert_eq!(e, BigUint::from(65537u32));
    }

    #[test]
    fn ffdhe2048_is_the_prime_rfc7919_defines() {
        // RFC 7919 A.1: p = 2^2048 - 2^1984 + (floor(2^1918 * e) + 560316) * 2^64 - 1, with e
        // summed as 1/k! in fixed point (64 guard bits; 400 terms put the error far below them).
        let guard = 64;
        let mut term = BigUint::from(1u8) << (1918 + guard);
        let mut e = BigUint::default();
        for k in 1u32..400 {
            e += &term;
            term /= k;
        }
        let one = BigUint::from(1u8);
        let p = (&one << 2048) - (&one << 1984) + (((e >> guard) + 560316u32) << 64) - &one;
        assert_eq!(ffdh_prime("ffdhe2048").unwrap(), p);
    }

    #[test]
    fn pkcs1_encoding_has_rfc8017_shape() {
        let em = pkcs1_sha256(&[0xab; 32], 256);
        assert_eq!(em.len(), 256);
        assert_eq!(&em[..2], &[0, 1]);
        assert_eq!(em[256 - 52], 0);
        assert_eq!(&em[256 - 32..], &[0xab; 32]);
    }
}
