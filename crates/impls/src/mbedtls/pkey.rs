//! Mbed TLS 2.28's public key: RSA and ECDSA through the generic `mbedtls_pk` layer (the calls
//! its TLS stack makes), ECDH and X25519/X448 through `mbedtls_ecdh_compute_shared`, FFDH in
//! RFC 7919's ffdhe2048 through `mbedtls_dhm`. Mbed TLS 2.28 has no EdDSA and no DSA.
//!
//! The structs are opaque here except `mbedtls_pk_context`, whose two public fields (info,
//! context) 2.28 documents, and `mbedtls_dhm_context`'s private exponent X (a public field in
//! 2.28, at offset 56 by `offsetof` against Debian's headers); each lives in a zeroed buffer larger than the Debian build's struct
//! (`sizeof` against its headers: entropy 37960, ctr_drbg 392, ecp_group 248 bytes).

use crate::pkey_der::{ec_spki, pad_to, rsa_pkcs8};
use crate::suite::{ffdh_prime, field_bytes, spki_point, DeriveFn, Res, Signer};
use cryptospeed_catalog::agreement::signature_digest;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::null;
use std::sync::Arc;

type Ctx = *mut c_void;
type Info = *const c_void;
type RngFn = unsafe extern "C" fn(Ctx, *mut u8, usize) -> c_int;

crate::dynamic_api! {
    PkApi, "libmbedcrypto with public key";
    required {
        mbedtls_md_info_from_string: fn(*const c_char) -> Info;
        mbedtls_md_get_type: fn(Info) -> c_int;
        mbedtls_md: fn(Info, *const u8, usize, *mut u8) -> c_int;
        mbedtls_entropy_init: fn(Ctx);
        mbedtls_entropy_free: fn(Ctx);
        mbedtls_entropy_func: fn(Ctx, *mut u8, usize) -> c_int;
        mbedtls_ctr_drbg_init: fn(Ctx);
        mbedtls_ctr_drbg_free: fn(Ctx);
        mbedtls_ctr_drbg_seed: fn(Ctx, RngFn, Ctx, *const u8, usize) -> c_int;
        mbedtls_ctr_drbg_random: fn(Ctx, *mut u8, usize) -> c_int;
        mbedtls_pk_init: fn(Ctx);
        mbedtls_pk_free: fn(Ctx);
        mbedtls_pk_info_from_type: fn(c_int) -> Info;
        mbedtls_pk_setup: fn(Ctx, Info) -> c_int;
        mbedtls_pk_parse_key: fn(Ctx, *const u8, usize, *const u8, usize) -> c_int;
        mbedtls_pk_parse_public_key: fn(Ctx, *const u8, usize) -> c_int;
        mbedtls_pk_write_pubkey_der: fn(Ctx, *mut u8, usize) -> c_int;
        mbedtls_pk_sign: fn(Ctx, c_int, *const u8, usize, *mut u8, *mut usize, RngFn, Ctx) -> c_int;
        mbedtls_pk_verify: fn(Ctx, c_int, *const u8, usize, *const u8, usize) -> c_int;
        mbedtls_ecdsa_write_signature: fn(Ctx, c_int, *const u8, usize, *mut u8, *mut usize, RngFn, Ctx) -> c_int;
        mbedtls_ecp_gen_key: fn(c_int, Ctx, RngFn, Ctx) -> c_int;
        mbedtls_ecp_group_init: fn(Ctx);
        mbedtls_ecp_group_free: fn(Ctx);
        mbedtls_ecp_group_load: fn(Ctx, c_int) -> c_int;
        mbedtls_ecp_point_init: fn(Ctx);
        mbedtls_ecp_point_free: fn(Ctx);
        mbedtls_ecp_point_read_binary: fn(Ctx, Ctx, *const u8, usize) -> c_int;
        mbedtls_mpi_init: fn(Ctx);
        mbedtls_mpi_free: fn(Ctx);
        mbedtls_mpi_read_binary: fn(Ctx, *const u8, usize) -> c_int;
        mbedtls_mpi_read_binary_le: fn(Ctx, *const u8, usize) -> c_int;
        mbedtls_mpi_write_binary: fn(Ctx, *mut u8, usize) -> c_int;
        mbedtls_mpi_write_binary_le: fn(Ctx, *mut u8, usize) -> c_int;
        mbedtls_ecdh_compute_shared: fn(Ctx, Ctx, Ctx, Ctx, RngFn, Ctx) -> c_int;
        mbedtls_dhm_init: fn(Ctx);
        mbedtls_dhm_free: fn(Ctx);
        mbedtls_dhm_set_group: fn(Ctx, Ctx, Ctx) -> c_int;
        mbedtls_dhm_make_public: fn(Ctx, c_int, *mut u8, usize, RngFn, Ctx) -> c_int;
        mbedtls_dhm_read_public: fn(Ctx, *const u8, usize) -> c_int;
        mbedtls_dhm_calc_secret: fn(Ctx, *mut u8, usize, *mut usize, RngFn, Ctx) -> c_int;
    }
    optional {}
}

