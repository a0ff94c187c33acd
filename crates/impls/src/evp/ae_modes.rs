//! CCM, OCB and GCM-SIV through `EVP_CIPHER`. Unlike GCM these need their ctrl calls in a set
//! order: the IV length and (CCM, OCB) the tag length before the key, since CCM fixes both when
//! it is keyed; the expected tag after the key when decrypting; CCM's total message length before
//! the AAD. The known answers and the timed loops go through the same [`begin`], and the loops
//! mirror `openssl speed` 3.5's `EVP_Update_loop_aead_enc`/`_dec`: per message the IV and tag
//! lengths, the key and nonce (so the key schedule is timed too), the 13-byte AAD, the message,
//! final.

use super::fetch::{fetch_cipher, CipherCtx, AAD13};
use super::ffi::{self, Api, Ptr};
use crate::buffer::AlignedBuffer;
use cryptospeed_engine::Timed;
use cryptospeed_model::Op;
use std::os::raw::c_int;
use std::ptr::{null, null_mut};

/// `EVP_CTRL_AEAD_SET_IVLEN` (`EVP_CTRL_GCM_SET_IVLEN`, shared by every AE mode).
const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;

/// The AE modes this file drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AeMode {
    Ccm,
    Ocb,
    GcmSiv,
}

impl AeMode {
    /// The mode of an OpenSSL cipher name, when it is one of these.
    pub fn of(name: &str) -> Option<AeMode> {
        let n = name.to_ascii_uppercase();
        if n.ends_with("-CCM") {
            Some(AeMode::Ccm)
        } else if n.ends_with("-OCB") {
            Some(AeMode::Ocb)
        } else if n.ends_with("-GCM-SIV") {
            Some(AeMode::GcmSiv)
        } else {
            None
        }
    }
}

/// One message's parameters; `tag` is the expected tag when decrypting.
pub struct Msg<'m> {
    pub key: &'m [u8],
    pub nonce: &'m [u8],
    pub aad: &'m [u8],
    pub tag_len: usize,
    pub tag: Option<&'m [u8]>,
}

/// A context given the cipher and the direction, nothing else yet.
fn ae_ctx<'a>(api: &'a Api, name: &str, encrypt: bool) -> Result<CipherCtx<'a>, String> {
    fresh(api, fetch_cipher(api, name)?, encrypt)
        .ok_or_else(|| format!("EVP_CipherInit_ex({name}) failed: {}", api.errors()))
}

/// A new context for `cipher` in one direction.
fn fresh(api: &Api, cipher: Ptr, encrypt: bool) -> Option<CipherCtx<'_>> {
    let ctx = CipherCtx::new(api);
    // SAFETY: a fresh context and a fetched cipher; no key or IV yet.
    let ok = !ctx.ctx.is_null()
        && unsafe {
            (api.EVP_CipherInit_ex)(
                ctx.ctx,
                cipher,
                null_mut(),
                null(),
                null(),
                encrypt as c_int,
            )
        } == 1;
    ok.then_some(ctx)
}

/// `EVP_EncryptUpdate` or `EVP_DecryptUpdate`, which OpenSSL 3 keeps apart by direction.
///
/// # Safety
/// `out` has room for `len` bytes (or is NULL with `input` NULL or AAD), `input` holds `len`.
/// The bytes written, or `None` on failure (OCB keeps a partial block back for final).
#[inline]
unsafe fn update(
    api: &Api,
    ctx: Ptr,
    encrypt: bool,
    out: *mut u8,
    input: *const u8,
    len: usize,
) -> Option<usize> {
    let mut outl: c_int = 0;
    let f = if encrypt {
        api.EVP_EncryptUpdate
    } else {
        api.EVP_DecryptUpdate
    };
    (f(ctx, out, &mut outl, input, len as c_int) == 1).then_some(outl as usize)
}

