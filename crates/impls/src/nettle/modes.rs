//! AES in ECB, XTS and CCM through Nettle, outside its generic tables: ECB is the table cipher's
//! own multi-block call, while XTS and CCM have only their AES-specific functions (`xts.h`,
//! `ccm.h`), loaded as optional symbols so an older Nettle without them still loads.

use super::{context, find, Crypt, Ctx, Nettle};
use crate::suite::{AeadFn, CipherFn, Res};

crate::dynamic_api! {
    NettleModes, "libnettle";
    required {}
    optional {
        nettle_xts_aes128_set_encrypt_key: fn(Ctx, *const u8);
        nettle_xts_aes128_set_decrypt_key: fn(Ctx, *const u8);
        nettle_xts_aes128_encrypt_message: fn(Ctx, *const u8, usize, *mut u8, *const u8);
        nettle_xts_aes128_decrypt_message: fn(Ctx, *const u8, usize, *mut u8, *const u8);
        nettle_xts_aes256_set_encrypt_key: fn(Ctx, *const u8);
        nettle_xts_aes256_set_decrypt_key: fn(Ctx, *const u8);
        nettle_xts_aes256_encrypt_message: fn(Ctx, *const u8, usize, *mut u8, *const u8);
        nettle_xts_aes256_decrypt_message: fn(Ctx, *const u8, usize, *mut u8, *const u8);
        nettle_ccm_aes128_set_key: fn(Ctx, *const u8);
        nettle_ccm_aes128_set_nonce: fn(Ctx, usize, *const u8, usize, usize, usize);
        nettle_ccm_aes128_update: fn(Ctx, usize, *const u8);
        nettle_ccm_aes128_encrypt: fn(Ctx, usize, *mut u8, *const u8);
        nettle_ccm_aes128_decrypt: fn(Ctx, usize, *mut u8, *const u8);
        nettle_ccm_aes128_digest: fn(Ctx, usize, *mut u8);
        nettle_ccm_aes256_set_key: fn(Ctx, *const u8);
        nettle_ccm_aes256_set_nonce: fn(Ctx, usize, *const u8, usize, usize, usize);
        nettle_ccm_aes256_update: fn(Ctx, usize, *const u8);
        nettle_ccm_aes256_encrypt: fn(Ctx, usize, *mut u8, *const u8);
        nettle_ccm_aes256_decrypt: fn(Ctx, usize, *mut u8, *const u8);
        nettle_ccm_aes256_digest: fn(Ctx, usize, *mut u8);
    }
}

/// Bytes of context for the XTS and CCM structures (at most two AES key schedules and a few
/// blocks; generous on purpose).
const CONTEXT: u32 = 1024;

type SetNonce = unsafe extern "C" fn(Ctx, usize, *const u8, usize, usize, usize);
type Update = unsafe extern "C" fn(Ctx, usize, *const u8);
type Digest = unsafe extern "C" fn(Ctx, usize, *mut u8);
type Message = unsafe extern "C" fn(Ctx, *const u8, usize, *mut u8, *const u8);
type SetKey = unsafe extern "C" fn(Ctx, *const u8);

fn missing(what: &str) -> String {
    format!("this nettle has no {what} (Nettle 3.5 or later has it)")
}

impl Nettle {
    /// ECB: the table cipher's encrypt or decrypt over the whole blocks of each message.
    pub(super) fn ecb(&self, name: &str, key: &[u8], encrypt: bool) -> Res<CipherFn> {
        // SAFETY: as in `hash`.
        let c = unsafe { find((self.api.nettle_get_ciphers)(), name) }
            .ok_or_else(|| format!("this nettle has no {name}"))?;
        if key.len() != c.key_size as usize {
            return Err(format!("{name} takes a {}-byte key", c.key_size));
        }
        let mut ctx = context(c.context_size);
        let (set, f): (SetKey, Crypt) = if encrypt {
            (c.set_encrypt_key, c.encrypt)
        } else {
            (c.set_decrypt_key, c.decrypt)
        };
        // SAFETY: the context has the declared size; the key the declared length.
        unsafe { set(ctx.as_mut_ptr() as Ctx, key.as_ptr()) };
        let (api, bs) = (self.api.clone(), c.block_size as usize);
        Ok(Box::new(move |buf| {
            let _keep = &api;
            let n = buf.len() / bs * bs;
            // SAFETY: in place on whole blocks, which Nettle's block functions allow.
            unsafe { f(ctx.as_mut_ptr() as Ctx, n, buf.as_mut_ptr(), buf.as_ptr()) };
            Ok(())
        }))
    }

