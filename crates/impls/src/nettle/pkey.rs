//! Hogweed's public key beyond the Edwards and Montgomery curves: RSA (PKCS#1 v1.5 over
//! SHA-256, `rsa_sha256_sign_digest_tr`, blinded and checked as Hogweed recommends), DSA and
//! ECDSA (`dsa_sign`, `ecdsa_sign`) and ECDH on the NIST curves (`ecc_point_mul`). Hogweed
//! works on GMP integers, so `__gmpz_*` comes from the libgmp it links (found through its
//! handle), and randomness from Nettle's Yarrow-256 seeded once from the OS. Nettle has no
//! finite-field Diffie-Hellman.

use super::{context, find, Ctx, Nettle, NettleHash};
use crate::pkey_der::{dsa_pkcs8, dsa_spki, pad_to, rsa_pkcs8, sig_from_der, sig_to_der, DsaParts};
use crate::suite::{field_bytes, DeriveFn, Res, Signer};
use cryptospeed_catalog::agreement::signature_digest;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use std::os::raw::{c_int, c_uint, c_void};
use std::sync::Arc;

/// GMP's `__mpz_struct`.
#[repr(C)]
pub struct Mpz {
    alloc: c_int,
    size: c_int,
    d: *mut u64,
}
type Z = *mut Mpz;
/// `nettle_random_func`.
type RandomFn = unsafe extern "C" fn(Ctx, usize, *mut u8);
type Curve_ = *const c_void;

crate::dynamic_api! {
    PkApi, "libhogweed with GMP";
    required {
        __gmpz_init: fn(Z);
        __gmpz_clear: fn(Z);
        nettle_mpz_set_str_256_u: fn(Z, usize, *const u8);
        nettle_mpz_get_str_256: fn(usize, *mut u8, Z);
        nettle_mpz_sizeinbase_256_u: fn(Z) -> usize;
        nettle_yarrow256_init: fn(Ctx, c_uint, Ctx);
        nettle_yarrow256_seed: fn(Ctx, usize, *const u8);
        nettle_yarrow256_random: fn(Ctx, usize, *mut u8);
        nettle_rsa_public_key_init: fn(Ctx);
        nettle_rsa_public_key_clear: fn(Ctx);
        nettle_rsa_private_key_init: fn(Ctx);
        nettle_rsa_private_key_clear: fn(Ctx);
        nettle_rsa_keypair_from_der: fn(Ctx, Ctx, c_uint, usize, *const u8) -> c_int;
        nettle_rsa_sha256_sign_digest_tr: fn(Ctx, Ctx, Ctx, RandomFn, *const u8, Z) -> c_int;
        nettle_rsa_sha256_verify_digest: fn(Ctx, *const u8, Z) -> c_int;
        nettle_dsa_sign: fn(*const DsaParams, Z, Ctx, RandomFn, usize, *const u8, *mut DsaSig) -> c_int;
        nettle_dsa_verify: fn(*const DsaParams, Z, usize, *const u8, *const DsaSig) -> c_int;
        nettle_get_secp_256r1: fn() -> Curve_;
        nettle_get_secp_384r1: fn() -> Curve_;
        nettle_get_secp_521r1: fn() -> Curve_;
        nettle_ecc_point_init: fn(Ctx, Curve_);
        nettle_ecc_point_clear: fn(Ctx);
        nettle_ecc_point_set: fn(Ctx, Z, Z) -> c_int;
        nettle_ecc_point_get: fn(Ctx, Z, Z);
        nettle_ecc_scalar_init: fn(Ctx, Curve_);
        nettle_ecc_scalar_clear: fn(Ctx);
        nettle_ecc_scalar_set: fn(Ctx, Z) -> c_int;
        nettle_ecc_point_mul: fn(Ctx, Ctx, Ctx);
        nettle_ecdsa_generate_keypair: fn(Ctx, Ctx, Ctx, RandomFn);
        nettle_ecdsa_sign: fn(Ctx, Ctx, RandomFn, usize, *const u8, *mut DsaSig);
        nettle_ecdsa_verify: fn(Ctx, usize, *const u8, *const DsaSig) -> c_int;
    }
    optional {}
}

