//! Public-key operations through EVP_PKEY: the keys (shipped PEM test keys for RSA and DSA, whose
//! generation would take minutes; fresh keys for elliptic curves and FFDH), the timed loops that
//! mirror `openssl speed`, and the known-answer and cross checks.

mod kat;
mod timed;

pub(crate) use kat::digest;
pub use kat::known_answer;
pub use timed::prepare;
pub(crate) use timed::{derive, digest_sign, digest_sign_ctx, init_ctx, sign_once, verify_once};

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
    (512, include_str!("../../../../catalog/keys/rsa-512.pem")),
    (1024, include_str!("../../../../catalog/keys/rsa-1024.pem")),
    (2048, include_str!("../../../../catalog/keys/rsa-2048.pem")),
    (3072, include_str!("../../../../catalog/keys/rsa-3072.pem")),
    (4096, include_str!("../../../../catalog/keys/rsa-4096.pem")),
    (7680, include_str!("../../../../catalog/keys/rsa-7680.pem")),
    (
        15360,
        include_str!("../../../../catalog/keys/rsa-15360.pem"),
    ),
];
const DSA_KEYS: &[(u32, &str)] = &[
    (1024, include_str!("../../../../catalog/keys/dsa-1024.pem")),
    (2048, include_str!("../../../../catalog/keys/dsa-2048.pem")),
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