// Constants from mbedtls/{pk,ecp,bignum}.h (2.28).
const PK_ECKEY: c_int = 2;
/// MBEDTLS_MPI_MAX_SIZE is 1024 bytes: no number, so no RSA modulus, above 8192 bits.
const MPI_MAX_BITS: u32 = 8192;
/// Bytes given to the entropy context (37960 bytes) and to each of the others (at most 392).
const ENTROPY_BYTES: usize = 65536;
const SMALL_BYTES: usize = 4096;

fn check(rc: c_int, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned -{:#x}", -rc))
    }
}

/// One opaque struct in a zeroed buffer, initialised on creation and freed on drop by the
/// library's pair of calls.
struct Obj {
    api: Arc<PkApi>,
    buf: Box<[u128]>,
    free: unsafe extern "C" fn(Ctx),
}
impl Obj {
    fn new(
        api: &Arc<PkApi>,
        init: unsafe extern "C" fn(Ctx),
        free: unsafe extern "C" fn(Ctx),
    ) -> Obj {
        Obj::sized(api, SMALL_BYTES, init, free)
    }
    fn sized(
        api: &Arc<PkApi>,
        bytes: usize,
        init: unsafe extern "C" fn(Ctx),
        free: unsafe extern "C" fn(Ctx),
    ) -> Obj {
        let o = Obj {
            api: api.clone(),
            buf: vec![0u128; bytes / 16].into_boxed_slice(),
            free,
        };
        // SAFETY: the buffer is larger than the struct `init` initialises.
        unsafe { init(o.ptr()) };
        o
    }
    fn ptr(&self) -> Ctx {
        self.buf.as_ptr() as Ctx
    }
}
impl Drop for Obj {
    fn drop(&mut self) {
        let _keep = &self.api;
        // SAFETY: initialised in `new`, freed once.
        unsafe { (self.free)(self.ptr()) }
    }
}

/// A CTR-DRBG seeded from the platform entropy, as the Mbed TLS examples set one up. The
/// DRBG keeps a pointer to the entropy context, so both stay in their heap buffers.
pub(super) struct Drbg {
    drbg: Obj,
    _entropy: Obj,
}
impl Drbg {
    fn new(api: &Arc<PkApi>) -> Res<Drbg> {
        let (init, free) = (api.mbedtls_entropy_init, api.mbedtls_entropy_free);
        let entropy = Obj::sized(api, ENTROPY_BYTES, init, free);
        let drbg = Obj::new(api, api.mbedtls_ctr_drbg_init, api.mbedtls_ctr_drbg_free);
        let pers = b"cryptospeed";
        // SAFETY: initialised contexts; the personalisation string with its length.
        check(
            unsafe {
                (api.mbedtls_ctr_drbg_seed)(
                    drbg.ptr(),
                    api.mbedtls_entropy_func,
                    entropy.ptr(),
                    pers.as_ptr(),
                    pers.len(),
                )
            },
            "mbedtls_ctr_drbg_seed",
        )?;
        Ok(Drbg {
            drbg,
            _entropy: entropy,
        })
    }
    fn f(&self) -> RngFn {
        self.drbg.api.mbedtls_ctr_drbg_random
    }
}

