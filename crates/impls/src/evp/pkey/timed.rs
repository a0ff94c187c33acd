//! The timed public-key loops, as `openssl speed` runs them: sign, verify, derive and key
//! generation on contexts made before timing, and the single calls the checks share.

use super::*;

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

pub(crate) fn init_ctx<'a>(api: &'a Api, k: &Key, op: Op) -> Result<PkeyCtx<'a>, String> {
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

pub(crate) fn sign_once(api: &Api, ctx: &PkeyCtx, tbs: &[u8]) -> Result<Vec<u8>, String> {
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

pub(crate) fn verify_once(api: &Api, ctx: &PkeyCtx, tbs: &[u8], sig: &[u8]) -> bool {
    // SAFETY: owned buffers.
    let r =
        unsafe { (api.EVP_PKEY_verify)(ctx.ptr, sig.as_ptr(), sig.len(), tbs.as_ptr(), tbs.len()) };
    // SAFETY: clears the error a rejection leaves.
    unsafe { (api.ERR_clear_error)() };
    r == 1
}

pub(crate) fn digest_sign_ctx(api: &Api, k: &Key, sign: bool) -> Result<Ptr, String> {
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

pub(crate) fn digest_sign(api: &Api, mdctx: Ptr, tbs: &[u8]) -> Result<Vec<u8>, String> {
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

pub(crate) fn derive(api: &Api, own: &Key, peer: &Key) -> Result<Vec<u8>, String> {
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
        (Algorithm::Rsa { .. }, Op::Decrypt) => rsa_decrypt_loop(api, &k)?,
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

/// RSA decryption of one ciphertext, made with the same key before timing.
fn rsa_decrypt_loop<'a>(api: &'a Api, k: &Key) -> Result<Loop<'a>, String> {
    let enc = init_ctx(api, k, Op::Encrypt)?;
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
    Ok(Loop::Decrypt {
        ctx: init_ctx(api, k, Op::Decrypt)?,
        ct,
        out: vec![0; 4096],
    })
}