/// `struct dsa_params`.
#[repr(C)]
pub struct DsaParams {
    p: Mpz,
    q: Mpz,
    g: Mpz,
}
/// `struct dsa_signature`.
#[repr(C)]
pub struct DsaSig {
    r: Mpz,
    s: Mpz,
}

/// A GMP integer, initialised on creation and cleared on drop.
struct Int {
    api: Arc<PkApi>,
    z: Box<Mpz>,
}
impl Int {
    fn new(api: &Arc<PkApi>, bytes: &[u8]) -> Int {
        let mut z = Box::new(Mpz {
            alloc: 0,
            size: 0,
            d: std::ptr::null_mut(),
        });
        // SAFETY: a fresh mpz is initialised, then set from `bytes`.
        unsafe {
            (api.__gmpz_init)(&mut *z);
            (api.nettle_mpz_set_str_256_u)(&mut *z, bytes.len(), bytes.as_ptr());
        }
        Int {
            api: api.clone(),
            z,
        }
    }
    fn ptr(&self) -> Z {
        &*self.z as *const Mpz as Z
    }
}
impl Drop for Int {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, cleared once.
        unsafe { (self.api.__gmpz_clear)(self.ptr()) }
    }
}

/// The unsigned big-endian bytes of a GMP integer.
fn bytes_of(api: &PkApi, z: Z) -> Vec<u8> {
    // SAFETY: an initialised integer; the buffer has its size in bytes.
    unsafe {
        let n = (api.nettle_mpz_sizeinbase_256_u)(z);
        let mut out = vec![0u8; n];
        (api.nettle_mpz_get_str_256)(n, out.as_mut_ptr(), z);
        out
    }
}

/// One Hogweed struct (key, point, scalar, generator state) in a zeroed buffer larger than it
/// (the largest, yarrow256_ctx, is under 500 bytes), cleared on drop by the given call.
struct Obj {
    api: Arc<PkApi>,
    buf: Box<[u128; 64]>,
    clear: Option<unsafe extern "C" fn(Ctx)>,
}
impl Obj {
    fn new(api: &Arc<PkApi>, clear: Option<unsafe extern "C" fn(Ctx)>) -> Obj {
        Obj {
            api: api.clone(),
            buf: Box::new([0u128; 64]),
            clear,
        }
    }
    fn ptr(&self) -> Ctx {
        self.buf.as_ptr() as Ctx
    }
}
impl Drop for Obj {
    fn drop(&mut self) {
        let _keep = &self.api;
        if let Some(clear) = self.clear {
            // SAFETY: initialised by the matching init call, cleared once.
            unsafe { clear(self.ptr()) }
        }
    }
}

/// Nettle's Yarrow-256, seeded once from the OS.
fn yarrow(api: &Arc<PkApi>) -> Res<Obj> {
    let y = Obj::new(api, None);
    let mut seed = [0u8; 32];
    // SAFETY: fills the 32-byte buffer.
    if unsafe { libc::getrandom(seed.as_mut_ptr().cast(), seed.len(), 0) } != 32 {
        return Err("getrandom failed".into());
    }
    // SAFETY: the buffer is larger than yarrow256_ctx; no entropy sources.
    unsafe {
        (api.nettle_yarrow256_init)(y.ptr(), 0, std::ptr::null_mut());
        (api.nettle_yarrow256_seed)(y.ptr(), seed.len(), seed.as_ptr());
    }
    Ok(y)
}

