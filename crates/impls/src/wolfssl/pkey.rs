//! wolfCrypt's public key, kept apart from its hashes and AEADs: RSA (PKCS#1 v1.5 through
//! `wc_SignatureGenerate_ex`), ECDSA and ECDH on the NIST curves (`wc_ecc_*`), Ed25519/Ed448,
//! X25519/X448 and FFDH in RFC 7919's ffdhe2048 (`wc_DhAgree`). The symbols are looked up in a table of their own, so a wolfSSL built without
//! public key still offers its symmetric primitives.
//!
//! wolfCrypt's key structs are opaque here; each lives in a zeroed buffer larger than the Debian
//! build's struct (sizes from `sizeof` against its headers: RsaKey 8696, ecc_key 4432,
//! ed448_key 616 bytes), initialised and freed by the library's own calls.

use crate::pkey_der::{pad_to, rsa_pkcs8};
use crate::suite::{field_bytes, DeriveFn, Res, Signer};
use cryptospeed_catalog::agreement::signature_digest;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use std::os::raw::{c_int, c_void};
use std::ptr::{null, null_mut};
use std::sync::Arc;

type Obj = *mut c_void;
type Rng = *mut c_void;

crate::dynamic_api! {
    PkApi, "libwolfssl with public key";
    required {
        wc_rng_new: fn(*mut u8, u32, *mut c_void) -> Rng;
        wc_rng_free: fn(Rng);
        wc_Hash: fn(c_int, *const u8, u32, *mut u8, u32) -> c_int;
        wc_InitRsaKey: fn(Obj, *mut c_void) -> c_int;
        wc_FreeRsaKey: fn(Obj) -> c_int;
        wc_RsaPrivateKeyDecode: fn(*const u8, *mut u32, Obj, u32) -> c_int;
        wc_RsaSetRNG: fn(Obj, Rng) -> c_int;
        wc_SignatureGenerate_ex: fn(c_int, c_int, *const u8, u32, *mut u8, *mut u32, Obj, u32, Rng, c_int) -> c_int;
        wc_SignatureVerify: fn(c_int, c_int, *const u8, u32, *const u8, u32, Obj, u32) -> c_int;
        wc_ecc_init: fn(Obj) -> c_int;
        wc_ecc_free: fn(Obj) -> c_int;
        wc_ecc_make_key_ex: fn(Rng, c_int, Obj, c_int) -> c_int;
        wc_ecc_export_x963: fn(Obj, *mut u8, *mut u32) -> c_int;
        wc_ecc_import_x963_ex: fn(*const u8, u32, Obj, c_int) -> c_int;
        wc_ecc_import_private_key_ex: fn(*const u8, u32, *const u8, u32, Obj, c_int) -> c_int;
        wc_ecc_set_rng: fn(Obj, Rng) -> c_int;
        wc_ecc_shared_secret: fn(Obj, Obj, *mut u8, *mut u32) -> c_int;
        wc_ecc_sign_hash: fn(*const u8, u32, *mut u8, *mut u32, Rng, Obj) -> c_int;
        wc_ecc_verify_hash: fn(*const u8, u32, *const u8, u32, *mut c_int, Obj) -> c_int;
        wc_ed25519_init: fn(Obj) -> c_int;
        wc_ed25519_free: fn(Obj);
        wc_ed25519_import_private_only: fn(*const u8, u32, Obj) -> c_int;
        wc_ed25519_make_public: fn(Obj, *mut u8, u32) -> c_int;
        wc_ed25519_import_private_key: fn(*const u8, u32, *const u8, u32, Obj) -> c_int;
        wc_ed25519_import_public: fn(*const u8, u32, Obj) -> c_int;
        wc_ed25519_sign_msg: fn(*const u8, u32, *mut u8, *mut u32, Obj) -> c_int;
        wc_ed25519_verify_msg: fn(*const u8, u32, *const u8, u32, *mut c_int, Obj) -> c_int;
        wc_ed448_init: fn(Obj) -> c_int;
        wc_ed448_free: fn(Obj);
        wc_ed448_import_private_only: fn(*const u8, u32, Obj) -> c_int;
        wc_ed448_make_public: fn(Obj, *mut u8, u32) -> c_int;
        wc_ed448_import_private_key: fn(*const u8, u32, *const u8, u32, Obj) -> c_int;
        wc_ed448_import_public: fn(*const u8, u32, Obj) -> c_int;
        wc_ed448_sign_msg: fn(*const u8, u32, *mut u8, *mut u32, Obj, *const u8, u8) -> c_int;
        wc_ed448_verify_msg: fn(*const u8, u32, *const u8, u32, *mut c_int, Obj, *const u8, u8) -> c_int;
        wc_curve25519_init: fn(Obj) -> c_int;
        wc_curve25519_free: fn(Obj);
        wc_curve25519_import_private_ex: fn(*const u8, u32, Obj, c_int) -> c_int;
        wc_curve25519_import_public_ex: fn(*const u8, u32, Obj, c_int) -> c_int;
        wc_curve25519_shared_secret_ex: fn(Obj, Obj, *mut u8, *mut u32, c_int) -> c_int;
        wc_curve448_init: fn(Obj) -> c_int;
        wc_curve448_free: fn(Obj);
        wc_curve448_import_private_ex: fn(*const u8, u32, Obj, c_int) -> c_int;
        wc_curve448_import_public_ex: fn(*const u8, u32, Obj, c_int) -> c_int;
        wc_curve448_shared_secret_ex: fn(Obj, Obj, *mut u8, *mut u32, c_int) -> c_int;
        wc_InitDhKey: fn(Obj) -> c_int;
        wc_FreeDhKey: fn(Obj) -> c_int;
        wc_DhSetNamedKey: fn(Obj, c_int) -> c_int;
        wc_DhGenerateKeyPair: fn(Obj, Rng, *mut u8, *mut u32, *mut u8, *mut u32) -> c_int;
        wc_DhAgree: fn(Obj, *mut u8, *mut u32, *const u8, u32, *const u8, u32) -> c_int;
    }
    optional {}
}

