//! ML-KEM and ML-DSA through AWS-LC's own EVP API, for a libcrypto (AWS-LC) that lacks OpenSSL
//! 3.5's calls crate::evp's kem.rs and dsa.rs use. The suite (crate::evp::pq_suite) falls back to
//! it when those are not there.
//!
//! ML-KEM: keys of type `EVP_PKEY_KEM` made with `EVP_PKEY_CTX_kem_set_params(ctx, NID_MLKEM*)`
//! and `EVP_PKEY_keygen`; `EVP_PKEY_encapsulate` / `EVP_PKEY_decapsulate` on contexts made once
//! per key. Known answers: `EVP_PKEY_keygen_deterministic` with the seed d ‖ z,
//! `EVP_PKEY_encapsulate_deterministic` with m, and decapsulation with the expanded key imported
//! by `EVP_PKEY_kem_new_raw_secret_key` (include/openssl/experimental/kem_deterministic_api.h).
//!
//! ML-DSA: keys of type `EVP_PKEY_PQDSA` made with `EVP_PKEY_CTX_pqdsa_set_params`; pure ML-DSA
//! with an empty context through `EVP_DigestSign` / `EVP_DigestVerify` with no digest (AWS-LC's
//! `EVP_PKEY_sign` on such a key signs an external µ, not a message). Key-generation vectors go
//! through `EVP_PKEY_pqdsa_new_raw_private_key` with the 32-byte seed ξ (it expands the seed
//! into the key pair). AWS-LC's public headers have no internal-interface (M') or deterministic
//! signing, so the sigGen/sigVer vectors (internal interface, rnd = 0) go through
//! `ml_dsa_{44,65,87}_sign_internal` / `_verify_internal`: libcrypto exports them
//! (OPENSSL_EXPORT in the internal header crypto/fipsmodule/ml_dsa/ml_dsa.h, the entry points
//! AWS-LC's own ACVP tests use) and EVP_DigestSign reaches the same core; a build without them
//! fails those vectors with that reason rather than skipping them.
#![allow(non_snake_case)]

use crate::evp::ffi::{Api, Ptr};
use crate::evp::pq::Owned;
use crate::evp::pq_calls::{KemCalls, KeySigner, SigCalls, SignWith};
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res, Signer};
use cryptospeed_catalog::{Algorithm, Primitive};
use std::os::raw::c_int;

