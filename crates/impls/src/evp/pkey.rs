//! Public-key operations through EVP_PKEY: the keys (shipped PEM test keys for RSA and DSA, whose
//! generation would take minutes; fresh keys for elliptic curves and FFDH), the timed loops that
//! mirror `openssl speed`, and the known-answer and cross checks.

use super::ffi::{self, Api, Ptr};
use super::symmetric::fetch_md;
use crate::kat::corrupt;
use cryptospeed_catalog::{unhex, Algorithm, Curve, Kat};
use cryptospeed_engine::Timed;
use cryptospeed_model::Op;
use num_bigint::BigUint;
use std::ffi::CString;
use std::os::raw::c_int;
use std::ptr::null_mut;

/// An EVP_PKEY freed on drop.
pub struct Key<'a> {
    api: &'a Api,
    pub ptr: Ptr,
}

impl Drop for Key<'_> {
    fn drop(&mut self) {
        // SAFETY: owned key, freed once.
        unsafe { (self.api.EVP_PKEY_free)(self.ptr) }
    }
}

/// An EVP_PKEY_CTX freed on drop.
pub(super) struct PkeyCtx<'a> {
    api: &'a Api,
    ptr: Ptr,
}

impl Drop for PkeyCtx<'_> {
    fn drop(&mut self) {
        // SAFETY: owned context, freed once.
        unsafe { (self.api.EVP_PKEY_CTX_free)(self.ptr) }
    }
}

pub(super) fn key<'a>(api: &'a Api, ptr: Ptr, what: &str) -> Result<Key<'a>, String> {
    if ptr.is_null() {
        Err(format!("{what}: {}", api.errors()))
    } else {
        Ok(Key { api, ptr })
    }
}

fn ctx_for<'a>(api: &'a Api, k: &Key) -> Result<PkeyCtx<'a>, String> {
    // SAFETY: k is a live key.
    let ptr = unsafe { (api.EVP_PKEY_CTX_new)(k.ptr, null_mut()) };
    if ptr.is_null() {
        return Err(format!("EVP_PKEY_CTX_new failed: {}", api.errors()));
    }
    Ok(PkeyCtx { api, ptr })
}

pub(super) fn pem_key<'a>(api: &'a Api, pem: &str) -> Result<Key<'a>, String> {
    // SAFETY: the BIO reads the PEM text, which outlives it.
    unsafe {
        let bio = (api.BIO_new_mem_buf)(pem.as_ptr() as *const _, pem.len() as c_int);
        let k = (api.PEM_read_bio_PrivateKey)(bio, null_mut(), null_mut(), null_mut());
        (api.BIO_free)(bio);
        key(api, k, "cannot read PEM private key")
    }
}

pub(super) fn spki_key<'a>(api: &'a Api, der: &[u8]) -> Result<Key<'a>, String> {
    let mut p = der.as_ptr();
    // SAFETY: d2i reads at most der.len() bytes.
    let k = unsafe { (api.d2i_PUBKEY)(null_mut(), &mut p, der.len() as _) };
    key(api, k, "cannot decode SubjectPublicKeyInfo")
}

/// DER prefix of a SubjectPublicKeyInfo for an uncompressed point on a NIST curve.
pub(super) fn spki_prefix(curve: Curve) -> &'static str {
    match curve {
        Curve::P256 => "3059301306072a8648ce3d020106082a8648ce3d030107034200",
        Curve::P384 => "3076301006072a8648ce3d020106052b81040022036200",
        Curve::P521 => "30819b301006072a8648ce3d020106052b8104002303818600",
        _ => "",
    }
}

/// A key from raw bytes (X25519, X448, Ed25519, Ed448): private when `private`, else public.
pub(super) fn raw_key<'a>(
    api: &'a Api,
    curve: Curve,
    bytes: &[u8],
    private: bool,
) -> Result<Key<'a>, String> {
    let new = if private {
        api.EVP_PKEY_new_raw_private_key
    } else {
        api.EVP_PKEY_new_raw_public_key
    };
    // SAFETY: raw key bytes with their length; OpenSSL checks the length for the type.
    let ptr = unsafe {
        new(
            raw_type(api, curve),
            null_mut(),
            bytes.as_ptr(),
            bytes.len(),
        )
    };
    key(
        api,
        ptr,
        if private {
            "raw private key"
        } else {
            "raw public key"
        },
    )
}

/// Own and peer keys for a key agreement from a raw private key (scalar for NIST curves) and a
/// raw (X25519/X448) or SEC1 (NIST) peer public key.
pub(super) fn agreement_keys<'a>(
    api: &'a Api,
    curve: Curve,
    private: &[u8],
    peer: &[u8],
) -> Result<(Key<'a>, Key<'a>), String> {
    match curve {
        Curve::X25519 | Curve::X448 => Ok((
            raw_key(api, curve, private, true)?,
            raw_key(api, curve, peer, false)?,
        )),
        Curve::P256 | Curve::P384 | Curve::P521 => {
            let der = ec_private_der(curve, private)?;
            let mut p = der.as_ptr();
            // SAFETY: d2i reads at most der.len() bytes.
            let own = key(
                api,
                unsafe {
                    (api.d2i_PrivateKey)(ffi::EVP_PKEY_EC, null_mut(), &mut p, der.len() as _)
                },
                "ECPrivateKey",
            )?;
            let spki = unhex(&format!("{}{}", spki_prefix(curve), hex::encode(peer)));
            Ok((own, spki_key(api, &spki)?))
        }
        other => Err(format!("no key agreement on {other:?}")),
    }
}

/// One EdDSA signature (EVP_DigestSign with a fresh context).
pub(super) fn eddsa_sign(api: &Api, k: &Key, msg: &[u8]) -> Result<Vec<u8>, String> {
    let mdctx = digest_sign_ctx(api, k, true)?;
    let sig = digest_sign(api, mdctx, msg);
    // SAFETY: created by digest_sign_ctx, freed once.
    unsafe { (api.EVP_MD_CTX_free)(mdctx) };
    sig
}

