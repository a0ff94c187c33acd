//! Hashes, MACs, ciphers and AEADs through EVP: the timed loops (one library call sequence per
//! operation, the same calls `openssl speed` makes) and their known-answer tests, which run
//! through the very same context set-up and calls.

mod evp_aead;
mod kat;
mod mac;

pub use evp_aead::{aead_ctx, uses_evp_aead};
use evp_aead::{evp_aead_open, evp_aead_seal, AeadOpenLoop, AeadSealLoop};
pub use kat::known_answer;
pub use mac::{mac_ctx, MacCtx};

use super::ae_modes::{self, AeMode};
use super::fetch::{cstr, AAD13};
pub use super::fetch::{fetch_cipher, fetch_md, CipherCtx};
use super::ffi::{self, Api, OsslParam, Ptr};
use crate::buffer::AlignedBuffer;
use crate::kat::mismatch;
use cryptospeed_catalog::{unhex, Algorithm, Kat};
use cryptospeed_engine::Timed;
use cryptospeed_model::Op;
use std::os::raw::{c_int, c_uint};
use std::ptr::null_mut;

/// Sets a cipher context up the way `openssl speed` does: cipher, key length, then key and IV.
pub fn cipher_ctx<'a>(
    api: &'a Api,
    name: &str,
    key: &[u8],
    iv: &[u8],
    encrypt: bool,
) -> Result<CipherCtx<'a>, String> {
    let cipher = fetch_cipher(api, name)?;
    // SAFETY: every pointer is either NULL where the API allows it or points into live slices of
    // the lengths the cipher expects (checked against the catalog's key and IV lengths).
    unsafe {
        let ctx = CipherCtx {
            api,
            ctx: (api.EVP_CIPHER_CTX_new)(),
        };
        let enc = encrypt as c_int;
        if (api.EVP_CipherInit_ex)(
            ctx.ctx,
            cipher,
            null_mut(),
            std::ptr::null(),
            std::ptr::null(),
            enc,
        ) != 1
        {
            return Err(format!(
                "EVP_CipherInit_ex({name}) failed: {}",
                api.errors()
            ));
        }
        if (api.EVP_CIPHER_CTX_set_key_length)(ctx.ctx, key.len() as c_int) != 1 {
            return Err(format!(
                "{name} does not take a {}-byte key: {}",
                key.len(),
                api.errors()
            ));
        }
        let ivp = if iv.is_empty() {
            std::ptr::null()
        } else {
            iv.as_ptr()
        };
        if (api.EVP_CipherInit_ex)(ctx.ctx, null_mut(), null_mut(), key.as_ptr(), ivp, enc) != 1 {
            return Err(format!("setting the {name} key failed: {}", api.errors()));
        }
        Ok(ctx)
    }
}

// ---------------------------------------------------------------------------------------------
// Timed loops

/// `EVP_Digest` of the message, as `openssl speed` does per operation.
struct DigestLoop<'a> {
    api: &'a Api,
    md: Ptr,
    msg: AlignedBuffer,
    out: [u8; 64],
}

impl Timed for DigestLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (f, md, p, n, out) = (
            self.api.EVP_Digest,
            self.md,
            self.msg.ptr(),
            self.msg.len(),
            self.out.as_mut_ptr(),
        );
        for _ in 0..iters {
            // SAFETY: p points at n readable bytes; out has room for any digest up to 512 bits.
            if unsafe { f(p as *const _, n, out, null_mut(), md, null_mut()) } != 1 {
                return Err(format!("EVP_Digest failed: {}", self.api.errors()));
            }
        }
        Ok(())
    }
}

/// Init, update, squeeze `out_len` bytes of an XOF on one reused context.
struct XofLoop<'a> {
    api: &'a Api,
    md: Ptr,
    ctx: Ptr,
    msg: AlignedBuffer,
    out: Vec<u8>,
}

impl Timed for XofLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let a = self.api;
        let fin = a
            .EVP_DigestFinalXOF
            .ok_or("this libcrypto has no EVP_DigestFinalXOF")?;
        let (p, n) = (self.msg.ptr(), self.msg.len());
        for _ in 0..iters {
            // SAFETY: ctx is live; p/n and out describe owned buffers.
            let ok = unsafe {
                (a.EVP_DigestInit_ex)(self.ctx, self.md, null_mut()) == 1
                    && (a.EVP_DigestUpdate)(self.ctx, p as *const _, n) == 1
                    && fin(self.ctx, self.out.as_mut_ptr(), self.out.len()) == 1
            };
            if !ok {
                return Err(format!("XOF failed: {}", a.errors()));
            }
        }
        Ok(())
    }
}

