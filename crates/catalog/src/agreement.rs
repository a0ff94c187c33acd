//! The inputs every implementation computes on for the cross-implementation agreement check
//! (`cryptospeed verify --impl all`): same key, IV, nonce, message and peer key, so outputs can be
//! compared byte for byte, or, for randomised signatures, verified by the other implementations.
//!
//! Inputs are fixed patterns rather than published vectors on purpose: the known-answer tests
//! already cover published vectors, and agreement on a long, unaligned message with non-trivial
//! keys catches bugs (buffering, block boundaries) that short vectors miss.

use crate::{Algorithm, Curve, Kat, Primitive};

/// How implementations are compared for a primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgreementKind {
    /// The output bytes must be identical.
    SameBytes,
    /// Each implementation signs; every other one must accept the signature.
    CrossVerify,
}

/// Inputs of one agreement check. Fields a primitive does not use are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgreementCase {
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub msg: Vec<u8>,
    pub aad: Vec<u8>,
    pub peer: Vec<u8>,
}

/// A byte pattern that is neither zero nor periodic over a cipher block.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32 * 31 + seed as u32 * 17 + (i as u32 >> 8)) as u8)
        .collect()
}

/// Length of the agreement message: not a multiple of any block size for hashes and MACs, a
/// multiple of 16 for block cipher modes without padding.
fn message_len(algorithm: &Algorithm) -> usize {
    match algorithm {
        Algorithm::Cipher { .. } => 1024,
        _ => 1000,
    }
}

/// The digest a hash-and-sign scheme uses in the agreement check and in implementations whose
/// API signs messages rather than digests.
pub fn signature_digest(algorithm: &Algorithm) -> Option<&'static str> {
    match algorithm {
        Algorithm::Rsa { .. } | Algorithm::Dsa { .. } => Some("SHA256"),
        Algorithm::Ecdsa { curve: Curve::P256 } => Some("SHA256"),
        Algorithm::Ecdsa { curve: Curve::P384 } => Some("SHA384"),
        Algorithm::Ecdsa { curve: Curve::P521 } => Some("SHA512"),
        _ => None,
    }
}

/// Timing and agreement keys shipped with the catalog (PKCS#8 PEM), by algorithm and size.
pub fn private_key_pem(algorithm: &Algorithm) -> Option<&'static str> {
    Some(match algorithm {
        Algorithm::Rsa { bits: 512 } => include_str!("../keys/rsa-512.pem"),
        Algorithm::Rsa { bits: 1024 } => include_str!("../keys/rsa-1024.pem"),
        Algorithm::Rsa { bits: 2048 } => include_str!("../keys/rsa-2048.pem"),
        Algorithm::Rsa { bits: 3072 } => include_str!("../keys/rsa-3072.pem"),
        Algorithm::Rsa { bits: 4096 } => include_str!("../keys/rsa-4096.pem"),
        Algorithm::Rsa { bits: 7680 } => include_str!("../keys/rsa-7680.pem"),
        Algorithm::Rsa { bits: 15360 } => include_str!("../keys/rsa-15360.pem"),
        Algorithm::Dsa { bits: 1024 } => include_str!("../keys/dsa-1024.pem"),
        Algorithm::Dsa { bits: 2048 } => include_str!("../keys/dsa-2048.pem"),
        _ => return None,
    })
}

/// The DER bytes of a PEM document (the shipped keys are plain base64 between armour lines).
pub fn pem_to_der(pem: &str) -> Vec<u8> {
    let body: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect::<Vec<_>>()
        .concat();
    base64_decode(&body).expect("shipped keys are valid base64")
}

/// Standard base64 without line breaks. Hand-written because it is the catalog's only use and
/// twenty lines; the engine-free catalog keeps its dependencies to hex and strsim.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        } as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

impl Primitive {
    /// How implementations are compared, or `None` when there is no comparable output (FFDH
    /// with per-library groups; DSA, whose parameters differ between libraries).
    pub fn agreement_kind(&self) -> Option<AgreementKind> {
        match self.algorithm {
            Algorithm::Dsa { .. } | Algorithm::Ffdh { .. } => None,
            // Randomised end to end: each column checks its own two ends (tls.rs).
            Algorithm::Tls13Handshake { .. } => None,
            Algorithm::Ecdsa { .. } => Some(AgreementKind::CrossVerify),
            _ if self.family().is_seeded() => Some(AgreementKind::CrossVerify),
            _ => Some(AgreementKind::SameBytes),
        }
    }