/// DER ECPrivateKey (RFC 5915) for a NIST-curve scalar; the public key is derived on import.
pub fn ec_private_der(curve: Curve, scalar: &[u8]) -> Result<Vec<u8>, String> {
    let oid = match curve {
        Curve::P256 => "06082a8648ce3d030107",
        Curve::P384 => "06052b81040022",
        Curve::P521 => "06052b81040023",
        other => return Err(format!("{other:?} is not a NIST curve")),
    };
    let params = format!("a0{:02x}{oid}", oid.len() / 2);
    let body = format!(
        "020101 04{:02x}{}{params}",
        scalar.len(),
        hex::encode(scalar)
    );
    let body = unhex(&body);
    let mut der = vec![0x30, body.len() as u8];
    der.extend(body);
    Ok(der)
}

/// The key type of a raw-key curve, as this library numbers it (AWS-LC and BoringSSL give X25519
/// and Ed25519 other NIDs than OpenSSL).
pub(super) fn raw_type(api: &Api, curve: Curve) -> c_int {
    match curve {
        Curve::X25519 => api.nid(c"X25519", ffi::EVP_PKEY_X25519),
        Curve::X448 => api.nid(c"X448", ffi::EVP_PKEY_X448),
        Curve::Ed25519 => api.nid(c"ED25519", ffi::EVP_PKEY_ED25519),
        Curve::Ed448 => api.nid(c"ED448", ffi::EVP_PKEY_ED448),
        _ => ffi::EVP_PKEY_EC,
    }
}

/// Generates a key by algorithm name (and group, for EC and DH).
pub(super) fn generate<'a>(
    api: &'a Api,
    algorithm: &str,
    group: Option<&str>,
) -> Result<Key<'a>, String> {
    let Some(new) = api.EVP_PKEY_CTX_new_from_name else {
        return generate_by_id(api, algorithm, group);
    };
    let (a, g) = (
        CString::new(algorithm).unwrap(),
        group.map(|g| CString::new(g).unwrap()),
    );
    // SAFETY: valid C strings; the context is freed on every path.
    unsafe {
        let ctx = PkeyCtx {
            api,
            ptr: new(null_mut(), a.as_ptr(), std::ptr::null()),
        };
        if ctx.ptr.is_null() || (api.EVP_PKEY_keygen_init)(ctx.ptr) != 1 {
            return Err(format!(
                "no provider generates {algorithm} keys: {}",
                api.errors()
            ));
        }
        if let Some(g) = &g {
            let set = api
                .EVP_PKEY_CTX_set_group_name
                .ok_or("no EVP_PKEY_CTX_set_group_name")?;
            if set(ctx.ptr, g.as_ptr()) != 1 {
                return Err(format!(
                    "unknown group {}: {}",
                    g.to_string_lossy(),
                    api.errors()
                ));
            }
        }
        run_keygen(api, &ctx, algorithm)
    }
}

/// The last step of either way to a key: `EVP_PKEY_keygen` on a prepared context.
fn run_keygen<'a>(api: &'a Api, ctx: &PkeyCtx, algorithm: &str) -> Result<Key<'a>, String> {
    let mut out: Ptr = null_mut();
    // SAFETY: the context is live and initialised for key generation.
    if unsafe { (api.EVP_PKEY_keygen)(ctx.ptr, &mut out) } != 1 {
        return Err(format!(
            "{algorithm} key generation failed: {}",
            api.errors()
        ));
    }
    key(api, out, "key generation")
}

/// The 1.1.1-style DH calls AWS-LC and BoringSSL have, where DH cannot be made by name.
struct DhCalls {
    rfc7919_2048: unsafe extern "C" fn() -> Ptr,
    new: unsafe extern "C" fn() -> Ptr,
    free: unsafe extern "C" fn(Ptr),
    get0_pqg: unsafe extern "C" fn(Ptr, *mut Ptr, *mut Ptr, *mut Ptr),
    set0_pqg: unsafe extern "C" fn(Ptr, Ptr, Ptr, Ptr) -> c_int,
    set_length: unsafe extern "C" fn(Ptr, std::os::raw::c_uint) -> c_int,
    generate_key: unsafe extern "C" fn(Ptr) -> c_int,
    dup: unsafe extern "C" fn(Ptr) -> Ptr,
}

fn dh_calls(api: &Api) -> Option<DhCalls> {
    Some(DhCalls {
        rfc7919_2048: api.DH_get_rfc7919_2048?,
        new: api.DH_new?,
        free: api.DH_free?,
        get0_pqg: api.DH_get0_pqg?,
        set0_pqg: api.DH_set0_pqg?,
        set_length: api.DH_set_length?,
        generate_key: api.DH_generate_key?,
        dup: api.BN_dup?,
    })
}

/// Bits of the private exponent OpenSSL 3 draws for ffdhe2048: twice the group's 112-bit
/// strength (RFC 7919 section 5.2).
const FFDHE2048_PRIVATE_BITS: std::os::raw::c_uint = 224;

/// A DH object in ffdhe2048 (p and g from `DH_get_rfc7919_2048`) with a key pair of OpenSSL's
/// private-exponent size. The RFC 7919 object carries q, with which AWS-LC and BoringSSL draw
/// full-size exponents and ignore `DH_set_length`, so p and g move to a new object without q.
///
/// SAFETY: every object made here is either returned or freed.
unsafe fn ffdhe2048(c: &DhCalls) -> Option<Ptr> {
    let rfc = (c.rfc7919_2048)();
    let dh = (c.new)();
    if rfc.is_null() || dh.is_null() {
        (!rfc.is_null()).then(|| (c.free)(rfc));
        (!dh.is_null()).then(|| (c.free)(dh));
        return None;
    }
    let (mut p, mut g): (Ptr, Ptr) = (null_mut(), null_mut());
    (c.get0_pqg)(rfc, &mut p, null_mut(), &mut g);
    let ok = (c.set0_pqg)(dh, (c.dup)(p), null_mut(), (c.dup)(g)) == 1
        && (c.set_length)(dh, FFDHE2048_PRIVATE_BITS) == 1
        && (c.generate_key)(dh) == 1;
    (c.free)(rfc);
    if !ok {
        (c.free)(dh);
        return None;
    }
    Some(dh)
}