/// Nettle's own hash of the catalog's name.
fn hash_entry(n: &Nettle, name: &str) -> Res<&'static NettleHash> {
    let table = match name {
        "SHA256" => "sha256",
        "SHA384" => "sha384",
        "SHA512" => "sha512",
        _ => return Err(format!("nettle: no digest {name} here")),
    };
    // SAFETY: Nettle's static table.
    unsafe { find((n.api.nettle_get_hashes)(), table) }
        .ok_or_else(|| "no such hash in nettle".into())
}

fn digest(h: &NettleHash, msg: &[u8]) -> Vec<u8> {
    let mut ctx = context(h.context_size);
    let c = ctx.as_mut_ptr() as Ctx;
    let mut out = vec![0u8; h.digest_size as usize];
    // SAFETY: the context has the size the entry declares; out the digest's.
    unsafe {
        (h.init)(c);
        (h.update)(c, msg.len(), msg.as_ptr());
        (h.digest)(c, out.len(), out.as_mut_ptr());
    }
    out
}

/// RSA: the keys come from the PKCS#1 document inside the PKCS#8 one; signing is
/// `rsa_sha256_sign_digest_tr` of the message's SHA-256 (blinded, result checked).
struct RsaSigner {
    api: Arc<PkApi>,
    hash: &'static NettleHash,
    public: Obj,
    private: Obj,
    rng: Obj,
    len: usize,
}

fn rsa_signer(n: &Nettle, api: &Arc<PkApi>, bits: u32, der: &[u8]) -> Res<RsaSigner> {
    let (pkcs1, _) = rsa_pkcs8(der)?;
    let public = Obj::new(api, Some(api.nettle_rsa_public_key_clear));
    let private = Obj::new(api, Some(api.nettle_rsa_private_key_clear));
    // SAFETY: buffers larger than the key structs; the DER with its length.
    unsafe {
        (api.nettle_rsa_public_key_init)(public.ptr());
        (api.nettle_rsa_private_key_init)(private.ptr());
        let ok = (api.nettle_rsa_keypair_from_der)(
            public.ptr(),
            private.ptr(),
            0,
            pkcs1.len(),
            pkcs1.as_ptr(),
        );
        if ok != 1 {
            return Err("rsa_keypair_from_der rejected the key".into());
        }
    }
    Ok(RsaSigner {
        api: api.clone(),
        hash: hash_entry(n, "SHA256")?,
        public,
        private,
        rng: yarrow(api)?,
        len: bits as usize / 8,
    })
}

impl Signer for RsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let h = digest(self.hash, msg);
        let s = Int::new(&self.api, &[]);
        let (api, rng) = (&self.api, self.rng.ptr());
        // SAFETY: prepared keys, live generator; h is a SHA-256 digest.
        let ok = unsafe {
            (api.nettle_rsa_sha256_sign_digest_tr)(
                self.public.ptr(),
                self.private.ptr(),
                rng,
                api.nettle_yarrow256_random,
                h.as_ptr(),
                s.ptr(),
            )
        };
        if ok != 1 {
            return Err("rsa_sha256_sign_digest_tr failed".into());
        }
        Ok(pad_to(&bytes_of(api, s.ptr()), self.len))
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let h = digest(self.hash, msg);
        let s = Int::new(&self.api, sig);
        // SAFETY: prepared key; h is a SHA-256 digest.
        Ok(unsafe {
            (self.api.nettle_rsa_sha256_verify_digest)(self.public.ptr(), h.as_ptr(), s.ptr())
        } == 1)
    }
    fn public(&self) -> Vec<u8> {
        Vec::new()
    }
}

/// A `dsa_signature`, its two integers initialised, cleared on drop.
struct Sig {
    api: Arc<PkApi>,
    s: Box<DsaSig>,
}
/// `dsa_params` from unsigned big-endian p, q, g, cleared on drop.
struct Params {
    api: Arc<PkApi>,
    p: Box<DsaParams>,
}

