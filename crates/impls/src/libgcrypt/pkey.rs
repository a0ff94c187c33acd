//! libgcrypt's public key, which speaks S-expressions: keys, data and signatures are built with
//! `gcry_sexp_build_array` and taken apart with `gcry_sexp_find_token`, as GnuPG does. RSA
//! (PKCS#1 v1.5 over SHA-256), DSA and ECDSA go through `gcry_pk_sign`/`gcry_pk_verify`, Ed25519
//! and Ed448 likewise with the `eddsa` flag, ECDH through `gcry_pk_decrypt` (d × peer point, the
//! call GnuPG makes), X25519/X448 through `gcry_ecc_mul_point`. libgcrypt has no Diffie-Hellman
//! over finite fields (only `gcry_mpi_powm`), so FFDH is not offered.

use super::ed448;
use crate::pkey_der::{dsa_pkcs8, dsa_spki, pad_to, rsa_pkcs8, sig_from_der, sig_to_der};
use crate::suite::{field_bytes, DeriveFn, Res, Signer};
use cryptospeed_catalog::agreement::signature_digest;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::ptr::{null, null_mut};
use std::sync::Arc;

type Sexp = *mut c_void;
type Err = c_uint;

/// `GCRY_PK_GET_PUBKEY` from gcrypt.h.
const GET_PUBKEY: c_int = 1;

crate::dynamic_api! {
    PkApi, "libgcrypt with public key";
    required {
        gcry_md_hash_buffer: fn(c_int, *mut c_void, *const c_void, usize);
        gcry_sexp_build_array: fn(*mut Sexp, *mut usize, *const c_char, *mut *mut c_void) -> Err;
        gcry_sexp_find_token: fn(Sexp, *const c_char, usize) -> Sexp;
        gcry_sexp_nth_data: fn(Sexp, c_int, *mut usize) -> *const c_char;
        gcry_sexp_release: fn(Sexp);
        gcry_pk_genkey: fn(*mut Sexp, Sexp) -> Err;
        gcry_pk_sign: fn(*mut Sexp, Sexp, Sexp) -> Err;
        gcry_pk_verify: fn(Sexp, Sexp, Sexp) -> Err;
        gcry_pk_decrypt: fn(*mut Sexp, Sexp, Sexp) -> Err;
        gcry_ecc_mul_point: fn(c_int, *mut u8, *const u8, *const u8) -> Err;
        gcry_strerror: fn(Err) -> *const c_char;
        gcry_mpi_ec_new: fn(*mut *mut c_void, Sexp, *const c_char) -> Err;
        gcry_pubkey_get_sexp: fn(*mut Sexp, c_int, *mut c_void) -> Err;
        gcry_ctx_release: fn(*mut c_void);
    }
    optional {}
}

fn check(api: &PkApi, rc: Err, what: &str) -> Res<()> {
    if rc == 0 {
        return Ok(());
    }
    // SAFETY: gcry_strerror returns a static string.
    let why = unsafe { CStr::from_ptr((api.gcry_strerror)(rc)) };
    Err(format!("{what} failed: {}", why.to_string_lossy()))
}

/// An S-expression released on drop.
struct S {
    api: Arc<PkApi>,
    ptr: Sexp,
}
impl Drop for S {
    fn drop(&mut self) {
        // SAFETY: owned S-expression (or NULL, which gcry_sexp_release accepts), released once.
        unsafe { (self.api.gcry_sexp_release)(self.ptr) }
    }
}

/// `gcry_sexp_build_array` with one `%b` (length, bytes) argument per buffer.
fn build(api: &Arc<PkApi>, format: &str, bufs: &[&[u8]]) -> Res<S> {
    let fmt = CString::new(format).map_err(|e| e.to_string())?;
    let lens: Vec<c_int> = bufs.iter().map(|b| b.len() as c_int).collect();
    let ptrs: Vec<*const u8> = bufs.iter().map(|b| b.as_ptr()).collect();
    let mut args: Vec<*mut c_void> = Vec::with_capacity(2 * bufs.len());
    for i in 0..bufs.len() {
        args.push(&lens[i] as *const c_int as *mut c_void);
        args.push(&ptrs[i] as *const *const u8 as *mut c_void);
    }
    let mut out = S {
        api: api.clone(),
        ptr: null_mut(),
    };
    // SAFETY: each %b reads an int then a pointer through the argument array, both of which
    // outlive the call; the buffers are copied into the S-expression.
    let rc = unsafe {
        (api.gcry_sexp_build_array)(&mut out.ptr, null_mut(), fmt.as_ptr(), args.as_mut_ptr())
    };
    check(api, rc, "gcry_sexp_build_array")?;
    Ok(out)
}