/// An FFDH key where DH cannot be made by name (AWS-LC, BoringSSL), wrapped in an EVP_PKEY so
/// the derivation is the same `EVP_PKEY_derive` as everywhere else.
fn generate_dh<'a>(api: &'a Api, group: Option<&str>) -> Result<Key<'a>, String> {
    let (Some(c), Some(new), Some(assign)) =
        (dh_calls(api), api.EVP_PKEY_new, api.EVP_PKEY_assign_DH)
    else {
        return Err(
            "DH key generation by name needs OpenSSL 3 (EVP_PKEY_CTX_new_from_name)".into(),
        );
    };
    if group != Some("ffdhe2048") {
        return Err(format!("no RFC 7919 group {group:?} here"));
    }
    // SAFETY: the DH object is freed unless the EVP_PKEY took it over; the key is owned.
    unsafe {
        let dh =
            ffdhe2048(&c).ok_or_else(|| format!("DH key generation failed: {}", api.errors()))?;
        let k = key(api, new(), "EVP_PKEY_new")?;
        if assign(k.ptr, dh) != 1 {
            (c.free)(dh);
            return Err(format!("EVP_PKEY_assign_DH failed: {}", api.errors()));
        }
        Ok(k)
    }
}

/// Key generation through OpenSSL 1.1.1's API: a context by NID, the curve by control.
fn generate_by_id<'a>(
    api: &'a Api,
    algorithm: &str,
    group: Option<&str>,
) -> Result<Key<'a>, String> {
    if algorithm == "DH" {
        return generate_dh(api, group);
    }
    let Some(new_id) = api.EVP_PKEY_CTX_new_id else {
        return Err(
            "this libcrypto has neither EVP_PKEY_CTX_new_from_name nor EVP_PKEY_CTX_new_id".into(),
        );
    };
    let id = match algorithm {
        "EC" => ffi::EVP_PKEY_EC,
        "X25519" => raw_type(api, Curve::X25519),
        "X448" => raw_type(api, Curve::X448),
        "ED25519" => raw_type(api, Curve::Ed25519),
        "ED448" => raw_type(api, Curve::Ed448),
        other => {
            return Err(format!(
                "{other} key generation by name needs OpenSSL 3 (EVP_PKEY_CTX_new_from_name)"
            ))
        }
    };
    // SAFETY: the context is freed on every path; the control takes no pointer.
    unsafe {
        let ctx = PkeyCtx {
            api,
            ptr: new_id(id, null_mut()),
        };
        if ctx.ptr.is_null() || (api.EVP_PKEY_keygen_init)(ctx.ptr) != 1 {
            return Err(format!(
                "cannot generate {algorithm} keys: {}",
                api.errors()
            ));
        }
        if let Some(g) = group {
            let nid = match g {
                "P-256" => ffi::NID_X9_62_PRIME256V1,
                "P-384" => ffi::NID_SECP384R1,
                "P-521" => ffi::NID_SECP521R1,
                other => return Err(format!("no NID known for group {other}")),
            };
            // AWS-LC and BoringSSL export the setter as a function and check the control's
            // operation bits their own way; OpenSSL 1.1.1 has only the control.
            let set = match (
                api.EVP_PKEY_CTX_set_ec_paramgen_curve_nid,
                api.EVP_PKEY_CTX_ctrl,
            ) {
                (Some(f), _) => f(ctx.ptr, nid),
                (None, None) => return Err("this libcrypto cannot set an EC key's curve".into()),
                (None, Some(ctrl)) => ctrl(
                    ctx.ptr,
                    ffi::EVP_PKEY_EC,
                    ffi::EVP_PKEY_OP_PARAMGEN_KEYGEN_111,
                    ffi::EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID,
                    nid,
                    null_mut(),
                ),
            };
            if set <= 0 {
                return Err(format!("unknown group {g}: {}", api.errors()));
            }
        }
        run_keygen(api, &ctx, algorithm)
    }
}

const RSA_KEYS: &[(u32, &str)] = &[
    (512, include_str!("../../../catalog/keys/rsa-512.pem")),
    (1024, include_str!("../../../catalog/keys/rsa-1024.pem")),
    (2048, include_str!("../../../catalog/keys/rsa-2048.pem")),
    (3072, include_str!("../../../catalog/keys/rsa-3072.pem")),
    (4096, include_str!("../../../catalog/keys/rsa-4096.pem")),
    (7680, include_str!("../../../catalog/keys/rsa-7680.pem")),
    (15360, include_str!("../../../catalog/keys/rsa-15360.pem")),
];
const DSA_KEYS: &[(u32, &str)] = &[
    (1024, include_str!("../../../catalog/keys/dsa-1024.pem")),
    (2048, include_str!("../../../catalog/keys/dsa-2048.pem")),
];

