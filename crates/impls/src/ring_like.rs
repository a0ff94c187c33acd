//! ring and aws-lc-rs share one API (aws-lc-rs was written as a drop-in for ring), so the calls
//! both offer are written once, as a macro instantiated with either crate's path. Each
//! implementation module then adds only what its crate has beyond the common API.

/// Expands to free functions implementing the [`crate::suite::Suite`] methods over `$k`
/// (`ring` or `aws_lc_rs`): digests, HMAC, AEADs, Ed25519, ECDSA and RSA PKCS#1 v1.5. The
/// invoking module supplies the two calls whose signatures differ: `ecdsa_from_pkcs8` and
/// `open_separate`.
#[macro_export]
macro_rules! ring_like_api {
    ($k:ident) => {
        use cryptospeed_catalog::{Algorithm, Curve, Primitive};
        use $crate::suite::{AeadFn, HashFn, Res, Signer};
        use $k::rand::SystemRandom;
        use $k::signature::{self, KeyPair};

        fn no<T>(what: &str, p: &Primitive) -> Res<T> {
            Err(format!("{} does not offer {}", what, p.id))
        }

        pub fn digest_algorithm(p: &Primitive) -> Option<&'static $k::digest::Algorithm> {
            Some(match p.id {
                "sha1" => &$k::digest::SHA1_FOR_LEGACY_USE_ONLY,
                "sha256" => &$k::digest::SHA256,
                "sha512" => &$k::digest::SHA512,
                _ => return None,
            })
        }

        pub fn hash(name: &str, p: &Primitive) -> Res<HashFn> {
            let alg =
                digest_algorithm(p).ok_or_else(|| format!("{name} does not offer {}", p.id))?;
            Ok(Box::new(move |msg, out| {
                out.copy_from_slice($k::digest::digest(alg, msg).as_ref());
                Ok(())
            }))
        }

        pub fn mac(name: &str, p: &Primitive, key: &[u8]) -> Res<HashFn> {
            let alg = match p.id {
                "hmac-sha256" => $k::hmac::HMAC_SHA256,
                _ => return no(name, p),
            };
            let key = $k::hmac::Key::new(alg, key);
            Ok(Box::new(move |msg, out| {
                out.copy_from_slice($k::hmac::sign(&key, msg).as_ref());
                Ok(())
            }))
        }

        pub fn aead(name: &str, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
            use $k::aead;
            let alg = match p.id {
                "aes-128-gcm" => &aead::AES_128_GCM,
                "aes-256-gcm" => &aead::AES_256_GCM,
                "chacha20-poly1305" => &aead::CHACHA20_POLY1305,
                _ => return no(name, p),
            };
            let key = aead::LessSafeKey::new(
                aead::UnboundKey::new(alg, key).map_err(|_| "key rejected".to_string())?,
            );
            let nonce = |n: &[u8]| {
                aead::Nonce::try_assume_unique_for_key(n).map_err(|_| "bad nonce".to_string())
            };
            Ok(if encrypt {
                Box::new(move |n, aad, data, tag| {
                    let t = key
                        .seal_in_place_separate_tag(nonce(n)?, aead::Aad::from(aad), data)
                        .map_err(|_| "seal failed".to_string())?;
                    tag.copy_from_slice(t.as_ref());
                    Ok(true)
                })
            } else {
                Box::new(move |n, aad, data, tag| {
                    open_separate(&key, nonce(n)?, aead::Aad::from(aad), tag, data)
                })
            })
        }

        struct Ed25519(signature::Ed25519KeyPair);
        impl Signer for Ed25519 {
            fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
                Ok(self.0.sign(msg).as_ref().to_vec())
            }
            fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
                let pk =
                    signature::UnparsedPublicKey::new(&signature::ED25519, self.0.public_key());
                Ok(pk.verify(msg, sig).is_ok())
            }
            fn public(&self) -> Vec<u8> {
                self.0.public_key().as_ref().to_vec()
            }
        }

        struct Ecdsa {
            pair: signature::EcdsaKeyPair,
            verify_alg: &'static signature::EcdsaVerificationAlgorithm,
            rng: SystemRandom,
        }
        impl Signer for Ecdsa {
            fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
                Ok(self
                    .pair
                    .sign(&self.rng, msg)
                    .map_err(|_| "ECDSA signing failed".to_string())?
                    .as_ref()
                    .to_vec())
            }
            fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
                let pk = signature::UnparsedPublicKey::new(self.verify_alg, self.pair.public_key());
                Ok(pk.verify(msg, sig).is_ok())
            }
            fn public(&self) -> Vec<u8> {
                self.pair.public_key().as_ref().to_vec()
            }
        }

        struct Rsa {
            pair: signature::RsaKeyPair,
            rng: SystemRandom,
        }
        impl Signer for Rsa {
            fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
                #[allow(deprecated)] // ring's replacement is not in aws-lc-rs
                let mut sig = vec![0; self.pair.public_modulus_len()];
                self.pair
                    .sign(&signature::RSA_PKCS1_SHA256, &self.rng, msg, &mut sig)
                    .map_err(|_| "RSA signing failed".to_string())?;
                Ok(sig)
            }
            fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
                let pk = signature::UnparsedPublicKey::new(
                    &signature::RSA_PKCS1_2048_8192_SHA256,
                    self.pair.public_key().as_ref(),
                );
                Ok(pk.verify(msg, sig).is_ok())
            }
            fn public(&self) -> Vec<u8> {
                self.pair.public_key().as_ref().to_vec()
            }
        }

        fn ecdsa_algs(
            curve: Curve,
        ) -> Option<(
            &'static signature::EcdsaSigningAlgorithm,
            &'static signature::EcdsaVerificationAlgorithm,
        )> {
            match curve {
                Curve::P256 => Some((
                    &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
                    &signature::ECDSA_P256_SHA256_ASN1,
                )),
                Curve::P384 => Some((
                    &signature::ECDSA_P384_SHA384_ASN1_SIGNING,
                    &signature::ECDSA_P384_SHA384_ASN1,
                )),
                _ => None,
            }
        }

        pub fn signer(name: &str, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
            let rng = SystemRandom::new();
            match (p.algorithm, key) {
                (
                    Algorithm::Eddsa {
                        curve: Curve::Ed25519,
                    },
                    Some(seed),
                ) => Ok(Box::new(Ed25519(
                    signature::Ed25519KeyPair::from_seed_unchecked(seed)
                        .map_err(|e| format!("Ed25519 seed rejected: {e}"))?,
                ))),
                (Algorithm::Ecdsa { curve }, None) => {
                    let (sign_alg, verify_alg) = ecdsa_algs(curve)
                        .ok_or_else(|| format!("{name} does not offer {}", p.id))?;
                    let pkcs8 = signature::EcdsaKeyPair::generate_pkcs8(sign_alg, &rng)
                        .map_err(|_| "ECDSA key generation failed".to_string())?;
                    let pair = ecdsa_from_pkcs8(sign_alg, pkcs8.as_ref(), &rng)?;
                    Ok(Box::new(Ecdsa {
                        pair,
                        verify_alg,
                        rng,
                    }))
                }
                (Algorithm::Rsa { bits }, Some(der)) if (2048..=8192).contains(&bits) => {
                    Ok(Box::new(Rsa {
                        pair: signature::RsaKeyPair::from_pkcs8(der)
                            .map_err(|e| format!("RSA key rejected: {e}"))?,
                        rng,
                    }))
                }
                (Algorithm::Rsa { bits }, _) => Err(format!(
                    "{name} signs with RSA keys of 2048 to 8192 bits only, not {bits}"
                )),
                _ => no(name, p),
            }
        }

        pub fn verify_foreign(
            name: &str,
            p: &Primitive,
            public: &[u8],
            msg: &[u8],
            sig: &[u8],
        ) -> Res<bool> {
            let Algorithm::Ecdsa { curve } = p.algorithm else {
                return no(name, p);
            };
            let (_, verify_alg) =
                ecdsa_algs(curve).ok_or_else(|| format!("{name} does not offer {}", p.id))?;
            Ok(signature::UnparsedPublicKey::new(verify_alg, public)
                .verify(msg, sig)
                .is_ok())
        }
    };
}