type SignInternal = unsafe extern "C" fn(
    *const u8,
    *mut u8,
    *mut usize,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
) -> c_int;
type VerifyInternal =
    unsafe extern "C" fn(*const u8, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;

crate::dynamic_api! {
    AwsPqApi, "libcrypto with AWS-LC's EVP_PKEY_KEM and EVP_PKEY_PQDSA calls";
    required {
        EVP_PKEY_CTX_new_id: fn(c_int, Ptr) -> Ptr;
        EVP_PKEY_CTX_new: fn(Ptr, Ptr) -> Ptr;
        EVP_PKEY_CTX_free: fn(Ptr);
        EVP_PKEY_free: fn(Ptr);
        EVP_PKEY_keygen_init: fn(Ptr) -> c_int;
        EVP_PKEY_keygen: fn(Ptr, *mut Ptr) -> c_int;
        EVP_PKEY_get_raw_public_key: fn(Ptr, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_get_raw_private_key: fn(Ptr, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_CTX_kem_set_params: fn(Ptr, c_int) -> c_int;
        EVP_PKEY_keygen_deterministic: fn(Ptr, *mut Ptr, *const u8, *mut usize) -> c_int;
        EVP_PKEY_encapsulate: fn(Ptr, *mut u8, *mut usize, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_encapsulate_deterministic: fn(Ptr, *mut u8, *mut usize, *mut u8, *mut usize, *const u8, *mut usize) -> c_int;
        EVP_PKEY_decapsulate: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_kem_new_raw_public_key: fn(c_int, *const u8, usize) -> Ptr;
        EVP_PKEY_kem_new_raw_secret_key: fn(c_int, *const u8, usize) -> Ptr;
        EVP_PKEY_CTX_pqdsa_set_params: fn(Ptr, c_int) -> c_int;
        EVP_PKEY_pqdsa_new_raw_public_key: fn(c_int, *const u8, usize) -> Ptr;
        EVP_PKEY_pqdsa_new_raw_private_key: fn(c_int, *const u8, usize) -> Ptr;
        EVP_MD_CTX_new: fn() -> Ptr;
        EVP_MD_CTX_free: fn(Ptr);
        EVP_DigestSignInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
        EVP_DigestSign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_DigestVerifyInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
        EVP_DigestVerify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
    }
    optional {
        ml_dsa_44_sign_internal: fn(*const u8, *mut u8, *mut usize, *const u8, usize, *const u8, usize, *const u8) -> c_int;
        ml_dsa_65_sign_internal: fn(*const u8, *mut u8, *mut usize, *const u8, usize, *const u8, usize, *const u8) -> c_int;
        ml_dsa_87_sign_internal: fn(*const u8, *mut u8, *mut usize, *const u8, usize, *const u8, usize, *const u8) -> c_int;
        ml_dsa_44_verify_internal: fn(*const u8, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;
        ml_dsa_65_verify_internal: fn(*const u8, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;
        ml_dsa_87_verify_internal: fn(*const u8, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;
    }
}

// include/openssl/nid.h and evp.h of AWS-LC.
const EVP_PKEY_KEM: c_int = 970;
const EVP_PKEY_PQDSA: c_int = 993;
const NID_MLKEM512: c_int = 988;
const NID_MLKEM768: c_int = 989;
const NID_MLKEM1024: c_int = 990;
const NID_MLDSA44: c_int = 994;
const NID_MLDSA65: c_int = 995;
const NID_MLDSA87: c_int = 996;

/// Calls shared by both primitives: the tables, owned handles and error checks.
struct Lib<'a> {
    api: &'a Api,
    k: AwsPqApi,
}

impl<'a> Lib<'a> {
    /// AWS-LC's calls in the library behind `api`; `None` for a library without them (OpenSSL).
    fn load(api: &'a Api) -> Option<Lib<'a>> {
        Some(Lib {
            api,
            k: AwsPqApi::load(&api.path).ok()?,
        })
    }

    fn own(&self, ptr: Ptr, free: unsafe extern "C" fn(Ptr), what: &str) -> Res<Owned<'a>> {
        if ptr.is_null() {
            return Err(format!("{what} failed: {}", self.api.errors()));
        }
        Ok(Owned {
            ptr,
            free,
            _kem: std::marker::PhantomData,
        })
    }

    fn key(&self, ptr: Ptr, what: &str) -> Res<Owned<'a>> {
        self.own(ptr, self.k.EVP_PKEY_free, what)
    }

    fn check(&self, rc: c_int, what: &str) -> Res<()> {
        if rc == 1 {
            Ok(())
        } else {
            Err(format!("{what} failed: {}", self.api.errors()))
        }
    }

    /// A key-generation context for key type `kind` with parameter set `nid`.
    fn keygen_ctx(&self, kind: c_int, nid: c_int) -> Res<Owned<'a>> {
        // SAFETY: plain constructor; the context is owned below.
        let ctx = unsafe { (self.k.EVP_PKEY_CTX_new_id)(kind, std::ptr::null_mut()) };
        let ctx = self.own(ctx, self.k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new_id")?;
        let set = if kind == EVP_PKEY_KEM {
            self.k.EVP_PKEY_CTX_kem_set_params
        } else {
            self.k.EVP_PKEY_CTX_pqdsa_set_params
        };
        // SAFETY: a fresh context of the matching key type.
        self.check(unsafe { set(ctx.ptr, nid) }, "setting the parameter set")?;
        // SAFETY: as above.
        self.check(
            unsafe { (self.k.EVP_PKEY_keygen_init)(ctx.ptr) },
            "EVP_PKEY_keygen_init",
        )?;
        Ok(ctx)
    }

    fn generate(&self, ctx: &Owned) -> Res<Owned<'a>> {
        let mut pkey = std::ptr::null_mut();
        // SAFETY: an initialised key-generation context; the key is owned below.
        self.check(
            unsafe { (self.k.EVP_PKEY_keygen)(ctx.ptr, &mut pkey) },
            "EVP_PKEY_keygen",
        )?;
        self.key(pkey, "EVP_PKEY_keygen")
    }

    fn raw(&self, pkey: &Owned, private: bool) -> Res<Vec<u8>> {
        // Holds every ML-KEM and ML-DSA key encoding.
        let mut out = vec![0u8; 8192];
        let len = self.raw_into(pkey, private, &mut out)?;
        out.truncate(len);
        Ok(out)
    }

    /// A key's encoding written into `out` (a buffer the caller keeps); its length.
    fn raw_into(&self, pkey: &Owned, private: bool, out: &mut [u8]) -> Res<usize> {
        let f = if private {
            self.k.EVP_PKEY_get_raw_private_key
        } else {
            self.k.EVP_PKEY_get_raw_public_key
        };
        let mut len = out.len();
        // SAFETY: libcrypto writes at most `len` bytes, the buffer's size.
        self.check(
            unsafe { f(pkey.ptr, out.as_mut_ptr(), &mut len) },
            "EVP_PKEY_get_raw_*_key",
        )?;
        Ok(len)
    }

    fn pkey_ctx(&self, pkey: &Owned) -> Res<Owned<'a>> {
        // SAFETY: a valid key; the context is owned below.
        let ctx = unsafe { (self.k.EVP_PKEY_CTX_new)(pkey.ptr, std::ptr::null_mut()) };
        self.own(ctx, self.k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new")
    }
}

/// One ML-KEM parameter set in AWS-LC.
pub struct Kem<'a> {
    lib: Lib<'a>,
    nid: c_int,
}

impl<'a> Kem<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or why it is not there; `None`
    /// when the library has no AWS-LC KEM API at all.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Kem<'a>>> {
        let nid = match p.algorithm {
            Algorithm::MlKem { level: 512 } => NID_MLKEM512,
            Algorithm::MlKem { level: 768 } => NID_MLKEM768,
            Algorithm::MlKem { level: 1024 } => NID_MLKEM1024,
            _ => return Err(format!("{} is not an ML-KEM parameter set", p.id)),
        };
        let Some(lib) = Lib::load(api) else {
            return Ok(None);
        };
        let kem = Kem { lib, nid };
        kem.lib
            .keygen_ctx(EVP_PKEY_KEM, nid)
            .map_err(|e| format!("no ML-KEM in AWS-LC's EVP_PKEY_KEM: {e}"))?;
        Ok(Some(kem))
    }

    pub(super) fn keygen_ctx(&self) -> Res<Owned<'a>> {
        self.lib.keygen_ctx(EVP_PKEY_KEM, self.nid)
    }

    /// A key pair from the seed d ‖ z, or from the library's generator.
    fn key_pair(&self, seed: Option<&[u8]>) -> Res<Owned<'a>> {
        let ctx = self.keygen_ctx()?;
        let Some(seed) = seed else {
            return self.lib.generate(&ctx);
        };
        let mut pkey = std::ptr::null_mut();
        let mut len = seed.len();
        // SAFETY: the seed is borrowed for the call; the key is owned below.
        self.lib.check(
            unsafe {
                (self.lib.k.EVP_PKEY_keygen_deterministic)(
                    ctx.ptr,
                    &mut pkey,
                    seed.as_ptr(),
                    &mut len,
                )
            },
            "EVP_PKEY_keygen_deterministic",
        )?;
        self.lib.key(pkey, "EVP_PKEY_keygen_deterministic")
    }

    /// An encapsulation context for the public key `ek`, and the key it holds.
    pub(super) fn encaps_ctx(&self, ek: &[u8]) -> Res<(Owned<'a>, Owned<'a>)> {
        // SAFETY: borrowed bytes copied by libcrypto; the key is owned below.
        let pkey = unsafe {
            (self.lib.k.EVP_PKEY_kem_new_raw_public_key)(self.nid, ek.as_ptr(), ek.len())
        };
        let pkey = self.lib.key(pkey, "EVP_PKEY_kem_new_raw_public_key")?;
        Ok((self.lib.pkey_ctx(&pkey)?, pkey))
    }

    /// Encapsulates; `m` derandomises it (`EVP_PKEY_encapsulate_deterministic`).
    pub(super) fn encapsulate(&self, ctx: &Owned, m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (mut c, mut k) = (vec![0u8; 1568], vec![0u8; 32]);
        let (clen, klen) = self.encapsulate_into(ctx, m, &mut c, &mut k)?;
        c.truncate(clen);
        k.truncate(klen);
        Ok((c, k))
    }

    /// Encapsulation into buffers the caller keeps (the timed loop allocates nothing).
    pub(super) fn encapsulate_into(
        &self,
        ctx: &Owned,
        m: Option<&[u8]>,
        c: &mut [u8],
        k: &mut [u8],
    ) -> Res<(usize, usize)> {
        let (mut clen, mut klen) = (c.len(), k.len());
        // SAFETY: output buffers sized for the largest parameter set; `m` borrowed for the call.
        let rc = unsafe {
            match m {
                None => (self.lib.k.EVP_PKEY_encapsulate)(
                    ctx.ptr,
                    c.as_mut_ptr(),
                    &mut clen,
                    k.as_mut_ptr(),
                    &mut klen,
                ),
                Some(m) => {
                    let mut mlen = m.len();
                    (self.lib.k.EVP_PKEY_encapsulate_deterministic)(
                        ctx.ptr,
                        c.as_mut_ptr(),
                        &mut clen,
                        k.as_mut_ptr(),
                        &mut klen,
                        m.as_ptr(),
                        &mut mlen,
                    )
                }
            }
        };
        self.lib.check(rc, "EVP_PKEY_encapsulate")?;
        Ok((clen, klen))
    }

    pub(super) fn decaps_ctx(&self, dk: &[u8]) -> Res<(Owned<'a>, Owned<'a>)> {
        // SAFETY: borrowed bytes copied by libcrypto; the key is owned below.
        let pkey = unsafe {
            (self.lib.k.EVP_PKEY_kem_new_raw_secret_key)(self.nid, dk.as_ptr(), dk.len())
        };
        let pkey = self.lib.key(pkey, "EVP_PKEY_kem_new_raw_secret_key")?;
        Ok((self.lib.pkey_ctx(&pkey)?, pkey))
    }

    pub(super) fn decapsulate(&self, ctx: &Owned, c: &[u8]) -> Res<Vec<u8>> {
        let mut k = vec![0u8; 32];
        let klen = self.decapsulate_into(ctx, c, &mut k)?;
        k.truncate(klen);
        Ok(k)
    }

    /// Decapsulation into a buffer the caller keeps.
    pub(super) fn decapsulate_into(&self, ctx: &Owned, c: &[u8], k: &mut [u8]) -> Res<usize> {
        let mut klen = k.len();
        // SAFETY: a 32-byte output buffer, the ciphertext borrowed for the call.
        let rc = unsafe {
            (self.lib.k.EVP_PKEY_decapsulate)(
                ctx.ptr,
                k.as_mut_ptr(),
                &mut klen,
                c.as_ptr(),
                c.len(),
            )
        };
        self.lib.check(rc, "EVP_PKEY_decapsulate")?;
        Ok(klen)
    }

    /// (encapsulation key, decapsulation key) of the seed's key pair, or of a fresh one.
    pub(super) fn encodings(&self, seed: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let pair = self.key_pair(seed)?;
        Ok((self.lib.raw(&pair, false)?, self.lib.raw(&pair, true)?))
    }

    /// A key pair from a key-generation context, both FIPS 203 encodings written into buffers
    /// the caller keeps (room for 8192 bytes each); their lengths.
    pub(super) fn generate_encoded_into(
        &self,
        ctx: &Owned,
        ek: &mut [u8],
        dk: &mut [u8],
    ) -> Res<(usize, usize)> {
        let pair = self.lib.generate(ctx)?;
        Ok((
            self.lib.raw_into(&pair, false, ek)?,
            self.lib.raw_into(&pair, true, dk)?,
        ))
    }
}