// Constants from wolfssl/wolfcrypt/{hash,signature,ecc,curve25519}.h (5.5).
const HASH_SHA256: c_int = 6;
const HASH_SHA384: c_int = 7;
const HASH_SHA512: c_int = 8;
const SIG_RSA_W_ENC: c_int = 3;
const LITTLE_ENDIAN: c_int = 0;
/// `WC_FFDHE_2048` from dh.h.
const FFDHE_2048: c_int = 256;
/// Bytes given to each key struct: at least twice the largest (RsaKey, 8696 bytes).
const OBJ_BYTES: usize = 16384;
/// The Debian build's `RSA_MAX_SIZE`.
const RSA_MAX_BITS: u32 = 4096;

fn check(rc: c_int, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned {rc}"))
    }
}

/// One key struct in a buffer of its own, freed with the library's call for its kind.
struct Key {
    api: Arc<PkApi>,
    buf: Box<[u128]>,
    free: fn(&PkApi, Obj),
}
impl Key {
    fn new(api: &Arc<PkApi>, free: fn(&PkApi, Obj)) -> Key {
        Key {
            api: api.clone(),
            buf: vec![0u128; OBJ_BYTES / 16].into_boxed_slice(),
            free,
        }
    }
    fn ptr(&self) -> Obj {
        self.buf.as_ptr() as Obj
    }
}
impl Drop for Key {
    fn drop(&mut self) {
        (self.free)(&self.api, self.ptr());
    }
}

/// A wolfCrypt DRBG from `wc_rng_new`, freed on drop.
struct WcRng {
    api: Arc<PkApi>,
    ptr: Rng,
}
impl WcRng {
    fn new(api: &Arc<PkApi>) -> Res<WcRng> {
        // SAFETY: no nonce, default heap.
        let ptr = unsafe { (api.wc_rng_new)(null_mut(), 0, null_mut()) };
        if ptr.is_null() {
            return Err("wc_rng_new failed".into());
        }
        Ok(WcRng {
            api: api.clone(),
            ptr,
        })
    }
}
impl Drop for WcRng {
    fn drop(&mut self) {
        // SAFETY: made by wc_rng_new, freed once.
        unsafe { (self.api.wc_rng_free)(self.ptr) }
    }
}