/// (md type, hash) of `msg` with the named digest, through `mbedtls_md`.
fn hash(api: &PkApi, digest: &str, msg: &[u8]) -> Res<(c_int, Vec<u8>)> {
    let name = CString::new(digest).map_err(|e| e.to_string())?;
    // SAFETY: NUL-terminated name; static info; out holds any digest up to SHA-512.
    unsafe {
        let info = (api.mbedtls_md_info_from_string)(name.as_ptr());
        if info.is_null() {
            return Err(format!("this mbedtls has no {digest}"));
        }
        let mut out = vec![0u8; 64];
        check(
            (api.mbedtls_md)(info, msg.as_ptr(), msg.len(), out.as_mut_ptr()),
            "mbedtls_md",
        )?;
        out.truncate(match digest {
            "SHA256" => 32,
            "SHA384" => 48,
            _ => 64,
        });
        Ok(((api.mbedtls_md_get_type)(info), out))
    }
}

/// RSA (PKCS#1 v1.5, the pk layer's default padding) or ECDSA through `mbedtls_pk_sign` of
/// the message's digest. ECDSA signing is deterministic (RFC 6979): Debian's build defines
/// MBEDTLS_ECDSA_DETERMINISTIC, so `mbedtls_pk_sign` derives k with HMAC-DRBG.
struct PkSigner {
    api: Arc<PkApi>,
    pk: Obj,
    rng: Drbg,
    digest: &'static str,
    curve: Option<Curve>,
}

fn pk(api: &Arc<PkApi>) -> Obj {
    Obj::new(api, api.mbedtls_pk_init, api.mbedtls_pk_free)
}

fn rsa_signer(api: &Arc<PkApi>, bits: u32, der: &[u8]) -> Res<PkSigner> {
    if bits > MPI_MAX_BITS {
        return Err(format!(
            "Mbed TLS 2.28 caps numbers at {MPI_MAX_BITS} bits (MBEDTLS_MPI_MAX_SIZE)"
        ));
    }
    rsa_pkcs8(der)?;
    let pk = pk(api);
    // SAFETY: initialised context; the DER with its length, no password.
    check(
        unsafe { (api.mbedtls_pk_parse_key)(pk.ptr(), der.as_ptr(), der.len(), null(), 0) },
        "mbedtls_pk_parse_key",
    )?;
    Ok(PkSigner {
        api: api.clone(),
        pk,
        rng: Drbg::new(api)?,
        digest: "SHA256",
        curve: None,
    })
}

fn ecp_id(curve: Curve) -> c_int {
    // mbedtls_ecp_group_id.
    match curve {
        Curve::P256 => 3,
        Curve::P384 => 4,
        Curve::P521 => 5,
        Curve::X25519 => 9,
        _ => 13, // Curve448
    }
}

fn ecdsa_signer(api: &Arc<PkApi>, curve: Curve, digest: &'static str) -> Res<PkSigner> {
    let pk = pk(api);
    let rng = Drbg::new(api)?;
    // SAFETY: initialised context; after setup its second field points at the
    // mbedtls_ecp_keypair, which gen_key fills.
    unsafe {
        let info = (api.mbedtls_pk_info_from_type)(PK_ECKEY);
        check((api.mbedtls_pk_setup)(pk.ptr(), info), "mbedtls_pk_setup")?;
        let keypair = *(pk.ptr() as *const Ctx).add(1);
        check(
            (api.mbedtls_ecp_gen_key)(ecp_id(curve), keypair, rng.f(), rng.drbg.ptr()),
            "mbedtls_ecp_gen_key",
        )?;
    }
    Ok(PkSigner {
        api: api.clone(),
        pk,
        rng,
        digest,
        curve: Some(curve),
    })
}

fn pk_verify(api: &PkApi, pk: &Obj, digest: &str, msg: &[u8], sig: &[u8]) -> Res<bool> {
    let (md, h) = hash(api, digest, msg)?;
    // SAFETY: a parsed key; buffers with their lengths.
    Ok(unsafe {
        (api.mbedtls_pk_verify)(pk.ptr(), md, h.as_ptr(), h.len(), sig.as_ptr(), sig.len())
    } == 0)
}