/// The sub-list starting with `token`, if any.
fn find(s: &S, token: &str) -> Option<S> {
    let t = CString::new(token).ok()?;
    // SAFETY: a live S-expression; toklen 0 means NUL-terminated.
    let ptr = unsafe { (s.api.gcry_sexp_find_token)(s.ptr, t.as_ptr(), 0) };
    (!ptr.is_null()).then(|| S {
        api: s.api.clone(),
        ptr,
    })
}

/// The bytes after `token` in `(token bytes)`.
fn data(s: &S, token: &str) -> Res<Vec<u8>> {
    let t = find(s, token).ok_or_else(|| format!("no ({token} …) in the result"))?;
    let mut len = 0usize;
    // SAFETY: a live sub-list; the returned pointer is valid while it lives.
    let p = unsafe { (s.api.gcry_sexp_nth_data)(t.ptr, 1, &mut len) };
    if p.is_null() {
        return Err(format!("({token} …) has no data"));
    }
    // SAFETY: len bytes at p, copied before `t` is released.
    Ok(unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec())
}

fn hash(api: &PkApi, digest: &str, msg: &[u8]) -> Res<(&'static str, Vec<u8>)> {
    let (algo, name, len) = match digest {
        "SHA256" => (8, "sha256", 32),
        "SHA384" => (9, "sha384", 48),
        "SHA512" => (10, "sha512", 64),
        _ => return Err(format!("libgcrypt: no digest {digest} here")),
    };
    let mut out = vec![0u8; len];
    // SAFETY: out has the digest's length.
    unsafe {
        (api.gcry_md_hash_buffer)(
            algo,
            out.as_mut_ptr().cast(),
            msg.as_ptr().cast(),
            msg.len(),
        )
    };
    Ok((name, out))
}

/// Unsigned numbers in S-expressions get a leading zero byte so no reading takes them as
/// negative.
fn mpi(v: &[u8]) -> Vec<u8> {
    [&[0u8][..], v].concat()
}

/// The scheme of a signer: how the data is wrapped and the signature taken apart.
#[derive(Clone, Copy, PartialEq)]
enum Scheme {
    Rsa { len: usize },
    Dsa,
    Ecdsa,
    Eddsa(Curve),
}

struct GcrySigner {
    api: Arc<PkApi>,
    scheme: Scheme,
    digest: &'static str,
    private: S,
    public: S,
    /// ECDSA: the SEC1 point of the generated key; EdDSA: the raw public key.
    point: Vec<u8>,
}

/// The data S-expression that is signed: the library's hash of the message for RSA (PKCS#1
/// v1.5 DigestInfo), DSA and ECDSA (truncated to the group order by libgcrypt), the message
/// itself for EdDSA.
fn data_sexp(api: &Arc<PkApi>, scheme: Scheme, digest: &str, msg: &[u8]) -> Res<S> {
    match scheme {
        Scheme::Rsa { .. } => {
            let (name, h) = hash(api, digest, msg)?;
            build(api, &format!("(data (flags pkcs1)(hash {name} %b))"), &[&h])
        }
        Scheme::Dsa | Scheme::Ecdsa => {
            let (_, h) = hash(api, digest, msg)?;
            build(api, "(data (flags raw)(value %b))", &[&h])
        }
        Scheme::Eddsa(Curve::Ed448) => build(
            api,
            "(data (flags eddsa)(hash-algo shake256)(value %b))",
            &[msg],
        ),
        Scheme::Eddsa(_) => build(
            api,
            "(data (flags eddsa)(hash-algo sha512)(value %b))",
            &[msg],
        ),
    }
}

/// A signature S-expression as the bytes the other implementations use.
fn sig_bytes(scheme: Scheme, sig: &S) -> Res<Vec<u8>> {
    Ok(match scheme {
        Scheme::Rsa { len } => pad_to(&data(sig, "s")?, len),
        Scheme::Dsa | Scheme::Ecdsa => sig_to_der(&data(sig, "r")?, &data(sig, "s")?),
        Scheme::Eddsa(curve) => {
            let n = field_bytes(curve);
            [pad_to(&data(sig, "r")?, n), pad_to(&data(sig, "s")?, n)].concat()
        }
    })
}