impl Drop for XofLoop<'_> {
    fn drop(&mut self) {
        // SAFETY: ctx came from EVP_MD_CTX_new.
        unsafe { (self.api.EVP_MD_CTX_free)(self.ctx) }
    }
}

/// `EVP_MAC_init` (same key) + update + final, as `openssl speed` times HMAC and CMAC.
struct MacLoop<'a> {
    api: &'a Api,
    mac: MacCtx<'a>,
    msg: AlignedBuffer,
    update_only: bool,
}

impl Timed for MacLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (p, n) = (self.msg.ptr(), self.msg.len());
        let mut out = [0u8; 64];
        if self.update_only {
            for _ in 0..iters {
                if !self.mac.update(p, n) {
                    return Err(format!("MAC update failed: {}", self.api.errors()));
                }
            }
            return Ok(());
        }
        for _ in 0..iters {
            if !(self.mac.restart() && self.mac.update(p, n) && self.mac.finish(&mut out).is_some())
            {
                return Err(format!("MAC failed: {}", self.api.errors()));
            }
        }
        Ok(())
    }
}

/// `EVP_Cipher` over the message in place, as `openssl speed` times ciphers.
struct CipherLoop<'a> {
    api: &'a Api,
    ctx: CipherCtx<'a>,
    msg: AlignedBuffer,
    /// The IV to set again before each call, for an XTS that takes one data unit per IV
    /// (AWS-LC's and BoringSSL's refuse a second `EVP_Cipher`; OpenSSL's goes on unasked).
    reiv: Option<Vec<u8>>,
}

impl Timed for CipherLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (f, ctx, p, n) = (
            self.api.EVP_Cipher,
            self.ctx.ctx,
            self.msg.ptr(),
            self.msg.len() as c_uint,
        );
        let init = self.api.EVP_CipherInit_ex;
        for _ in 0..iters {
            // SAFETY: in-place operation on an owned buffer of n bytes (plus a block of slack);
            // the IV, when set again, has the cipher's IV length.
            let ok = unsafe {
                self.reiv.as_ref().is_none_or(|iv| {
                    init(
                        ctx,
                        null_mut(),
                        null_mut(),
                        std::ptr::null(),
                        iv.as_ptr(),
                        -1,
                    ) == 1
                }) && f(ctx, p, p, n) > 0
            };
            if !ok {
                return Err(format!("EVP_Cipher failed: {}", self.api.errors()));
            }
        }
        Ok(())
    }
}

/// Whether `EVP_Cipher` takes a second message on a context without the IV set again: XTS in
/// the BoringSSL family does not. Tried on a scratch context with two 16-byte data units.
fn needs_iv_per_call(api: &Api, name: &str, key: &[u8], iv: &[u8]) -> Result<bool, String> {
    if !name.to_ascii_uppercase().ends_with("-XTS") {
        return Ok(false);
    }
    let ctx = cipher_ctx(api, name, key, iv, true)?;
    let mut buf = [0u8; 48];
    // SAFETY: two in-place calls on 16 bytes of a 48-byte buffer.
    let twice = unsafe {
        (api.EVP_Cipher)(ctx.ctx, buf.as_mut_ptr(), buf.as_ptr(), 16) > 0
            && (api.EVP_Cipher)(ctx.ctx, buf.as_mut_ptr(), buf.as_ptr(), 16) > 0
    };
    // SAFETY: clears what a refused call leaves.
    unsafe { (api.ERR_clear_error)() };
    Ok(!twice)
}

/// Per message: set nonce, 13-byte AAD, encrypt, final (as `openssl speed -aead`).
struct AeadEncryptLoop<'a> {
    api: &'a Api,
    ctx: CipherCtx<'a>,
    nonce: Vec<u8>,
    msg: AlignedBuffer,
}

