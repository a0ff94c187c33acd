//! The slice of libcrypto's C API cryptospeed calls, resolved at run time with dlopen.
//!
//! Loading the library at run time (instead of linking `openssl-sys`) lets one worker binary
//! measure any libcrypto build: the system one, a variant built with another compiler, or an old
//! release, each in its own process. Symbols missing from older versions are optional.
#![allow(non_snake_case, clippy::type_complexity)]

use std::os::raw::{c_char, c_int, c_long, c_uint, c_ulong, c_void};

pub type Ptr = *mut c_void;

pub const EVP_PKEY_EC: c_int = 408;
pub const EVP_PKEY_X25519: c_int = 1034;
pub const EVP_PKEY_X448: c_int = 1035;
pub const EVP_PKEY_ED25519: c_int = 1087;
pub const EVP_PKEY_ED448: c_int = 1088;
/// `EVP_PKEY_OP_PARAMGEN | EVP_PKEY_OP_KEYGEN` and the curve control, as 1.1.1 numbers them.
pub const EVP_PKEY_OP_PARAMGEN_KEYGEN_111: c_int = (1 << 1) | (1 << 2);
pub const EVP_PKEY_CTRL_EC_PARAMGEN_CURVE_NID: c_int = 0x1000 + 1;
pub const NID_X9_62_PRIME256V1: c_int = 415;
pub const NID_SECP384R1: c_int = 715;
pub const NID_SECP521R1: c_int = 716;
pub const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
pub const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
pub const RSA_PKCS1_PADDING: c_int = 1;
pub const OPENSSL_VERSION: c_int = 0;
pub const OPENSSL_CFLAGS: c_int = 1;
pub const OPENSSL_BUILT_ON: c_int = 2;
pub const OPENSSL_PLATFORM: c_int = 3;
pub const OPENSSL_CPU_INFO: c_int = 9;
pub const OSSL_PARAM_UTF8_STRING: c_uint = 4;
pub const OSSL_PARAM_OCTET_STRING: c_uint = 5;