/// Those bytes back as a signature S-expression.
fn sig_sexp(api: &Arc<PkApi>, scheme: Scheme, sig: &[u8]) -> Res<Option<S>> {
    Ok(Some(match scheme {
        Scheme::Rsa { .. } => build(api, "(sig-val (rsa (s %b)))", &[&mpi(sig)])?,
        Scheme::Dsa | Scheme::Ecdsa => {
            let Some((r, s)) = sig_from_der(sig) else {
                return Ok(None);
            };
            let name = if scheme == Scheme::Dsa {
                "dsa"
            } else {
                "ecdsa"
            };
            let fmt = format!("(sig-val ({name} (r %b)(s %b)))");
            build(api, &fmt, &[&mpi(&r), &mpi(&s)])?
        }
        Scheme::Eddsa(curve) => {
            let n = field_bytes(curve);
            if sig.len() != 2 * n {
                return Ok(None);
            }
            build(
                api,
                "(sig-val (eddsa (r %b)(s %b)))",
                &[&sig[..n], &sig[n..]],
            )?
        }
    }))
}

fn verify_with(
    api: &Arc<PkApi>,
    scheme: Scheme,
    digest: &str,
    public: &S,
    msg: &[u8],
    sig: &[u8],
) -> Res<bool> {
    let Some(sig) = sig_sexp(api, scheme, sig)? else {
        return Ok(false);
    };
    let data = data_sexp(api, scheme, digest, msg)?;
    // SAFETY: live S-expressions.
    Ok(unsafe { (api.gcry_pk_verify)(sig.ptr, data.ptr, public.ptr) } == 0)
}

impl Signer for GcrySigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let data = data_sexp(&self.api, self.scheme, self.digest, msg)?;
        let mut sig = S {
            api: self.api.clone(),
            ptr: null_mut(),
        };
        // SAFETY: live S-expressions; the result is owned by `sig`.
        let rc = unsafe { (self.api.gcry_pk_sign)(&mut sig.ptr, data.ptr, self.private.ptr) };
        check(&self.api, rc, "gcry_pk_sign")?;
        sig_bytes(self.scheme, &sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        verify_with(&self.api, self.scheme, self.digest, &self.public, msg, sig)
    }
    /// The SEC1 point for ECDSA, the raw key for EdDSA; empty for RSA and DSA.
    fn public(&self) -> Vec<u8> {
        self.point.clone()
    }
}

fn signer_of(
    api: &Arc<PkApi>,
    scheme: Scheme,
    digest: &'static str,
    keys: (S, S),
    point: Vec<u8>,
) -> Box<dyn Signer> {
    Box::new(GcrySigner {
        api: api.clone(),
        scheme,
        digest,
        private: keys.0,
        public: keys.1,
        point,
    })
}

/// RSA from PKCS#8. libgcrypt's CRT wants u = p⁻¹ mod q; PKCS#1 stores q⁻¹ mod p, so p and q
/// trade places.
fn rsa_keys(api: &Arc<PkApi>, der: &[u8]) -> Res<(S, S)> {
    let (_, k) = rsa_pkcs8(der)?;
    let (n, e) = (mpi(&k.n), mpi(&k.e));
    let private = build(
        api,
        "(private-key (rsa (n %b)(e %b)(d %b)(p %b)(q %b)(u %b)))",
        &[&n, &e, &mpi(&k.d), &mpi(&k.q), &mpi(&k.p), &mpi(&k.qinv)],
    )?;
    let public = build(api, "(public-key (rsa (n %b)(e %b)))", &[&n, &e])?;
    Ok((private, public))
}

fn dsa_public(api: &Arc<PkApi>, k: &crate::pkey_der::DsaParts) -> Res<S> {
    let [p, q, g, y] = [&k.p, &k.q, &k.g, &k.y].map(|v| mpi(&v.to_bytes_be()));
    build(
        api,
        "(public-key (dsa (p %b)(q %b)(g %b)(y %b)))",
        &[&p, &q, &g, &y],
    )
}

fn dsa_keys(api: &Arc<PkApi>, der: &[u8]) -> Res<(S, S)> {
    let k = dsa_pkcs8(der)?;
    let [p, q, g, y, x] = [&k.p, &k.q, &k.g, &k.y, &k.x].map(|v| mpi(&v.to_bytes_be()));
    let private = build(
        api,
        "(private-key (dsa (p %b)(q %b)(g %b)(y %b)(x %b)))",
        &[&p, &q, &g, &y, &x],
    )?;
    Ok((private, dsa_public(api, &k)?))
}