/// The key a primitive is timed with.
pub fn timing_key<'a>(api: &'a Api, algorithm: &Algorithm) -> Result<Key<'a>, String> {
    match *algorithm {
        Algorithm::Rsa { bits } => pem_key(
            api,
            RSA_KEYS
                .iter()
                .find(|(b, _)| *b == bits)
                .ok_or("no test key of that size")?
                .1,
        ),
        Algorithm::Dsa { bits } => pem_key(
            api,
            DSA_KEYS
                .iter()
                .find(|(b, _)| *b == bits)
                .ok_or("no test key of that size")?
                .1,
        ),
        Algorithm::Ecdsa { curve } | Algorithm::Ecdh { curve } | Algorithm::Eddsa { curve } => {
            match curve {
                Curve::P256 | Curve::P384 | Curve::P521 => generate(api, "EC", Some(curve.name())),
                other => generate(api, other.name(), None),
            }
        }
        Algorithm::Ffdh { group, .. } => generate(api, "DH", Some(group)),
        // Keys of the seeded families are made by kem.rs, dsa.rs and the library backends
        // (crate::aws_lc, crate::boringssl); mod.rs routes them.
        a if a.family().is_seeded() => {
            Err("post-quantum keys are not made here (kem.rs, dsa.rs, aws_lc/pq.rs)".into())
        }
        _ => Err("not a public-key algorithm".into()),
    }
}

/// The message `openssl speed` signs: 36 bytes for RSA, 20 for (EC)DSA and EdDSA.
fn tbs_len(algorithm: &Algorithm) -> usize {
    if matches!(algorithm, Algorithm::Rsa { .. }) {
        36
    } else {
        20
    }
}

enum Loop<'a> {
    Sign {
        ctx: PkeyCtx<'a>,
        tbs: Vec<u8>,
        sig: Vec<u8>,
    },
    Verify {
        ctx: PkeyCtx<'a>,
        tbs: Vec<u8>,
        sig: Vec<u8>,
    },
    Encrypt {
        ctx: PkeyCtx<'a>,
        msg: Vec<u8>,
        out: Vec<u8>,
    },
    Decrypt {
        ctx: PkeyCtx<'a>,
        ct: Vec<u8>,
        out: Vec<u8>,
    },
    Derive {
        ctx: PkeyCtx<'a>,
        out: Vec<u8>,
    },
    /// EdDSA: the context is initialised again before every one-shot call (OpenSSL 3.2 and
    /// later refuse a second `EVP_DigestSign` on one initialisation), in every version alike.
    /// `reinit_key` is NULL where the library reuses the key already set, else the key.
    DigestSign {
        mdctx: Ptr,
        reinit_key: Ptr,
        tbs: Vec<u8>,
        sig: Vec<u8>,
    },
    DigestVerify {
        mdctx: Ptr,
        reinit_key: Ptr,
        tbs: Vec<u8>,
        sig: Vec<u8>,
    },
}

struct PkeyLoop<'a> {
    api: &'a Api,
    _keys: Vec<Key<'a>>,
    op: Loop<'a>,
}

impl Drop for PkeyLoop<'_> {
    fn drop(&mut self) {
        if let Loop::DigestSign { mdctx, .. } | Loop::DigestVerify { mdctx, .. } = self.op {
            // SAFETY: owned digest context.
            unsafe { (self.api.EVP_MD_CTX_free)(mdctx) }
        }
    }
}

impl Timed for PkeyLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let a = self.api;
        // SAFETY (all arms): contexts are initialised for their operation; buffers are owned and
        // sized for the key (signature and output capacities come from a first call at set-up).
        let failed = unsafe {
            match &mut self.op {
                Loop::Sign { ctx, tbs, sig } => (0..iters).any(|_| {
                    let mut len = sig.len();
                    (a.EVP_PKEY_sign)(ctx.ptr, sig.as_mut_ptr(), &mut len, tbs.as_ptr(), tbs.len())
                        <= 0
                }),
                Loop::Verify { ctx, tbs, sig } => (0..iters).any(|_| {
                    (a.EVP_PKEY_verify)(ctx.ptr, sig.as_ptr(), sig.len(), tbs.as_ptr(), tbs.len())
                        != 1
                }),
                Loop::Encrypt { ctx, msg, out } => (0..iters).any(|_| {
                    let mut len = out.len();
                    (a.EVP_PKEY_encrypt)(
                        ctx.ptr,
                        out.as_mut_ptr(),
                        &mut len,
                        msg.as_ptr(),
                        msg.len(),
                    ) <= 0
                }),
                Loop::Decrypt { ctx, ct, out } => (0..iters).any(|_| {
                    let mut len = out.len();
                    (a.EVP_PKEY_decrypt)(ctx.ptr, out.as_mut_ptr(), &mut len, ct.as_ptr(), ct.len())
                        <= 0
                }),
                Loop::Derive { ctx, out } => (0..iters).any(|_| {
                    let mut len = out.len();
                    (a.EVP_PKEY_derive)(ctx.ptr, out.as_mut_ptr(), &mut len) <= 0
                }),
                Loop::DigestSign {
                    mdctx,
                    reinit_key,
                    tbs,
                    sig,
                } => (0..iters).any(|_| {
                    let mut len = sig.len();
                    (a.EVP_DigestSignInit)(*mdctx, null_mut(), null_mut(), null_mut(), *reinit_key)
                        != 1
                        || (a.EVP_DigestSign)(
                            *mdctx,
                            sig.as_mut_ptr(),
                            &mut len,
                            tbs.as_ptr(),
                            tbs.len(),
                        ) != 1
                }),
                Loop::DigestVerify {
                    mdctx,
                    reinit_key,
                    tbs,
                    sig,
                } => (0..iters).any(|_| {
                    (a.EVP_DigestVerifyInit)(
                        *mdctx,
                        null_mut(),
                        null_mut(),
                        null_mut(),
                        *reinit_key,
                    ) != 1
                        || (a.EVP_DigestVerify)(
                            *mdctx,
                            sig.as_ptr(),
                            sig.len(),
                            tbs.as_ptr(),
                            tbs.len(),
                        ) != 1
                }),
            }
        };
        if failed {
            return Err(format!("public-key operation failed: {}", a.errors()));
        }
        Ok(())
    }
}

