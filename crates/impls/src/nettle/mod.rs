//! `nettle`: GNU Nettle and Hogweed (Debian nettle-dev / libnettle8, libhogweed6), loaded at run
//! time. Nettle publishes tables of its algorithms (`nettle_get_hashes`, `_ciphers`, `_aeads`)
//! with context sizes and function pointers, so hashes (SM3 among them), HMAC over any of them,
//! CBC and ECB over any block cipher and the AEADs are driven generically through those tables
//! (AES-XTS and AES-CCM, which have only their own functions, in [`modes`]); X25519, X448,
//! Ed25519 and Ed448 come from Hogweed; RSA, DSA, ECDSA and ECDH on the NIST curves in
//! [`pkey`].

mod modes;
mod pkey;

use crate::declared::{Conformance::*, Declared};
use crate::suite::{AeadFn, CipherFn, DeriveFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;
use cryptospeed_model::Variant;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::sync::Arc;

type Ctx = *mut c_void;
type SetKey = unsafe extern "C" fn(Ctx, *const u8);
type Crypt = unsafe extern "C" fn(Ctx, usize, *mut u8, *const u8);
type Update = unsafe extern "C" fn(Ctx, usize, *const u8);
type Digest = unsafe extern "C" fn(Ctx, usize, *mut u8);

/// `struct nettle_hash` from nettle-meta.h.
#[repr(C)]
pub struct NettleHash {
    name: *const c_char,
    context_size: c_uint,
    digest_size: c_uint,
    block_size: c_uint,
    init: unsafe extern "C" fn(Ctx),
    update: Update,
    digest: Digest,
}

/// `struct nettle_cipher` from nettle-meta.h.
#[repr(C)]
pub struct NettleCipher {
    name: *const c_char,
    context_size: c_uint,
    block_size: c_uint,
    key_size: c_uint,
    set_encrypt_key: SetKey,
    set_decrypt_key: SetKey,
    encrypt: Crypt,
    decrypt: Crypt,
}

/// `struct nettle_aead` from nettle-meta.h.
#[repr(C)]
pub struct NettleAead {
    name: *const c_char,
    context_size: c_uint,
    block_size: c_uint,
    key_size: c_uint,
    nonce_size: c_uint,
    digest_size: c_uint,
    set_encrypt_key: SetKey,
    set_decrypt_key: SetKey,
    set_nonce: SetKey,
    update: Update,
    encrypt: Crypt,
    decrypt: Crypt,
    digest: Digest,
}

crate::dynamic_api! {
    Nettle8, "libnettle";
    required {
        nettle_version_major: fn() -> c_int;
        nettle_version_minor: fn() -> c_int;
        nettle_get_hashes: fn() -> *const *const NettleHash;
        nettle_get_ciphers: fn() -> *const *const NettleCipher;
        nettle_get_aeads: fn() -> *const *const NettleAead;
        nettle_cbc_encrypt: fn(Ctx, Crypt, usize, *mut u8, usize, *mut u8, *const u8);
        nettle_cbc_decrypt: fn(Ctx, Crypt, usize, *mut u8, usize, *mut u8, *const u8);
        nettle_hmac_set_key: fn(Ctx, Ctx, Ctx, *const NettleHash, usize, *const u8);
        nettle_hmac_update: fn(Ctx, *const NettleHash, usize, *const u8);
        nettle_hmac_digest: fn(Ctx, Ctx, Ctx, *const NettleHash, usize, *mut u8);
        nettle_arcfour128_set_key: fn(Ctx, *const u8);
        nettle_arcfour_crypt: fn(Ctx, usize, *mut u8, *const u8);
    }
    optional {}
}

crate::dynamic_api! {
    Hogweed6, "libhogweed";
    required {
        nettle_curve25519_mul: fn(*mut u8, *const u8, *const u8);
        nettle_curve448_mul: fn(*mut u8, *const u8, *const u8);
        nettle_ed25519_sha512_public_key: fn(*mut u8, *const u8);
        nettle_ed25519_sha512_sign: fn(*const u8, *const u8, usize, *const u8, *mut u8);
        nettle_ed25519_sha512_verify: fn(*const u8, usize, *const u8, *const u8) -> c_int;
        nettle_ed448_shake256_public_key: fn(*mut u8, *const u8);
        nettle_ed448_shake256_sign: fn(*const u8, *const u8, usize, *const u8, *mut u8);
        nettle_ed448_shake256_verify: fn(*const u8, usize, *const u8, *const u8) -> c_int;
    }
    optional {}
}

pub struct Nettle {
    api: Arc<Nettle8>,
    hogweed: Arc<Hogweed6>,
    /// Hogweed's RSA/DSA/ECDSA calls and GMP, or why they could not be loaded.
    pk: Result<Arc<pkey::PkApi>, String>,
    /// Nettle's XTS and CCM calls (each optional), or why the library could not be opened.
    modes: Result<Arc<modes::NettleModes>, String>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["rsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Deviates("the input is hashed (SHA-256/384/512) by Nettle first and the digest wrapped in DigestInfo"),
    },
    Declared {
        kinds: &["dsa", "ecdsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Deviates("the input is hashed (SHA-256/384/512) by Nettle first and the digest signed; nonces from Yarrow-256"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.as_deref().unwrap_or("libnettle.so.8");
    let api = Nettle8::load(path).map_err(|e| format!("{e} (Debian package libnettle8)"))?;
    let hogweed = Hogweed6::load("libhogweed.so.6")
        .map_err(|e| format!("{e} (Debian package libhogweed6)"))?;
    let pk = pkey::PkApi::load("libhogweed.so.6").map(Arc::new);
    let modes = modes::NettleModes::load(path).map(Arc::new);
    Ok(Box::new(SuiteImplementation::new(Nettle {
        api: Arc::new(api),
        hogweed: Arc::new(hogweed),
        pk,
        modes,
    })))
}

/// Finds an entry by name in one of Nettle's NULL-terminated tables.
///
/// SAFETY: `table` is one of nettle_get_{hashes,ciphers,aeads}, whose entries are static and
/// start with a `const char *name`.
unsafe fn find<T>(table: *const *const T, name: &str) -> Option<&'static T> {
    let mut i = 0;
    loop {
        let entry = *table.add(i);
        if entry.is_null() {
            return None;
        }
        let entry_name = CStr::from_ptr(*(entry as *const *const c_char));
        if entry_name.to_bytes() == name.as_bytes() {
            return Some(&*entry);
        }
        i += 1;
    }
}

/// A context buffer, 16-byte aligned, of the size a table entry declares.
fn context(size: c_uint) -> Vec<u128> {
    vec![0u128; (size as usize).div_ceil(16).max(1)]
}

fn hash_name(id: &str) -> Option<&'static str> {
    Some(match id {
        "md2" => "md2",
        "md4" => "md4",
        "md5" => "md5",
        "sha1" => "sha1",
        "ripemd160" => "ripemd160",
        "sha256" => "sha256",
        "sha512" => "sha512",
        "sha3-256" => "sha3_256",
        "sm3" => "sm3",
        _ => return None,
    })
}

struct EdDsa {
    hogweed: Arc<Hogweed6>,
    ed448: bool,
    private: Vec<u8>,
    public: Vec<u8>,
}
impl Signer for EdDsa {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let mut sig = vec![0u8; if self.ed448 { 114 } else { 64 }];
        let f = if self.ed448 {
            self.hogweed.nettle_ed448_shake256_sign
        } else {
            self.hogweed.nettle_ed25519_sha512_sign
        };
        // SAFETY: key and signature buffers of the curve's sizes.
        unsafe {
            f(
                self.public.as_ptr(),
                self.private.as_ptr(),
                msg.len(),
                msg.as_ptr(),
                sig.as_mut_ptr(),
            )
        };
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        if sig.len() != if self.ed448 { 114 } else { 64 } {
            return Ok(false);
        }
        let f = if self.ed448 {
            self.hogweed.nettle_ed448_shake256_verify
        } else {
            self.hogweed.nettle_ed25519_sha512_verify
        };
        // SAFETY: public key and signature of the curve's sizes.
        Ok(unsafe { f(self.public.as_ptr(), msg.len(), msg.as_ptr(), sig.as_ptr()) } == 1)
    }
    fn public(&self) -> Vec<u8> {
        self.public.clone()
    }
}