fn mpz(api: &PkApi, bytes: &[u8]) -> Mpz {
    let mut z = Mpz {
        alloc: 0,
        size: 0,
        d: std::ptr::null_mut(),
    };
    // SAFETY: initialises then sets the integer; the caller clears it.
    unsafe {
        (api.__gmpz_init)(&mut z);
        (api.nettle_mpz_set_str_256_u)(&mut z, bytes.len(), bytes.as_ptr());
    }
    z
}

impl Sig {
    fn new(api: &Arc<PkApi>, r: &[u8], s: &[u8]) -> Sig {
        let s = Box::new(DsaSig {
            r: mpz(api, r),
            s: mpz(api, s),
        });
        Sig {
            api: api.clone(),
            s,
        }
    }
    fn der(&self) -> Vec<u8> {
        let (r, s) = (&self.s.r as *const Mpz as Z, &self.s.s as *const Mpz as Z);
        sig_to_der(&bytes_of(&self.api, r), &bytes_of(&self.api, s))
    }
}
impl Drop for Sig {
    fn drop(&mut self) {
        // SAFETY: both initialised in `new`, cleared once.
        unsafe {
            (self.api.__gmpz_clear)(&mut self.s.r);
            (self.api.__gmpz_clear)(&mut self.s.s);
        }
    }
}
impl Drop for Params {
    fn drop(&mut self) {
        // SAFETY: all three initialised on creation, cleared once.
        unsafe {
            (self.api.__gmpz_clear)(&mut self.p.p);
            (self.api.__gmpz_clear)(&mut self.p.q);
            (self.api.__gmpz_clear)(&mut self.p.g);
        }
    }
}

fn params(api: &Arc<PkApi>, k: &DsaParts) -> Params {
    let p = Box::new(DsaParams {
        p: mpz(api, &k.p.to_bytes_be()),
        q: mpz(api, &k.q.to_bytes_be()),
        g: mpz(api, &k.g.to_bytes_be()),
    });
    Params {
        api: api.clone(),
        p,
    }
}

/// DSA with the shipped key: `dsa_sign` of the message's SHA-256 (truncated to q's size by
/// Hogweed).
struct DsaSigner {
    api: Arc<PkApi>,
    hash: &'static NettleHash,
    params: Params,
    x: Int,
    y: Int,
    rng: Obj,
}

fn dsa_verify(api: &Arc<PkApi>, params: &Params, y: &Int, h: &[u8], sig: &[u8]) -> bool {
    let Some((r, s)) = sig_from_der(sig) else {
        return false;
    };
    let sig = Sig::new(api, &r, &s);
    // SAFETY: initialised parameters, key and signature; h with its length.
    unsafe { (api.nettle_dsa_verify)(&*params.p, y.ptr(), h.len(), h.as_ptr(), &*sig.s) == 1 }
}

impl Signer for DsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let h = digest(self.hash, msg);
        let mut sig = Sig::new(&self.api, &[], &[]);
        let (api, rng) = (&self.api, self.rng.ptr());
        // SAFETY: initialised parameters, key and signature; live generator.
        let ok = unsafe {
            (api.nettle_dsa_sign)(
                &*self.params.p,
                self.x.ptr(),
                rng,
                api.nettle_yarrow256_random,
                h.len(),
                h.as_ptr(),
                &mut *sig.s,
            )
        };
        if ok != 1 {
            return Err("dsa_sign failed".into());
        }
        Ok(sig.der())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let h = digest(self.hash, msg);
        Ok(dsa_verify(&self.api, &self.params, &self.y, &h, sig))
    }
    fn public(&self) -> Vec<u8> {
        Vec::new()
    }
}

fn dsa_signer(n: &Nettle, api: &Arc<PkApi>, der: &[u8]) -> Res<DsaSigner> {
    let k = dsa_pkcs8(der)?;
    Ok(DsaSigner {
        api: api.clone(),
        hash: hash_entry(n, "SHA256")?,
        params: params(api, &k),
        x: Int::new(api, &k.x.to_bytes_be()),
        y: Int::new(api, &k.y.to_bytes_be()),
        rng: yarrow(api)?,
    })
}