impl<'a> KemCalls<'a> for Kem<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        let seed = seed.map(<[u8]>::to_vec);
        Ok(Box::new(move || self.encodings(seed.as_deref())))
    }

    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        let (keep, m) = (self.encaps_ctx(ek)?, m.map(<[u8]>::to_vec));
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            self.encapsulate(ctx, m.as_deref())
        }))
    }

    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        let keep = self.decaps_ctx(dk)?;
        Ok(Box::new(move |c| {
            let (ctx, _key) = &keep;
            self.decapsulate(ctx, c)
        }))
    }

    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        Ok(Box::new(move || self.lib.generate(&ctx).map(drop)))
    }

    /// `EVP_PKEY_keygen` on one context made here (as `keygen`), then both FIPS 203 encodings
    /// (`EVP_PKEY_get_raw_public_key`, `…_private_key`) written into buffers kept here: no
    /// context made nor buffer allocated by the harness per call.
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        let (mut ek, mut dk) = (vec![0u8; 8192], vec![0u8; 8192]);
        Ok(Box::new(move || {
            std::hint::black_box(self.generate_encoded_into(&ctx, &mut ek, &mut dk)?);
            Ok(())
        }))
    }

    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let keep = self.encaps_ctx(ek)?;
        let (mut c, mut k) = (vec![0u8; 1568], vec![0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            std::hint::black_box(self.encapsulate_into(ctx, None, &mut c, &mut k)?);
            Ok(())
        }))
    }

    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let keep = self.decaps_ctx(dk)?;
        let (c, mut k) = (c.to_vec(), vec![0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            std::hint::black_box(self.decapsulate_into(ctx, &c, &mut k)?);
            Ok(())
        }))
    }

    /// `EVP_PKEY_kem_new_raw_public_key`, a context for the key and `EVP_PKEY_encapsulate`.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let (ek, mut c, mut k) = (ek.to_vec(), vec![0u8; 1568], vec![0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.encaps_ctx(&ek)?;
            std::hint::black_box(self.encapsulate_into(&ctx, None, &mut c, &mut k)?);
            Ok(())
        }))
    }

    /// `EVP_PKEY_kem_new_raw_secret_key`, a context for the key and `EVP_PKEY_decapsulate`.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (dk, c, mut k) = (dk.to_vec(), c.to_vec(), vec![0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.decaps_ctx(&dk)?;
            std::hint::black_box(self.decapsulate_into(&ctx, &c, &mut k)?);
            Ok(())
        }))
    }
}

