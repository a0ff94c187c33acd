//! Hashes, MACs, ciphers and AEADs through EVP: the timed loops (one library call sequence per
//! operation, the same calls `openssl speed` makes) and their known-answer tests, which run
//! through the very same context set-up and calls.

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

/// How a MAC context is driven: OpenSSL 3's `EVP_MAC`, or the 1.1.1-style calls that AWS-LC and
/// BoringSSL keep (`HMAC_CTX`, `CMAC_CTX`, and GMAC as a GCM context fed only AAD).
enum MacKind<'a> {
    Evp,
    Hmac,
    Cmac,
    Gcm(CipherCtx<'a>, Vec<u8>),
}

/// A MAC context keyed for HMAC, CMAC or GMAC.
pub struct MacCtx<'a> {
    api: &'a Api,
    ctx: Ptr,
    kind: MacKind<'a>,
}

impl Drop for MacCtx<'_> {
    fn drop(&mut self) {
        let a = self.api;
        // SAFETY: ctx came from the matching constructor and is freed once.
        unsafe {
            match self.kind {
                MacKind::Evp => {
                    if let Some(free) = a.EVP_MAC_CTX_free {
                        free(self.ctx)
                    }
                }
                MacKind::Hmac => {
                    if let Some(free) = a.HMAC_CTX_free {
                        free(self.ctx)
                    }
                }
                MacKind::Cmac => {
                    if let Some(free) = a.CMAC_CTX_free {
                        free(self.ctx)
                    }
                }
                MacKind::Gcm(..) => {}
            }
        }
    }
}

impl MacCtx<'_> {
    /// Starts a new MAC with the same key, as `openssl speed` does per operation.
    #[inline]
    pub fn restart(&mut self) -> bool {
        let a = self.api;
        // SAFETY: a keyed context of the kind's type; NULL key/algorithm keep the ones set.
        unsafe {
            match &self.kind {
                MacKind::Evp => a
                    .EVP_MAC_init
                    .is_some_and(|f| f(self.ctx, std::ptr::null(), 0, std::ptr::null()) == 1),
                MacKind::Hmac => a
                    .HMAC_Init_ex
                    .is_some_and(|f| f(self.ctx, std::ptr::null(), 0, null_mut(), null_mut()) == 1),
                MacKind::Cmac => match (a.CMAC_Reset, a.CMAC_Init) {
                    (Some(reset), _) => reset(self.ctx) == 1,
                    (None, Some(init)) => {
                        init(self.ctx, std::ptr::null(), 0, null_mut(), null_mut()) == 1
                    }
                    _ => false,
                },
                MacKind::Gcm(c, iv) => {
                    (a.EVP_CipherInit_ex)(
                        c.ctx,
                        null_mut(),
                        null_mut(),
                        std::ptr::null(),
                        iv.as_ptr(),
                        1,
                    ) == 1
                }
            }
        }
    }

    #[inline]
    pub fn update(&mut self, p: *const u8, n: usize) -> bool {
        let a = self.api;
        // SAFETY: p points at n readable bytes; the context is keyed.
        unsafe {
            match &self.kind {
                MacKind::Evp => a.EVP_MAC_update.is_some_and(|f| f(self.ctx, p, n) == 1),
                MacKind::Hmac => a.HMAC_Update.is_some_and(|f| f(self.ctx, p, n) == 1),
                MacKind::Cmac => a.CMAC_Update.is_some_and(|f| f(self.ctx, p as _, n) == 1),
                MacKind::Gcm(c, _) => {
                    let mut outl: c_int = 0;
                    (a.EVP_EncryptUpdate)(c.ctx, null_mut(), &mut outl, p, n as c_int) == 1
                }
            }
        }
    }

    /// The MAC into `out`; its length.
    #[inline]
    pub fn finish(&mut self, out: &mut [u8; 64]) -> Option<usize> {
        let a = self.api;
        // SAFETY: out has room for any MAC here (64 bytes).
        unsafe {
            match &self.kind {
                MacKind::Evp => {
                    let mut len = 0usize;
                    (a.EVP_MAC_final?(self.ctx, out.as_mut_ptr(), &mut len, out.len()) == 1)
                        .then_some(len)
                }
                MacKind::Hmac => {
                    let mut len: c_uint = 0;
                    (a.HMAC_Final?(self.ctx, out.as_mut_ptr(), &mut len) == 1)
                        .then_some(len as usize)
                }
                MacKind::Cmac => {
                    let mut len = 0usize;
                    (a.CMAC_Final?(self.ctx, out.as_mut_ptr(), &mut len) == 1).then_some(len)
                }
                MacKind::Gcm(c, _) => {
                    let mut outl: c_int = 0;
                    let ok = (a.EVP_EncryptFinal_ex)(c.ctx, out.as_mut_ptr(), &mut outl) == 1
                        && (a.EVP_CIPHER_CTX_ctrl)(
                            c.ctx,
                            ffi::EVP_CTRL_AEAD_GET_TAG,
                            16,
                            out.as_mut_ptr() as *mut _,
                        ) == 1;
                    ok.then_some(16)
                }
            }
        }
    }
}

