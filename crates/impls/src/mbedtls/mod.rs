//! `mbedtls`: Arm's Mbed TLS crypto library (Debian libmbedtls-dev / libmbedcrypto7, 2.28),
//! loaded at run time. Hashes and HMAC go through the generic `mbedtls_md` layer, ciphers and
//! AEADs through the generic `mbedtls_cipher` layer (AES in CBC, CTR, ECB, XTS, GCM and CCM among
//! them), looked up by Mbed TLS's own names; public key in [`pkey`].

mod pkey;

use crate::declared::{Conformance::*, Declared};
use crate::suite::{AeadFn, CipherFn, DeriveFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;
use cryptospeed_model::Variant;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

type Info = *const c_void;
type Ctx = *mut c_void;

crate::dynamic_api! {
    Api, "libmbedcrypto";
    required {
        mbedtls_version_get_string: fn(*mut c_char);
        mbedtls_md_info_from_string: fn(*const c_char) -> Info;
        mbedtls_md: fn(Info, *const u8, usize, *mut u8) -> c_int;
        mbedtls_md_hmac: fn(Info, *const u8, usize, *const u8, usize, *mut u8) -> c_int;
        mbedtls_cipher_info_from_string: fn(*const c_char) -> Info;
        mbedtls_cipher_init: fn(Ctx);
        mbedtls_cipher_free: fn(Ctx);
        mbedtls_cipher_setup: fn(Ctx, Info) -> c_int;
        mbedtls_cipher_setkey: fn(Ctx, *const u8, c_int, c_int) -> c_int;
        mbedtls_cipher_set_padding_mode: fn(Ctx, c_int) -> c_int;
        mbedtls_cipher_crypt: fn(Ctx, *const u8, usize, *const u8, usize, *mut u8, *mut usize) -> c_int;
        mbedtls_cipher_update: fn(Ctx, *const u8, usize, *mut u8, *mut usize) -> c_int;
        mbedtls_cipher_auth_encrypt: fn(Ctx, *const u8, usize, *const u8, usize, *const u8, usize, *mut u8, *mut usize, *mut u8, usize) -> c_int;
        mbedtls_cipher_auth_decrypt: fn(Ctx, *const u8, usize, *const u8, usize, *const u8, usize, *mut u8, *mut usize, *const u8, usize) -> c_int;
    }
    optional {}
}

const MBEDTLS_DECRYPT: c_int = 0;
const MBEDTLS_ENCRYPT: c_int = 1;
const MBEDTLS_PADDING_NONE: c_int = 4;

pub struct MbedTls {
    api: Arc<Api>,
    /// The public-key calls, or why this build lacks them.
    pkey: Result<Arc<pkey::PkApi>, String>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["ecdsa"],
        ops: &[Op::Sign],
        note: Deviates("the input is hashed (SHA-256/384/512) first, and k is derived by RFC 6979 (MBEDTLS_ECDSA_DETERMINISTIC)"),
    },
    crate::declared::HASH_THEN_SIGN[0],
    crate::declared::HASH_THEN_SIGN[1],
    Declared {
        kinds: &["*-cbc"],
        ops: &[],
        note: Deviates("mbedtls_cipher_crypt restarts from the IV on each call"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.as_deref().unwrap_or("libmbedcrypto.so.7");
    let api = Api::load(path).map_err(|e| format!("{e} (Debian package libmbedcrypto7)"))?;
    let pkey = pkey::PkApi::load(path).map(Arc::new);
    Ok(Box::new(SuiteImplementation::new(MbedTls {
        api: Arc::new(api),
        pkey,
    })))
}

fn check(rc: c_int, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned -{:#x}", -rc))
    }
}

/// A cipher context (its struct is opaque to us: a generously sized, aligned buffer that
/// `mbedtls_cipher_init` fills), freed on drop.
struct CipherCtx {
    api: Arc<Api>,
    buf: Box<[u128; 64]>,
}
impl CipherCtx {
    fn ptr(&mut self) -> Ctx {
        self.buf.as_mut_ptr() as Ctx
    }
}
impl Drop for CipherCtx {
    fn drop(&mut self) {
        // SAFETY: initialised by mbedtls_cipher_init.
        unsafe { (self.api.mbedtls_cipher_free)(self.ptr()) }
    }
}

impl MbedTls {
    fn md(&self, name: &str) -> Res<Info> {
        let c = CString::new(name).unwrap();
        // SAFETY: NUL-terminated name; the returned info is static.
        let info = unsafe { (self.api.mbedtls_md_info_from_string)(c.as_ptr()) };
        if info.is_null() {
            return Err(format!("this mbedtls has no {name}"));
        }
        Ok(info)
    }

    fn cipher_ctx(&self, name: &str, key: &[u8], op: c_int) -> Res<CipherCtx> {
        let c = CString::new(name).unwrap();
        // SAFETY: NUL-terminated name; static info; the context buffer outlives its use.
        unsafe {
            let info = (self.api.mbedtls_cipher_info_from_string)(c.as_ptr());
            if info.is_null() {
                return Err(format!("this mbedtls has no {name}"));
            }
            let mut ctx = CipherCtx {
                api: self.api.clone(),
                buf: Box::new([0u128; 64]),
            };
            (self.api.mbedtls_cipher_init)(ctx.ptr());
            check(
                (self.api.mbedtls_cipher_setup)(ctx.ptr(), info),
                "mbedtls_cipher_setup",
            )?;
            check(
                (self.api.mbedtls_cipher_setkey)(
                    ctx.ptr(),
                    key.as_ptr(),
                    (key.len() * 8) as c_int,
                    op,
                ),
                "mbedtls_cipher_setkey",
            )?;
            Ok(ctx)
        }
    }
}

impl MbedTls {
    /// AES-ECB: Mbed TLS's ECB takes one block per `mbedtls_cipher_update` (the generic layer
    /// refuses more), so a message is that call once per 16 bytes.
    fn ecb(&self, key: &[u8], encrypt: bool) -> Res<CipherFn> {
        let name = if key.len() == 32 {
            "AES-256-ECB"
        } else {
            "AES-128-ECB"
        };
        let op = if encrypt {
            MBEDTLS_ENCRYPT
        } else {
            MBEDTLS_DECRYPT
        };
        let mut ctx = self.cipher_ctx(name, key, op)?;
        // The call read out once: no Arc clone (an atomic pair) per timed call.
        let update = ctx.api.mbedtls_cipher_update;
        Ok(Box::new(move |buf| {
            for block in buf.chunks_exact_mut(16) {
                let mut olen = 0usize;
                // SAFETY: one whole block in place (Mbed TLS allows input == output).
                let rc = unsafe {
                    (update)(ctx.ptr(), block.as_ptr(), 16, block.as_mut_ptr(), &mut olen)
                };
                check(rc, "mbedtls_cipher_update")?;
            }
            Ok(())
        }))
    }
}

impl Suite for MbedTls {
    fn name(&self) -> &'static str {
        "mbedtls"
    }
    fn describe(&self) -> Variant {
        let mut buf = [0 as c_char; 32];
        // SAFETY: the documented buffer is at least 18 bytes.
        let version = unsafe {
            (self.api.mbedtls_version_get_string)(buf.as_mut_ptr());
            CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
        };
        Variant {
            label: format!("mbedtls-{version}"),
            implementation: "mbedtls".into(),
            version,
            library: self.api.path.clone(),
            ..Default::default()
        }
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "cbc: mbedtls_cipher_crypt restarts from the IV on each call".into(),
            "signatures: RSA (PKCS#1 v1.5) and ECDSA sign the SHA-256/384/512 digest of the \
             20/36-byte message through mbedtls_pk_sign (openssl speed signs it as a digest); \
             ECDSA's k is deterministic (RFC 6979, MBEDTLS_ECDSA_DETERMINISTIC)"
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
        let name = match p.id {
            "md5" => "MD5",
            "sha1" => "SHA1",
            "ripemd160" => "RIPEMD160",
            "sha256" => "SHA256",
            "sha512" => "SHA512",
            _ => return Err(format!("mbedtls does not offer {}", p.id)),
        };
        let info = self.md(name)?;
        let api = self.api.clone();
        // SAFETY: out is sized by the caller to the digest length.
        Ok(Box::new(move |msg, out| {
            check(
                unsafe { (api.mbedtls_md)(info, msg.as_ptr(), msg.len(), out.as_mut_ptr()) },
                "mbedtls_md",
            )
        }))
    }
    fn mac(&self, p: &Primitive, key: &[u8], _iv: &[u8]) -> Res<HashFn> {
        let name = match p.id {
            "hmac-md5" => "MD5",
            "hmac-sha256" => "SHA256",
            _ => return Err(format!("mbedtls does not offer {}", p.id)),
        };
        let info = self.md(name)?;
        let (api, key) = (self.api.clone(), key.to_vec());
        // SAFETY: out is sized by the caller to the digest length.
        Ok(Box::new(move |msg, out| {
            check(
                unsafe {
                    (api.mbedtls_md_hmac)(
                        info,
                        key.as_ptr(),
                        key.len(),
                        msg.as_ptr(),
                        msg.len(),
                        out.as_mut_ptr(),
                    )
                },
                "mbedtls_md_hmac",
            )
        }))
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let (name, block) = match p.id {
            "des-cbc" => ("DES-CBC", 8),
            "des-ede3-cbc" => ("DES-EDE3-CBC", 8),
            "bf-cbc" => ("BLOWFISH-CBC", 8),
            "aes-128-cbc" => ("AES-128-CBC", 16),
            "aes-192-cbc" => ("AES-192-CBC", 16),
            "aes-256-cbc" => ("AES-256-CBC", 16),
            "camellia-128-cbc" => ("CAMELLIA-128-CBC", 16),
            "camellia-192-cbc" => ("CAMELLIA-192-CBC", 16),
            "camellia-256-cbc" => ("CAMELLIA-256-CBC", 16),
            "aes-128-ctr" => ("AES-128-CTR", 1),
            // One data unit per call, the tweak being the IV.
            "aes-128-xts" => ("AES-128-XTS", 1),
            "aes-256-xts" => ("AES-256-XTS", 1),
            "aes-128-ecb" | "aes-256-ecb" => return self.ecb(key, encrypt),
            _ => return Err(format!("mbedtls does not offer {}", p.id)),
        };
        let op = if encrypt {
            MBEDTLS_ENCRYPT
        } else {
            MBEDTLS_DECRYPT
        };
        let mut ctx = self.cipher_ctx(name, key, op)?;
        if block > 1 {
            // SAFETY: set-up context.
            check(
                unsafe {
                    (self.api.mbedtls_cipher_set_padding_mode)(ctx.ptr(), MBEDTLS_PADDING_NONE)
                },
                "mbedtls_cipher_set_padding_mode",
            )?;
        }
        let iv = iv.to_vec();
        // Mbed TLS refuses to work in place on a partial block (CTR, XTS with stealing): such a
        // message goes through `scratch` and is copied back.
        let mut scratch = Vec::new();
        // The call read out once: no Arc clone (an atomic pair) per timed call.
        let crypt = ctx.api.mbedtls_cipher_crypt;
        Ok(Box::new(move |buf| {
            let n = buf.len() / block * block;
            let mut olen = 0usize;
            let partial = n % 16 != 0;
            scratch.resize(if partial { n } else { 0 }, 0);
            let out = if partial {
                scratch.as_mut_ptr()
            } else {
                buf.as_mut_ptr()
            };
            // SAFETY: whole blocks in place (Mbed TLS allows input == output), or into scratch.
            check(
                unsafe {
                    (crypt)(
                        ctx.ptr(),
                        iv.as_ptr(),
                        iv.len(),
                        buf.as_ptr(),
                        n,
                        out,
                        &mut olen,
                    )
                },
                "mbedtls_cipher_crypt",
            )?;
            if partial {
                buf[..n].copy_from_slice(&scratch);
            }
            Ok(())
        }))
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let name = match p.id {
            "aes-128-gcm" => "AES-128-GCM",
            "aes-256-gcm" => "AES-256-GCM",
            "chacha20-poly1305" => "CHACHA20-POLY1305",
            // Any nonce and tag length CCM allows (mbedtls_ccm_encrypt_and_tag underneath).
            "aes-128-ccm" => "AES-128-CCM",
            "aes-256-ccm" => "AES-256-CCM",
            _ => return Err(format!("mbedtls does not offer {}", p.id)),
        };
        let op = if encrypt {
            MBEDTLS_ENCRYPT
        } else {
            MBEDTLS_DECRYPT
        };
        let mut ctx = self.cipher_ctx(name, key, op)?;
        let api = self.api.clone();
        // SAFETY: in place (input == output is allowed for GCM and ChaCha20-Poly1305); tag
        // buffer of the tag length.
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            let mut olen = 0usize;
            if encrypt {
                check(
                    (api.mbedtls_cipher_auth_encrypt)(
                        ctx.ptr(),
                        nonce.as_ptr(),
                        nonce.len(),
                        aad.as_ptr(),
                        aad.len(),
                        data.as_ptr(),
                        data.len(),
                        data.as_mut_ptr(),
                        &mut olen,
                        tag.as_mut_ptr(),
                        tag.len(),
                    ),
                    "mbedtls_cipher_auth_encrypt",
                )?;
                Ok(true)
            } else {
                Ok((api.mbedtls_cipher_auth_decrypt)(
                    ctx.ptr(),
                    nonce.as_ptr(),
                    nonce.len(),
                    aad.as_ptr(),
                    aad.len(),
                    data.as_ptr(),
                    data.len(),
                    data.as_mut_ptr(),
                    &mut olen,
                    tag.as_ptr(),
                    tag.len(),
                ) == 0)
            }
        }))
    }
}