    /// XTS: each message one data unit under the tweak `iv`.
    pub(super) fn xts(&self, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let m = self.modes.as_ref().map_err(|e| e.clone())?;
        let f = match (key.len(), encrypt) {
            (32, true) => m
                .nettle_xts_aes128_set_encrypt_key
                .zip(m.nettle_xts_aes128_encrypt_message),
            (32, false) => m
                .nettle_xts_aes128_set_decrypt_key
                .zip(m.nettle_xts_aes128_decrypt_message),
            (64, true) => m
                .nettle_xts_aes256_set_encrypt_key
                .zip(m.nettle_xts_aes256_encrypt_message),
            (64, false) => m
                .nettle_xts_aes256_set_decrypt_key
                .zip(m.nettle_xts_aes256_decrypt_message),
            (n, _) => return Err(format!("XTS keys are 32 or 64 bytes, not {n}")),
        };
        let (set, crypt): (SetKey, Message) = f.ok_or_else(|| missing("xts.h"))?;
        let tweak: [u8; 16] = iv.try_into().map_err(|_| "the XTS tweak is 16 bytes")?;
        let mut ctx = context(CONTEXT);
        // SAFETY: a context larger than xts_aes256_key; a key of the length asked for.
        unsafe { set(ctx.as_mut_ptr() as Ctx, key.as_ptr()) };
        let m = m.clone();
        Ok(Box::new(move |buf| {
            let _keep = &m;
            if buf.len() < 16 {
                return Err("an XTS data unit is at least 16 bytes".into());
            }
            // SAFETY: in place, which Nettle's XTS allows; the tweak is 16 bytes.
            unsafe {
                crypt(
                    ctx.as_mut_ptr() as Ctx,
                    tweak.as_ptr(),
                    buf.len(),
                    buf.as_mut_ptr(),
                    buf.as_ptr(),
                )
            };
            Ok(())
        }))
    }

    /// CCM through the streaming calls: per message the nonce with the lengths of AAD, message
    /// and tag, the AAD, the message in place, the tag (compared when decrypting).
    pub(super) fn ccm(&self, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let m = self.modes.as_ref().map_err(|e| e.clone())?;
        type Calls = (SetKey, SetNonce, Update, Message2, Message2, Digest);
        type Message2 = unsafe extern "C" fn(Ctx, usize, *mut u8, *const u8);
        let calls: Option<Calls> = match key.len() {
            16 => (|| {
                Some((
                    m.nettle_ccm_aes128_set_key?,
                    m.nettle_ccm_aes128_set_nonce?,
                    m.nettle_ccm_aes128_update?,
                    m.nettle_ccm_aes128_encrypt?,
                    m.nettle_ccm_aes128_decrypt?,
                    m.nettle_ccm_aes128_digest?,
                ))
            })(),
            32 => (|| {
                Some((
                    m.nettle_ccm_aes256_set_key?,
                    m.nettle_ccm_aes256_set_nonce?,
                    m.nettle_ccm_aes256_update?,
                    m.nettle_ccm_aes256_encrypt?,
                    m.nettle_ccm_aes256_decrypt?,
                    m.nettle_ccm_aes256_digest?,
                ))
            })(),
            n => return Err(format!("AES-CCM keys are 16 or 32 bytes, not {n}")),
        };
        let (set_key, set_nonce, update, enc, dec, digest) =
            calls.ok_or_else(|| missing("ccm.h"))?;
        let mut ctx = context(CONTEXT);
        // SAFETY: a context larger than ccm_aes256_ctx; a key of the length asked for.
        unsafe { set_key(ctx.as_mut_ptr() as Ctx, key.as_ptr()) };
        let m = m.clone();
        // SAFETY: every buffer is passed with its length; CCM works in place.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let _keep = &m;
            let c = ctx.as_mut_ptr() as Ctx;
            set_nonce(
                c,
                nonce.len(),
                nonce.as_ptr(),
                aad.len(),
                data.len(),
                tag.len(),
            );
            update(c, aad.len(), aad.as_ptr());
            let crypt = if encrypt { enc } else { dec };
            crypt(c, data.len(), data.as_mut_ptr(), data.as_ptr());
            if encrypt {
                digest(c, tag.len(), tag.as_mut_ptr());
                return Ok(true);
            }
            let mut got = vec![0u8; tag.len()];
            digest(c, got.len(), got.as_mut_ptr());
            Ok(got == *tag)
        }))
    }
}
