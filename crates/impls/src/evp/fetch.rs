//! Algorithms fetched by name (OpenSSL 3's `EVP_*_fetch`, 1.1.1's `EVP_get_*byname` and the
//! names the two disagree on) and the owned cipher context: what symmetric.rs and ae_modes.rs
//! both build on, kept below both so neither imports the other's internals.

use super::ffi::{Api, Ptr};
use std::ffi::CString;
use std::ptr::null_mut;

/// The 13-byte AAD `openssl speed -aead` gives every message.
pub(super) const AAD13: [u8; 13] = [0xcc; 13];

pub(super) fn cstr(s: &str) -> CString {
    CString::new(s).expect("algorithm names have no NUL")
}

/// Names OpenSSL 3 gives algorithms that 1.1.1's `EVP_get_*byname` tables know otherwise.
const NAMES_BEFORE_3: &[(&str, &str)] = &[
    ("BLAKE2B-512", "BLAKE2b512"),
    ("BLAKE2S-256", "BLAKE2s256"),
    ("SHA2-256", "SHA256"),
    ("SHA2-512", "SHA512"),
];

/// Looks an algorithm up by name: `EVP_MD_fetch`/`EVP_CIPHER_fetch` on OpenSSL 3, the
/// `EVP_get_*byname` tables before.
pub(super) fn fetch(
    api: &Api,
    kind: &str,
    name: &str,
    fetch3: Option<
        unsafe extern "C" fn(Ptr, *const std::os::raw::c_char, *const std::os::raw::c_char) -> Ptr,
    >,
    byname: unsafe extern "C" fn(*const std::os::raw::c_char) -> Ptr,
) -> Result<Ptr, String> {
    let n = cstr(name);
    // SAFETY: valid C strings; NULL library context and properties are allowed.
    let mut found = unsafe {
        match fetch3 {
            Some(f) => f(null_mut(), n.as_ptr(), std::ptr::null()),
            None => byname(n.as_ptr()),
        }
    };
    if found.is_null() && fetch3.is_none() {
        // OpenSSL 1.1.1 spells some names its own way.
        if let Some((_, old)) = NAMES_BEFORE_3.iter().find(|(new, _)| *new == name) {
            let o = cstr(old);
            // SAFETY: as above.
            found = unsafe { byname(o.as_ptr()) };
        }
    }
    if found.is_null() && fetch3.is_none() {
        // AWS-LC and BoringSSL leave some algorithms out of their name tables but export
        // their accessors (`EVP_cast5_cbc`, `EVP_sha3_256`): call the accessor.
        let accessor = format!("EVP_{}", name.to_ascii_lowercase().replace('-', "_"));
        if let Some(f) = api.symbol(&accessor) {
            // SAFETY: every `EVP_<algorithm>` accessor takes nothing and returns a static pointer.
            found = unsafe {
                std::mem::transmute::<*mut std::ffi::c_void, extern "C" fn() -> Ptr>(f)()
            };
        }
        // SAFETY: clears what the failed name lookup left.
        unsafe { (api.ERR_clear_error)() };
    }
    if found.is_null() {
        return Err(format!(
            "no provider offers {kind} {name} ({})",
            api.errors()
        ));
    }
    Ok(found)
}

pub fn fetch_md(api: &Api, name: &str) -> Result<Ptr, String> {
    fetch(
        api,
        "digest",
        name,
        api.EVP_MD_fetch,
        api.EVP_get_digestbyname,
    )
}

pub fn fetch_cipher(api: &Api, name: &str) -> Result<Ptr, String> {
    fetch(
        api,
        "cipher",
        name,
        api.EVP_CIPHER_fetch,
        api.EVP_get_cipherbyname,
    )
}

/// An `EVP_CIPHER_CTX` freed on drop.
pub struct CipherCtx<'a> {
    pub(super) api: &'a Api,
    pub ctx: Ptr,
}

impl<'a> CipherCtx<'a> {
    /// A fresh context (`EVP_CIPHER_CTX_new`; NULL when out of memory).
    pub fn new(api: &'a Api) -> CipherCtx<'a> {
        // SAFETY: plain constructor.
        CipherCtx {
            api,
            ctx: unsafe { (api.EVP_CIPHER_CTX_new)() },
        }
    }
}

impl Drop for CipherCtx<'_> {
    fn drop(&mut self) {
        // SAFETY: ctx came from EVP_CIPHER_CTX_new and is freed once.
        unsafe { (self.api.EVP_CIPHER_CTX_free)(self.ctx) }
    }
}
