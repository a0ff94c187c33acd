//! `wolfssl`: wolfSSL's wolfCrypt (Debian libwolfssl-dev / libwolfssl35), loaded at run time.
//! Offers its one-shot hashes (MD5, SHA-1, SHA-256, SHA-512, SHA3-256), AES-GCM and
//! ChaCha20-Poly1305, AES in ECB, XTS and CCM ([`modes`]), the primitives the Debian build
//! enables that have one-call APIs, and its public key ([`pkey`]).

mod modes;
mod pkey;

use crate::declared::Declared;
use crate::suite::{AeadFn, CipherFn, DeriveFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Variant;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

type HashCall = unsafe extern "C" fn(*const u8, u32, *mut u8) -> c_int;

crate::dynamic_api! {
    Api, "libwolfssl";
    required {
        wolfSSL_lib_version: fn() -> *const c_char;
        wolfCrypt_Init: fn() -> c_int;
        wc_Md5Hash: fn(*const u8, u32, *mut u8) -> c_int;
        wc_ShaHash: fn(*const u8, u32, *mut u8) -> c_int;
        wc_Sha256Hash: fn(*const u8, u32, *mut u8) -> c_int;
        wc_Sha512Hash: fn(*const u8, u32, *mut u8) -> c_int;
        wc_Sha3_256Hash: fn(*const u8, u32, *mut u8) -> c_int;
        wc_AesInit: fn(*mut c_void, *mut c_void, c_int) -> c_int;
        wc_AesFree: fn(*mut c_void);
        wc_AesGcmSetKey: fn(*mut c_void, *const u8, u32) -> c_int;
        wc_AesGcmEncrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32, *mut u8, u32, *const u8, u32) -> c_int;
        wc_AesGcmDecrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32, *const u8, u32, *const u8, u32) -> c_int;
        wc_ChaCha20Poly1305_Encrypt: fn(*const u8, *const u8, *const u8, u32, *const u8, u32, *mut u8, *mut u8) -> c_int;
        wc_ChaCha20Poly1305_Decrypt: fn(*const u8, *const u8, *const u8, u32, *const u8, u32, *const u8, *mut u8) -> c_int;
    }
    optional {
        wc_AesSetKey: fn(*mut c_void, *const u8, u32, *const u8, c_int) -> c_int;
        wc_AesEcbEncrypt: fn(*mut c_void, *mut u8, *const u8, u32) -> c_int;
        wc_AesEcbDecrypt: fn(*mut c_void, *mut u8, *const u8, u32) -> c_int;
        wc_AesCcmSetKey: fn(*mut c_void, *const u8, u32) -> c_int;
        wc_AesCcmEncrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32, *mut u8, u32, *const u8, u32) -> c_int;
        wc_AesCcmDecrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32, *const u8, u32, *const u8, u32) -> c_int;
        wc_AesXtsSetKey: fn(*mut c_void, *const u8, u32, c_int, *mut c_void, c_int) -> c_int;
        wc_AesXtsEncrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32) -> c_int;
        wc_AesXtsDecrypt: fn(*mut c_void, *mut u8, *const u8, u32, *const u8, u32) -> c_int;
        wc_AesXtsFree: fn(*mut c_void) -> c_int;
    }
}

/// wolfCrypt's `INVALID_DEVID`: use the software implementation.
const INVALID_DEVID: c_int = -2;

pub struct WolfSsl {
    api: Arc<Api>,
    /// The public-key calls, or why this build lacks them.
    pkey: Result<Arc<pkey::PkApi>, String>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &crate::declared::HASH_THEN_SIGN;

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.as_deref().unwrap_or("libwolfssl.so.35");
    let api = Api::load(path).map_err(|e| format!("{e} (Debian package libwolfssl35)"))?;
    // SAFETY: global initialisation, no arguments.
    if unsafe { (api.wolfCrypt_Init)() } != 0 {
        return Err("wolfCrypt_Init failed".into());
    }
    let pkey = pkey::PkApi::load(path).map(Arc::new);
    Ok(Box::new(SuiteImplementation::new(WolfSsl {
        api: Arc::new(api),
        pkey,
    })))
}

