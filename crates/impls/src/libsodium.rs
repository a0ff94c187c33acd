//! `libsodium`: Debian's libsodium (libsodium-dev / libsodium23), loaded at run time. Offers
//! SHA-256, SHA-512, BLAKE2b-512, HMAC-SHA-256, AES-256-GCM (only where the CPU has AES-NI and
//! PCLMUL, as libsodium requires), ChaCha20-Poly1305 (IETF), Ed25519 and X25519.

use crate::declared::Declared;
use crate::suite::{AeadFn, DeriveFn, HashFn, Res, Signer, Suite, SuiteImplementation};
use crate::ImplOptions;
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use cryptospeed_engine::Implementation;
use cryptospeed_model::Variant;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uchar, c_ulonglong};
use std::ptr::{null, null_mut};
use std::sync::Arc;

type U8 = c_uchar;
type Len = c_ulonglong;

crate::dynamic_api! {
    Api, "libsodium";
    required {
        sodium_init: fn() -> c_int;
        sodium_version_string: fn() -> *const c_char;
        crypto_hash_sha256: fn(*mut U8, *const U8, Len) -> c_int;
        crypto_hash_sha512: fn(*mut U8, *const U8, Len) -> c_int;
        crypto_generichash: fn(*mut U8, usize, *const U8, Len, *const U8, usize) -> c_int;
        crypto_auth_hmacsha256_statebytes: fn() -> usize;
        crypto_auth_hmacsha256_init: fn(*mut U8, *const U8, usize) -> c_int;
        crypto_auth_hmacsha256_update: fn(*mut U8, *const U8, Len) -> c_int;
        crypto_auth_hmacsha256_final: fn(*mut U8, *mut U8) -> c_int;
        crypto_aead_aes256gcm_is_available: fn() -> c_int;
        crypto_aead_aes256gcm_encrypt_detached: fn(*mut U8, *mut U8, *mut Len, *const U8, Len, *const U8, Len, *const U8, *const U8, *const U8) -> c_int;
        crypto_aead_aes256gcm_decrypt_detached: fn(*mut U8, *mut U8, *const U8, Len, *const U8, *const U8, Len, *const U8, *const U8) -> c_int;
        crypto_aead_chacha20poly1305_ietf_encrypt_detached: fn(*mut U8, *mut U8, *mut Len, *const U8, Len, *const U8, Len, *const U8, *const U8, *const U8) -> c_int;
        crypto_aead_chacha20poly1305_ietf_decrypt_detached: fn(*mut U8, *mut U8, *const U8, Len, *const U8, *const U8, Len, *const U8, *const U8) -> c_int;
        crypto_sign_seed_keypair: fn(*mut U8, *mut U8, *const U8) -> c_int;
        crypto_sign_detached: fn(*mut U8, *mut Len, *const U8, Len, *const U8) -> c_int;
        crypto_sign_verify_detached: fn(*const U8, *const U8, Len, *const U8) -> c_int;
        crypto_scalarmult_curve25519: fn(*mut U8, *const U8, *const U8) -> c_int;
    }
    optional {}
}

pub struct Sodium {
    api: Arc<Api>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = crate::declared::NONE;

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.as_deref().unwrap_or("libsodium.so.23");
    let api = Api::load(path).map_err(|e| format!("{e} (Debian package libsodium23)"))?;
    // SAFETY: sodium_init may be called any number of times; < 0 means it failed.
    if unsafe { (api.sodium_init)() } < 0 {
        return Err("sodium_init failed".into());
    }
    Ok(Box::new(SuiteImplementation::new(Sodium {
        api: Arc::new(api),
    })))
}

fn check(rc: c_int, what: &str) -> Res<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned {rc}"))
    }
}