fn ecc_curve(api: &PkApi, curve: Curve) -> Res<Curve_> {
    // SAFETY: accessors of static curve descriptions.
    unsafe {
        Ok(match curve {
            Curve::P256 => (api.nettle_get_secp_256r1)(),
            Curve::P384 => (api.nettle_get_secp_384r1)(),
            Curve::P521 => (api.nettle_get_secp_521r1)(),
            _ => return Err(format!("{curve:?} is not a NIST curve")),
        })
    }
}

fn point(api: &Arc<PkApi>, ecc: Curve_) -> Obj {
    let p = Obj::new(api, Some(api.nettle_ecc_point_clear));
    // SAFETY: the buffer is larger than ecc_point.
    unsafe { (api.nettle_ecc_point_init)(p.ptr(), ecc) };
    p
}

fn scalar(api: &Arc<PkApi>, ecc: Curve_) -> Obj {
    let s = Obj::new(api, Some(api.nettle_ecc_scalar_clear));
    // SAFETY: the buffer is larger than ecc_scalar.
    unsafe { (api.nettle_ecc_scalar_init)(s.ptr(), ecc) };
    s
}

/// A point from its SEC1 uncompressed encoding (`ecc_point_set` checks it is on the curve).
fn point_from_sec1(api: &Arc<PkApi>, curve: Curve, sec1: &[u8]) -> Res<Obj> {
    let n = field_bytes(curve);
    if sec1.len() != 1 + 2 * n || sec1[0] != 0x04 {
        return Err("not an uncompressed SEC1 point".into());
    }
    let p = point(api, ecc_curve(api, curve)?);
    let (x, y) = (
        Int::new(api, &sec1[1..1 + n]),
        Int::new(api, &sec1[1 + n..]),
    );
    // SAFETY: an initialised point and integers.
    if unsafe { (api.nettle_ecc_point_set)(p.ptr(), x.ptr(), y.ptr()) } != 1 {
        return Err("the point is not on the curve".into());
    }
    Ok(p)
}

/// ECDSA with a fresh key pair from `ecdsa_generate_keypair`; `ecdsa_sign` of the message's
/// digest.
struct EcdsaSigner {
    api: Arc<PkApi>,
    hash: &'static NettleHash,
    curve: Curve,
    public: Obj,
    key: Obj,
    rng: Obj,
}

fn ecdsa_verify(api: &Arc<PkApi>, public: &Obj, h: &[u8], sig: &[u8]) -> bool {
    let Some((r, s)) = sig_from_der(sig) else {
        return false;
    };
    let sig = Sig::new(api, &r, &s);
    // SAFETY: an initialised point and signature; h with its length.
    unsafe { (api.nettle_ecdsa_verify)(public.ptr(), h.len(), h.as_ptr(), &*sig.s) == 1 }
}

impl Signer for EcdsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let h = digest(self.hash, msg);
        let mut sig = Sig::new(&self.api, &[], &[]);
        let (api, rng) = (&self.api, self.rng.ptr());
        // SAFETY: a generated key, live generator, initialised signature.
        unsafe {
            (api.nettle_ecdsa_sign)(
                self.key.ptr(),
                rng,
                api.nettle_yarrow256_random,
                h.len(),
                h.as_ptr(),
                &mut *sig.s,
            )
        };
        Ok(sig.der())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let h = digest(self.hash, msg);
        Ok(ecdsa_verify(&self.api, &self.public, &h, sig))
    }
    fn public(&self) -> Vec<u8> {
        let (x, y) = (Int::new(&self.api, &[]), Int::new(&self.api, &[]));
        // SAFETY: an initialised point and integers.
        unsafe { (self.api.nettle_ecc_point_get)(self.public.ptr(), x.ptr(), y.ptr()) };
        let n = field_bytes(self.curve);
        let (x, y) = (bytes_of(&self.api, x.ptr()), bytes_of(&self.api, y.ptr()));
        [vec![0x04], pad_to(&x, n), pad_to(&y, n)].concat()
    }
}

