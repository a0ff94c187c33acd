//! CCM, OCB and GCM-SIV through `gcry_cipher`, apart from GCM and ChaCha20-Poly1305 because each
//! needs its own calls around the message: CCM the lengths of message, AAD and tag before any
//! data (`GCRYCTL_SET_CCM_LENGTHS`); OCB and GCM-SIV a `gcry_cipher_final` before the last (here
//! the only) data call; GCM-SIV's decryption the expected tag after the AAD and before the data, since the tag is
//! its counter's start, and a reset before each nonce.

use super::{check, CipherHandle, Gcrypt, GCRYCTL_FINALIZE, GCRYCTL_RESET};
use crate::suite::{AeadFn, Res};
use std::os::raw::c_int;
use std::ptr::{null, null_mut};

pub const MODE_CCM: c_int = 8;
pub const MODE_OCB: c_int = 11;
pub const MODE_GCM_SIV: c_int = 16;
const GCRYCTL_SET_CCM_LENGTHS: c_int = 69;
const GCRYCTL_SET_DECRYPTION_TAG: c_int = 80;

/// The mode-specific calls between the nonce and the data.
///
/// # Safety
/// `c` is an open handle of `mode`; the slices are live.
unsafe fn before_data(
    c: &CipherHandle,
    mode: c_int,
    aad: &[u8],
    len: usize,
    tag: &[u8],
    encrypt: bool,
) -> Res<()> {
    let api = &c.api;
    if mode == MODE_CCM {
        let mut lengths = [len as u64, aad.len() as u64, tag.len() as u64];
        check(
            (api.gcry_cipher_ctl)(c.h, GCRYCTL_SET_CCM_LENGTHS, lengths.as_mut_ptr() as _, 24),
            "gcry_cipher_ctl(SET_CCM_LENGTHS)",
        )?;
    }
    if !aad.is_empty() {
        check(
            (api.gcry_cipher_authenticate)(c.h, aad.as_ptr() as _, aad.len()),
            "gcry_cipher_authenticate",
        )?;
    }
    if mode == MODE_GCM_SIV && !encrypt {
        check(
            (api.gcry_cipher_ctl)(
                c.h,
                GCRYCTL_SET_DECRYPTION_TAG,
                tag.as_ptr() as _,
                tag.len(),
            ),
            "gcry_cipher_set_decryption_tag",
        )?;
    }
    if mode != MODE_CCM {
        check(
            (api.gcry_cipher_ctl)(c.h, GCRYCTL_FINALIZE, null_mut(), 0),
            "gcry_cipher_final",
        )?;
    }
    Ok(())
}

impl Gcrypt {
    /// An AEAD of one of these modes, keyed once; per message the nonce (which resets the
    /// state), [`before_data`], the data in place, then the tag made or checked.
    pub(super) fn mode_aead(
        &self,
        algo: c_int,
        mode: c_int,
        key: &[u8],
        encrypt: bool,
    ) -> Res<AeadFn> {
        let c = self.open_cipher(algo, mode, key)?;
        // SAFETY: the handle lives in `c`, captured whole; every buffer is passed with its length.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let c = &c;
            let api = &c.api;
            if mode == MODE_GCM_SIV {
                // GCM-SIV's nonce replaces the key schedule with the message key it derives:
                // the reset brings the master key's back (and clears the last tag).
                check(
                    (api.gcry_cipher_ctl)(c.h, GCRYCTL_RESET, null_mut(), 0),
                    "gcry_cipher_reset",
                )?;
            }
            check(
                (api.gcry_cipher_setiv)(c.h, nonce.as_ptr() as _, nonce.len()),
                "gcry_cipher_setiv",
            )?;
            before_data(c, mode, aad, data.len(), tag, encrypt)?;
            let (run, what) = if encrypt {
                (api.gcry_cipher_encrypt, "gcry_cipher_encrypt")
            } else {
                (api.gcry_cipher_decrypt, "gcry_cipher_decrypt")
            };
            let rc = run(c.h, data.as_mut_ptr() as _, data.len(), null(), 0);
            if encrypt {
                check(rc, what)?;
                check(
                    (api.gcry_cipher_gettag)(c.h, tag.as_mut_ptr() as _, tag.len()),
                    "gcry_cipher_gettag",
                )?;
                return Ok(true);
            }
            Ok(rc == 0 && (api.gcry_cipher_checktag)(c.h, tag.as_ptr() as _, tag.len()) == 0)
        }))
    }
}