/// The two AEADs share one calling convention; this picks the pair of functions.
type SealFn = unsafe extern "C" fn(
    *mut U8,
    *mut U8,
    *mut Len,
    *const U8,
    Len,
    *const U8,
    Len,
    *const U8,
    *const U8,
    *const U8,
) -> c_int;
type OpenFn = unsafe extern "C" fn(
    *mut U8,
    *mut U8,
    *const U8,
    Len,
    *const U8,
    *const U8,
    Len,
    *const U8,
    *const U8,
) -> c_int;

struct Ed25519 {
    api: Arc<Api>,
    public: [u8; 32],
    secret: [u8; 64],
}

impl Signer for Ed25519 {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let mut sig = vec![0u8; 64];
        // SAFETY: buffers of the sizes crypto_sign_detached documents.
        check(
            unsafe {
                (self.api.crypto_sign_detached)(
                    sig.as_mut_ptr(),
                    null_mut(),
                    msg.as_ptr(),
                    msg.len() as Len,
                    self.secret.as_ptr(),
                )
            },
            "crypto_sign_detached",
        )?;
        Ok(sig)
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        if sig.len() != 64 {
            return Ok(false);
        }
        // SAFETY: 64-byte signature and 32-byte public key.
        Ok(unsafe {
            (self.api.crypto_sign_verify_detached)(
                sig.as_ptr(),
                msg.as_ptr(),
                msg.len() as Len,
                self.public.as_ptr(),
            )
        } == 0)
    }
    fn public(&self) -> Vec<u8> {
        self.public.to_vec()
    }
}

