//! What the post-quantum modules (kem.rs, dsa.rs) share: the EVP_PKEY calls OpenSSL 3 added for
//! them (their own table, loaded from the same library, so a libcrypto without them still serves
//! every other primitive), owned handles, and OSSL_PARAM builders.
#![allow(non_snake_case)]

use super::ffi::{Api, OsslParam, Ptr, OSSL_PARAM_OCTET_STRING};
use std::ffi::CString;
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

/// One named algorithm (`ML-KEM-768`, `ML-DSA-65` …) in one libcrypto: the key handling kem.rs
/// and dsa.rs share (contexts, generation with or without the `seed` parameter, raw import,
/// octet-string parameters), with errors drained from libcrypto's queue.
pub struct PqAlg<'a> {
    pub api: &'a Api,
    pub k: PqApi,
    pub name: CString,
}

type Res<T> = Result<T, String>;

impl<'a> PqAlg<'a> {
    pub fn load(api: &'a Api, name: &str) -> Res<PqAlg<'a>> {
        Ok(PqAlg {
            api,
            k: PqApi::load(&api.path)?,
            name: CString::new(name).map_err(|_| format!("{name} holds a NUL"))?,
        })
    }

    pub fn own(&self, ptr: Ptr, free: unsafe extern "C" fn(Ptr), what: &str) -> Res<Owned<'a>> {
        if ptr.is_null() {
            return Err(format!("{what} failed: {}", self.api.errors()));
        }
        Ok(Owned {
            ptr,
            free,
            _kem: std::marker::PhantomData,
        })
    }

    pub fn check(&self, ok: c_int, what: &str) -> Res<()> {
        if ok == 1 {
            Ok(())
        } else {
            Err(format!("{what} failed: {}", self.api.errors()))
        }
    }

    pub fn keygen_ctx(&self) -> Res<Owned<'a>> {
        // SAFETY: a NUL-terminated name; the context is owned and freed by `Owned`.
        let ctx = unsafe {
            (self.k.EVP_PKEY_CTX_new_from_name)(
                std::ptr::null_mut(),
                self.name.as_ptr(),
                std::ptr::null(),
            )
        };
        let ctx = self.own(ctx, self.k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new_from_name")?;
        // SAFETY: a fresh context.
        self.check(
            unsafe { (self.k.EVP_PKEY_keygen_init)(ctx.ptr) },
            "EVP_PKEY_keygen_init",
        )?;
        Ok(ctx)
    }

    pub fn generate(&self, ctx: &Owned) -> Res<Owned<'a>> {
        let mut pkey = std::ptr::null_mut();
        // SAFETY: an initialised key-generation context; the key is owned below.
        self.check(
            unsafe { (self.k.EVP_PKEY_generate)(ctx.ptr, &mut pkey) },
            "EVP_PKEY_generate",
        )?;
        self.own(pkey, self.k.EVP_PKEY_free, "EVP_PKEY_generate")
    }

    /// A key pair from the seed d ‖ z, or from the library's generator.
    pub fn key_pair(&self, seed: Option<&[u8]>) -> Res<Owned<'a>> {
        let ctx = self.keygen_ctx()?;
        if let Some(seed) = seed {
            let params = octets(c"seed", seed);
            // SAFETY: the parameter array outlives the call.
            self.check(
                unsafe { (self.k.EVP_PKEY_CTX_set_params)(ctx.ptr, params.as_ptr()) },
                "setting the key-generation seed",
            )?;
        }
        self.generate(&ctx)
    }

    pub fn octet_param(&self, pkey: &Owned, name: &'static std::ffi::CStr) -> Res<Vec<u8>> {
        self.octet_param_of(pkey.ptr, name)
    }

    /// An octet-string parameter of any `EVP_PKEY` of this libcrypto.
    pub fn octet_param_of(&self, pkey: Ptr, name: &'static std::ffi::CStr) -> Res<Vec<u8>> {
        // Large enough for every ML-KEM key encoding.
        let mut out = vec![0u8; 4096];
        let len = self.octet_param_into(pkey, name, &mut out)?;
        out.truncate(len);
        Ok(out)
    }

    /// An octet-string parameter written into `out` (a buffer the caller keeps); its length.
    pub fn octet_param_into(
        &self,
        pkey: Ptr,
        name: &'static std::ffi::CStr,
        out: &mut [u8],
    ) -> Res<usize> {
        let mut len = 0;
        // SAFETY: a valid key; libcrypto writes at most `out.len()` bytes.
        let ok = unsafe {
            (self.k.EVP_PKEY_get_octet_string_param)(
                pkey,
                name.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut len,
            )
        };
        self.check(ok, "reading the key")?;
        Ok(len)
    }

    pub fn raw_key(&self, bytes: &[u8], private: bool) -> Res<Owned<'a>> {
        let f = if private {
            self.k.EVP_PKEY_new_raw_private_key_ex
        } else {
            self.k.EVP_PKEY_new_raw_public_key_ex
        };
        // SAFETY: borrowed bytes copied by libcrypto; the key is owned below.
        let pkey = unsafe {
            f(
                std::ptr::null_mut(),
                self.name.as_ptr(),
                std::ptr::null(),
                bytes.as_ptr(),
                bytes.len(),
            )
        };
        self.own(pkey, self.k.EVP_PKEY_free, "importing the key")
    }
}