fn ecdsa_signer(n: &Nettle, api: &Arc<PkApi>, curve: Curve, digest: &str) -> Res<EcdsaSigner> {
    let ecc = ecc_curve(api, curve)?;
    let (public, key, rng) = (point(api, ecc), scalar(api, ecc), yarrow(api)?);
    // SAFETY: initialised point and scalar, live generator.
    unsafe {
        (api.nettle_ecdsa_generate_keypair)(
            public.ptr(),
            key.ptr(),
            rng.ptr(),
            api.nettle_yarrow256_random,
        )
    };
    Ok(EcdsaSigner {
        api: api.clone(),
        hash: hash_entry(n, digest)?,
        curve,
        public,
        key,
        rng,
    })
}

pub(super) fn signer(n: &Nettle, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
    let api = n.pk.as_ref()?;
    Ok(match (p.algorithm, key) {
        (Algorithm::Rsa { bits }, Some(der)) => Box::new(rsa_signer(n, api, bits, der)?),
        (Algorithm::Dsa { .. }, Some(der)) => Box::new(dsa_signer(n, api, der)?),
        (Algorithm::Ecdsa { curve }, None) => {
            let digest = signature_digest(&p.algorithm).unwrap_or("SHA256");
            Box::new(ecdsa_signer(n, api, curve, digest)?)
        }
        _ => return Err(format!("nettle does not offer {}", p.id)),
    })
}

/// Verifies another library's ECDSA (SEC1 point) or DSA (SubjectPublicKeyInfo) signature.
pub(super) fn verify_foreign(
    n: &Nettle,
    p: &Primitive,
    public: &[u8],
    digest_name: &str,
    msg: &[u8],
    sig: &[u8],
) -> Res<bool> {
    let api = n.pk.as_ref()?;
    let h = digest(hash_entry(n, digest_name)?, msg);
    match p.algorithm {
        Algorithm::Ecdsa { curve } => {
            let Ok(point) = point_from_sec1(api, curve, public) else {
                return Ok(false);
            };
            Ok(ecdsa_verify(api, &point, &h, sig))
        }
        Algorithm::Dsa { .. } => {
            let k = dsa_spki(public)?;
            let y = Int::new(api, &k.y.to_bytes_be());
            Ok(dsa_verify(api, &params(api, &k), &y, &h, sig))
        }
        _ => Err(format!("nettle does not verify {} signatures", p.id)),
    }
}

/// ECDH on a NIST curve: scalar and peer point set once; the timed call is `ecc_point_mul`
/// and reading the result's x coordinate.
pub(super) fn derive(n: &Nettle, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let api = n.pk.as_ref()?.clone();
    let Algorithm::Ecdh { curve } = p.algorithm else {
        return Err(format!("nettle does not offer {}", p.id));
    };
    let ecc = ecc_curve(&api, curve)?;
    let them = point_from_sec1(&api, curve, peer)?;
    let (me, d) = (scalar(&api, ecc), Int::new(&api, private));
    // SAFETY: an initialised scalar and integer; 1 when 0 < d < q.
    if unsafe { (api.nettle_ecc_scalar_set)(me.ptr(), d.ptr()) } != 1 {
        return Err("the private key is out of range".into());
    }
    let (r, x) = (point(&api, ecc), Int::new(&api, &[]));
    let len = field_bytes(curve);
    Ok(Box::new(move || {
        // SAFETY: initialised points, scalar and integer; y is not wanted (NULL).
        unsafe {
            (api.nettle_ecc_point_mul)(r.ptr(), me.ptr(), them.ptr());
            (api.nettle_ecc_point_get)(r.ptr(), x.ptr(), std::ptr::null_mut());
        }
        Ok(pad_to(&bytes_of(&api, x.ptr()), len))
    }))
}