pub fn mac_ctx<'a>(
    api: &'a Api,
    algorithm: &Algorithm,
    key: &[u8],
    iv: &[u8],
) -> Result<MacCtx<'a>, String> {
    let (Some(fetch), Some(new), Some(init)) =
        (api.EVP_MAC_fetch, api.EVP_MAC_CTX_new, api.EVP_MAC_init)
    else {
        return mac_ctx_111(api, algorithm, key, iv);
    };
    let (mac_name, param_key, param_value) = match *algorithm {
        Algorithm::Hmac { digest } => ("HMAC", "digest", digest),
        Algorithm::Cmac { cipher } => ("CMAC", "cipher", cipher),
        Algorithm::Gmac { cipher } => ("GMAC", "cipher", cipher),
        _ => return Err("not a MAC".into()),
    };
    let (mac_c, pk, pv, ivk) = (
        cstr(mac_name),
        cstr(param_key),
        cstr(param_value),
        cstr("iv"),
    );
    let mut iv_owned = iv.to_vec();
    let mut params = vec![OsslParam {
        key: pk.as_ptr(),
        data_type: ffi::OSSL_PARAM_UTF8_STRING,
        data: pv.as_ptr() as *mut _,
        data_size: param_value.len(),
        return_size: usize::MAX,
    }];
    if !iv_owned.is_empty() {
        params.push(OsslParam {
            key: ivk.as_ptr(),
            data_type: ffi::OSSL_PARAM_OCTET_STRING,
            data: iv_owned.as_mut_ptr() as *mut _,
            data_size: iv_owned.len(),
            return_size: usize::MAX,
        });
    }
    params.push(OsslParam::end());
    // SAFETY: params is a terminated OSSL_PARAM array whose strings outlive the call.
    unsafe {
        let mac = fetch(null_mut(), mac_c.as_ptr(), std::ptr::null());
        if mac.is_null() {
            return Err(format!("no provider offers {mac_name} ({})", api.errors()));
        }
        let ctx = MacCtx {
            api,
            ctx: new(mac),
            kind: MacKind::Evp,
        };
        if ctx.ctx.is_null() || init(ctx.ctx, key.as_ptr(), key.len(), params.as_ptr()) != 1 {
            return Err(format!(
                "{mac_name} with {param_value} cannot be keyed: {}",
                api.errors()
            ));
        }
        Ok(ctx)
    }
}