impl Signer for PkSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let (md, h) = hash(&self.api, self.digest, msg)?;
        // MBEDTLS_PK_SIGNATURE_MAX_SIZE is the MPI limit, 1024 bytes.
        let mut sig = vec![0u8; 1024];
        let mut len = 0usize;
        // ECDSA signs on the key pair itself, as pk_sign does for a PK_ECDSA context and Mbed
        // TLS's benchmark does: pk_sign on this PK_ECKEY context copies the pair into a fresh
        // ECDSA context per call, losing the group's precomputed table (2.2x slower,
        // docs/experiments/crosscheck.md).
        let sign = if self.curve.is_some() {
            self.api.mbedtls_ecdsa_write_signature
        } else {
            self.api.mbedtls_pk_sign
        };
        let ctx = match self.curve {
            // SAFETY: after pk_setup(ECKEY) the context's second field is the mbedtls_ecp_keypair,
            // which is what mbedtls_ecdsa_context is.
            Some(_) => unsafe { *(self.pk.ptr() as *const Ctx).add(1) },
            None => self.pk.ptr(),
        };
        // SAFETY: a parsed key; sig is MBEDTLS_PK_SIGNATURE_MAX_SIZE; live DRBG.
        check(
            unsafe {
                (sign)(
                    ctx,
                    md,
                    h.as_ptr(),
                    h.len(),
                    sig.as_mut_ptr(),
                    &mut len,
                    self.rng.f(),
                    self.rng.drbg.ptr(),
                )
            },
            "mbedtls_pk_sign / mbedtls_ecdsa_write_signature",
        )?;
        sig.truncate(len);
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        pk_verify(&self.api, &self.pk, self.digest, msg, sig)
    }
    /// The SEC1 point: the tail of the SubjectPublicKeyInfo that `mbedtls_pk_write_pubkey_der`
    /// writes at the end of its buffer (empty for RSA, which needs none).
    fn public(&self) -> Vec<u8> {
        let Some(curve) = self.curve else {
            return Vec::new();
        };
        let mut buf = vec![0u8; 512];
        // SAFETY: a parsed key; the buffer with its length.
        let n = unsafe {
            (self.api.mbedtls_pk_write_pubkey_der)(self.pk.ptr(), buf.as_mut_ptr(), buf.len())
        };
        let spki = &buf[buf.len() - n.max(0) as usize..];
        spki_point(curve, spki)
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    }
}

pub fn signer(api: &Arc<PkApi>, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
    match (p.algorithm, key) {
        (Algorithm::Rsa { bits }, Some(der)) => Ok(Box::new(rsa_signer(api, bits, der)?)),
        (Algorithm::Ecdsa { curve }, None) => {
            let digest = signature_digest(&p.algorithm).unwrap_or("SHA256");
            Ok(Box::new(ecdsa_signer(api, curve, digest)?))
        }
        (Algorithm::Eddsa { .. }, _) => Err("Mbed TLS 2.28 has no EdDSA".into()),
        (Algorithm::Dsa { .. }, _) => Err("Mbed TLS has no DSA".into()),
        _ => Err(format!("mbedtls does not offer {}", p.id)),
    }
}

/// Verifies another library's ECDSA signature: the SEC1 point wrapped as a
/// SubjectPublicKeyInfo for `mbedtls_pk_parse_public_key`.
pub fn verify_foreign(
    api: &Arc<PkApi>,
    p: &Primitive,
    public: &[u8],
    digest: &str,
    msg: &[u8],
    sig: &[u8],
) -> Res<bool> {
    let Algorithm::Ecdsa { curve } = p.algorithm else {
        return Err(format!("mbedtls does not verify {} signatures", p.id));
    };
    let spki = ec_spki(curve, public)?;
    let pk = pk(api);
    // SAFETY: initialised context; the DER with its length.
    check(
        unsafe { (api.mbedtls_pk_parse_public_key)(pk.ptr(), spki.as_ptr(), spki.len()) },
        "mbedtls_pk_parse_public_key",
    )?;
    pk_verify(api, &pk, digest, msg, sig)
}

