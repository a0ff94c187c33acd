//! AES in ECB, XTS and CCM through wolfCrypt's one-call functions. They are optional symbols
//! (a wolfSSL build may leave a mode out: `HAVE_AES_ECB`, `WOLFSSL_AES_XTS`, `HAVE_AESCCM`), so
//! a build without one reports that primitive unavailable and keeps the rest.

use super::{check, Aes, WolfSsl, INVALID_DEVID};
use crate::suite::{AeadFn, CipherFn, Res};
use std::os::raw::c_void;
use std::ptr::{null, null_mut};
use std::sync::Arc;

/// wolfCrypt's `AES_ENCRYPTION` and `AES_DECRYPTION`.
const AES_ENCRYPTION: i32 = 0;
const AES_DECRYPTION: i32 = 1;

fn missing(what: &str) -> String {
    format!("this wolfSSL build has no {what}")
}

/// An `XtsAes` (two `Aes` objects): a generously sized buffer, freed with `wc_AesXtsFree`.
struct XtsAes {
    free: unsafe extern "C" fn(*mut c_void) -> i32,
    buf: Box<[u128; 2048]>,
    _api: Arc<super::Api>,
}
impl Drop for XtsAes {
    fn drop(&mut self) {
        // SAFETY: set up by wc_AesXtsSetKey, freed once.
        unsafe { (self.free)(self.buf.as_mut_ptr() as *mut c_void) };
    }
}