    /// The agreement inputs for this primitive.
    ///
    /// * digests, XOFs: `msg`;
    /// * MACs: `key`, `iv` (GMAC), `msg`;
    /// * ciphers: encrypt `msg` with `key` and `iv`;
    /// * AEADs: seal `msg` with `key`, nonce `iv`, `aad`; output ciphertext then tag;
    /// * RSA: PKCS#1 v1.5 signature with SHA-256 of `msg` under the PKCS#8 DER `key`;
    /// * EdDSA: sign `msg` with the private seed `key`;
    /// * ECDH/X25519/X448: shared secret of private `key` and `peer` (SEC1 point or raw u);
    /// * ECDSA: sign `msg` (hash per [`signature_digest`]) with any key, report the SEC1 public
    ///   point; the others verify.
    /// * ML-KEM: the key pair from the 64-byte seed `key` (d ‖ z); encapsulate to it (randomly),
    ///   output the ciphertext and report the shared secret as `public`; the others decapsulate
    ///   the ciphertext with the same seed's key and must get that secret.
    /// * ML-DSA: the key pair from the 32-byte seed `key` (ξ); sign `msg` (pure ML-DSA, empty
    ///   context), report the public key; the others verify.
    /// * SLH-DSA: likewise from the 48-byte seed SK.seed ‖ SK.prf ‖ PK.seed (n = 16).
    /// * X25519MLKEM768: as ML-KEM, the key pair from the 96-byte seed d ‖ z ‖ X25519 private
    ///   key; the ciphertext is ML-KEM's ‖ the X25519 share, the secret ML-KEM's ‖ X25519's.
    pub fn agreement_case(&self) -> Option<AgreementCase> {
        self.agreement_kind()?;
        let msg = pattern(message_len(&self.algorithm), 1);
        let mut case = AgreementCase {
            msg,
            ..Default::default()
        };
        match self.algorithm {
            Algorithm::Digest { .. } | Algorithm::Xof { .. } => {}
            Algorithm::Hmac { .. } => case.key = pattern(20, 2),
            Algorithm::Cmac { .. } => case.key = pattern(16, 2),
            Algorithm::Gmac { .. } => {
                case.key = pattern(16, 2);
                case.iv = pattern(12, 3);
            }
            Algorithm::Cipher {
                key_len, iv_len, ..
            } => {
                case.key = pattern(key_len, 2);
                case.iv = pattern(iv_len, 3);
            }
            Algorithm::Aead {
                key_len, nonce_len, ..
            } => {
                case.key = pattern(key_len, 2);
                case.iv = pattern(nonce_len, 3);
                case.aad = pattern(13, 4);
            }
            Algorithm::Rsa { .. } => case.key = pem_to_der(private_key_pem(&self.algorithm)?),
            Algorithm::Eddsa { curve } => {
                case.key = pattern(if curve == Curve::Ed448 { 57 } else { 32 }, 5)
            }
            Algorithm::Ecdh { curve } => {
                // The published vector's peer key, with another private key.
                let peer = self.kats.iter().find_map(|k| match k {
                    Kat::Agreement { peer_public, .. } => Some(crate::unhex(peer_public)),
                    _ => None,
                })?;
                let len = match curve {
                    Curve::X448 => 56,
                    Curve::P384 => 48,
                    Curve::P521 => 66,
                    _ => 32,
                };
                // A leading 0x01 keeps NIST scalars below the group order.
                let mut key = pattern(len, 6);
                key[0] = 0x01;
                case.key = key;
                case.peer = peer;
            }
            Algorithm::Ecdsa { .. } => {}
            Algorithm::Dsa { .. } | Algorithm::Ffdh { .. } => return None,
            // The seeded families: the key pair from a seed of the algorithm's length (the
            // length also tells the patterns of the families apart).
            _ => {
                let seed_len = self.algorithm.key_seed_len()?;
                case.key = pattern(seed_len, seed_len as u8);
            }
        }
        Some(case)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_a_known_encoding() {
        // RFC 4648 section 10.
        assert_eq!(base64_decode("Zm9vYmFy").unwrap(), b"foobar");
        assert_eq!(base64_decode("Zm9vYg==").unwrap(), b"foob");
    }

    #[test]
    fn shipped_keys_are_pkcs8() {
        for bits in [512, 2048, 15360] {
            let der = pem_to_der(private_key_pem(&Algorithm::Rsa { bits }).unwrap());
            // SEQUENCE, version 0, then the rsaEncryption OID.
            assert_eq!(der[0], 0x30);
            let oid = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
            assert!(der.windows(oid.len()).any(|w| w == oid), "{bits}");
        }
    }

    #[test]
    fn every_comparable_primitive_has_a_case() {
        for p in crate::all() {
            if p.agreement_kind().is_some() {
                let c = p.agreement_case().unwrap_or_else(|| panic!("{}", p.id));
                assert!(!c.msg.is_empty() || matches!(p.algorithm, Algorithm::Ecdh { .. }));
            }
        }
    }
}