/// RFC 7748 clamping, which Mbed TLS expects done: it checks that a Montgomery private key
/// has its cofactor bits clear and its top bit set.
fn clamp(curve: Curve, k: &[u8]) -> Vec<u8> {
    let mut k = k.to_vec();
    let last = k.len() - 1;
    if curve == Curve::X25519 {
        k[0] &= 248;
        k[last] = (k[last] & 127) | 64;
    } else {
        k[0] &= 252;
        k[last] |= 128;
    }
    k
}

/// ECDH, X25519 and X448: the group, private scalar and peer point are loaded once; the timed
/// call is `mbedtls_ecdh_compute_shared` (with point blinding from the DRBG) and writing the
/// shared x coordinate out (little-endian for the Montgomery curves, as RFC 7748 has it).
pub fn derive(api: &Arc<PkApi>, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    if let Algorithm::Ffdh { .. } = p.algorithm {
        return ffdh(api, p, private, peer);
    }
    let Algorithm::Ecdh { curve } = p.algorithm else {
        return Err(format!("mbedtls does not offer {}", p.id));
    };
    let montgomery = matches!(curve, Curve::X25519 | Curve::X448);
    let grp = Obj::new(api, api.mbedtls_ecp_group_init, api.mbedtls_ecp_group_free);
    let d = Obj::new(api, api.mbedtls_mpi_init, api.mbedtls_mpi_free);
    let z = Obj::new(api, api.mbedtls_mpi_init, api.mbedtls_mpi_free);
    let q = Obj::new(api, api.mbedtls_ecp_point_init, api.mbedtls_ecp_point_free);
    let rng = Drbg::new(api)?;
    // SAFETY: initialised structs; buffers with their lengths.
    unsafe {
        check(
            (api.mbedtls_ecp_group_load)(grp.ptr(), ecp_id(curve)),
            "mbedtls_ecp_group_load",
        )?;
        let rc = if montgomery {
            let k = clamp(curve, private);
            (api.mbedtls_mpi_read_binary_le)(d.ptr(), k.as_ptr(), k.len())
        } else {
            (api.mbedtls_mpi_read_binary)(d.ptr(), private.as_ptr(), private.len())
        };
        check(rc, "mbedtls_mpi_read_binary")?;
        let rc = (api.mbedtls_ecp_point_read_binary)(grp.ptr(), q.ptr(), peer.as_ptr(), peer.len());
        check(rc, "mbedtls_ecp_point_read_binary")?;
    }
    let (api, n) = (api.clone(), field_bytes(curve));
    Ok(Box::new(move || {
        let mut out = vec![0u8; n];
        // SAFETY: loaded group, scalar and point; out holds one field element.
        unsafe {
            let (f, r) = (rng.f(), rng.drbg.ptr());
            let rc = (api.mbedtls_ecdh_compute_shared)(grp.ptr(), z.ptr(), q.ptr(), d.ptr(), f, r);
            check(rc, "mbedtls_ecdh_compute_shared")?;
            let write = if montgomery {
                api.mbedtls_mpi_write_binary_le
            } else {
                api.mbedtls_mpi_write_binary
            };
            check(
                write(z.ptr(), out.as_mut_ptr(), n),
                "mbedtls_mpi_write_binary",
            )?;
        }
        Ok(out)
    }))
}

/// `offsetof(mbedtls_dhm_context, X)` in 2.28: after `size_t len` and the mpis P and G.
const DHM_X_OFFSET: usize = 56;
/// Bytes of ffdhe2048's p, and of the private exponents drawn for it.
const FFDH_BYTES: usize = 256;
const FFDH_PRIVATE_BYTES: c_int = 28;