/// A MAC context without `EVP_MAC` (OpenSSL 1.1.1, AWS-LC, BoringSSL): the calls `openssl speed`
/// 1.1.1 makes for HMAC (`HMAC_Init_ex` with the key kept, update, final), `CMAC_*` for CMAC,
/// and for GMAC a GCM encryption context that is given the message as AAD only.
fn mac_ctx_111<'a>(
    api: &'a Api,
    algorithm: &Algorithm,
    key: &[u8],
    iv: &[u8],
) -> Result<MacCtx<'a>, String> {
    let no = |what: &str| format!("this libcrypto has neither EVP_MAC (OpenSSL 3) nor {what}");
    // SAFETY: fresh contexts, keyed from live slices; freed by MacCtx's drop on every path.
    unsafe {
        match *algorithm {
            Algorithm::Hmac { digest } => {
                let md = fetch_md(api, digest)?;
                let (Some(new), Some(init)) = (api.HMAC_CTX_new, api.HMAC_Init_ex) else {
                    return Err(no("HMAC_CTX"));
                };
                let ctx = MacCtx {
                    api,
                    ctx: new(),
                    kind: MacKind::Hmac,
                };
                if ctx.ctx.is_null()
                    || init(
                        ctx.ctx,
                        key.as_ptr() as _,
                        key.len() as c_int,
                        md,
                        null_mut(),
                    ) != 1
                {
                    return Err(format!("HMAC-{digest} cannot be keyed: {}", api.errors()));
                }
                Ok(ctx)
            }
            Algorithm::Cmac { cipher } => {
                let c = fetch_cipher(api, cipher)?;
                let (Some(new), Some(init)) = (api.CMAC_CTX_new, api.CMAC_Init) else {
                    return Err(no("CMAC_CTX"));
                };
                let ctx = MacCtx {
                    api,
                    ctx: new(),
                    kind: MacKind::Cmac,
                };
                if ctx.ctx.is_null()
                    || init(ctx.ctx, key.as_ptr() as _, key.len(), c, null_mut()) != 1
                {
                    return Err(format!("CMAC-{cipher} cannot be keyed: {}", api.errors()));
                }
                Ok(ctx)
            }
            Algorithm::Gmac { cipher } => {
                let c = cipher_ctx(api, cipher, key, iv, true)?;
                Ok(MacCtx {
                    api,
                    ctx: null_mut(),
                    kind: MacKind::Gcm(c, iv.to_vec()),
                })
            }
            _ => Err("not a MAC".into()),
        }
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

// ---------------------------------------------------------------------------------------------
// BoringSSL's EVP_AEAD, for AEADs a library offers only there (BoringSSL's ChaCha20-Poly1305).

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
struct AeadSealLoop<'a> {
    ctx: AeadCtx<'a>,
    nonce: Vec<u8>,
    msg: AlignedBuffer,
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
struct AeadOpenLoop<'a> {
    ctx: AeadCtx<'a>,
    nonce: Vec<u8>,
    sealed: AlignedBuffer,
    out: AlignedBuffer,
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

fn evp_aead_seal(
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

fn evp_aead_open(
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

/// Runs one symmetric known-answer vector.
pub fn known_answer(api: &Api, algorithm: &Algorithm, kat: &Kat) -> Result<(), String> {
    match (*algorithm, *kat) {
        (Algorithm::Digest { name }, Kat::Digest { msg, out, .. }) => {
            digest_known_answer(api, name, &unhex(msg), &unhex(out))
        }
        (Algorithm::Xof { name, .. }, Kat::Digest { msg, out, .. }) => {
            let (msg, want) = (unhex(msg), unhex(out));
            let mut t = XofLoop {
                api,
                md: fetch_md(api, name)?,
                ctx: unsafe { (api.EVP_MD_CTX_new)() },
                msg: AlignedBuffer::new(msg.len(), 0, 0),
                out: vec![0; want.len()],
            };
            t.msg.as_mut_slice().copy_from_slice(&msg);
            t.run(1)?;
            (t.out == want)
                .then_some(())
                .ok_or_else(|| mismatch("XOF output", &t.out, &want))
        }
        (
            Algorithm::Hmac { .. } | Algorithm::Cmac { .. } | Algorithm::Gmac { .. },
            Kat::Mac {
                key, iv, msg, out, ..
            },
        ) => {
            let (key, iv, msg, want) = (unhex(key), unhex(iv), unhex(msg), unhex(out));
            let mut mac = mac_ctx(api, algorithm, &key, &iv)?;
            let mut got = [0u8; 64];
            let len = mac
                .update(msg.as_ptr(), msg.len())
                .then(|| mac.finish(&mut got))
                .flatten()
                .ok_or_else(|| format!("MAC computation failed: {}", api.errors()))?;
            let got = &got[..len];
            (got == want.as_slice())
                .then_some(())
                .ok_or_else(|| mismatch("MAC", got, &want))
        }
        (Algorithm::Cipher { name, .. }, Kat::Cipher { .. }) => cipher_known_answer(api, name, kat),
        (Algorithm::Aead { name, .. }, Kat::Aead { .. }) => aead_known_answer(api, name, kat),
        (Algorithm::Aead { name, key_len, .. }, Kat::OcbIterated { out, .. }) => {
            ocb_iterated_known_answer(api, name, key_len, &unhex(out))
        }
        (alg, kat) => Err(format!("no way to apply {kat:?} to {alg:?}")),
    }
}

/// RFC 7253's iterated OCB vector: 385 sealings under one key, the last tag compared.
fn ocb_iterated_known_answer(
    api: &Api,
    name: &str,
    key_len: usize,
    want: &[u8],
) -> Result<(), String> {
    let key = cryptospeed_catalog::ocb_iterated_key(key_len, want.len());
    let got = cryptospeed_catalog::ocb_iterated(|nonce, aad, pt| {
        let (mut ct, tag) = aead_seal(api, name, &key, nonce, aad, pt, want.len())?;
        ct.extend(tag);
        Ok(ct)
    })?;
    (got == want)
        .then_some(())
        .ok_or_else(|| mismatch("iterated OCB tag", &got, want))
}

/// A digest vector through `EVP_Digest`.
fn digest_known_answer(api: &Api, name: &str, msg: &[u8], want: &[u8]) -> Result<(), String> {
    let md = fetch_md(api, name)?;
    let mut got = [0u8; 64];
    let mut len: c_uint = 0;
    // SAFETY: owned buffers.
    if unsafe {
        (api.EVP_Digest)(
            msg.as_ptr() as *const _,
            msg.len(),
            got.as_mut_ptr(),
            &mut len,
            md,
            null_mut(),
        )
    } != 1
    {
        return Err(format!("EVP_Digest failed: {}", api.errors()));
    }
    let got = &got[..len as usize];
    (got == want)
        .then_some(())
        .ok_or_else(|| mismatch("digest", got, want))
}

/// A cipher vector, encrypted and decrypted through `EVP_Cipher`.
fn cipher_known_answer(api: &Api, name: &str, kat: &Kat) -> Result<(), String> {
    let Kat::Cipher {
        key, iv, pt, ct, ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not a cipher's"));
    };
    let (key, iv, pt, want) = (unhex(key), unhex(iv), unhex(pt), unhex(ct));
    for encrypt in [true, false] {
        let ctx = cipher_ctx(api, name, &key, &iv, encrypt)?;
        let (input, expected) = if encrypt { (&pt, &want) } else { (&want, &pt) };
        let mut out = vec![0u8; input.len() + 32];
        // SAFETY: owned buffers with a block of slack.
        if unsafe {
            (api.EVP_Cipher)(
                ctx.ctx,
                out.as_mut_ptr(),
                input.as_ptr(),
                input.len() as c_uint,
            )
        } <= 0
        {
            return Err(format!("EVP_Cipher failed: {}", api.errors()));
        }
        let got = &out[..input.len()];
        if got != expected.as_slice() {
            return Err(mismatch(
                if encrypt {
                    "ciphertext"
                } else {
                    "decrypted plaintext"
                },
                got,
                expected,
            ));
        }
    }
    Ok(())
}

/// An AEAD vector: sealed to the ciphertext and tag, opened back, a corrupted tag refused.
fn aead_known_answer(api: &Api, name: &str, kat: &Kat) -> Result<(), String> {
    let Kat::Aead {
        key,
        nonce,
        aad,
        pt,
        ct,
        tag,
        ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not an AEAD's"));
    };
    let (key, nonce, aad, pt, want_ct, want_tag) = (
        unhex(key),
        unhex(nonce),
        unhex(aad),
        unhex(pt),
        unhex(ct),
        unhex(tag),
    );
    // The vector's tag length: CCM's published examples use shorter tags than the 16 bytes
    // timed.
    let (got_ct, got_tag) = aead_seal(api, name, &key, &nonce, &aad, &pt, want_tag.len())?;
    if got_ct != want_ct {
        return Err(mismatch("ciphertext", &got_ct, &want_ct));
    }
    if got_tag != want_tag {
        return Err(mismatch("tag", &got_tag, &want_tag));
    }
    match aead_open(api, name, &key, &nonce, &aad, &want_ct, &want_tag)? {
        Some(p) if p == pt => {}
        Some(p) => return Err(mismatch("decrypted plaintext", &p, &pt)),
        None => return Err("a valid tag was rejected on decryption".into()),
    }
    let mut bad = want_tag.clone();
    bad[0] ^= 1;
    match aead_open(api, name, &key, &nonce, &aad, &want_ct, &bad)? {
        None => Ok(()),
        Some(_) => Err("a corrupted tag was accepted".into()),
    }
}