pub(super) fn init_ctx<'a>(api: &'a Api, k: &Key, op: Op) -> Result<PkeyCtx<'a>, String> {
    let ctx = ctx_for(api, k)?;
    // SAFETY: live context.
    let ok = unsafe {
        match op {
            Op::Sign => (api.EVP_PKEY_sign_init)(ctx.ptr),
            Op::Verify => (api.EVP_PKEY_verify_init)(ctx.ptr),
            Op::Encrypt => (api.EVP_PKEY_encrypt_init)(ctx.ptr),
            Op::Decrypt => (api.EVP_PKEY_decrypt_init)(ctx.ptr),
            Op::Derive => (api.EVP_PKEY_derive_init)(ctx.ptr),
            _ => 0,
        }
    };
    if ok != 1 {
        return Err(format!("EVP_PKEY {op} init failed: {}", api.errors()));
    }
    if matches!(op, Op::Encrypt | Op::Decrypt | Op::Sign | Op::Verify) {
        if let Some(set) = api.EVP_PKEY_CTX_set_rsa_padding {
            // Harmless failure for non-RSA keys; PKCS#1 v1.5 is the default anyway.
            // SAFETY: live context.
            unsafe {
                set(ctx.ptr, ffi::RSA_PKCS1_PADDING);
                (api.ERR_clear_error)();
            }
        }
    }
    Ok(ctx)
}

pub(super) fn sign_once(api: &Api, ctx: &PkeyCtx, tbs: &[u8]) -> Result<Vec<u8>, String> {
    let mut sig = vec![0u8; 4096];
    let mut len = sig.len();
    // SAFETY: owned buffers; 4096 bytes hold a 15360-bit RSA signature (1920 bytes).
    if unsafe { (api.EVP_PKEY_sign)(ctx.ptr, sig.as_mut_ptr(), &mut len, tbs.as_ptr(), tbs.len()) }
        <= 0
    {
        return Err(format!("EVP_PKEY_sign failed: {}", api.errors()));
    }
    sig.truncate(len);
    Ok(sig)
}

pub(super) fn verify_once(api: &Api, ctx: &PkeyCtx, tbs: &[u8], sig: &[u8]) -> bool {
    // SAFETY: owned buffers.
    let r =
        unsafe { (api.EVP_PKEY_verify)(ctx.ptr, sig.as_ptr(), sig.len(), tbs.as_ptr(), tbs.len()) };
    // SAFETY: clears the error a rejection leaves.
    unsafe { (api.ERR_clear_error)() };
    r == 1
}

pub(super) fn digest_sign_ctx(api: &Api, k: &Key, sign: bool) -> Result<Ptr, String> {
    // SAFETY: fresh digest context, live key; NULL md selects EdDSA's one-shot mode.
    unsafe {
        let mdctx = (api.EVP_MD_CTX_new)();
        let ok = if sign {
            (api.EVP_DigestSignInit)(mdctx, null_mut(), null_mut(), null_mut(), k.ptr)
        } else {
            (api.EVP_DigestVerifyInit)(mdctx, null_mut(), null_mut(), null_mut(), k.ptr)
        };
        if ok != 1 {
            (api.EVP_MD_CTX_free)(mdctx);
            return Err(format!("EdDSA init failed: {}", api.errors()));
        }
        Ok(mdctx)
    }
}

/// NULL when initialising the context again without a key keeps the key it has and works (the
/// cheaper way), else the key itself, given again on every initialisation.
fn reinit_key(api: &Api, mdctx: Ptr, k: &Key, sign: bool, tbs: &[u8], sig: &[u8]) -> Ptr {
    // AWS-LC and BoringSSL dereference a NULL key here (a crash, not a refusal): give them the
    // key every time, as their own benchmarks do.
    let version = api.version_text(ffi::OPENSSL_VERSION);
    if version.contains("AWS-LC") || version.contains("BoringSSL") {
        return k.ptr;
    }
    let mut out = vec![0u8; 256];
    let mut len = out.len();
    // SAFETY: live context; owned buffers.
    let works = unsafe {
        if sign {
            (api.EVP_DigestSignInit)(mdctx, null_mut(), null_mut(), null_mut(), null_mut()) == 1
                && (api.EVP_DigestSign)(mdctx, out.as_mut_ptr(), &mut len, tbs.as_ptr(), tbs.len())
                    == 1
        } else {
            (api.EVP_DigestVerifyInit)(mdctx, null_mut(), null_mut(), null_mut(), null_mut()) == 1
                && (api.EVP_DigestVerify)(mdctx, sig.as_ptr(), sig.len(), tbs.as_ptr(), tbs.len())
                    == 1
        }
    };
    // SAFETY: clears what a refused probe leaves.
    unsafe { (api.ERR_clear_error)() };
    if works {
        null_mut()
    } else {
        k.ptr
    }
}

pub(super) fn digest_sign(api: &Api, mdctx: Ptr, tbs: &[u8]) -> Result<Vec<u8>, String> {
    let mut sig = vec![0u8; 256];
    let mut len = sig.len();
    // SAFETY: owned buffers.
    if unsafe { (api.EVP_DigestSign)(mdctx, sig.as_mut_ptr(), &mut len, tbs.as_ptr(), tbs.len()) }
        != 1
    {
        return Err(format!("EVP_DigestSign failed: {}", api.errors()));
    }
    sig.truncate(len);
    Ok(sig)
}

pub(super) fn derive(api: &Api, own: &Key, peer: &Key) -> Result<Vec<u8>, String> {
    let ctx = init_ctx(api, own, Op::Derive)?;
    let mut out = vec![0u8; 1024];
    let mut len = out.len();
    // SAFETY: live keys and context; owned buffer.
    unsafe {
        if (api.EVP_PKEY_derive_set_peer)(ctx.ptr, peer.ptr) != 1
            || (api.EVP_PKEY_derive)(ctx.ptr, out.as_mut_ptr(), &mut len) != 1
        {
            return Err(format!("EVP_PKEY_derive failed: {}", api.errors()));
        }
    }
    out.truncate(len);
    Ok(out)
}