// SAFETY (the four frees): each key was initialised by the matching init call first.
fn free_rsa(api: &PkApi, k: Obj) {
    unsafe { (api.wc_FreeRsaKey)(k) };
}
fn free_ecc(api: &PkApi, k: Obj) {
    unsafe { (api.wc_ecc_free)(k) };
}
fn free_ed25519(api: &PkApi, k: Obj) {
    unsafe { (api.wc_ed25519_free)(k) };
}
fn free_ed448(api: &PkApi, k: Obj) {
    unsafe { (api.wc_ed448_free)(k) };
}
fn free_x25519(api: &PkApi, k: Obj) {
    unsafe { (api.wc_curve25519_free)(k) };
}
fn free_x448(api: &PkApi, k: Obj) {
    unsafe { (api.wc_curve448_free)(k) };
}
fn free_dh(api: &PkApi, k: Obj) {
    unsafe { (api.wc_FreeDhKey)(k) };
}

fn hash_type(digest: &str) -> Res<(c_int, usize)> {
    match digest {
        "SHA256" => Ok((HASH_SHA256, 32)),
        "SHA384" => Ok((HASH_SHA384, 48)),
        "SHA512" => Ok((HASH_SHA512, 64)),
        _ => Err(format!("wolfssl: no digest {digest} here")),
    }
}

fn hash(api: &PkApi, digest: &str, msg: &[u8]) -> Res<Vec<u8>> {
    let (t, len) = hash_type(digest)?;
    let mut out = vec![0u8; len];
    // SAFETY: out has the digest's length.
    check(
        unsafe {
            (api.wc_Hash)(
                t,
                msg.as_ptr(),
                msg.len() as u32,
                out.as_mut_ptr(),
                len as u32,
            )
        },
        "wc_Hash",
    )?;
    Ok(out)
}

fn curve_id(curve: Curve) -> Res<c_int> {
    // enum ecc_curve_id.
    match curve {
        Curve::P256 => Ok(7),
        Curve::P384 => Ok(15),
        Curve::P521 => Ok(16),
        _ => Err(format!("{curve:?} is not a wolfCrypt ecc_key curve")),
    }
}

/// RSA with PKCS#1 v1.5 and SHA-256: `wc_SignatureGenerate_ex` hashes, encodes the DigestInfo
/// and signs (with blinding, as the build has WC_RSA_BLINDING), without its optional
/// verify-after-sign.
struct RsaSigner {
    api: Arc<PkApi>,
    rng: WcRng,
    key: Key,
    len: usize,
}

fn rsa_signer(api: &Arc<PkApi>, bits: u32, der: &[u8]) -> Res<Box<dyn Signer>> {
    if bits > RSA_MAX_BITS {
        return Err(format!(
            "the Debian wolfSSL build caps RSA at {RSA_MAX_BITS} bits (RSA_MAX_SIZE)"
        ));
    }
    let (pkcs1, _) = rsa_pkcs8(der)?;
    let rng = WcRng::new(api)?;
    let key = Key::new(api, free_rsa);
    let mut idx = 0u32;
    // SAFETY: the buffer is larger than RsaKey; the DER is read within its length.
    unsafe {
        check((api.wc_InitRsaKey)(key.ptr(), null_mut()), "wc_InitRsaKey")?;
        check(
            (api.wc_RsaPrivateKeyDecode)(pkcs1.as_ptr(), &mut idx, key.ptr(), pkcs1.len() as u32),
            "wc_RsaPrivateKeyDecode",
        )?;
        check((api.wc_RsaSetRNG)(key.ptr(), rng.ptr), "wc_RsaSetRNG")?;
    }
    Ok(Box::new(RsaSigner {
        api: api.clone(),
        rng,
        key,
        len: bits as usize / 8,
    }))
}

impl Signer for RsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let mut sig = vec![0u8; self.len];
        let mut len = sig.len() as u32;
        // SAFETY: live key and RNG; sig holds a modulus-sized signature.
        check(
            unsafe {
                (self.api.wc_SignatureGenerate_ex)(
                    HASH_SHA256,
                    SIG_RSA_W_ENC,
                    msg.as_ptr(),
                    msg.len() as u32,
                    sig.as_mut_ptr(),
                    &mut len,
                    self.key.ptr(),
                    OBJ_BYTES as u32,
                    self.rng.ptr,
                    0,
                )
            },
            "wc_SignatureGenerate_ex",
        )?;
        sig.truncate(len as usize);
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        // SAFETY: live key; sig and msg with their lengths.
        Ok(unsafe {
            (self.api.wc_SignatureVerify)(
                HASH_SHA256,
                SIG_RSA_W_ENC,
                msg.as_ptr(),
                msg.len() as u32,
                sig.as_ptr(),
                sig.len() as u32,
                self.key.ptr(),
                OBJ_BYTES as u32,
            )
        } == 0)
    }
    fn public(&self) -> Vec<u8> {
        Vec::new()
    }
}