fn nist_name(curve: Curve) -> Res<&'static str> {
    match curve {
        Curve::P256 => Ok("NIST P-256"),
        Curve::P384 => Ok("NIST P-384"),
        Curve::P521 => Ok("NIST P-521"),
        _ => Err(format!("{curve:?} is not a NIST curve")),
    }
}

/// A fresh ECDSA key pair from `gcry_pk_genkey`, and its SEC1 point.
fn ecdsa_keys(api: &Arc<PkApi>, curve: Curve) -> Res<((S, S), Vec<u8>)> {
    let parms = build(
        api,
        &format!("(genkey (ecc (curve \"{}\")))", nist_name(curve)?),
        &[],
    )?;
    let mut pair = S {
        api: api.clone(),
        ptr: null_mut(),
    };
    // SAFETY: live parameters; the result is owned by `pair`.
    let rc = unsafe { (api.gcry_pk_genkey)(&mut pair.ptr, parms.ptr) };
    check(api, rc, "gcry_pk_genkey")?;
    let private = find(&pair, "private-key").ok_or("no private key generated")?;
    let public = find(&pair, "public-key").ok_or("no public key generated")?;
    let point = data(&public, "q")?;
    Ok(((private, public), point))
}

fn eddsa_curve(curve: Curve) -> &'static str {
    if curve == Curve::Ed448 {
        "Ed448"
    } else {
        "Ed25519"
    }
}

/// The RFC 8032 public key of an Ed25519 seed, as libgcrypt derives it through an EC context
/// (`gcry_pubkey_get_sexp`).
fn ed25519_public(api: &Arc<PkApi>, private: &S) -> Res<Vec<u8>> {
    let mut ctx = null_mut();
    let mut public = S {
        api: api.clone(),
        ptr: null_mut(),
    };
    // SAFETY: a live key; the context is released here, the result owned by `public`.
    unsafe {
        let rc = (api.gcry_mpi_ec_new)(&mut ctx, private.ptr, null());
        check(api, rc, "gcry_mpi_ec_new")?;
        let rc = (api.gcry_pubkey_get_sexp)(&mut public.ptr, GET_PUBKEY, ctx);
        (api.gcry_ctx_release)(ctx);
        check(api, rc, "gcry_pubkey_get_sexp")?;
    }
    data(&public, "q")
}

/// EdDSA from its seed `d`, and the public key for verifying with the same pair: libgcrypt's
/// own derivation for Ed25519; for Ed448, where libgcrypt 1.10 derives d·G instead (checked
/// against OpenSSL), RFC 8032's computed with libgcrypt's SHAKE256 and arithmetic ([`ed448`]).
fn eddsa_keys(api: &Arc<PkApi>, curve: Curve, seed: &[u8]) -> Res<((S, S), Vec<u8>)> {
    if seed.len() != field_bytes(curve) {
        return Err(format!("{curve:?} seeds are {} bytes", field_bytes(curve)));
    }
    let name = eddsa_curve(curve);
    let fmt = format!("(private-key (ecc (curve {name})(flags eddsa)(d %b)))");
    let private = build(api, &fmt, &[seed])?;
    let q = if curve == Curve::Ed448 {
        ed448::public_key(&ed448::EdApi::load(&api.path)?, seed)?
    } else {
        ed25519_public(api, &private)?
    };
    // The private key carries its public point, as libgcrypt's own keygen writes it: without q,
    // gcry_pk_sign derives it again (a second base-point multiplication) on every call, which
    // read Ed25519 signing 44% slow against bench-slope (docs/experiments/crosscheck.md).
    // Ed448 keeps d alone: libgcrypt 1.10 derives its own (non-RFC) point from it.
    let private = if curve == Curve::Ed448 {
        private
    } else {
        let fmt = format!("(private-key (ecc (curve {name})(flags eddsa)(q %b)(d %b)))");
        build(api, &fmt, &[&q, seed])?
    };
    let fmt = format!("(public-key (ecc (curve {name})(flags eddsa)(q %b)))");
    let public = build(api, &fmt, &[&q])?;
    Ok(((private, public), q))
}