/// Update with the message, then final after what update wrote: the bytes written in all.
///
/// # Safety
/// As [`update`], with a block of slack after `out`'s `len` bytes.
#[inline]
unsafe fn message(
    api: &Api,
    ctx: Ptr,
    encrypt: bool,
    out: *mut u8,
    input: *const u8,
    len: usize,
) -> Option<usize> {
    let done = update(api, ctx, encrypt, out, input, len)?;
    let mut outl: c_int = 0;
    let fin = if encrypt {
        api.EVP_EncryptFinal_ex
    } else {
        api.EVP_DecryptFinal_ex
    };
    (fin(ctx, out.add(done), &mut outl) == 1).then_some(done + outl as usize)
}

/// Arms `ctx` for one message of `len` bytes, in the order OpenSSL needs (module comment).
///
/// # Safety
/// `ctx` came from [`ae_ctx`] for `mode`; the slices in `m` are live.
#[inline]
unsafe fn begin(api: &Api, ctx: Ptr, mode: AeMode, m: &Msg, len: usize) -> bool {
    let ctrl = api.EVP_CIPHER_CTX_ctrl;
    let encrypt = m.tag.is_none();
    ctrl(
        ctx,
        EVP_CTRL_AEAD_SET_IVLEN,
        m.nonce.len() as c_int,
        null_mut(),
    ) == 1
        && (mode == AeMode::GcmSiv
            || ctrl(
                ctx,
                ffi::EVP_CTRL_AEAD_SET_TAG,
                m.tag_len as c_int,
                null_mut(),
            ) == 1)
        && (api.EVP_CipherInit_ex)(
            ctx,
            null_mut(),
            null_mut(),
            m.key.as_ptr(),
            m.nonce.as_ptr(),
            -1,
        ) == 1
        && m.tag.is_none_or(|t| {
            ctrl(
                ctx,
                ffi::EVP_CTRL_AEAD_SET_TAG,
                t.len() as c_int,
                t.as_ptr() as *mut _,
            ) == 1
        })
        && (mode != AeMode::Ccm || update(api, ctx, encrypt, null_mut(), null(), len).is_some())
        && (m.aad.is_empty()
            || update(api, ctx, encrypt, null_mut(), m.aad.as_ptr(), m.aad.len()).is_some())
}

/// Encrypts `pt`: ciphertext and tag.
pub fn seal(api: &Api, name: &str, m: &Msg, pt: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mode = AeMode::of(name).ok_or_else(|| format!("{name} is not CCM, OCB or GCM-SIV"))?;
    let ctx = ae_ctx(api, name, true)?;
    let mut out = vec![0u8; pt.len() + 32];
    let mut tag = vec![0u8; m.tag_len];
    // SAFETY: owned buffers with a block of slack for final.
    let ok = unsafe {
        begin(api, ctx.ctx, mode, m, pt.len())
            && message(api, ctx.ctx, true, out.as_mut_ptr(), pt.as_ptr(), pt.len())
                == Some(pt.len())
            && (api.EVP_CIPHER_CTX_ctrl)(
                ctx.ctx,
                ffi::EVP_CTRL_AEAD_GET_TAG,
                m.tag_len as c_int,
                tag.as_mut_ptr() as *mut _,
            ) == 1
    };
    if !ok {
        return Err(format!("{name} encryption failed: {}", api.errors()));
    }
    out.truncate(pt.len());
    Ok((out, tag))
}

/// Decrypts `ct` with the expected tag in `m`; `Ok(None)` when it does not authenticate (CCM
/// says so in the update, OCB and GCM-SIV in final).
pub fn open(api: &Api, name: &str, m: &Msg, ct: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mode = AeMode::of(name).ok_or_else(|| format!("{name} is not CCM, OCB or GCM-SIV"))?;
    let ctx = ae_ctx(api, name, false)?;
    let mut out = vec![0u8; ct.len() + 32];
    // SAFETY: owned buffers with a block of slack for final.
    unsafe {
        if !begin(api, ctx.ctx, mode, m, ct.len()) {
            return Err(format!("{name} decryption set-up failed: {}", api.errors()));
        }
        let written = message(api, ctx.ctx, false, out.as_mut_ptr(), ct.as_ptr(), ct.len());
        if written.is_some_and(|n| n != ct.len()) {
            return Err(format!(
                "{name} decryption wrote {written:?} bytes of {}",
                ct.len()
            ));
        }
        let authentic = written.is_some();
        (api.ERR_clear_error)();
        out.truncate(ct.len());
        Ok(authentic.then_some(out))
    }
}