/// ECDSA: the message hashed with `wc_Hash`, signed by `wc_ecc_sign_hash` (DER output).
struct EcdsaSigner {
    api: Arc<PkApi>,
    rng: WcRng,
    key: Key,
    digest: &'static str,
}

fn ecc_key(api: &Arc<PkApi>) -> Res<Key> {
    let key = Key::new(api, free_ecc);
    // SAFETY: the buffer is larger than ecc_key.
    check(unsafe { (api.wc_ecc_init)(key.ptr()) }, "wc_ecc_init")?;
    Ok(key)
}

fn ecdsa_signer(api: &Arc<PkApi>, curve: Curve, digest: &'static str) -> Res<Box<dyn Signer>> {
    let rng = WcRng::new(api)?;
    let key = ecc_key(api)?;
    let size = field_bytes(curve) as c_int;
    // SAFETY: initialised key, live RNG.
    check(
        unsafe { (api.wc_ecc_make_key_ex)(rng.ptr, size, key.ptr(), curve_id(curve)?) },
        "wc_ecc_make_key_ex",
    )?;
    Ok(Box::new(EcdsaSigner {
        api: api.clone(),
        rng,
        key,
        digest,
    }))
}

fn ecc_verify(api: &PkApi, key: &Key, hash: &[u8], sig: &[u8]) -> bool {
    let mut res: c_int = 0;
    // SAFETY: live key; buffers with their lengths.
    let rc = unsafe {
        (api.wc_ecc_verify_hash)(
            sig.as_ptr(),
            sig.len() as u32,
            hash.as_ptr(),
            hash.len() as u32,
            &mut res,
            key.ptr(),
        )
    };
    rc == 0 && res == 1
}

impl Signer for EcdsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let h = hash(&self.api, self.digest, msg)?;
        let mut sig = vec![0u8; 160];
        let mut len = sig.len() as u32;
        // SAFETY: live key and RNG; 160 bytes hold a P-521 DER signature.
        check(
            unsafe {
                (self.api.wc_ecc_sign_hash)(
                    h.as_ptr(),
                    h.len() as u32,
                    sig.as_mut_ptr(),
                    &mut len,
                    self.rng.ptr,
                    self.key.ptr(),
                )
            },
            "wc_ecc_sign_hash",
        )?;
        sig.truncate(len as usize);
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let h = hash(&self.api, self.digest, msg)?;
        Ok(ecc_verify(&self.api, &self.key, &h, sig))
    }
    fn public(&self) -> Vec<u8> {
        let mut out = vec![0u8; 160];
        let mut len = out.len() as u32;
        // SAFETY: live key; out is larger than a P-521 point.
        let rc =
            unsafe { (self.api.wc_ecc_export_x963)(self.key.ptr(), out.as_mut_ptr(), &mut len) };
        out.truncate(if rc == 0 { len as usize } else { 0 });
        out
    }
}

/// The wolfCrypt calls of one EdDSA curve (Ed448 takes a context, empty here).
struct EdCalls {
    free: fn(&PkApi, Obj),
    init: unsafe extern "C" fn(Obj) -> c_int,
    import_only: unsafe extern "C" fn(*const u8, u32, Obj) -> c_int,
    make_public: unsafe extern "C" fn(Obj, *mut u8, u32) -> c_int,
    import_key: unsafe extern "C" fn(*const u8, u32, *const u8, u32, Obj) -> c_int,
    import_public: unsafe extern "C" fn(*const u8, u32, Obj) -> c_int,
}

fn ed_calls(api: &PkApi, curve: Curve) -> Res<EdCalls> {
    Ok(match curve {
        Curve::Ed25519 => EdCalls {
            free: free_ed25519,
            init: api.wc_ed25519_init,
            import_only: api.wc_ed25519_import_private_only,
            make_public: api.wc_ed25519_make_public,
            import_key: api.wc_ed25519_import_private_key,
            import_public: api.wc_ed25519_import_public,
        },
        Curve::Ed448 => EdCalls {
            free: free_ed448,
            init: api.wc_ed448_init,
            import_only: api.wc_ed448_import_private_only,
            make_public: api.wc_ed448_make_public,
            import_key: api.wc_ed448_import_private_key,
            import_public: api.wc_ed448_import_public,
        },
        _ => return Err(format!("{curve:?} is not an EdDSA curve")),
    })
}

