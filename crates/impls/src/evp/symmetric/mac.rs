//! MACs through EVP: OpenSSL 3's `EVP_MAC`, or the 1.1.1-style `HMAC_CTX`/`CMAC_CTX` calls (and
//! GMAC as a GCM context fed only AAD) that AWS-LC and BoringSSL keep; the timed MAC loop and
//! the MAC known answers drive the same context.

use super::*;

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