/// The timed loop: per message [`begin`], the message (in place when encrypting, from the kept
/// ciphertext into `out` when decrypting, as `openssl speed` does with its second buffer),
/// final. GCM-SIV gets a fresh context per message: OpenSSL's keeps appending each message's
/// AAD to the last one's on a reused context (openssl speed 3.5 -aead then hashes ever more
/// AAD, and decryption stops authenticating), so an application must start over each time.
struct AeLoop<'a> {
    api: &'a Api,
    cipher: Ptr,
    ctx: CipherCtx<'a>,
    mode: AeMode,
    key: Vec<u8>,
    nonce: Vec<u8>,
    tag: Option<Vec<u8>>,
    input: AlignedBuffer,
    out: Option<AlignedBuffer>,
}

impl Timed for AeLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (a, ctx, encrypt) = (self.api, self.ctx.ctx, self.tag.is_none());
        let m = Msg {
            key: &self.key,
            nonce: &self.nonce,
            aad: &AAD13,
            tag_len: 16,
            tag: self.tag.as_deref(),
        };
        let (src, n) = (self.input.ptr(), self.input.len());
        let dst = self.out.as_mut().map_or(src, |o| o.ptr());
        let mut ctx = ctx;
        for _ in 0..iters {
            if self.mode == AeMode::GcmSiv {
                self.ctx = fresh(a, self.cipher, encrypt).ok_or("EVP_CIPHER_CTX_new failed")?;
                ctx = self.ctx.ctx;
            }
            // SAFETY: the buffers hold n bytes and a block of slack; the context is this mode's.
            let ok = unsafe {
                begin(a, ctx, self.mode, &m, n) && message(a, ctx, encrypt, dst, src, n).is_some()
            };
            if !ok {
                return Err(format!("{:?} message failed: {}", self.mode, a.errors()));
            }
        }
        Ok(())
    }
}

/// A timed loop for `op` over `bytes`-byte messages with a 16-byte tag (as `openssl speed` 3.5
/// has for every AE mode); decryption gets a ciphertext and tag sealed first.
pub fn prepare<'a>(
    api: &'a Api,
    name: &str,
    key: Vec<u8>,
    nonce: Vec<u8>,
    op: Op,
    mut input: AlignedBuffer,
) -> Result<Box<dyn Timed + 'a>, String> {
    let mode = AeMode::of(name).ok_or_else(|| format!("{name} is not CCM, OCB or GCM-SIV"))?;
    let encrypt = op == Op::Encrypt;
    let (mut tag, mut out) = (None, None);
    if !encrypt {
        let m = Msg {
            key: &key,
            nonce: &nonce,
            aad: &AAD13,
            tag_len: 16,
            tag: None,
        };
        let (ct, t) = seal(api, name, &m, input.as_slice())?;
        input.as_mut_slice().copy_from_slice(&ct);
        tag = Some(t);
        out = Some(AlignedBuffer::new(input.len(), 64, 0));
    }
    let cipher = fetch_cipher(api, name)?;
    Ok(Box::new(AeLoop {
        api,
        cipher,
        ctx: ae_ctx(api, name, encrypt)?,
        mode,
        key,
        nonce,
        tag,
        input,
        out,
    }))
}

#[cfg(test)]
mod tests {
    use super::AeMode;

    #[test]
    fn modes_are_told_by_their_openssl_names() {
        assert_eq!(AeMode::of("AES-128-CCM"), Some(AeMode::Ccm));
        assert_eq!(AeMode::of("aes-256-ocb"), Some(AeMode::Ocb));
        assert_eq!(AeMode::of("AES-256-GCM-SIV"), Some(AeMode::GcmSiv));
        assert_eq!(AeMode::of("AES-128-GCM"), None);
        assert_eq!(AeMode::of("ChaCha20-Poly1305"), None);
    }
}