struct EdSigner {
    api: Arc<PkApi>,
    curve: Curve,
    key: Key,
    public: Vec<u8>,
}

/// An EdDSA key from its seed: imported alone, its public half derived, then both imported.
fn ed_signer(api: &Arc<PkApi>, curve: Curve, seed: &[u8]) -> Res<Box<dyn Signer>> {
    let c = ed_calls(api, curve)?;
    let n = field_bytes(curve);
    if seed.len() != n {
        return Err(format!("{curve:?} seeds are {n} bytes"));
    }
    let key = Key::new(api, c.free);
    let mut public = vec![0u8; n];
    // SAFETY: the buffer is larger than the key struct; seed and public are n bytes.
    unsafe {
        check((c.init)(key.ptr()), "EdDSA init")?;
        check(
            (c.import_only)(seed.as_ptr(), n as u32, key.ptr()),
            "EdDSA import",
        )?;
        check(
            (c.make_public)(key.ptr(), public.as_mut_ptr(), n as u32),
            "EdDSA make_public",
        )?;
        let k = (
            seed.as_ptr(),
            n as u32,
            public.as_ptr(),
            n as u32,
            key.ptr(),
        );
        check(
            (c.import_key)(k.0, k.1, k.2, k.3, k.4),
            "EdDSA import_private_key",
        )?;
    }
    Ok(Box::new(EdSigner {
        api: api.clone(),
        curve,
        key,
        public,
    }))
}

fn ed_verify(api: &PkApi, curve: Curve, key: &Key, msg: &[u8], sig: &[u8]) -> bool {
    let mut res: c_int = 0;
    let (m, ml, s, sl) = (
        msg.as_ptr(),
        msg.len() as u32,
        sig.as_ptr(),
        sig.len() as u32,
    );
    // SAFETY: live key; buffers with their lengths; empty Ed448 context.
    let rc = unsafe {
        match curve {
            Curve::Ed25519 => (api.wc_ed25519_verify_msg)(s, sl, m, ml, &mut res, key.ptr()),
            _ => (api.wc_ed448_verify_msg)(s, sl, m, ml, &mut res, key.ptr(), null(), 0),
        }
    };
    rc == 0 && res == 1
}

impl Signer for EdSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let mut sig = vec![0u8; 2 * field_bytes(self.curve)];
        let mut len = sig.len() as u32;
        let (api, k, m, ml) = (&self.api, self.key.ptr(), msg.as_ptr(), msg.len() as u32);
        // SAFETY: live key; sig holds one signature; empty Ed448 context.
        let rc = unsafe {
            match self.curve {
                Curve::Ed25519 => (api.wc_ed25519_sign_msg)(m, ml, sig.as_mut_ptr(), &mut len, k),
                _ => (api.wc_ed448_sign_msg)(m, ml, sig.as_mut_ptr(), &mut len, k, null(), 0),
            }
        };
        check(rc, "EdDSA sign_msg")?;
        sig.truncate(len as usize);
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        Ok(ed_verify(&self.api, self.curve, &self.key, msg, sig))
    }
    fn public(&self) -> Vec<u8> {
        self.public.clone()
    }
}

/// A signer for `p`: RSA from PKCS#8, ECDSA fresh, EdDSA from its seed.
pub fn signer(api: &Arc<PkApi>, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
    match (p.algorithm, key) {
        (Algorithm::Rsa { bits }, Some(der)) => rsa_signer(api, bits, der),
        (Algorithm::Ecdsa { curve }, None) => ecdsa_signer(
            api,
            curve,
            signature_digest(&p.algorithm).unwrap_or("SHA256"),
        ),
        (Algorithm::Eddsa { curve }, Some(seed)) => ed_signer(api, curve, seed),
        (Algorithm::Dsa { .. }, _) => Err(
            "wolfSSL 5.5's wc_DsaSign/wc_DsaVerify take a 20-byte (SHA-1) digest only; the \
             catalog's DSA is checked over SHA-256"
                .into(),
        ),
        _ => Err(format!("wolfssl does not offer {}", p.id)),
    }
}