/// `OSSL_PARAM` from OpenSSL 3's params.h.
#[repr(C)]
pub struct OsslParam {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

impl OsslParam {
    pub fn end() -> OsslParam {
        OsslParam {
            key: std::ptr::null(),
            data_type: 0,
            data: std::ptr::null_mut(),
            data_size: 0,
            return_size: 0,
        }
    }
}

crate::dynamic_api! {
    Api, "libcrypto";
    required {
        OpenSSL_version: fn(c_int) -> *const c_char;
        ERR_get_error: fn() -> c_ulong;
        ERR_error_string_n: fn(c_ulong, *mut c_char, usize);
        ERR_clear_error: fn();
        EVP_get_digestbyname: fn(*const c_char) -> Ptr;
        EVP_get_cipherbyname: fn(*const c_char) -> Ptr;
        EVP_Digest: fn(*const c_void, usize, *mut u8, *mut c_uint, Ptr, Ptr) -> c_int;
        EVP_MD_CTX_new: fn() -> Ptr;
        EVP_MD_CTX_free: fn(Ptr);
        EVP_DigestInit_ex: fn(Ptr, Ptr, Ptr) -> c_int;
        EVP_DigestUpdate: fn(Ptr, *const c_void, usize) -> c_int;
        EVP_CIPHER_CTX_new: fn() -> Ptr;
        EVP_CIPHER_CTX_free: fn(Ptr);
        EVP_CipherInit_ex: fn(Ptr, Ptr, Ptr, *const u8, *const u8, c_int) -> c_int;
        EVP_CIPHER_CTX_set_key_length: fn(Ptr, c_int) -> c_int;
        EVP_CIPHER_CTX_ctrl: fn(Ptr, c_int, c_int, *mut c_void) -> c_int;
        EVP_Cipher: fn(Ptr, *mut u8, *const u8, c_uint) -> c_int;
        EVP_EncryptUpdate: fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
        EVP_EncryptFinal_ex: fn(Ptr, *mut u8, *mut c_int) -> c_int;
        EVP_DecryptUpdate: fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int;
        EVP_DecryptFinal_ex: fn(Ptr, *mut u8, *mut c_int) -> c_int;
        BIO_new_mem_buf: fn(*const c_void, c_int) -> Ptr;
        BIO_free: fn(Ptr) -> c_int;
        PEM_read_bio_PrivateKey: fn(Ptr, *mut Ptr, Ptr, Ptr) -> Ptr;
        d2i_PUBKEY: fn(*mut Ptr, *mut *const u8, c_long) -> Ptr;
        d2i_PrivateKey: fn(c_int, *mut Ptr, *mut *const u8, c_long) -> Ptr;
        EVP_PKEY_free: fn(Ptr);
        EVP_PKEY_new_raw_private_key: fn(c_int, Ptr, *const u8, usize) -> Ptr;
        EVP_PKEY_new_raw_public_key: fn(c_int, Ptr, *const u8, usize) -> Ptr;
        EVP_PKEY_CTX_new: fn(Ptr, Ptr) -> Ptr;
        EVP_PKEY_CTX_free: fn(Ptr);
        EVP_PKEY_keygen_init: fn(Ptr) -> c_int;
        EVP_PKEY_keygen: fn(Ptr, *mut Ptr) -> c_int;
        EVP_PKEY_sign_init: fn(Ptr) -> c_int;
        EVP_PKEY_sign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_verify_init: fn(Ptr) -> c_int;
        EVP_PKEY_verify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
        EVP_PKEY_encrypt_init: fn(Ptr) -> c_int;
        EVP_PKEY_encrypt: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_decrypt_init: fn(Ptr) -> c_int;
        EVP_PKEY_decrypt: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_derive_init: fn(Ptr) -> c_int;
        EVP_PKEY_derive_set_peer: fn(Ptr, Ptr) -> c_int;
        EVP_PKEY_derive: fn(Ptr, *mut u8, *mut usize) -> c_int;
        EVP_DigestSignInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
        EVP_DigestSign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_DigestVerifyInit: fn(Ptr, *mut Ptr, Ptr, Ptr, Ptr) -> c_int;
        EVP_DigestVerify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
        BN_bn2hex: fn(Ptr) -> *mut c_char;
        BN_free: fn(Ptr);
    }
    optional {
        EVP_DigestFinalXOF: fn(Ptr, *mut u8, usize) -> c_int;
        CRYPTO_free: fn(*mut c_void, *const c_char, c_int);
        OPENSSL_free: fn(*mut c_void);
        // The 1.1.1-style calls AWS-LC and BoringSSL keep where OpenSSL 3 moved on (EVP_MAC,
        // providers, key generation by name): HMAC_CTX, CMAC_CTX, GMAC as a GCM context fed
        // only AAD, NIDs looked up by short name, the public point through the SPKI encoding.
        HMAC_CTX_new: fn() -> Ptr;
        HMAC_CTX_free: fn(Ptr);
        HMAC_Init_ex: fn(Ptr, *const c_void, c_int, Ptr, Ptr) -> c_int;
        HMAC_Update: fn(Ptr, *const u8, usize) -> c_int;
        HMAC_Final: fn(Ptr, *mut u8, *mut c_uint) -> c_int;
        CMAC_CTX_new: fn() -> Ptr;
        CMAC_CTX_free: fn(Ptr);
        CMAC_Init: fn(Ptr, *const c_void, usize, Ptr, Ptr) -> c_int;
        CMAC_Reset: fn(Ptr) -> c_int;
        CMAC_Update: fn(Ptr, *const c_void, usize) -> c_int;
        CMAC_Final: fn(Ptr, *mut u8, *mut usize) -> c_int;
        OBJ_sn2nid: fn(*const c_char) -> c_int;
        EVP_PKEY_CTX_set_ec_paramgen_curve_nid: fn(Ptr, c_int) -> c_int;
        i2d_PUBKEY: fn(Ptr, *mut *mut u8) -> c_int;
        // BoringSSL's AEAD interface, for AEADs it offers only there (ChaCha20-Poly1305).
        EVP_AEAD_CTX_new: fn(Ptr, *const u8, usize, usize) -> Ptr;
        EVP_AEAD_CTX_free: fn(Ptr);
        EVP_AEAD_CTX_seal: fn(Ptr, *mut u8, *mut usize, usize, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;
        EVP_AEAD_CTX_open: fn(Ptr, *mut u8, *mut usize, usize, *const u8, usize, *const u8, usize, *const u8, usize) -> c_int;
        EVP_PKEY_get_octet_string_param: fn(Ptr, *const c_char, *mut u8, usize, *mut usize) -> c_int;
        OSSL_PROVIDER_load: fn(Ptr, *const c_char) -> Ptr;
        EVP_MD_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_CIPHER_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_MAC_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_MAC_CTX_new: fn(Ptr) -> Ptr;
        EVP_MAC_CTX_free: fn(Ptr);
        EVP_MAC_init: fn(Ptr, *const u8, usize, *const OsslParam) -> c_int;
        EVP_MAC_update: fn(Ptr, *const u8, usize) -> c_int;
        EVP_MAC_final: fn(Ptr, *mut u8, *mut usize, usize) -> c_int;
        EVP_PKEY_CTX_new_from_name: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_PKEY_CTX_set_group_name: fn(Ptr, *const c_char) -> c_int;
        EVP_PKEY_CTX_set_rsa_padding: fn(Ptr, c_int) -> c_int;
        EVP_PKEY_get_bn_param: fn(Ptr, *const c_char, *mut Ptr) -> c_int;
        // OpenSSL 1.1.1's ways to the same ends (still exported, deprecated, by 3.x).
        EVP_PKEY_CTX_new_id: fn(c_int, Ptr) -> Ptr;
        EVP_PKEY_CTX_ctrl: fn(Ptr, c_int, c_int, c_int, c_int, *mut c_void) -> c_int;
        EVP_PKEY_get0_RSA: fn(Ptr) -> Ptr;
        RSA_get0_key: fn(Ptr, *mut Ptr, *mut Ptr, *mut Ptr);
        BN_dup: fn(Ptr) -> Ptr;
        // AWS-LC's and BoringSSL's way to an RFC 7919 group (they lack DH by name).
        DH_get_rfc7919_2048: fn() -> Ptr;
        DH_new: fn() -> Ptr;
        DH_set0_pqg: fn(Ptr, Ptr, Ptr, Ptr) -> c_int;
        DH_set_length: fn(Ptr, c_uint) -> c_int;
        DH_generate_key: fn(Ptr) -> c_int;
        DH_free: fn(Ptr);
        DH_get0_pqg: fn(Ptr, *mut Ptr, *mut Ptr, *mut Ptr);
        DH_get0_key: fn(Ptr, *mut Ptr, *mut Ptr);
        EVP_PKEY_new: fn() -> Ptr;
        EVP_PKEY_assign_DH: fn(Ptr, Ptr) -> c_int;
        EVP_PKEY_get0_DH: fn(Ptr) -> Ptr;
    }
}

impl Api {
    /// Drains libcrypto's error queue into one line.
    pub fn errors(&self) -> String {
        let mut out = Vec::new();
        // SAFETY: the buffer is large enough and NUL-terminated by ERR_error_string_n.
        unsafe {
            loop {
                let code = (self.ERR_get_error)();
                if code == 0 {
                    break;
                }
                let mut buf = [0 as c_char; 256];
                (self.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len());
                out.push(
                    std::ffi::CStr::from_ptr(buf.as_ptr())
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
        if out.is_empty() {
            "no error detail from libcrypto".into()
        } else {
            out.join("; ")
        }
    }

    /// A NID by short name (`X25519`, `ED25519`): AWS-LC and BoringSSL number some objects
    /// differently from OpenSSL, so the numbers are asked of the library; `openssl` is OpenSSL's.
    pub fn nid(&self, short_name: &std::ffi::CStr, openssl: c_int) -> c_int {
        match self.OBJ_sn2nid {
            // SAFETY: a NUL-terminated name.
            Some(f) => match unsafe { f(short_name.as_ptr()) } {
                0 => openssl,
                n => n,
            },
            None => openssl,
        }
    }

    /// Frees memory the library allocated (`OPENSSL_free`, a macro over `CRYPTO_free` in OpenSSL).
    pub fn free(&self, p: *mut c_void) {
        // SAFETY: p was allocated by this library.
        unsafe {
            match (self.CRYPTO_free, self.OPENSSL_free) {
                (Some(f), _) => f(p, c"cryptospeed".as_ptr(), 0),
                (None, Some(f)) => f(p),
                (None, None) => {}
            }
        }
    }

    pub fn version_text(&self, which: c_int) -> String {
        // SAFETY: OpenSSL_version returns a static NUL-terminated string (or NULL).
        unsafe {
            let p = (self.OpenSSL_version)(which);
            if p.is_null() {
                String::new()
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }
    }
}