/// A DHM context set to the primitive's RFC 7919 group (p from [`ffdh_prime`], g = 2).
fn dhm(api: &Arc<PkApi>, p: &Primitive) -> Res<Obj> {
    let Algorithm::Ffdh { group, .. } = p.algorithm else {
        return Err(format!("mbedtls does not offer {}", p.id));
    };
    let prime = ffdh_prime(group)?.to_bytes_be();
    let ctx = Obj::new(api, api.mbedtls_dhm_init, api.mbedtls_dhm_free);
    let pm = Obj::new(api, api.mbedtls_mpi_init, api.mbedtls_mpi_free);
    let g = Obj::new(api, api.mbedtls_mpi_init, api.mbedtls_mpi_free);
    // SAFETY: initialised context and mpis; buffers with their lengths (set_group copies).
    unsafe {
        check(
            (api.mbedtls_mpi_read_binary)(pm.ptr(), prime.as_ptr(), prime.len()),
            "mbedtls_mpi_read_binary",
        )?;
        check(
            (api.mbedtls_mpi_read_binary)(g.ptr(), [2u8].as_ptr(), 1),
            "mbedtls_mpi_read_binary",
        )?;
        check(
            (api.mbedtls_dhm_set_group)(ctx.ptr(), pm.ptr(), g.ptr()),
            "mbedtls_dhm_set_group",
        )?;
    }
    Ok(ctx)
}

fn dhm_x(ctx: &Obj) -> Ctx {
    // SAFETY (of the caller's use): X is an mbedtls_mpi inside the context's buffer.
    ctx.ptr().cast::<u8>().wrapping_add(DHM_X_OFFSET).cast()
}

/// An FFDH key pair from `mbedtls_dhm_make_public` with a 224-bit private exponent: what
/// OpenSSL draws for ffdhe2048 (twice the group's 112-bit strength, RFC 7919 section 5.2;
/// wolfCrypt draws 232 bits), where Mbed TLS's own TLS code would ask for a p-sized one.
pub fn ffdh_keygen(api: &Arc<PkApi>, p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
    let (ctx, rng) = (dhm(api, p)?, Drbg::new(api)?);
    let (mut x, mut y) = (vec![0u8; FFDH_BYTES], vec![0u8; FFDH_BYTES]);
    // SAFETY: a set-up context, live DRBG; both buffers are p's size.
    unsafe {
        let (f, r) = (rng.f(), rng.drbg.ptr());
        let rc = (api.mbedtls_dhm_make_public)(
            ctx.ptr(),
            FFDH_PRIVATE_BYTES,
            y.as_mut_ptr(),
            y.len(),
            f,
            r,
        );
        check(rc, "mbedtls_dhm_make_public")?;
        check(
            (api.mbedtls_mpi_write_binary)(dhm_x(&ctx), x.as_mut_ptr(), x.len()),
            "mbedtls_mpi_write_binary",
        )?;
    }
    Ok((x, y))
}

/// FFDH: private exponent and peer value loaded once; the timed call is
/// `mbedtls_dhm_calc_secret` (blinded from the DRBG), padded to p's length as TLS 1.3 does.
fn ffdh(api: &Arc<PkApi>, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let (ctx, rng) = (dhm(api, p)?, Drbg::new(api)?);
    // SAFETY: a set-up context; buffers with their lengths.
    unsafe {
        check(
            (api.mbedtls_mpi_read_binary)(dhm_x(&ctx), private.as_ptr(), private.len()),
            "mbedtls_mpi_read_binary",
        )?;
        check(
            (api.mbedtls_dhm_read_public)(ctx.ptr(), peer.as_ptr(), peer.len()),
            "mbedtls_dhm_read_public",
        )?;
    }
    let api = api.clone();
    Ok(Box::new(move || {
        let mut out = vec![0u8; FFDH_BYTES];
        let mut len = 0usize;
        // SAFETY: a loaded context, live DRBG; out is p's size.
        unsafe {
            let (f, r) = (rng.f(), rng.drbg.ptr());
            let rc = (api.mbedtls_dhm_calc_secret)(
                ctx.ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut len,
                f,
                r,
            );
            check(rc, "mbedtls_dhm_calc_secret")?;
        }
        Ok(pad_to(&out[..len], FFDH_BYTES))
    }))
}