/// Verifies a signature made by another library with its public key (SEC1 point or raw EdDSA key).
pub fn verify_foreign(
    api: &Arc<PkApi>,
    p: &Primitive,
    public: &[u8],
    digest: &str,
    msg: &[u8],
    sig: &[u8],
) -> Res<bool> {
    match p.algorithm {
        Algorithm::Ecdsa { curve } => {
            let key = ecc_key(api)?;
            // SAFETY: initialised key; the point with its length.
            check(
                unsafe {
                    (api.wc_ecc_import_x963_ex)(
                        public.as_ptr(),
                        public.len() as u32,
                        key.ptr(),
                        curve_id(curve)?,
                    )
                },
                "wc_ecc_import_x963_ex",
            )?;
            Ok(ecc_verify(api, &key, &hash(api, digest, msg)?, sig))
        }
        Algorithm::Eddsa { curve } => {
            let c = ed_calls(api, curve)?;
            let key = Key::new(api, c.free);
            // SAFETY: the buffer is larger than the key struct; public with its length.
            unsafe {
                check((c.init)(key.ptr()), "EdDSA init")?;
                check(
                    (c.import_public)(public.as_ptr(), public.len() as u32, key.ptr()),
                    "EdDSA import_public",
                )?;
            }
            Ok(ed_verify(api, curve, &key, msg, sig))
        }
        _ => Err(format!("wolfssl does not verify {} signatures", p.id)),
    }
}

/// ECDH on a NIST curve: the private scalar imported without its public point; the timed call
/// is `wc_ecc_shared_secret` (x coordinate), with the RNG the timing-resistant build wants.
fn ecdh(api: &Arc<PkApi>, curve: Curve, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let id = curve_id(curve)?;
    let rng = WcRng::new(api)?;
    let (me, them) = (ecc_key(api)?, ecc_key(api)?);
    // SAFETY: initialised keys; buffers with their lengths.
    unsafe {
        check(
            (api.wc_ecc_import_private_key_ex)(
                private.as_ptr(),
                private.len() as u32,
                null(),
                0,
                me.ptr(),
                id,
            ),
            "wc_ecc_import_private_key_ex",
        )?;
        check((api.wc_ecc_set_rng)(me.ptr(), rng.ptr), "wc_ecc_set_rng")?;
        check(
            (api.wc_ecc_import_x963_ex)(peer.as_ptr(), peer.len() as u32, them.ptr(), id),
            "wc_ecc_import_x963_ex",
        )?;
    }
    let api = api.clone();
    let n = field_bytes(curve);
    Ok(Box::new(move || {
        let _keep = &rng;
        let mut out = vec![0u8; n];
        let mut len = n as u32;
        // SAFETY: live keys; out holds a field element.
        check(
            unsafe { (api.wc_ecc_shared_secret)(me.ptr(), them.ptr(), out.as_mut_ptr(), &mut len) },
            "wc_ecc_shared_secret",
        )?;
        out.truncate(len as usize);
        Ok(out)
    }))
}

/// The wolfCrypt calls of X25519 or X448 (little-endian, as RFC 7748 writes keys).
struct XCalls {
    free: fn(&PkApi, Obj),
    init: unsafe extern "C" fn(Obj) -> c_int,
    import_private: unsafe extern "C" fn(*const u8, u32, Obj, c_int) -> c_int,
    import_public: unsafe extern "C" fn(*const u8, u32, Obj, c_int) -> c_int,
    shared: unsafe extern "C" fn(Obj, Obj, *mut u8, *mut u32, c_int) -> c_int,
}

fn x_calls(api: &PkApi, curve: Curve) -> Res<XCalls> {
    Ok(match curve {
        Curve::X25519 => XCalls {
            free: free_x25519,
            init: api.wc_curve25519_init,
            import_private: api.wc_curve25519_import_private_ex,
            import_public: api.wc_curve25519_import_public_ex,
            shared: api.wc_curve25519_shared_secret_ex,
        },
        Curve::X448 => XCalls {
            free: free_x448,
            init: api.wc_curve448_init,
            import_private: api.wc_curve448_import_private_ex,
            import_public: api.wc_curve448_import_public_ex,
            shared: api.wc_curve448_shared_secret_ex,
        },
        _ => return Err(format!("{curve:?} is not a Montgomery curve")),
    })
}