/// One ML-DSA parameter set in AWS-LC.
pub struct Dsa<'a> {
    lib: Lib<'a>,
    nid: c_int,
    level: u32,
    internal: Option<(SignInternal, VerifyInternal)>,
}

impl<'a> Dsa<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or why it is not there; `None`
    /// when the library has no AWS-LC signature API at all.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Dsa<'a>>> {
        let Some(lib) = Lib::load(api) else {
            return Ok(None);
        };
        let (nid, level, internal) = match p.algorithm {
            Algorithm::MlDsa { level: 44 } => (
                NID_MLDSA44,
                44,
                lib.k
                    .ml_dsa_44_sign_internal
                    .zip(lib.k.ml_dsa_44_verify_internal),
            ),
            Algorithm::MlDsa { level: 65 } => (
                NID_MLDSA65,
                65,
                lib.k
                    .ml_dsa_65_sign_internal
                    .zip(lib.k.ml_dsa_65_verify_internal),
            ),
            Algorithm::MlDsa { level: 87 } => (
                NID_MLDSA87,
                87,
                lib.k
                    .ml_dsa_87_sign_internal
                    .zip(lib.k.ml_dsa_87_verify_internal),
            ),
            Algorithm::SlhDsa { .. } => {
                return Err("this AWS-LC (aws-lc-sys 0.47's tree) has no SLH-DSA".into())
            }
            _ => return Err(format!("{} is not an ML-DSA parameter set", p.id)),
        };
        let dsa = Dsa {
            lib,
            nid,
            level,
            internal,
        };
        dsa.keygen_ctx()
            .map_err(|e| format!("no ML-DSA in AWS-LC's EVP_PKEY_PQDSA: {e}"))?;
        Ok(Some(dsa))
    }

    fn keygen_ctx(&self) -> Res<Owned<'a>> {
        self.lib.keygen_ctx(EVP_PKEY_PQDSA, self.nid)
    }

    /// A key from raw bytes: a public key, or a private key (the 32-byte seed ξ, which AWS-LC
    /// expands into the key pair, or the expanded private key).
    fn raw_key(&self, bytes: &[u8], private: bool) -> Res<Owned<'a>> {
        let f = if private {
            self.lib.k.EVP_PKEY_pqdsa_new_raw_private_key
        } else {
            self.lib.k.EVP_PKEY_pqdsa_new_raw_public_key
        };
        // SAFETY: borrowed bytes copied by libcrypto; the key is owned below.
        let pkey = unsafe { f(self.nid, bytes.as_ptr(), bytes.len()) };
        self.lib.key(pkey, "EVP_PKEY_pqdsa_new_raw_*_key")
    }

    /// A digest context set up for pure ML-DSA (no digest, empty context) with `pkey`.
    fn md_ctx(&self, pkey: &Owned, sign: bool) -> Res<Owned<'a>> {
        let k = &self.lib.k;
        // SAFETY: plain constructor; the context is owned below.
        let ctx = self.lib.own(
            unsafe { (k.EVP_MD_CTX_new)() },
            k.EVP_MD_CTX_free,
            "EVP_MD_CTX_new",
        )?;
        let init = if sign {
            k.EVP_DigestSignInit
        } else {
            k.EVP_DigestVerifyInit
        };
        let null = std::ptr::null_mut();
        // SAFETY: a fresh context and a valid key; no digest selects the message interface.
        self.lib.check(
            unsafe { init(ctx.ptr, std::ptr::null_mut(), null, null, pkey.ptr) },
            "EVP_DigestSign/VerifyInit",
        )?;
        Ok(ctx)
    }

    fn internal(&self) -> Res<(SignInternal, VerifyInternal)> {
        self.internal.ok_or_else(|| {
            format!(
                "AWS-LC's EVP API has no internal-interface (M') or deterministic ML-DSA signing, \
                 and {} does not export ml_dsa_{}_sign_internal/_verify_internal, so the \
                 internal-interface vectors cannot run here",
                self.lib.k.path, self.level
            )
        })
    }
}

