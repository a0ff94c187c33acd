//! What the post-quantum modules (kem.rs, dsa.rs) share: the EVP_PKEY calls OpenSSL 3 added for
//! them (their own table, loaded from the same library, so a libcrypto without them still serves
//! every other primitive), owned handles, and OSSL_PARAM builders.
#![allow(non_snake_case)]

use super::ffi::{OsslParam, Ptr, OSSL_PARAM_OCTET_STRING};
use std::os::raw::{c_char, c_int};

crate::dynamic_api! {
    PqApi, "libcrypto with OpenSSL 3's EVP_PKEY KEM and signature calls";
    required {
        EVP_PKEY_CTX_new_from_name: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_PKEY_CTX_new_from_pkey: fn(Ptr, Ptr, *const c_char) -> Ptr;
        EVP_PKEY_CTX_set_params: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_CTX_free: fn(Ptr);
        EVP_PKEY_keygen_init: fn(Ptr) -> c_int;
        EVP_PKEY_generate: fn(Ptr, *mut Ptr) -> c_int;
        EVP_PKEY_free: fn(Ptr);
        EVP_PKEY_get_octet_string_param: fn(Ptr, *const c_char, *mut u8, usize, *mut usize) -> c_int;
        EVP_PKEY_new_raw_private_key_ex: fn(Ptr, *const c_char, *const c_char, *const u8, usize) -> Ptr;
        EVP_PKEY_new_raw_public_key_ex: fn(Ptr, *const c_char, *const c_char, *const u8, usize) -> Ptr;
        EVP_PKEY_encapsulate_init: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_encapsulate: fn(Ptr, *mut u8, *mut usize, *mut u8, *mut usize) -> c_int;
        EVP_PKEY_decapsulate_init: fn(Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_decapsulate: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_sign: fn(Ptr, *mut u8, *mut usize, *const u8, usize) -> c_int;
        EVP_PKEY_verify: fn(Ptr, *const u8, usize, *const u8, usize) -> c_int;
    }
    optional {
        EVP_SIGNATURE_fetch: fn(Ptr, *const c_char, *const c_char) -> Ptr;
        EVP_SIGNATURE_free: fn(Ptr);
        EVP_PKEY_sign_message_init: fn(Ptr, Ptr, *const OsslParam) -> c_int;
        EVP_PKEY_verify_message_init: fn(Ptr, Ptr, *const OsslParam) -> c_int;
    }
}

/// An `EVP_PKEY` or `EVP_PKEY_CTX`, freed with the table's free function.
pub struct Owned<'a> {
    pub ptr: Ptr,
    pub free: unsafe extern "C" fn(Ptr),
    pub _kem: std::marker::PhantomData<&'a ()>,
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from the matching constructor and is freed once.
        unsafe { (self.free)(self.ptr) }
    }
}

/// An octet-string parameter for `EVP_PKEY_CTX_set_params` / `*_init`.
pub fn octets(key: &'static std::ffi::CStr, value: &[u8]) -> [OsslParam; 2] {
    [
        OsslParam {
            key: key.as_ptr(),
            data_type: OSSL_PARAM_OCTET_STRING,
            data: value.as_ptr() as *mut _,
            data_size: value.len(),
            return_size: 0,
        },
        OsslParam::end(),
    ]
}

/// An integer parameter (`message-encoding`, `deterministic`).
pub fn int_param(key: &'static std::ffi::CStr, value: &c_int) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type: OSSL_PARAM_INTEGER,
        data: value as *const c_int as *mut _,
        data_size: std::mem::size_of::<c_int>(),
        return_size: 0,
    }
}

const OSSL_PARAM_INTEGER: std::os::raw::c_uint = 1;