impl Suite for Sodium {
    fn name(&self) -> &'static str {
        "libsodium"
    }
    fn describe(&self) -> Variant {
        // SAFETY: returns a static NUL-terminated string.
        let version = unsafe { CStr::from_ptr((self.api.sodium_version_string)()) }
            .to_string_lossy()
            .into_owned();
        Variant {
            label: format!("libsodium-{version}"),
            implementation: "libsodium".into(),
            version,
            library: self.api.path.clone(),
            ..Default::default()
        }
    }
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        let api = self.api.clone();
        // SAFETY (all three): output buffers are sized by the caller to the digest length.
        Ok(match p.id {
            "sha256" => Box::new(move |msg, out| {
                check(
                    unsafe {
                        (api.crypto_hash_sha256)(out.as_mut_ptr(), msg.as_ptr(), msg.len() as Len)
                    },
                    "crypto_hash_sha256",
                )
            }),
            "sha512" => Box::new(move |msg, out| {
                check(
                    unsafe {
                        (api.crypto_hash_sha512)(out.as_mut_ptr(), msg.as_ptr(), msg.len() as Len)
                    },
                    "crypto_hash_sha512",
                )
            }),
            "blake2b-512" => Box::new(move |msg, out| {
                check(
                    unsafe {
                        (api.crypto_generichash)(
                            out.as_mut_ptr(),
                            out.len(),
                            msg.as_ptr(),
                            msg.len() as Len,
                            null(),
                            0,
                        )
                    },
                    "crypto_generichash",
                )
            }),
            _ => return Err(format!("libsodium does not offer {}", p.id)),
        })
    }
    fn mac(&self, p: &Primitive, key: &[u8], _iv: &[u8]) -> Res<HashFn> {
        if p.id != "hmac-sha256" {
            return Err(format!("libsodium does not offer {}", p.id));
        }
        let api = self.api.clone();
        let key = key.to_vec();
        // SAFETY: the state buffer has the size libsodium reports.
        let mut state = vec![0u8; unsafe { (api.crypto_auth_hmacsha256_statebytes)() }];
        Ok(Box::new(move |msg, out| unsafe {
            check(
                (api.crypto_auth_hmacsha256_init)(state.as_mut_ptr(), key.as_ptr(), key.len()),
                "crypto_auth_hmacsha256_init",
            )?;
            check(
                (api.crypto_auth_hmacsha256_update)(
                    state.as_mut_ptr(),
                    msg.as_ptr(),
                    msg.len() as Len,
                ),
                "crypto_auth_hmacsha256_update",
            )?;
            check(
                (api.crypto_auth_hmacsha256_final)(state.as_mut_ptr(), out.as_mut_ptr()),
                "crypto_auth_hmacsha256_final",
            )
        }))
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        let api = self.api.clone();
        let (seal, open): (SealFn, OpenFn) = match p.id {
            "aes-256-gcm" => {
                // SAFETY: no arguments.
                if unsafe { (api.crypto_aead_aes256gcm_is_available)() } == 0 {
                    return Err(
                        "libsodium's AES-256-GCM needs AES-NI and PCLMUL, which this CPU lacks"
                            .into(),
                    );
                }
                (
                    api.crypto_aead_aes256gcm_encrypt_detached,
                    api.crypto_aead_aes256gcm_decrypt_detached,
                )
            }
            "chacha20-poly1305" => (
                api.crypto_aead_chacha20poly1305_ietf_encrypt_detached,
                api.crypto_aead_chacha20poly1305_ietf_decrypt_detached,
            ),
            _ => return Err(format!("libsodium does not offer {}", p.id)),
        };
        if key.len() != 32 {
            return Err("libsodium's AEADs take 32-byte keys".into());
        }
        let key = key.to_vec();
        // SAFETY (both): in-place operation is documented as allowed; tag and nonce buffers are
        // the sizes the algorithms use (16 and 12 bytes), checked by the known-answer tests.
        Ok(if encrypt {
            Box::new(move |nonce, aad, data, tag| {
                let _keep = &api;
                check(
                    unsafe {
                        seal(
                            data.as_mut_ptr(),
                            tag.as_mut_ptr(),
                            null_mut(),
                            data.as_ptr(),
                            data.len() as Len,
                            aad.as_ptr(),
                            aad.len() as Len,
                            null(),
                            nonce.as_ptr(),
                            key.as_ptr(),
                        )
                    },
                    "AEAD encryption",
                )?;
                Ok(true)
            })
        } else {
            Box::new(move |nonce, aad, data, tag| {
                let _keep = &api;
                Ok(unsafe {
                    open(
                        data.as_mut_ptr(),
                        null_mut(),
                        data.as_ptr(),
                        data.len() as Len,
                        tag.as_ptr(),
                        aad.as_ptr(),
                        aad.len() as Len,
                        nonce.as_ptr(),
                        key.as_ptr(),
                    )
                } == 0)
            })
        })
    }
    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
        match (p.algorithm, key) {
            (
                Algorithm::Eddsa {
                    curve: Curve::Ed25519,
                },
                Some(seed),
            ) if seed.len() == 32 => {
                let mut s = Ed25519 {
                    api: self.api.clone(),
                    public: [0; 32],
                    secret: [0; 64],
                };
                // SAFETY: 32-byte public, 64-byte secret, 32-byte seed.
                check(
                    unsafe {
                        (s.api.crypto_sign_seed_keypair)(
                            s.public.as_mut_ptr(),
                            s.secret.as_mut_ptr(),
                            seed.as_ptr(),
                        )
                    },
                    "crypto_sign_seed_keypair",
                )?;
                Ok(Box::new(s))
            }
            _ => Err(format!("libsodium does not offer {}", p.id)),
        }
    }
    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        if p.algorithm
            != (Algorithm::Ecdh {
                curve: Curve::X25519,
            })
        {
            return Err(format!("libsodium does not offer {}", p.id));
        }
        if private.len() != 32 || peer.len() != 32 {
            return Err("X25519 keys are 32 bytes".into());
        }
        let (api, private, peer) = (self.api.clone(), private.to_vec(), peer.to_vec());
        Ok(Box::new(move || {
            let mut shared = vec![0u8; 32];
            // SAFETY: three 32-byte buffers.
            check(
                unsafe {
                    (api.crypto_scalarmult_curve25519)(
                        shared.as_mut_ptr(),
                        private.as_ptr(),
                        peer.as_ptr(),
                    )
                },
                "crypto_scalarmult_curve25519",
            )?;
            Ok(shared)
        }))
    }
}