impl Timed for AeadEncryptLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let a = self.api;
        let (ctx, p, n) = (self.ctx.ctx, self.msg.ptr(), self.msg.len() as c_int);
        let mut outl: c_int = 0;
        for _ in 0..iters {
            // SAFETY: owned buffers; the message buffer has 32 bytes of slack for final.
            let ok = unsafe {
                (a.EVP_CipherInit_ex)(
                    ctx,
                    null_mut(),
                    null_mut(),
                    std::ptr::null(),
                    self.nonce.as_ptr(),
                    1,
                ) == 1
                    && (a.EVP_EncryptUpdate)(ctx, null_mut(), &mut outl, AAD13.as_ptr(), 13) == 1
                    && (a.EVP_EncryptUpdate)(ctx, p, &mut outl, p, n) == 1
                    && (a.EVP_EncryptFinal_ex)(ctx, p.add(outl as usize), &mut outl) == 1
            };
            if !ok {
                return Err(format!("AEAD encryption failed: {}", a.errors()));
            }
        }
        Ok(())
    }
}

/// Per message: set nonce and tag, 13-byte AAD, decrypt, final must authenticate.
struct AeadDecryptLoop<'a> {
    api: &'a Api,
    ctx: CipherCtx<'a>,
    nonce: Vec<u8>,
    ciphertext: AlignedBuffer,
    tag: Vec<u8>,
    out: AlignedBuffer,
}

impl Timed for AeadDecryptLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let a = self.api;
        let (ctx, c, n, o) = (
            self.ctx.ctx,
            self.ciphertext.ptr(),
            self.ciphertext.len() as c_int,
            self.out.ptr(),
        );
        let mut outl: c_int = 0;
        for _ in 0..iters {
            // SAFETY: owned buffers of the stated lengths.
            let ok = unsafe {
                (a.EVP_CipherInit_ex)(
                    ctx,
                    null_mut(),
                    null_mut(),
                    std::ptr::null(),
                    self.nonce.as_ptr(),
                    0,
                ) == 1
                    && (a.EVP_CIPHER_CTX_ctrl)(
                        ctx,
                        ffi::EVP_CTRL_AEAD_SET_TAG,
                        self.tag.len() as c_int,
                        self.tag.as_mut_ptr() as *mut _,
                    ) == 1
                    && (a.EVP_DecryptUpdate)(ctx, null_mut(), &mut outl, AAD13.as_ptr(), 13) == 1
                    && (a.EVP_DecryptUpdate)(ctx, o, &mut outl, c, n) == 1
                    && (a.EVP_DecryptFinal_ex)(ctx, o.add(outl as usize), &mut outl) == 1
            };
            if !ok {
                return Err(format!(
                    "AEAD decryption did not authenticate: {}",
                    a.errors()
                ));
            }
        }
        Ok(())
    }
}

/// Whether a symmetric primitive can be set up: its digest, cipher or MAC context.
pub fn probe(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    match *algorithm {
        Algorithm::Digest { name } => fetch_md(api, name).map(|_| ()),
        Algorithm::Xof { name, .. } => match api.EVP_DigestFinalXOF {
            Some(_) => fetch_md(api, name).map(|_| ()),
            None => Err("this libcrypto has no EVP_DigestFinalXOF".into()),
        },
        Algorithm::Cipher {
            name,
            key_len,
            iv_len,
        } => {
            // A key whose halves differ: OpenSSL 3 refuses XTS keys with equal halves.
            let key = timing_key(key_len);
            cipher_ctx(api, name, &key, &vec![0; iv_len], true).map(|_| ())
        }
        Algorithm::Aead {
            name,
            key_len,
            nonce_len,
            tag_len,
        } => cipher_ctx(api, name, &vec![1; key_len], &vec![0; nonce_len], true)
            .map(|_| ())
            .or_else(|e| {
                aead_ctx(api, name, &vec![1; key_len], tag_len)
                    .map(|_| ())
                    .map_err(|e2| format!("{e}; {e2}"))
            }),
        Algorithm::Hmac { .. } | Algorithm::Cmac { .. } => {
            mac_ctx(api, algorithm, &[1; 16], &[]).map(|_| ())
        }
        Algorithm::Gmac { .. } => mac_ctx(api, algorithm, &[1; 16], &[0; 12]).map(|_| ()),
        _ => Err(format!("{algorithm:?} is not a symmetric primitive")),
    }
}

/// Fixed keys for timing (values do not affect these algorithms' speed); `openssl speed` uses
/// a similar fixed pattern.
fn timing_key(len: usize) -> Vec<u8> {
    (0..len).map(|i| (0x12 + 0x22 * i) as u8).collect()
}