/// Prepares a timed public-key loop.
pub fn prepare<'a>(
    api: &'a Api,
    algorithm: &Algorithm,
    op: Op,
) -> Result<Box<dyn Timed + 'a>, String> {
    let k = timing_key(api, algorithm)?;
    let tbs: Vec<u8> = (0..tbs_len(algorithm) as u8).collect();
    let mut keys = Vec::new();
    let lp = match (algorithm, op) {
        (Algorithm::Eddsa { .. }, Op::Sign) => {
            let mdctx = digest_sign_ctx(api, &k, true)?;
            let sig = digest_sign(api, mdctx, &tbs)?;
            let reinit_key = reinit_key(api, mdctx, &k, true, &tbs, &sig);
            Loop::DigestSign {
                mdctx,
                reinit_key,
                tbs,
                sig,
            }
        }
        (Algorithm::Eddsa { .. }, Op::Verify) => {
            let s = digest_sign_ctx(api, &k, true)?;
            let sig = digest_sign(api, s, &tbs);
            // SAFETY: owned digest context.
            unsafe { (api.EVP_MD_CTX_free)(s) };
            let sig = sig?;
            let mdctx = digest_sign_ctx(api, &k, false)?;
            let reinit_key = reinit_key(api, mdctx, &k, false, &tbs, &sig);
            Loop::DigestVerify {
                mdctx,
                reinit_key,
                tbs,
                sig,
            }
        }
        (Algorithm::Rsa { .. } | Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. }, Op::Sign) => {
            let ctx = init_ctx(api, &k, Op::Sign)?;
            let sig = vec![0u8; sign_once(api, &ctx, &tbs)?.len() + 16];
            Loop::Sign { ctx, tbs, sig }
        }
        (Algorithm::Rsa { .. } | Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. }, Op::Verify) => {
            let sig = sign_once(api, &init_ctx(api, &k, Op::Sign)?, &tbs)?;
            Loop::Verify {
                ctx: init_ctx(api, &k, Op::Verify)?,
                tbs,
                sig,
            }
        }
        (Algorithm::Rsa { .. }, Op::Encrypt) => {
            let ctx = init_ctx(api, &k, Op::Encrypt)?;
            Loop::Encrypt {
                ctx,
                msg: vec![0x5a; 32],
                out: vec![0; 4096],
            }
        }
        (Algorithm::Rsa { .. }, Op::Decrypt) => {
            let enc = init_ctx(api, &k, Op::Encrypt)?;
            let mut ct = vec![0u8; 4096];
            let mut len = ct.len();
            let msg = [0x5au8; 32];
            // SAFETY: owned buffers.
            if unsafe {
                (api.EVP_PKEY_encrypt)(enc.ptr, ct.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len())
            } <= 0
            {
                return Err(format!("EVP_PKEY_encrypt failed: {}", api.errors()));
            }
            ct.truncate(len);
            Loop::Decrypt {
                ctx: init_ctx(api, &k, Op::Decrypt)?,
                ct,
                out: vec![0; 4096],
            }
        }
        (Algorithm::Ecdh { .. } | Algorithm::Ffdh { .. }, Op::Derive) => {
            let peer = timing_key(api, algorithm)?;
            let ctx = init_ctx(api, &k, Op::Derive)?;
            // SAFETY: live context and key.
            if unsafe { (api.EVP_PKEY_derive_set_peer)(ctx.ptr, peer.ptr) } != 1 {
                return Err(format!("EVP_PKEY_derive_set_peer failed: {}", api.errors()));
            }
            keys.push(peer);
            Loop::Derive {
                ctx,
                out: vec![0; 1024],
            }
        }
        (alg, op) => return Err(format!("{op} is not an operation of {alg:?}")),
    };
    keys.push(k);
    Ok(Box::new(PkeyLoop {
        api,
        _keys: keys,
        op: lp,
    }))
}

/// Reads a BIGNUM parameter of a key as a number (OpenSSL 3).
fn bn_param(api: &Api, k: &Key, name: &str) -> Result<BigUint, String> {
    let n = CString::new(name).unwrap();
    // SAFETY: the BIGNUM and its hex string are freed before returning; RSA_get0_key's
    // BIGNUMs belong to the key and are duplicated before use.
    unsafe {
        let mut bn: Ptr = null_mut();
        match (
            api.EVP_PKEY_get_bn_param,
            api.EVP_PKEY_get0_RSA,
            api.RSA_get0_key,
            api.BN_dup,
        ) {
            (Some(get), _, _, _) => {
                if get(k.ptr, n.as_ptr(), &mut bn) != 1 {
                    return Err(format!("key has no parameter {name}: {}", api.errors()));
                }
            }
            // OpenSSL 1.1.1: the RSA modulus and exponent through the RSA object.
            (None, Some(get0_rsa), Some(get0_key), Some(dup)) if name == "n" || name == "e" => {
                let rsa = get0_rsa(k.ptr);
                if rsa.is_null() {
                    return Err(format!("not an RSA key: {}", api.errors()));
                }
                let (mut nn, mut ee): (Ptr, Ptr) = (null_mut(), null_mut());
                get0_key(rsa, &mut nn, &mut ee, null_mut());
                bn = dup(if name == "n" { nn } else { ee });
                if bn.is_null() {
                    return Err(format!("key has no parameter {name}"));
                }
            }
            (None, _, _, Some(dup)) if api.EVP_PKEY_get0_DH.is_some() => {
                bn = dup(dh_param(api, k, name)?);
            }
            _ => {
                return Err(format!(
                    "reading the key parameter {name} needs OpenSSL 3 (EVP_PKEY_get_bn_param)"
                ))
            }
        }
        let hex_ptr = (api.BN_bn2hex)(bn);
        let text = std::ffi::CStr::from_ptr(hex_ptr)
            .to_string_lossy()
            .into_owned();
        api.free(hex_ptr as *mut _);
        (api.BN_free)(bn);
        BigUint::parse_bytes(text.as_bytes(), 16).ok_or_else(|| format!("bad hex for {name}"))
    }
}