pub fn signer(api: &Arc<PkApi>, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
    let digest = signature_digest(&p.algorithm).unwrap_or("");
    Ok(match (p.algorithm, key) {
        (Algorithm::Rsa { bits }, Some(der)) => {
            let scheme = Scheme::Rsa {
                len: bits as usize / 8,
            };
            signer_of(api, scheme, digest, rsa_keys(api, der)?, Vec::new())
        }
        (Algorithm::Dsa { .. }, Some(der)) => {
            signer_of(api, Scheme::Dsa, digest, dsa_keys(api, der)?, Vec::new())
        }
        (Algorithm::Ecdsa { curve }, None) => {
            let (keys, point) = ecdsa_keys(api, curve)?;
            signer_of(api, Scheme::Ecdsa, digest, keys, point)
        }
        (Algorithm::Eddsa { curve }, Some(seed)) => {
            let (keys, public) = eddsa_keys(api, curve, seed)?;
            signer_of(api, Scheme::Eddsa(curve), digest, keys, public)
        }
        _ => return Err(format!("libgcrypt does not offer {}", p.id)),
    })
}

/// Verifies another library's signature: `public` is a SEC1 point (ECDSA), a raw key (EdDSA)
/// or a SubjectPublicKeyInfo (DSA).
pub fn verify_foreign(
    api: &Arc<PkApi>,
    p: &Primitive,
    public: &[u8],
    digest: &str,
    msg: &[u8],
    sig: &[u8],
) -> Res<bool> {
    let (scheme, key) = match p.algorithm {
        Algorithm::Ecdsa { curve } => {
            let fmt = format!("(public-key (ecc (curve \"{}\")(q %b)))", nist_name(curve)?);
            (Scheme::Ecdsa, build(api, &fmt, &[public])?)
        }
        Algorithm::Eddsa { curve } => {
            let fmt = format!(
                "(public-key (ecc (curve {})(flags eddsa)(q %b)))",
                eddsa_curve(curve)
            );
            (Scheme::Eddsa(curve), build(api, &fmt, &[public])?)
        }
        Algorithm::Dsa { .. } => (Scheme::Dsa, dsa_public(api, &dsa_spki(public)?)?),
        _ => return Err(format!("libgcrypt does not verify {} signatures", p.id)),
    };
    verify_with(api, scheme, digest, &key, msg, sig)
}

/// ECDH on a NIST curve as GnuPG does it: `gcry_pk_decrypt` of the peer's point under the
/// private key gives d × point (SEC1); the shared secret is its x coordinate. The key and the
/// "ciphertext" are built once; the timed call is the decryption and reading its result.
fn ecdh(api: &Arc<PkApi>, curve: Curve, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let fmt = format!(
        "(private-key (ecc (curve \"{}\")(d %b)))",
        nist_name(curve)?
    );
    let key = build(api, &fmt, &[private])?;
    let enc = build(api, "(enc-val (ecdh (e %b)))", &[peer])?;
    let (api, n) = (api.clone(), field_bytes(curve));
    Ok(Box::new(move || {
        let mut out = S {
            api: api.clone(),
            ptr: null_mut(),
        };
        // Whole values, so the closure owns (and keeps alive) both S-expressions.
        let (enc, key) = (&enc, &key);
        // SAFETY: live S-expressions; the result is owned by `out`.
        let rc = unsafe { (api.gcry_pk_decrypt)(&mut out.ptr, enc.ptr, key.ptr) };
        check(&api, rc, "gcry_pk_decrypt")?;
        let point = data(&out, "value")?;
        point
            .get(1..1 + n)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| "the shared point is not uncompressed SEC1".into())
    }))
}

/// X25519/X448: one `gcry_ecc_mul_point` per derivation (RFC 7748 scalar and u encodings).
fn x_derive(api: &Arc<PkApi>, curve: Curve, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    let n = field_bytes(curve);
    if private.len() != n || peer.len() != n {
        return Err(format!("{curve:?} keys are {n} bytes"));
    }
    let id = if curve == Curve::X25519 { 1 } else { 2 };
    let (api, private, peer) = (api.clone(), private.to_vec(), peer.to_vec());
    Ok(Box::new(move || {
        let mut out = vec![0u8; n];
        // SAFETY: all three buffers are n bytes, the curve's key length.
        let rc = unsafe {
            (api.gcry_ecc_mul_point)(id, out.as_mut_ptr(), private.as_ptr(), peer.as_ptr())
        };
        check(&api, rc, "gcry_ecc_mul_point")?;
        Ok(out)
    }))
}

pub fn derive(api: &Arc<PkApi>, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
    match p.algorithm {
        Algorithm::Ecdh {
            curve: c @ (Curve::X25519 | Curve::X448),
        } => x_derive(api, c, private, peer),
        Algorithm::Ecdh { curve } => ecdh(api, curve, private, peer),
        _ => Err(format!("libgcrypt does not offer {}", p.id)),
    }
}