/// Encrypts with an AEAD: returns ciphertext and tag.
pub(super) fn aead_seal(
    api: &Api,
    name: &str,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    tag_len: usize,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    if uses_evp_aead(api, name) {
        return evp_aead_seal(api, name, key, nonce, aad, pt, tag_len);
    }
    if AeMode::of(name).is_some() {
        let m = ae_modes::Msg {
            key,
            nonce,
            aad,
            tag_len,
            tag: None,
        };
        return ae_modes::seal(api, name, &m, pt);
    }
    let ctx = cipher_ctx(api, name, key, nonce, true)?;
    let mut out = vec![0u8; pt.len() + 32];
    let mut tag = vec![0u8; tag_len];
    let (mut l1, mut l2): (c_int, c_int) = (0, 0);
    // SAFETY: owned buffers with room for the output and the final block.
    let ok = unsafe {
        (aad.is_empty()
            || (api.EVP_EncryptUpdate)(
                ctx.ctx,
                null_mut(),
                &mut l1,
                aad.as_ptr(),
                aad.len() as c_int,
            ) == 1)
            && (api.EVP_EncryptUpdate)(
                ctx.ctx,
                out.as_mut_ptr(),
                &mut l1,
                pt.as_ptr(),
                pt.len() as c_int,
            ) == 1
            && (api.EVP_EncryptFinal_ex)(ctx.ctx, out.as_mut_ptr().add(l1 as usize), &mut l2) == 1
            && (api.EVP_CIPHER_CTX_ctrl)(
                ctx.ctx,
                ffi::EVP_CTRL_AEAD_GET_TAG,
                tag_len as c_int,
                tag.as_mut_ptr() as *mut _,
            ) == 1
    };
    if !ok {
        return Err(format!("{name} encryption failed: {}", api.errors()));
    }
    out.truncate((l1 + l2) as usize);
    Ok((out, tag))
}

/// Decrypts with an AEAD; `Ok(None)` when the tag does not authenticate.
fn aead_open(
    api: &Api,
    name: &str,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> Result<Option<Vec<u8>>, String> {
    if uses_evp_aead(api, name) {
        return evp_aead_open(api, name, key, nonce, aad, ct, tag);
    }
    if AeMode::of(name).is_some() {
        let m = ae_modes::Msg {
            key,
            nonce,
            aad,
            tag_len: tag.len(),
            tag: Some(tag),
        };
        return ae_modes::open(api, name, &m, ct);
    }
    let ctx = cipher_ctx(api, name, key, nonce, false)?;
    let mut out = vec![0u8; ct.len() + 32];
    let mut tag = tag.to_vec();
    let (mut l1, mut l2): (c_int, c_int) = (0, 0);
    // SAFETY: owned buffers with room for the output.
    unsafe {
        if (api.EVP_CIPHER_CTX_ctrl)(
            ctx.ctx,
            ffi::EVP_CTRL_AEAD_SET_TAG,
            tag.len() as c_int,
            tag.as_mut_ptr() as *mut _,
        ) != 1
            || !(aad.is_empty()
                || (api.EVP_DecryptUpdate)(
                    ctx.ctx,
                    null_mut(),
                    &mut l1,
                    aad.as_ptr(),
                    aad.len() as c_int,
                ) == 1)
            || (api.EVP_DecryptUpdate)(
                ctx.ctx,
                out.as_mut_ptr(),
                &mut l1,
                ct.as_ptr(),
                ct.len() as c_int,
            ) != 1
        {
            return Err(format!("{name} decryption failed: {}", api.errors()));
        }
        if (api.EVP_DecryptFinal_ex)(ctx.ctx, out.as_mut_ptr().add(l1 as usize), &mut l2) != 1 {
            (api.ERR_clear_error)();
            return Ok(None);
        }
    }
    out.truncate((l1 + l2) as usize);
    Ok(Some(out))
}

/// Prepares a timed loop for a symmetric primitive.
pub fn prepare<'a>(
    api: &'a Api,
    algorithm: &Algorithm,
    op: Op,
    bytes: usize,
    misalign: usize,
) -> Result<Box<dyn Timed + 'a>, String> {
    let msg = AlignedBuffer::new(bytes, 64, misalign);
    Ok(match (*algorithm, op) {
        (Algorithm::Digest { name }, Op::Hash) => Box::new(DigestLoop {
            api,
            md: fetch_md(api, name)?,
            msg,
            out: [0; 64],
        }),
        (Algorithm::Xof { name, out_len }, Op::Hash) => {
            let md = fetch_md(api, name)?;
            // SAFETY: plain constructor.
            let ctx = unsafe { (api.EVP_MD_CTX_new)() };
            Box::new(XofLoop {
                api,
                md,
                ctx,
                msg,
                out: vec![0; out_len],
            })
        }
        (Algorithm::Hmac { .. } | Algorithm::Cmac { .. }, Op::Mac) => {
            let key_len = if matches!(algorithm, Algorithm::Cmac { .. }) {
                16
            } else {
                32
            };
            let mac = mac_ctx(api, algorithm, &timing_key(key_len), &[])?;
            Box::new(MacLoop {
                api,
                mac,
                msg,
                update_only: false,
            })
        }
        (Algorithm::Gmac { .. }, Op::Mac) => {
            let mac = mac_ctx(api, algorithm, &timing_key(16), &[0u8; 12])?;
            Box::new(MacLoop {
                api,
                mac,
                msg,
                update_only: true,
            })
        }
        (
            Algorithm::Cipher {
                name,
                key_len,
                iv_len,
            },
            Op::Encrypt | Op::Decrypt,
        ) => {
            let (key, iv) = (timing_key(key_len), vec![0u8; iv_len]);
            let reiv = needs_iv_per_call(api, name, &key, &iv)?.then(|| iv.clone());
            let ctx = cipher_ctx(api, name, &key, &iv, op == Op::Encrypt)?;
            Box::new(CipherLoop {
                api,
                ctx,
                msg,
                reiv,
            })
        }
        (Algorithm::Aead { .. }, Op::Encrypt | Op::Decrypt) => {
            aead_loop(api, algorithm, op, msg, misalign)?
        }
        (alg, op) => return Err(format!("{op} is not an operation of {alg:?}")),
    })
}

