//! libgcrypt 1.10 signs Ed448 from a seed but hands back d·G, not RFC 8032's public key, when
//! asked to derive one (`gcry_pubkey_get_sexp`), and a key pair needs both to verify. This
//! computes the public key as RFC 8032 section 5.2.5 defines it, with libgcrypt's own SHAKE256
//! and point multiplication: s = the clamped first half of SHAKE256(seed, 114), A = s·B.

use crate::suite::Res;
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::ptr::null_mut;

type P = *mut c_void;

crate::dynamic_api! {
    EdApi, "libgcrypt with EC arithmetic";
    required {
        gcry_md_open: fn(*mut P, c_int, c_uint) -> c_uint;
        gcry_md_write: fn(P, *const c_void, usize);
        gcry_md_extract: fn(P, c_int, *mut c_void, usize) -> c_uint;
        gcry_md_close: fn(P);
        gcry_mpi_scan: fn(*mut P, c_int, *const c_void, usize, *mut usize) -> c_uint;
        gcry_mpi_print: fn(c_int, *mut u8, usize, *mut usize, P) -> c_uint;
        gcry_mpi_new: fn(c_uint) -> P;
        gcry_mpi_release: fn(P);
        gcry_mpi_point_new: fn(c_uint) -> P;
        gcry_mpi_point_release: fn(P);
        gcry_mpi_ec_new: fn(*mut P, P, *const c_char) -> c_uint;
        gcry_mpi_ec_get_point: fn(*const c_char, P, c_int) -> P;
        gcry_mpi_ec_mul: fn(P, P, P, P);
        gcry_mpi_ec_get_affine: fn(P, P, P, P) -> c_int;
        gcry_ctx_release: fn(P);
    }
    optional {}
}

// From gcrypt.h (1.10).
const MD_SHAKE256: c_int = 317;
const FMT_USG: c_int = 5;

/// The libgcrypt objects made along the way, released on drop whatever happens.
struct Held<'a> {
    api: &'a EdApi,
    mpis: Vec<P>,
    points: Vec<P>,
    ctx: P,
}
impl Drop for Held<'_> {
    fn drop(&mut self) {
        // SAFETY: each was made by the matching constructor and is released once.
        unsafe {
            self.mpis
                .iter()
                .for_each(|&m| (self.api.gcry_mpi_release)(m));
            self.points
                .iter()
                .for_each(|&p| (self.api.gcry_mpi_point_release)(p));
            if !self.ctx.is_null() {
                (self.api.gcry_ctx_release)(self.ctx);
            }
        }
    }
}

/// SHAKE256(seed, 114) through `gcry_md`.
fn shake256(api: &EdApi, seed: &[u8]) -> Res<[u8; 114]> {
    let mut h = [0u8; 114];
    let mut hd: P = null_mut();
    // SAFETY: the handle is closed on every path; h has the requested length.
    unsafe {
        if (api.gcry_md_open)(&mut hd, MD_SHAKE256, 0) != 0 {
            return Err("gcry_md_open(SHAKE256) failed".into());
        }
        (api.gcry_md_write)(hd, seed.as_ptr().cast(), seed.len());
        let rc = (api.gcry_md_extract)(hd, MD_SHAKE256, h.as_mut_ptr().cast(), h.len());
        (api.gcry_md_close)(hd);
        if rc != 0 {
            return Err("gcry_md_extract failed".into());
        }
    }
    Ok(h)
}

/// An MPI's unsigned big-endian bytes, left-padded to `len`.
fn print(api: &EdApi, m: P, len: usize) -> Res<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let mut n = 0usize;
    // SAFETY: the buffer has `len` bytes; n receives the length written.
    if unsafe { (api.gcry_mpi_print)(FMT_USG, buf.as_mut_ptr(), len, &mut n, m) } != 0 {
        return Err("gcry_mpi_print failed".into());
    }
    Ok(crate::pkey_der::pad_to(&buf[..n], len))
}

/// The RFC 8032 Ed448 public key of a 57-byte seed.
pub fn public_key(api: &EdApi, seed: &[u8]) -> Res<Vec<u8>> {
    let mut h = shake256(api, seed)?;
    h[0] &= 0xfc;
    h[55] |= 0x80;
    h[56] = 0;
    let s_be: Vec<u8> = h[..57].iter().rev().copied().collect();
    let mut held = Held {
        api,
        mpis: Vec::new(),
        points: Vec::new(),
        ctx: null_mut(),
    };
    let g_name = CString::new("g").unwrap();
    let curve = CString::new("Ed448").unwrap();
    // SAFETY: every object made is handed to `held` at once; the buffers outlive the calls.
    let (x, y) = unsafe {
        let mut s: P = null_mut();
        if (api.gcry_mpi_scan)(
            &mut s,
            FMT_USG,
            s_be.as_ptr().cast(),
            s_be.len(),
            null_mut(),
        ) != 0
        {
            return Err("gcry_mpi_scan failed".into());
        }
        held.mpis.push(s);
        if (api.gcry_mpi_ec_new)(&mut held.ctx, null_mut(), curve.as_ptr()) != 0 {
            return Err("gcry_mpi_ec_new(Ed448) failed".into());
        }
        let g = (api.gcry_mpi_ec_get_point)(g_name.as_ptr(), held.ctx, 1);
        let q = (api.gcry_mpi_point_new)(0);
        held.points.extend([g, q]);
        (api.gcry_mpi_ec_mul)(q, s, g, held.ctx);
        let (x, y) = ((api.gcry_mpi_new)(0), (api.gcry_mpi_new)(0));
        held.mpis.extend([x, y]);
        if (api.gcry_mpi_ec_get_affine)(x, y, q, held.ctx) != 0 {
            return Err("gcry_mpi_ec_get_affine failed".into());
        }
        (x, y)
    };
    // RFC 8032 section 5.2.2: y little-endian in 57 bytes, x's low bit in the last bit.
    let (x, y) = (print(api, x, 57)?, print(api, y, 57)?);
    let mut out: Vec<u8> = y.iter().rev().copied().collect();
    out[56] |= (x[56] & 1) << 7;
    Ok(out)
}