fn check(rc: c_int, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned {rc}"))
    }
}

/// An `Aes` object: opaque to us, so a generously sized aligned buffer, freed on drop.
struct Aes {
    api: Arc<Api>,
    buf: Box<[u128; 1024]>,
}
impl Aes {
    fn ptr(&mut self) -> *mut c_void {
        self.buf.as_mut_ptr() as *mut c_void
    }
}
impl Drop for Aes {
    fn drop(&mut self) {
        let api = self.api.clone();
        // SAFETY: initialised by wc_AesInit.
        unsafe { (api.wc_AesFree)(self.ptr()) }
    }
}

impl Suite for WolfSsl {
    fn name(&self) -> &'static str {
        "wolfssl"
    }
    fn describe(&self) -> Variant {
        // SAFETY: static version string.
        let version = unsafe { CStr::from_ptr((self.api.wolfSSL_lib_version)()) }
            .to_string_lossy()
            .into_owned();
        Variant {
            label: format!("wolfssl-{version}"),
            implementation: "wolfssl".into(),
            version,
            library: self.api.path.clone(),
            ..Default::default()
        }
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "signatures: RSA (PKCS#1 v1.5) and ECDSA hash the 20/36-byte message with SHA-256/384/512 \
             (wc_SignatureGenerate_ex, wc_Hash) before signing (openssl speed signs it as a digest)"
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
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        pkey::derive(self.pkey.as_ref()?, p, private, peer)
    }
    fn ffdh_keygen(&self, p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
        pkey::ffdh_keygen(self.pkey.as_ref()?, p)
    }
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        let f: HashCall = match p.id {
            "md5" => self.api.wc_Md5Hash,
            "sha1" => self.api.wc_ShaHash,
            "sha256" => self.api.wc_Sha256Hash,
            "sha512" => self.api.wc_Sha512Hash,
            "sha3-256" => self.api.wc_Sha3_256Hash,
            _ => return Err(format!("wolfssl does not offer {}", p.id)),
        };
        let api = self.api.clone();
        // SAFETY: out is sized by the caller to the digest length.
        Ok(Box::new(move |msg, out| {
            let _keep = &api;
            check(
                unsafe { f(msg.as_ptr(), msg.len() as u32, out.as_mut_ptr()) },
                "wolfCrypt hash",
            )
        }))
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let api = self.api.clone();
        match p.id {
            "chacha20-poly1305" => {
                let key: [u8; 32] = key.try_into().map_err(|_| "key must be 32 bytes")?;
                // SAFETY (both): 32-byte key, 12-byte nonce, 16-byte tag; in place.
                Ok(Box::new(move |nonce, aad, data, tag| unsafe {
                    if encrypt {
                        check(
                            (api.wc_ChaCha20Poly1305_Encrypt)(
                                key.as_ptr(),
                                nonce.as_ptr(),
                                aad.as_ptr(),
                                aad.len() as u32,
                                data.as_ptr(),
                                data.len() as u32,
                                data.as_mut_ptr(),
                                tag.as_mut_ptr(),
                            ),
                            "wc_ChaCha20Poly1305_Encrypt",
                        )?;
                        Ok(true)
                    } else {
                        Ok((api.wc_ChaCha20Poly1305_Decrypt)(
                            key.as_ptr(),
                            nonce.as_ptr(),
                            aad.as_ptr(),
                            aad.len() as u32,
                            data.as_ptr(),
                            data.len() as u32,
                            tag.as_ptr(),
                            data.as_mut_ptr(),
                        ) == 0)
                    }
                }))
            }
            "aes-128-gcm" | "aes-256-gcm" => self.gcm(key, encrypt),
            "aes-128-ccm" | "aes-256-ccm" => self.ccm(key, encrypt),
            _ => Err(format!("wolfssl does not offer {}", p.id)),
        }
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        match p.id {
            "aes-128-ecb" | "aes-256-ecb" => self.ecb(key, encrypt),
            "aes-128-xts" | "aes-256-xts" => self.xts(key, iv, encrypt),
            _ => Err(format!("wolfssl does not offer {}", p.id)),
        }
    }
}
