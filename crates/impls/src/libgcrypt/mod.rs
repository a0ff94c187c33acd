//! `libgcrypt`: GnuPG's libgcrypt (Debian libgcrypt20), loaded at run time. Offers its hashes
//! (MD4, MD5, SHA-1/256/512, SHA3-256, BLAKE2b-512, RIPEMD-160, Whirlpool), HMAC, CMAC and GMAC
//! through `gcry_mac`, and its block and stream ciphers through `gcry_cipher` (CBC, CTR, ECB, XTS,
//! GCM, ChaCha20-Poly1305; CCM, OCB and GCM-SIV in [`modes`]; SM3 and SM4 too); public key, which
//! speaks S-expressions, in [`pkey`].

mod ed448;
mod modes;
mod pkey;

use crate::declared::{Conformance::*, Declared};
use crate::suite::{AeadFn, CipherFn, DeriveFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;
use cryptospeed_model::Variant;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::ptr::{null, null_mut};
use std::sync::Arc;

type Handle = *mut c_void;
type Err = c_uint;

crate::dynamic_api! {
    Api, "libgcrypt";
    required {
        gcry_check_version: fn(*const c_char) -> *const c_char;
        gcry_control: fn(c_int, c_int) -> Err;
        gcry_md_hash_buffer: fn(c_int, *mut c_void, *const c_void, usize);
        gcry_md_algo_info: fn(c_int, c_int, *mut c_void, *mut usize) -> Err;
        gcry_mac_open: fn(*mut Handle, c_int, c_uint, Handle) -> Err;
        gcry_mac_setkey: fn(Handle, *const c_void, usize) -> Err;
        gcry_mac_setiv: fn(Handle, *const c_void, usize) -> Err;
        gcry_mac_write: fn(Handle, *const c_void, usize) -> Err;
        gcry_mac_read: fn(Handle, *mut c_void, *mut usize) -> Err;
        gcry_mac_ctl: fn(Handle, c_int, *mut c_void, usize) -> Err;
        gcry_mac_close: fn(Handle);
        gcry_cipher_open: fn(*mut Handle, c_int, c_int, c_uint) -> Err;
        gcry_cipher_setkey: fn(Handle, *const c_void, usize) -> Err;
        gcry_cipher_setiv: fn(Handle, *const c_void, usize) -> Err;
        gcry_cipher_setctr: fn(Handle, *const c_void, usize) -> Err;
        gcry_cipher_encrypt: fn(Handle, *mut c_void, usize, *const c_void, usize) -> Err;
        gcry_cipher_decrypt: fn(Handle, *mut c_void, usize, *const c_void, usize) -> Err;
        gcry_cipher_authenticate: fn(Handle, *const c_void, usize) -> Err;
        gcry_cipher_gettag: fn(Handle, *mut c_void, usize) -> Err;
        gcry_cipher_checktag: fn(Handle, *const c_void, usize) -> Err;
        gcry_cipher_close: fn(Handle);
        gcry_cipher_ctl: fn(Handle, c_int, *mut c_void, usize) -> Err;
    }
    optional {}
}

// Constants from gcrypt.h (libgcrypt 1.10).
const GCRYCTL_INITIALIZATION_FINISHED: c_int = 38;
const GCRYCTL_DISABLE_SECMEM: c_int = 37;
const GCRYCTL_TEST_ALGO: c_int = 8;
const GCRYCTL_RESET: c_int = 4;
const GCRYCTL_FINALIZE: c_int = 5;
const MODE_ECB: c_int = 1;
const MODE_STREAM: c_int = 4;
const MODE_CBC: c_int = 3;
const MODE_CTR: c_int = 6;
const MODE_GCM: c_int = 9;
const MODE_POLY1305: c_int = 10;
const MODE_XTS: c_int = 13;
const AES128: c_int = 7;
const AES256: c_int = 9;
const SM4: c_int = 318;

pub struct Gcrypt {
    api: Arc<Api>,
    version: String,
    /// The public-key calls, or why this build lacks them.
    pkey: Result<Arc<pkey::PkApi>, String>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[Declared {
    kinds: &["rsa", "dsa", "ecdsa"],
    ops: &[Op::Sign, Op::Verify],
    note: Deviates("the input is hashed (SHA-256/384/512) and signed through S-expressions built per call, as GnuPG does"),
}];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.as_deref().unwrap_or("libgcrypt.so.20");
    let api = Api::load(path).map_err(|e| format!("{e} (Debian package libgcrypt20)"))?;
    // SAFETY: gcry_check_version(NULL) initialises the library and returns its static version.
    let version = unsafe {
        let v = (api.gcry_check_version)(null());
        if v.is_null() {
            return Err("gcry_check_version failed".into());
        }
        // Public-key calls would warn about insecure memory on every run otherwise; no
        // other implementation here locks its key memory either.
        (api.gcry_control)(GCRYCTL_DISABLE_SECMEM, 0);
        (api.gcry_control)(GCRYCTL_INITIALIZATION_FINISHED, 0);
        CStr::from_ptr(v).to_string_lossy().into_owned()
    };
    let pkey = pkey::PkApi::load(path).map(Arc::new);
    Ok(Box::new(SuiteImplementation::new(Gcrypt {
        api: Arc::new(api),
        version,
        pkey,
    })))
}

fn check(rc: Err, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed (gcry_error_t {rc:#x})"))
    }
}

/// A handle closed when the closure owning it is dropped.
struct CipherHandle {
    api: Arc<Api>,
    h: Handle,
}
impl Drop for CipherHandle {
    fn drop(&mut self) {
        // SAFETY: opened by gcry_cipher_open, closed once.
        unsafe { (self.api.gcry_cipher_close)(self.h) }
    }
}
struct MacHandle {
    api: Arc<Api>,
    h: Handle,
}
impl Drop for MacHandle {
    fn drop(&mut self) {
        // SAFETY: opened by gcry_mac_open, closed once.
        unsafe { (self.api.gcry_mac_close)(self.h) }
    }
}

impl Gcrypt {
    fn open_cipher(&self, algo: c_int, mode: c_int, key: &[u8]) -> Res<CipherHandle> {
        let mut h: Handle = null_mut();
        // SAFETY: out-pointer for the handle; key buffer with its length.
        unsafe {
            check(
                (self.api.gcry_cipher_open)(&mut h, algo, mode, 0),
                "gcry_cipher_open",
            )?;
            let handle = CipherHandle {
                api: self.api.clone(),
                h,
            };
            check(
                (self.api.gcry_cipher_setkey)(h, key.as_ptr() as _, key.len()),
                "gcry_cipher_setkey",
            )?;
            Ok(handle)
        }
    }
}

/// libgcrypt's algorithm and mode of a cipher primitive.
fn cipher_of(id: &str) -> Option<(c_int, c_int)> {
    Some(match id {
        "des-cbc" => (302, MODE_CBC),
        "des-ede3-cbc" => (2, MODE_CBC),
        "idea-cbc" => (1, MODE_CBC),
        "seed-cbc" => (309, MODE_CBC),
        "rc2-cbc" => (308, MODE_CBC),
        "bf-cbc" => (4, MODE_CBC),
        "cast-cbc" => (3, MODE_CBC),
        "aes-128-cbc" => (7, MODE_CBC),
        "aes-192-cbc" => (8, MODE_CBC),
        "aes-256-cbc" => (9, MODE_CBC),
        "camellia-128-cbc" => (310, MODE_CBC),
        "camellia-192-cbc" => (311, MODE_CBC),
        "camellia-256-cbc" => (312, MODE_CBC),
        "aes-128-ctr" => (7, MODE_CTR),
        "aes-128-ecb" => (AES128, MODE_ECB),
        "aes-256-ecb" => (AES256, MODE_ECB),
        "aes-128-xts" => (AES128, MODE_XTS),
        "aes-256-xts" => (AES256, MODE_XTS),
        "sm4-cbc" => (SM4, MODE_CBC),
        "sm4-ecb" => (SM4, MODE_ECB),
        "rc4" => (301, MODE_STREAM),
        _ => return None,
    })
}

/// The unit a call's length is rounded down to: the block for CBC (from the vector's IV) and
/// ECB, none for stream-like modes and XTS (which steals ciphertext for a partial block).
fn whole_units(p: &Primitive, mode: c_int) -> usize {
    match mode {
        MODE_CBC => p
            .kats
            .iter()
            .find_map(|k| match k {
                cryptospeed_catalog::Kat::Cipher { iv, .. } => Some(iv.len() / 2),
                _ => None,
            })
            .unwrap_or(16),
        MODE_ECB => 16,
        _ => 1,
    }
}

impl Suite for Gcrypt {
    fn name(&self) -> &'static str {
        "libgcrypt"
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "signatures: RSA (PKCS#1 v1.5), DSA and ECDSA hash the 20/36-byte message with \
             SHA-256/384/512 (gcry_md_hash_buffer) and sign it through S-expressions built per \
             call (gcry_sexp_build_array, gcry_pk_sign), as GnuPG does (openssl speed signs it \
             as a digest)"
                .into(),
        ]
    }
    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
        pkey::signer(self.pkey.as_ref()?, p, key)
    }
    fn verify_foreign(
        &self,
        p: &Primitive,
        public: &[u8],
        digest: &str,
        msg: &[u8],
        sig: &[u8],
    ) -> Res<bool> {
        pkey::verify_foreign(self.pkey.as_ref()?, p, public, digest, msg, sig)
    }
    fn ffdh_keygen(&self, _p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
        Err("libgcrypt has no Diffie-Hellman API (only gcry_mpi_powm)".into())
    }
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        pkey::derive(self.pkey.as_ref()?, p, private, peer)
    }
    fn describe(&self) -> Variant {
        Variant {
            label: format!("libgcrypt-{}", self.version),
            implementation: "libgcrypt".into(),
            version: self.version.clone(),
            library: self.api.path.clone(),
            ..Default::default()
        }
    }
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        let algo: c_int = match p.id {
            "md4" => 301,
            "md5" => 1,
            "sha1" => 2,
            "ripemd160" => 3,
            "sha256" => 8,
            "sha512" => 10,
            "whirlpool" => 305,
            "sha3-256" => 313,
            "blake2b-512" => 318,
            "sm3" => 326,
            _ => return Err(format!("libgcrypt does not offer {}", p.id)),
        };
        let api = self.api.clone();
        // SAFETY: asks whether the algorithm is usable (not disabled, e.g. in FIPS mode).
        check(
            unsafe { (api.gcry_md_algo_info)(algo, GCRYCTL_TEST_ALGO, null_mut(), null_mut()) },
            "gcry_md_test_algo",
        )?;
        // SAFETY: out is sized by the caller to the digest length of `algo`.
        Ok(Box::new(move |msg, out| {
            unsafe {
                (api.gcry_md_hash_buffer)(algo, out.as_mut_ptr() as _, msg.as_ptr() as _, msg.len())
            };
            Ok(())
        }))
    }
    fn mac(&self, p: &Primitive, key: &[u8], iv: &[u8]) -> Res<HashFn> {
        let algo: c_int = match p.id {
            "hmac-sha256" => 101,
            "hmac-md5" => 106,
            "cmac" => 201,
            "ghash" => 401,
            _ => return Err(format!("libgcrypt does not offer {}", p.id)),
        };
        let mut h: Handle = null_mut();
        // SAFETY: handle out-pointer; key and IV buffers with their lengths.
        let mac = unsafe {
            check(
                (self.api.gcry_mac_open)(&mut h, algo, 0, null_mut()),
                "gcry_mac_open",
            )?;
            let mac = MacHandle {
                api: self.api.clone(),
                h,
            };
            check(
                (self.api.gcry_mac_setkey)(h, key.as_ptr() as _, key.len()),
                "gcry_mac_setkey",
            )?;
            mac
        };
        let iv = iv.to_vec();
        Ok(Box::new(move |msg, out| unsafe {
            // SAFETY: the handle lives in `mac`, captured whole; out has the MAC's length.
            let mac = &mac;
            let api = &mac.api;
            check(
                (api.gcry_mac_ctl)(mac.h, GCRYCTL_RESET, null_mut(), 0),
                "gcry_mac_reset",
            )?;
            if !iv.is_empty() {
                check(
                    (api.gcry_mac_setiv)(mac.h, iv.as_ptr() as _, iv.len()),
                    "gcry_mac_setiv",
                )?;
            }
            check(
                (api.gcry_mac_write)(mac.h, msg.as_ptr() as _, msg.len()),
                "gcry_mac_write",
            )?;
            let mut len = out.len();
            check(
                (api.gcry_mac_read)(mac.h, out.as_mut_ptr() as _, &mut len),
                "gcry_mac_read",
            )
        }))
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let (algo, mode) =
            cipher_of(p.id).ok_or_else(|| format!("libgcrypt does not offer {}", p.id))?;
        let c = self.open_cipher(algo, mode, key)?;
        // SAFETY: IV/counter buffer with its length, on the open handle.
        unsafe {
            match mode {
                MODE_CTR => check(
                    (self.api.gcry_cipher_setctr)(c.h, iv.as_ptr() as _, iv.len()),
                    "gcry_cipher_setctr",
                )?,
                MODE_CBC => check(
                    (self.api.gcry_cipher_setiv)(c.h, iv.as_ptr() as _, iv.len()),
                    "gcry_cipher_setiv",
                )?,
                _ => {}
            }
        }
        let run = if encrypt {
            c.api.gcry_cipher_encrypt
        } else {
            c.api.gcry_cipher_decrypt
        };
        let block = whole_units(p, mode);
        // XTS: each call is one data unit under the same tweak, as in OpenSSL (libgcrypt would
        // go on from the last call's tweak).
        let tweak = (mode == MODE_XTS).then(|| iv.to_vec());
        // SAFETY: in-place operation (input NULL) on whole blocks; the IV chains across calls.
        Ok(Box::new(move |buf| {
            // Capture the whole handle (not just its pointer), so it lives as long as the closure.
            let c = &c;
            if let Some(t) = &tweak {
                check(
                    unsafe { (c.api.gcry_cipher_setiv)(c.h, t.as_ptr() as _, t.len()) },
                    "gcry_cipher_setiv",
                )?;
            }
            let n = buf.len() / block * block;
            check(
                unsafe { run(c.h, buf.as_mut_ptr() as _, n, null(), 0) },
                "gcry_cipher_encrypt/decrypt",
            )
        }))
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let (algo, mode): (c_int, c_int) = match p.id {
            "aes-128-gcm" => (7, MODE_GCM),
            "aes-256-gcm" => (9, MODE_GCM),
            "chacha20-poly1305" => (316, MODE_POLY1305),
            "aes-128-ccm" => return self.mode_aead(AES128, modes::MODE_CCM, key, encrypt),
            "aes-256-ccm" => return self.mode_aead(AES256, modes::MODE_CCM, key, encrypt),
            "aes-128-ocb" => return self.mode_aead(AES128, modes::MODE_OCB, key, encrypt),
            "aes-256-ocb" => return self.mode_aead(AES256, modes::MODE_OCB, key, encrypt),
            "aes-128-gcm-siv" => return self.mode_aead(AES128, modes::MODE_GCM_SIV, key, encrypt),
            "aes-256-gcm-siv" => return self.mode_aead(AES256, modes::MODE_GCM_SIV, key, encrypt),
            _ => return Err(format!("libgcrypt does not offer {}", p.id)),
        };
        let c = self.open_cipher(algo, mode, key)?;
        // SAFETY: per message: set the nonce (which resets the AEAD state), authenticate the
        // associated data, encrypt or decrypt in place, then produce or check the tag.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let c = &c;
            let api = &c.api;
            check(
                (api.gcry_cipher_setiv)(c.h, nonce.as_ptr() as _, nonce.len()),
                "gcry_cipher_setiv",
            )?;
            check(
                (api.gcry_cipher_authenticate)(c.h, aad.as_ptr() as _, aad.len()),
                "gcry_cipher_authenticate",
            )?;
            if encrypt {
                check(
                    (api.gcry_cipher_encrypt)(c.h, data.as_mut_ptr() as _, data.len(), null(), 0),
                    "gcry_cipher_encrypt",
                )?;
                check(
                    (api.gcry_cipher_gettag)(c.h, tag.as_mut_ptr() as _, tag.len()),
                    "gcry_cipher_gettag",
                )?;
                Ok(true)
            } else {
                check(
                    (api.gcry_cipher_decrypt)(c.h, data.as_mut_ptr() as _, data.len(), null(), 0),
                    "gcry_cipher_decrypt",
                )?;
                Ok((api.gcry_cipher_checktag)(c.h, tag.as_ptr() as _, tag.len()) == 0)
            }
        }))
    }
}