impl<'a> SigCalls<'a> for Dsa<'a> {
    /// The seed's key through EVP_PKEY_pqdsa_new_raw_private_key (the 32-byte ξ, which AWS-LC
    /// expands), a fresh one through EVP_PKEY_keygen.
    fn signer(self: Box<Self>, seed: Option<&[u8]>) -> Res<Box<dyn Signer + 'a>> {
        let key = match seed {
            Some(seed) => self.raw_key(seed, true)?,
            None => self.lib.generate(&self.keygen_ctx()?)?,
        };
        let public = self.lib.raw(&key, false)?;
        let (sign, verify) = (self.md_ctx(&key, true)?, self.md_ctx(&key, false)?);
        Ok(Box::new(KeySigner {
            signing: (sign, key),
            verifying: verify,
            public,
            out: vec![0; 4627],
            dsa: *self,
        }))
    }

    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        Ok(Box::new(move || self.lib.generate(&ctx).map(drop)))
    }

    /// Through ml_dsa_*_sign_internal (M' as given, rnd = 0), as the module comment explains.
    fn sign_internal(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        let (sign, _) = self.internal()?;
        let (mut out, rnd) = (vec![0u8; 4627], [0u8; 32]);
        let mut len = out.len();
        // SAFETY: the expanded private key of this parameter set, a buffer that holds the
        // largest signature, no prefix (M' is the message), a 32-byte rnd.
        let rc = unsafe {
            sign(
                private.as_ptr(),
                out.as_mut_ptr(),
                &mut len,
                msg.as_ptr(),
                msg.len(),
                std::ptr::null(),
                0,
                rnd.as_ptr(),
            )
        };
        self.lib
            .check(rc, &format!("ml_dsa_{}_sign_internal", self.level))?;
        out.truncate(len);
        Ok(out)
    }

    fn verify_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let (_, verify) = self.internal()?;
        // SAFETY: the public key of this parameter set, borrowed buffers.
        let rc = unsafe {
            verify(
                public.as_ptr(),
                sig.as_ptr(),
                sig.len(),
                msg.as_ptr(),
                msg.len(),
                std::ptr::null(),
                0,
            )
        };
        // SAFETY: a rejected signature leaves errors behind.
        unsafe { (self.lib.api.ERR_clear_error)() };
        Ok(rc == 1)
    }

    fn verify(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let key = self.raw_key(public, false)?;
        self.verify_with(&self.md_ctx(&key, false)?, msg, sig)
    }
}

impl<'a> SignWith for Dsa<'a> {
    /// The signing context, and the key it was made for (kept as long).
    type Signing = (Owned<'a>, Owned<'a>);
    type Verifying = Owned<'a>;

    fn sign_into(&self, (ctx, _key): &Self::Signing, msg: &[u8], sig: &mut [u8]) -> Res<usize> {
        let mut len = sig.len();
        // SAFETY: the buffer holds the largest ML-DSA signature.
        let rc = unsafe {
            (self.lib.k.EVP_DigestSign)(
                ctx.ptr,
                sig.as_mut_ptr(),
                &mut len,
                msg.as_ptr(),
                msg.len(),
            )
        };
        self.lib.check(rc, "EVP_DigestSign")?;
        Ok(len)
    }

    fn verify_with(&self, ctx: &Owned<'a>, msg: &[u8], sig: &[u8]) -> Res<bool> {
        // SAFETY: borrowed buffers for the call.
        let rc = unsafe {
            (self.lib.k.EVP_DigestVerify)(ctx.ptr, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len())
        };
        if rc != 1 {
            // SAFETY: a rejected signature leaves errors behind.
            unsafe { (self.lib.api.ERR_clear_error)() };
        }
        Ok(rc == 1)
    }
}