/// X25519/X448: the timed call is `wc_curve*_shared_secret_ex`.
fn x_derive(api: &Arc<PkApi>, curve: Curve, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let c = x_calls(api, curve)?;
    let (me, them) = (Key::new(api, c.free), Key::new(api, c.free));
    // SAFETY: buffers larger than the key structs; keys with their lengths.
    unsafe {
        check((c.init)(me.ptr()), "curve init")?;
        check((c.init)(them.ptr()), "curve init")?;
        check(
            (c.import_private)(
                private.as_ptr(),
                private.len() as u32,
                me.ptr(),
                LITTLE_ENDIAN,
            ),
            "curve import_private",
        )?;
        check(
            (c.import_public)(peer.as_ptr(), peer.len() as u32, them.ptr(), LITTLE_ENDIAN),
            "curve import_public",
        )?;
    }
    let n = field_bytes(curve);
    Ok(Box::new(move || {
        let mut out = vec![0u8; n];
        let mut len = n as u32;
        // SAFETY: live keys; out holds one shared secret.
        check(
            unsafe {
                (c.shared)(
                    me.ptr(),
                    them.ptr(),
                    out.as_mut_ptr(),
                    &mut len,
                    LITTLE_ENDIAN,
                )
            },
            "curve shared_secret",
        )?;
        out.truncate(len as usize);
        Ok(out)
    }))
}

/// A DhKey set to the primitive's RFC 7919 group (`wc_DhSetNamedKey`).
fn dh_key(api: &Arc<PkApi>, p: &Primitive) -> Res<Key> {
    let Algorithm::Ffdh {
        group: "ffdhe2048", ..
    } = p.algorithm
    else {
        return Err(format!("wolfssl does not offer {}", p.id));
    };
    let key = Key::new(api, free_dh);
    // SAFETY: the buffer is larger than DhKey (5376 bytes).
    unsafe {
        check((api.wc_InitDhKey)(key.ptr()), "wc_InitDhKey")?;
        check(
            (api.wc_DhSetNamedKey)(key.ptr(), FFDHE_2048),
            "wc_DhSetNamedKey",
        )?;
    }
    Ok(key)
}

/// An FFDH key pair from `wc_DhGenerateKeyPair` (wolfCrypt picks the private exponent's size).
pub fn ffdh_keygen(api: &Arc<PkApi>, p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
    let (key, rng) = (dh_key(api, p)?, WcRng::new(api)?);
    let (mut x, mut y) = (vec![0u8; 512], vec![0u8; 512]);
    let (mut xl, mut yl) = (512u32, 512u32);
    // SAFETY: a set-up key, live RNG; both buffers larger than p.
    check(
        unsafe {
            (api.wc_DhGenerateKeyPair)(
                key.ptr(),
                rng.ptr,
                x.as_mut_ptr(),
                &mut xl,
                y.as_mut_ptr(),
                &mut yl,
            )
        },
        "wc_DhGenerateKeyPair",
    )?;
    x.truncate(xl as usize);
    y.truncate(yl as usize);
    Ok((x, y))
}

/// FFDH: the timed call is `wc_DhAgree` (which also checks the peer's value), its result
/// padded to p's length as TLS 1.3 does.
fn ffdh(api: &Arc<PkApi>, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let key = dh_key(api, p)?;
    let (api, private, peer) = (api.clone(), private.to_vec(), peer.to_vec());
    Ok(Box::new(move || {
        let mut out = vec![0u8; 256];
        let mut len = 256u32;
        let (x, y) = (&private, &peer);
        // SAFETY: a set-up key; out holds a 2048-bit secret; inputs with their lengths.
        check(
            unsafe {
                (api.wc_DhAgree)(
                    key.ptr(),
                    out.as_mut_ptr(),
                    &mut len,
                    x.as_ptr(),
                    x.len() as u32,
                    y.as_ptr(),
                    y.len() as u32,
                )
            },
            "wc_DhAgree",
        )?;
        Ok(pad_to(&out[..len as usize], 256))
    }))
}

pub fn derive(api: &Arc<PkApi>, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    match p.algorithm {
        Algorithm::Ffdh { .. } => ffdh(api, p, private, peer),
        Algorithm::Ecdh {
            curve: c @ (Curve::X25519 | Curve::X448),
        } => x_derive(api, c, private, peer),
        Algorithm::Ecdh { curve } => ecdh(api, curve, private, peer),
        _ => Err(format!("wolfssl does not offer {}", p.id)),
    }
}
