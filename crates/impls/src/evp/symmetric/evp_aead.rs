//! BoringSSL's `EVP_AEAD`, for AEADs a library offers only there (BoringSSL's ChaCha20-Poly1305):
//! keyed contexts, the timed seal and open loops and the one-shot calls the known answers use.

use super::*;

/// A keyed `EVP_AEAD_CTX`, freed on drop.
pub struct AeadCtx<'a> {
    api: &'a Api,
    ctx: Ptr,
    tag_len: usize,
}

impl Drop for AeadCtx<'_> {
    fn drop(&mut self) {
        if let Some(free) = self.api.EVP_AEAD_CTX_free {
            // SAFETY: ctx came from EVP_AEAD_CTX_new and is freed once.
            unsafe { free(self.ctx) }
        }
    }
}

/// `EVP_aead_<name>()` keyed with `key`, when the library has it.
pub fn aead_ctx<'a>(
    api: &'a Api,
    name: &str,
    key: &[u8],
    tag_len: usize,
) -> Result<AeadCtx<'a>, String> {
    let accessor = format!("EVP_aead_{}", name.to_ascii_lowercase().replace('-', "_"));
    let (Some(new), Some(f)) = (api.EVP_AEAD_CTX_new, api.symbol(&accessor)) else {
        return Err(format!(
            "neither an EVP_CIPHER nor an EVP_AEAD ({accessor}) for {name}"
        ));
    };
    // SAFETY: an `EVP_aead_*` accessor takes nothing and returns a static pointer; the key is
    // a live slice.
    let ctx = unsafe {
        let aead = std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn() -> Ptr>(f)();
        new(aead, key.as_ptr(), key.len(), tag_len)
    };
    if ctx.is_null() {
        return Err(format!("{accessor} cannot be keyed: {}", api.errors()));
    }
    Ok(AeadCtx { api, ctx, tag_len })
}

/// `EVP_AEAD_CTX_seal` and `EVP_AEAD_CTX_open`, which share one signature.
type AeadCall = unsafe extern "C" fn(
    Ptr,
    *mut u8,
    *mut usize,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
) -> std::os::raw::c_int;

impl AeadCtx<'_> {
    /// Seals `len` bytes at `input` into `out` (room for `len + tag_len`); the sealed length.
    #[inline]
    fn seal(
        &self,
        out: *mut u8,
        nonce: &[u8],
        input: *const u8,
        len: usize,
        aad: &[u8],
    ) -> Option<usize> {
        let max_out = len + self.tag_len;
        // SAFETY: out has room for len + tag_len bytes; input may equal out (in place).
        unsafe {
            self.call(
                self.api.EVP_AEAD_CTX_seal?,
                out,
                max_out,
                nonce,
                input,
                len,
                aad,
            )
        }
    }

    /// Opens `len` sealed bytes (ciphertext and tag) into `out`; `None` when they do not
    /// authenticate.
    #[inline]
    fn open(
        &self,
        out: *mut u8,
        nonce: &[u8],
        input: *const u8,
        len: usize,
        aad: &[u8],
    ) -> Option<usize> {
        // SAFETY: out has room for len bytes.
        unsafe {
            self.call(
                self.api.EVP_AEAD_CTX_open?,
                out,
                len,
                nonce,
                input,
                len,
                aad,
            )
        }
    }

    /// One seal or open: the bytes written, or `None` when the call fails.
    ///
    /// # Safety
    /// `out` has room for `max_out` bytes and `input` holds `len`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn call(
        &self,
        f: AeadCall,
        out: *mut u8,
        max_out: usize,
        nonce: &[u8],
        input: *const u8,
        len: usize,
        aad: &[u8],
    ) -> Option<usize> {
        let mut out_len = 0usize;
        let ok = f(
            self.ctx,
            out,
            &mut out_len,
            max_out,
            nonce.as_ptr(),
            nonce.len(),
            input,
            len,
            aad.as_ptr(),
            aad.len(),
        );
        (ok == 1).then_some(out_len)
    }
}

/// Per message: `EVP_AEAD_CTX_seal` in place with the 13-byte AAD (what bssl_bench times).
pub(super) struct AeadSealLoop<'a> {
    pub(super) ctx: AeadCtx<'a>,
    pub(super) nonce: Vec<u8>,
    pub(super) msg: AlignedBuffer,
}

impl Timed for AeadSealLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (p, n) = (self.msg.ptr(), self.msg.len());
        for _ in 0..iters {
            if self.ctx.seal(p, &self.nonce, p, n, &AAD13).is_none() {
                return Err(format!(
                    "EVP_AEAD_CTX_seal failed: {}",
                    self.ctx.api.errors()
                ));
            }
        }
        Ok(())
    }
}

/// Per message: `EVP_AEAD_CTX_open` of a sealed message (ciphertext and tag).
pub(super) struct AeadOpenLoop<'a> {
    pub(super) ctx: AeadCtx<'a>,
    pub(super) nonce: Vec<u8>,
    pub(super) sealed: AlignedBuffer,
    pub(super) out: AlignedBuffer,
}

impl Timed for AeadOpenLoop<'_> {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let (c, n, o) = (self.sealed.ptr(), self.sealed.len(), self.out.ptr());
        for _ in 0..iters {
            if self.ctx.open(o, &self.nonce, c, n, &AAD13).is_none() {
                return Err(format!(
                    "EVP_AEAD_CTX_open did not authenticate: {}",
                    self.ctx.api.errors()
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn evp_aead_seal(
    api: &Api,
    name: &str,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    tag_len: usize,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let ctx = aead_ctx(api, name, key, tag_len)?;
    let mut out = vec![0u8; pt.len() + tag_len];
    let len = ctx
        .seal(out.as_mut_ptr(), nonce, pt.as_ptr(), pt.len(), aad)
        .ok_or_else(|| format!("{name} sealing failed: {}", api.errors()))?;
    out.truncate(len);
    let tag = out.split_off(len - tag_len);
    Ok((out, tag))
}

pub(super) fn evp_aead_open(
    api: &Api,
    name: &str,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> Result<Option<Vec<u8>>, String> {
    let ctx = aead_ctx(api, name, key, tag.len())?;
    let mut sealed = ct.to_vec();
    sealed.extend_from_slice(tag);
    let mut out = vec![0u8; sealed.len()];
    let opened = ctx.open(out.as_mut_ptr(), nonce, sealed.as_ptr(), sealed.len(), aad);
    // SAFETY: clears what a rejected tag leaves.
    unsafe { (api.ERR_clear_error)() };
    Ok(opened.map(|len| {
        out.truncate(len);
        out
    }))
}

/// Whether an AEAD goes through `EVP_AEAD` here: only where no `EVP_CIPHER` offers it.
pub fn uses_evp_aead(api: &Api, name: &str) -> bool {
    let found = fetch_cipher(api, name).is_ok();
    // SAFETY: clears what a failed lookup leaves.
    unsafe { (api.ERR_clear_error)() };
    !found
}