/// Expands, inside an `impl Suite`, to the methods ring and aws-lc-rs share, delegating to the
/// functions of [`ring_like_api!`] in the module `api`; `$name` is the implementation's name.
/// `hash` is left out (aws-lc adds SHA3-256 to it) and takes `api::hash` by hand.
#[macro_export]
macro_rules! ring_like_suite_methods {
    ($name:literal) => {
        fn notes(&self) -> Vec<String> {
            vec![format!(
                "signatures: {} signs messages, so ECDSA and RSA hash the 20/36-byte message \
                 with SHA-256/384 before signing (openssl speed signs it as a digest)",
                $name
            )]
        }
        fn mac(&self, p: &Primitive, key: &[u8], _iv: &[u8]) -> Res<HashFn> {
            api::mac($name, p, key)
        }
        fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
            api::aead($name, p, key, encrypt)
        }
        fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
            api::signer($name, p, key)
        }
        fn verify_foreign(
            &self,
            p: &Primitive,
            public: &[u8],
            digest: &str,
            msg: &[u8],
            sig: &[u8],
        ) -> Res<bool> {
            if Some(digest) != cryptospeed_catalog::agreement::signature_digest(&p.algorithm) {
                return Err(format!(
                    "{} verifies {} only with its curve's own hash",
                    $name, p.id
                ));
            }
            api::verify_foreign($name, p, public, msg, sig)
        }
    };
}