/// The timed loop of an AEAD: CCM, OCB and GCM-SIV in [`ae_modes`], BoringSSL's `EVP_AEAD`
/// where a library offers the AEAD only there, else `EVP_CIPHER` as `openssl speed -aead`.
fn aead_loop<'a>(
    api: &'a Api,
    algorithm: &Algorithm,
    op: Op,
    msg: AlignedBuffer,
    misalign: usize,
) -> Result<Box<dyn Timed + 'a>, String> {
    let Algorithm::Aead {
        name,
        key_len,
        nonce_len,
        tag_len,
    } = *algorithm
    else {
        return Err(format!("{algorithm:?} is not an AEAD"));
    };
    let (key, nonce) = (timing_key(key_len), vec![0u8; nonce_len]);
    let evp_aead = uses_evp_aead(api, name);
    Ok(match op {
        _ if AeMode::of(name).is_some() && !evp_aead => {
            ae_modes::prepare(api, name, key, nonce, op, msg)?
        }
        Op::Encrypt if evp_aead => Box::new(AeadSealLoop {
            ctx: aead_ctx(api, name, &key, tag_len)?,
            nonce,
            msg,
        }),
        Op::Encrypt => Box::new(AeadEncryptLoop {
            api,
            ctx: cipher_ctx(api, name, &key, &nonce, true)?,
            nonce,
            msg,
        }),
        _ => aead_decrypt_loop(api, name, (key, nonce, tag_len), msg, misalign)?,
    })
}

/// AEAD decryption of a message sealed before timing: `(key, nonce, tag length)`.
fn aead_decrypt_loop<'a>(
    api: &'a Api,
    name: &str,
    (key, nonce, tag_len): (Vec<u8>, Vec<u8>, usize),
    msg: AlignedBuffer,
    misalign: usize,
) -> Result<Box<dyn Timed + 'a>, String> {
    let bytes = msg.len();
    let (ct, tag) = aead_seal(api, name, &key, &nonce, &AAD13, msg.as_slice(), tag_len)?;
    if uses_evp_aead(api, name) {
        let mut sealed = AlignedBuffer::new(bytes + tag_len, 64, misalign);
        sealed.as_mut_slice()[..bytes].copy_from_slice(&ct);
        sealed.as_mut_slice()[bytes..].copy_from_slice(&tag);
        return Ok(Box::new(AeadOpenLoop {
            ctx: aead_ctx(api, name, &key, tag_len)?,
            nonce,
            sealed,
            out: AlignedBuffer::new(bytes + tag_len, 64, 0),
        }));
    }
    let mut ciphertext = AlignedBuffer::new(bytes, 64, misalign);
    ciphertext.as_mut_slice().copy_from_slice(&ct);
    Ok(Box::new(AeadDecryptLoop {
        api,
        ctx: cipher_ctx(api, name, &key, &nonce, false)?,
        nonce,
        ciphertext,
        tag,
        out: AlignedBuffer::new(bytes, 64, 0),
    }))
}