/// A DH key's p, priv or pub (borrowed from the key) through the 1.1.1-style accessors.
///
/// SAFETY: `k` is a live key; the result lives as long as it.
unsafe fn dh_param(api: &Api, k: &Key, name: &str) -> Result<Ptr, String> {
    let (Some(get0), Some(pqg), Some(keys)) =
        (api.EVP_PKEY_get0_DH, api.DH_get0_pqg, api.DH_get0_key)
    else {
        return Err("this libcrypto has no DH accessors".into());
    };
    let dh = get0(k.ptr);
    if dh.is_null() {
        return Err(format!("not a DH key: {}", api.errors()));
    }
    let (mut a, mut b): (Ptr, Ptr) = (null_mut(), null_mut());
    match name {
        "p" => pqg(dh, &mut a, null_mut(), null_mut()),
        "pub" | "priv" => keys(dh, &mut a, &mut b),
        _ => return Err(format!("a DH key has no parameter {name}")),
    }
    let bn = if name == "priv" { b } else { a };
    if bn.is_null() {
        return Err(format!("the DH key lacks {name}"));
    }
    Ok(bn)
}

pub(super) fn digest(api: &Api, name: &str, msg: &[u8]) -> Result<Vec<u8>, String> {
    let md = fetch_md(api, name)?;
    let mut out = [0u8; 64];
    let mut len = 0u32;
    // SAFETY: owned buffers.
    if unsafe {
        (api.EVP_Digest)(
            msg.as_ptr() as *const _,
            msg.len(),
            out.as_mut_ptr(),
            &mut len,
            md,
            null_mut(),
        )
    } != 1
    {
        return Err(format!("EVP_Digest failed: {}", api.errors()));
    }
    Ok(out[..len as usize].to_vec())
}

/// Runs one public-key known-answer vector or cross check.
pub fn known_answer(api: &Api, algorithm: &Algorithm, kat: &Kat) -> Result<(), String> {
    match (*algorithm, *kat) {
        (
            Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. },
            Kat::SignatureVerify {
                spki,
                digest: Some(md),
                msg,
                sig,
                ..
            },
        ) => {
            let k = spki_key(api, &unhex(spki))?;
            let ctx = init_ctx(api, &k, Op::Verify)?;
            let h = digest(api, md, &unhex(msg))?;
            let sig = unhex(sig);
            if !verify_once(api, &ctx, &h, &sig) {
                return Err("a published valid signature was rejected".into());
            }
            if verify_once(api, &ctx, &h, &corrupt(&sig)) {
                return Err("a corrupted signature was accepted".into());
            }
            Ok(())
        }
        (Algorithm::Eddsa { .. }, Kat::SignatureVerify { digest: None, .. }) => {
            eddsa_verify_known_answer(api, kat)
        }
        (Algorithm::Eddsa { curve }, Kat::EddsaSign { .. }) => {
            eddsa_sign_known_answer(api, curve, kat)
        }
        (
            Algorithm::Ecdh { curve },
            Kat::Agreement {
                private,
                peer_public,
                shared,
                ..
            },
        ) => {
            let (private, peer, want) = (unhex(private), unhex(peer_public), unhex(shared));
            let (own, other) = agreement_keys(api, curve, &private, &peer)?;
            let got = derive(api, &own, &other)?;
            (got == want).then_some(()).ok_or_else(|| {
                format!(
                    "shared secret: got {}, expected {}",
                    hex::encode(&got),
                    hex::encode(&want)
                )
            })
        }
        (Algorithm::Rsa { .. }, Kat::CrossCheck { .. }) => rsa_cross_check(api, algorithm),
        (
            Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. } | Algorithm::Eddsa { .. },
            Kat::CrossCheck { .. },
        ) => sign_verify_round_trip(api, algorithm),
        (Algorithm::Ecdh { .. }, Kat::CrossCheck { .. }) => {
            let (a, b) = (timing_key(api, algorithm)?, timing_key(api, algorithm)?);
            let (ab, ba) = (derive(api, &a, &b)?, derive(api, &b, &a)?);
            (ab == ba && !ab.is_empty())
                .then_some(())
                .ok_or_else(|| "the two directions derived different secrets".into())
        }
        (Algorithm::Ffdh { .. }, Kat::CrossCheck { .. }) => ffdh_cross_check(api, algorithm),
        (alg, kat) => Err(format!("no way to apply {kat:?} to {alg:?}")),
    }
}

/// An EdDSA signature from a SubjectPublicKeyInfo verifies; a corrupted one does not.
fn eddsa_verify_known_answer(api: &Api, kat: &Kat) -> Result<(), String> {
    let Kat::SignatureVerify { spki, msg, sig, .. } = *kat else {
        return Err(format!("vector {kat:?} is not a signature's"));
    };
    let k = spki_key(api, &unhex(spki))?;
    let mdctx = digest_sign_ctx(api, &k, false)?;
    let (msg, sig) = (unhex(msg), unhex(sig));
    // SAFETY: live context, owned buffers.
    let good =
        unsafe { (api.EVP_DigestVerify)(mdctx, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len()) };
    let bad_sig = corrupt(&sig);
    let m2 = digest_sign_ctx(api, &k, false)?;
    let bad = unsafe {
        (api.EVP_DigestVerify)(m2, bad_sig.as_ptr(), bad_sig.len(), msg.as_ptr(), msg.len())
    };
    unsafe {
        (api.EVP_MD_CTX_free)(mdctx);
        (api.EVP_MD_CTX_free)(m2);
        (api.ERR_clear_error)();
    }
    match (good, bad) {
        (1, 1) => Err("a corrupted signature was accepted".into()),
        (1, _) => Ok(()),
        _ => Err("a published valid signature was rejected".into()),
    }
}