impl WolfSsl {
    /// AES-GCM: the key set once in a `wc_AesGcmSetKey` context, each message sealed or
    /// opened in place.
    pub(super) fn gcm(&self, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let api = self.api.clone();
        let mut aes = Aes {
            api: api.clone(),
            buf: Box::new([0u128; 1024]),
        };
        // SAFETY: the buffer is larger than wolfCrypt's Aes struct.
        unsafe {
            check(
                (api.wc_AesInit)(aes.ptr(), null_mut(), INVALID_DEVID),
                "wc_AesInit",
            )?;
            check(
                (api.wc_AesGcmSetKey)(aes.ptr(), key.as_ptr(), key.len() as u32),
                "wc_AesGcmSetKey",
            )?;
        }
        // SAFETY (both): in place; nonce, tag and AAD with their lengths.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let aes = &mut aes;
            if encrypt {
                check(
                    (api.wc_AesGcmEncrypt)(
                        aes.ptr(),
                        data.as_mut_ptr(),
                        data.as_ptr(),
                        data.len() as u32,
                        nonce.as_ptr(),
                        nonce.len() as u32,
                        tag.as_mut_ptr(),
                        tag.len() as u32,
                        aad.as_ptr(),
                        aad.len() as u32,
                    ),
                    "wc_AesGcmEncrypt",
                )?;
                Ok(true)
            } else {
                Ok((api.wc_AesGcmDecrypt)(
                    aes.ptr(),
                    data.as_mut_ptr(),
                    data.as_ptr(),
                    data.len() as u32,
                    nonce.as_ptr(),
                    nonce.len() as u32,
                    tag.as_ptr(),
                    tag.len() as u32,
                    aad.as_ptr(),
                    aad.len() as u32,
                ) == 0)
            }
        }))
    }

    /// A fresh `Aes` object.
    fn aes(&self) -> Res<Aes> {
        let mut aes = Aes {
            api: self.api.clone(),
            buf: Box::new([0u128; 1024]),
        };
        // SAFETY: the buffer is larger than wolfCrypt's Aes struct.
        check(
            unsafe { (self.api.wc_AesInit)(aes.ptr(), null_mut(), INVALID_DEVID) },
            "wc_AesInit",
        )?;
        Ok(aes)
    }

    /// ECB over the whole blocks of each message.
    pub(super) fn ecb(&self, key: &[u8], encrypt: bool) -> Res<CipherFn> {
        let api = &self.api;
        let crypt = if encrypt {
            api.wc_AesEcbEncrypt
        } else {
            api.wc_AesEcbDecrypt
        };
        let (set, crypt) = api
            .wc_AesSetKey
            .zip(crypt)
            .ok_or_else(|| missing("AES-ECB"))?;
        let mut aes = self.aes()?;
        let dir = if encrypt {
            AES_ENCRYPTION
        } else {
            AES_DECRYPTION
        };
        // SAFETY: an initialised Aes; the key with its length; no IV for ECB.
        check(
            unsafe { set(aes.ptr(), key.as_ptr(), key.len() as u32, null(), dir) },
            "wc_AesSetKey",
        )?;
        Ok(Box::new(move |buf| {
            let n = buf.len() / 16 * 16;
            // SAFETY: in place on whole blocks.
            let rc = unsafe { crypt(aes.ptr(), buf.as_mut_ptr(), buf.as_ptr(), n as u32) };
            check(rc, "wc_AesEcbEncrypt/Decrypt")
        }))
    }

    /// XTS: each message one data unit under the tweak `iv`.
    pub(super) fn xts(&self, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let api = &self.api;
        let crypt = if encrypt {
            api.wc_AesXtsEncrypt
        } else {
            api.wc_AesXtsDecrypt
        };
        let ((set, crypt), free) = api
            .wc_AesXtsSetKey
            .zip(crypt)
            .zip(api.wc_AesXtsFree)
            .ok_or_else(|| missing("AES-XTS"))?;
        let mut xts = XtsAes {
            free,
            buf: Box::new([0u128; 2048]),
            _api: api.clone(),
        };
        let dir = if encrypt {
            AES_ENCRYPTION
        } else {
            AES_DECRYPTION
        };
        let p = xts.buf.as_mut_ptr() as *mut c_void;
        // SAFETY: a buffer larger than XtsAes; the double-length key with its length.
        let rc = unsafe {
            set(
                p,
                key.as_ptr(),
                key.len() as u32,
                dir,
                null_mut(),
                INVALID_DEVID,
            )
        };
        check(rc, "wc_AesXtsSetKey")?;
        let tweak = iv.to_vec();
        // Ciphertext stealing goes wrong in place: a message with a partial last block goes
        // through `scratch` and is copied back.
        let mut scratch = Vec::new();
        Ok(Box::new(move |buf| {
            let p = xts.buf.as_mut_ptr() as *mut c_void;
            let partial = buf.len() % 16 != 0;
            scratch.resize(if partial { buf.len() } else { 0 }, 0);
            let out = if partial {
                scratch.as_mut_ptr()
            } else {
                buf.as_mut_ptr()
            };
            // SAFETY: whole blocks in place or into scratch; the 16-byte tweak.
            let rc = unsafe {
                crypt(
                    p,
                    out,
                    buf.as_ptr(),
                    buf.len() as u32,
                    tweak.as_ptr(),
                    tweak.len() as u32,
                )
            };
            check(rc, "wc_AesXtsEncrypt/Decrypt")?;
            if partial {
                buf.copy_from_slice(&scratch);
            }
            Ok(())
        }))
    }

    /// CCM: one call per message, nonce, tag and AAD with their lengths, in place.
    pub(super) fn ccm(&self, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let api = self.api.clone();
        let (set, enc, dec) = match (
            api.wc_AesCcmSetKey,
            api.wc_AesCcmEncrypt,
            api.wc_AesCcmDecrypt,
        ) {
            (Some(s), Some(e), Some(d)) => (s, e, d),
            _ => return Err(missing("AES-CCM")),
        };
        let mut aes = self.aes()?;
        // SAFETY: an initialised Aes; the key with its length.
        check(
            unsafe { set(aes.ptr(), key.as_ptr(), key.len() as u32) },
            "wc_AesCcmSetKey",
        )?;
        // SAFETY (both): in place; nonce, tag and AAD with their lengths.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let _keep = &api;
            let (n, a, len) = (nonce.len() as u32, aad.len() as u32, data.len() as u32);
            let out = data.as_mut_ptr();
            if encrypt {
                let t = tag.as_mut_ptr();
                let rc = enc(
                    aes.ptr(),
                    out,
                    out,
                    len,
                    nonce.as_ptr(),
                    n,
                    t,
                    tag.len() as u32,
                    aad.as_ptr(),
                    a,
                );
                check(rc, "wc_AesCcmEncrypt")?;
                return Ok(true);
            }
            let rc = dec(
                aes.ptr(),
                out,
                out,
                len,
                nonce.as_ptr(),
                n,
                tag.as_ptr(),
                tag.len() as u32,
                aad.as_ptr(),
                a,
            );
            Ok(rc == 0)
        }))
    }
}