impl Suite for Nettle {
    fn name(&self) -> &'static str {
        "nettle"
    }
    fn describe(&self) -> Variant {
        // SAFETY: no arguments.
        let version = unsafe {
            format!(
                "{}.{}",
                (self.api.nettle_version_major)(),
                (self.api.nettle_version_minor)()
            )
        };
        Variant {
            label: format!("nettle-{version}"),
            implementation: "nettle".into(),
            version,
            library: self.api.path.clone(),
            ..Default::default()
        }
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "signatures: RSA (PKCS#1 v1.5, rsa_sha256_sign_digest_tr), DSA and ECDSA sign the \
             SHA-256/384/512 digest of the 20/36-byte message, hashed by Nettle (openssl speed \
             signs it as a digest); nonces and blinding from Yarrow-256"
                .into(),
        ]
    }
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        let name = hash_name(p.id).ok_or_else(|| format!("nettle does not offer {}", p.id))?;
        // SAFETY: the table is Nettle's; the entry is static.
        let h = unsafe { find((self.api.nettle_get_hashes)(), name) }
            .ok_or_else(|| format!("this nettle has no {name}"))?;
        let mut ctx = context(h.context_size);
        // SAFETY: the context has the size the entry declares; out is the digest length.
        Ok(Box::new(move |msg, out| unsafe {
            let c = ctx.as_mut_ptr() as Ctx;
            (h.init)(c);
            (h.update)(c, msg.len(), msg.as_ptr());
            (h.digest)(c, out.len(), out.as_mut_ptr());
            Ok(())
        }))
    }
    fn mac(&self, p: &Primitive, key: &[u8], _iv: &[u8]) -> Res<HashFn> {
        let name = match p.id {
            "hmac-md5" => "md5",
            "hmac-sha256" => "sha256",
            _ => return Err(format!("nettle does not offer {}", p.id)),
        };
        // SAFETY: as in `hash`.
        let h = unsafe { find((self.api.nettle_get_hashes)(), name) }
            .ok_or_else(|| format!("this nettle has no {name}"))?;
        let api = self.api.clone();
        let (mut outer, mut inner, mut state) = (
            context(h.context_size),
            context(h.context_size),
            context(h.context_size),
        );
        // SAFETY: three contexts of the hash's size, as hmac_set_key requires.
        unsafe {
            (api.nettle_hmac_set_key)(
                outer.as_mut_ptr() as Ctx,
                inner.as_mut_ptr() as Ctx,
                state.as_mut_ptr() as Ctx,
                h,
                key.len(),
                key.as_ptr(),
            )
        };
        // SAFETY: hmac_digest leaves `state` ready for the next message.
        Ok(Box::new(move |msg, out| unsafe {
            (api.nettle_hmac_update)(state.as_mut_ptr() as Ctx, h, msg.len(), msg.as_ptr());
            (api.nettle_hmac_digest)(
                outer.as_mut_ptr() as Ctx,
                inner.as_mut_ptr() as Ctx,
                state.as_mut_ptr() as Ctx,
                h,
                out.len(),
                out.as_mut_ptr(),
            );
            Ok(())
        }))
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        let api = self.api.clone();
        if p.id == "rc4" {
            if key.len() != 16 {
                return Err("nettle's arcfour128 takes a 16-byte key".into());
            }
            let mut ctx = context(258);
            // SAFETY: an arcfour_ctx (258 bytes) and a 16-byte key.
            unsafe { (api.nettle_arcfour128_set_key)(ctx.as_mut_ptr() as Ctx, key.as_ptr()) };
            return Ok(Box::new(move |buf| {
                // SAFETY: in-place stream encryption is allowed.
                unsafe {
                    (api.nettle_arcfour_crypt)(
                        ctx.as_mut_ptr() as Ctx,
                        buf.len(),
                        buf.as_mut_ptr(),
                        buf.as_ptr(),
                    )
                };
                Ok(())
            }));
        }
        match p.id {
            "aes-128-ecb" => return self.ecb("aes128", key, encrypt),
            "aes-256-ecb" => return self.ecb("aes256", key, encrypt),
            "aes-128-xts" | "aes-256-xts" => return self.xts(key, iv, encrypt),
            _ => {}
        }
        let name = match p.id {
            "aes-128-cbc" => "aes128",
            "aes-192-cbc" => "aes192",
            "aes-256-cbc" => "aes256",
            "camellia-128-cbc" => "camellia128",
            "camellia-192-cbc" => "camellia192",
            "camellia-256-cbc" => "camellia256",
            "cast-cbc" => "cast128",
            _ => return Err(format!("nettle does not offer {}", p.id)),
        };
        // SAFETY: as in `hash`.
        let c = unsafe { find((api.nettle_get_ciphers)(), name) }
            .ok_or_else(|| format!("this nettle has no {name}"))?;
        if key.len() != c.key_size as usize || iv.len() != c.block_size as usize {
            return Err(format!("{name} takes a {}-byte key", c.key_size));
        }
        let mut ctx = context(c.context_size);
        let mut chain = iv.to_vec();
        let bs = c.block_size as usize;
        // SAFETY: the context has the declared size; the key the declared length.
        unsafe {
            (if encrypt {
                c.set_encrypt_key
            } else {
                c.set_decrypt_key
            })(ctx.as_mut_ptr() as Ctx, key.as_ptr())
        };
        let (mode, f) = if encrypt {
            (api.nettle_cbc_encrypt, c.encrypt)
        } else {
            (api.nettle_cbc_decrypt, c.decrypt)
        };
        Ok(Box::new(move |buf| {
            let _keep = &api;
            let n = buf.len() / bs * bs;
            // SAFETY: in-place CBC on whole blocks; `chain` carries the IV across calls.
            unsafe {
                mode(
                    ctx.as_mut_ptr() as Ctx,
                    f,
                    bs,
                    chain.as_mut_ptr(),
                    n,
                    buf.as_mut_ptr(),
                    buf.as_ptr(),
                )
            };
            Ok(())
        }))
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let name = match p.id {
            "aes-128-gcm" => "gcm_aes128",
            "aes-256-gcm" => "gcm_aes256",
            "chacha20-poly1305" => "chacha_poly1305",
            "aes-128-ccm" | "aes-256-ccm" => return self.ccm(key, encrypt),
            _ => return Err(format!("nettle does not offer {}", p.id)),
        };
        // SAFETY: as in `hash`.
        let a = unsafe { find((self.api.nettle_get_aeads)(), name) }
            .ok_or_else(|| format!("this nettle has no {name}"))?;
        if key.len() != a.key_size as usize {
            return Err(format!("{name} takes a {}-byte key", a.key_size));
        }
        let mut ctx = context(a.context_size);
        // SAFETY: context of the declared size, key of the declared length. Nettle's AEADs use
        // the encryption key schedule for both directions.
        unsafe { (a.set_encrypt_key)(ctx.as_mut_ptr() as Ctx, key.as_ptr()) };
        let nonce_size = a.nonce_size as usize;
        Ok(Box::new(move |nonce, aad, data, tag| unsafe {
            if nonce.len() != nonce_size {
                return Err(format!("nonce must be {nonce_size} bytes"));
            }
            let c = ctx.as_mut_ptr() as Ctx;
            (a.set_nonce)(c, nonce.as_ptr());
            (a.update)(c, aad.len(), aad.as_ptr());
            if encrypt {
                (a.encrypt)(c, data.len(), data.as_mut_ptr(), data.as_ptr());
                (a.digest)(c, tag.len(), tag.as_mut_ptr());
                Ok(true)
            } else {
                (a.decrypt)(c, data.len(), data.as_mut_ptr(), data.as_ptr());
                let mut got = vec![0u8; tag.len()];
                (a.digest)(c, got.len(), got.as_mut_ptr());
                // Constant time is not the point here; equality is.
                Ok(got == *tag)
            }
        }))
    }
    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
        let (ed448, len) = match p.algorithm {
            Algorithm::Eddsa {
                curve: Curve::Ed25519,
            } => (false, 32),
            Algorithm::Eddsa {
                curve: Curve::Ed448,
            } => (true, 57),
            _ => return pkey::signer(self, p, key),
        };
        let private = key.ok_or("EdDSA needs a seed")?.to_vec();
        if private.len() != len {
            return Err(format!("{} private keys are {len} bytes", p.id));
        }
        let mut public = vec![0u8; len];
        let f = if ed448 {
            self.hogweed.nettle_ed448_shake256_public_key
        } else {
            self.hogweed.nettle_ed25519_sha512_public_key
        };
        // SAFETY: buffers of the curve's key size.
        unsafe { f(public.as_mut_ptr(), private.as_ptr()) };
        Ok(Box::new(EdDsa {
            hogweed: self.hogweed.clone(),
            ed448,
            private,
            public,
        }))
    }
    fn verify_foreign(
        &self,
        p: &Primitive,
        public: &[u8],
        digest: &str,
        msg: &[u8],
        sig: &[u8],
    ) -> Res<bool> {
        let ed448 = match p.algorithm {
            Algorithm::Eddsa {
                curve: Curve::Ed25519,
            } => false,
            Algorithm::Eddsa {
                curve: Curve::Ed448,
            } => true,
            _ => return pkey::verify_foreign(self, p, public, digest, msg, sig),
        };
        let mut v = EdDsa {
            hogweed: self.hogweed.clone(),
            ed448,
            private: Vec::new(),
            public: public.to_vec(),
        };
        v.verify(msg, sig)
    }
    fn ffdh_keygen(&self, _p: &Primitive) -> Res<(Vec<u8>, Vec<u8>)> {
        Err("Nettle has no finite-field Diffie-Hellman".into())
    }
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        let (f, len) = match p.algorithm {
            Algorithm::Ecdh {
                curve: Curve::X25519,
            } => (self.hogweed.nettle_curve25519_mul, 32),
            Algorithm::Ecdh { curve: Curve::X448 } => (self.hogweed.nettle_curve448_mul, 56),
            _ => return pkey::derive(self, p, private, peer),
        };
        if private.len() != len || peer.len() != len {
            return Err(format!("{} keys are {len} bytes", p.id));
        }
        let (hogweed, private, peer) = (self.hogweed.clone(), private.to_vec(), peer.to_vec());
        Ok(Box::new(move || {
            let _keep = &hogweed;
            let mut shared = vec![0u8; len];
            // SAFETY: three buffers of the curve's size.
            unsafe { f(shared.as_mut_ptr(), private.as_ptr(), peer.as_ptr()) };
            Ok(shared)
        }))
    }
}