/// RFC 8032's signature byte for byte, which the public key verifies.
fn eddsa_sign_known_answer(api: &Api, curve: Curve, kat: &Kat) -> Result<(), String> {
    let Kat::EddsaSign {
        private,
        public,
        msg,
        sig,
        ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not an EdDSA signing vector"));
    };
    let (private, public, msg, want) = (unhex(private), unhex(public), unhex(msg), unhex(sig));
    let got = eddsa_sign(api, &raw_key(api, curve, &private, true)?, &msg)?;
    if got != want {
        return Err(format!(
            "signature: got {}, expected {}",
            hex::encode(&got),
            hex::encode(&want)
        ));
    }
    let pk = raw_key(api, curve, &public, false)?;
    let v = digest_sign_ctx(api, &pk, false)?;
    let ok =
        unsafe { (api.EVP_DigestVerify)(v, want.as_ptr(), want.len(), msg.as_ptr(), msg.len()) };
    unsafe { (api.EVP_MD_CTX_free)(v) };
    (ok == 1)
        .then_some(())
        .ok_or_else(|| "the published signature does not verify".into())
}

/// Round trip with the timing key through the timed calls; the verifier itself is pinned by
/// the published vector.
fn sign_verify_round_trip(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let k = timing_key(api, algorithm)?;
    let tbs: Vec<u8> = (0..tbs_len(algorithm) as u8).collect();
    if let Algorithm::Eddsa { .. } = algorithm {
        let s = digest_sign_ctx(api, &k, true)?;
        let sig = digest_sign(api, s, &tbs);
        unsafe { (api.EVP_MD_CTX_free)(s) };
        let sig = sig?;
        for (candidate, want) in [(sig.clone(), 1), (corrupt(&sig), 0)] {
            let v = digest_sign_ctx(api, &k, false)?;
            let r = unsafe {
                (api.EVP_DigestVerify)(
                    v,
                    candidate.as_ptr(),
                    candidate.len(),
                    tbs.as_ptr(),
                    tbs.len(),
                )
            };
            unsafe {
                (api.EVP_MD_CTX_free)(v);
                (api.ERR_clear_error)()
            };
            if (r == 1) != (want == 1) {
                return Err(if want == 1 {
                    "own signature rejected".into()
                } else {
                    "corrupted signature accepted".into()
                });
            }
        }
        return Ok(());
    }
    let sig = sign_once(api, &init_ctx(api, &k, Op::Sign)?, &tbs)?;
    let v = init_ctx(api, &k, Op::Verify)?;
    if !verify_once(api, &v, &tbs, &sig) {
        return Err("own signature rejected".into());
    }
    if verify_once(api, &v, &tbs, &corrupt(&sig)) {
        return Err("corrupted signature accepted".into());
    }
    Ok(())
}

/// FFDH: both directions derive the same secret, and it is pub_b^priv_a mod p.
fn ffdh_cross_check(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let (a, b) = (timing_key(api, algorithm)?, timing_key(api, algorithm)?);
    let (ab, ba) = (derive(api, &a, &b)?, derive(api, &b, &a)?);
    if ab != ba {
        return Err("the two directions derived different secrets".into());
    }
    let (p, priv_a, pub_b) = (
        bn_param(api, &a, "p")?,
        bn_param(api, &a, "priv")?,
        bn_param(api, &b, "pub")?,
    );
    let want = pub_b.modpow(&priv_a, &p);
    (BigUint::from_bytes_be(&ab) == want)
        .then_some(())
        .ok_or_else(|| "shared secret differs from pub_b^priv_a mod p".into())
}

/// RSA: the PKCS#1 v1.5 signature of the timed 36-byte message, checked by recomputing
/// s^e mod n outside the library; verification and encryption round trips.
fn rsa_cross_check(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let k = timing_key(api, algorithm)?;
    let tbs: Vec<u8> = (0..36u8).collect();
    let sig = sign_once(api, &init_ctx(api, &k, Op::Sign)?, &tbs)?;
    let (n, e) = (bn_param(api, &k, "n")?, bn_param(api, &k, "e")?);
    let k_len = (n.bits() as usize).div_ceil(8);
    let mut em = vec![0u8, 1];
    em.extend(std::iter::repeat_n(0xffu8, k_len - 3 - tbs.len()));
    em.push(0);
    em.extend_from_slice(&tbs);
    if BigUint::from_bytes_be(&sig).modpow(&e, &n) != BigUint::from_bytes_be(&em) {
        return Err("s^e mod n is not the PKCS#1 v1.5 encoding of the message".into());
    }
    let v = init_ctx(api, &k, Op::Verify)?;
    if !verify_once(api, &v, &tbs, &sig) {
        return Err("own signature rejected".into());
    }
    if verify_once(api, &v, &tbs, &corrupt(&sig)) {
        return Err("corrupted signature accepted".into());
    }
    let msg = [0x5au8; 32];
    let enc = init_ctx(api, &k, Op::Encrypt)?;
    let dec = init_ctx(api, &k, Op::Decrypt)?;
    let mut ct = vec![0u8; 4096];
    let mut pt = vec![0u8; 4096];
    let (mut cl, mut pl) = (ct.len(), pt.len());
    // SAFETY: owned buffers large enough for a 15360-bit modulus.
    unsafe {
        if (api.EVP_PKEY_encrypt)(enc.ptr, ct.as_mut_ptr(), &mut cl, msg.as_ptr(), msg.len()) <= 0
            || (api.EVP_PKEY_decrypt)(dec.ptr, pt.as_mut_ptr(), &mut pl, ct.as_ptr(), cl) <= 0
        {
            return Err(format!("encryption round trip failed: {}", api.errors()));
        }
    }
    (pt[..pl] == msg)
        .then_some(())
        .ok_or_else(|| "decryption did not return the plaintext".into())
}
