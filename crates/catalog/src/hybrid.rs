//! The TLS hybrid key exchange X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem), timed as a KEM the
//! way TLS 1.3 uses it: `keygen` is the client's key share (a fresh ML-KEM-768 key pair and a
//! fresh X25519 key pair; share = ML-KEM encapsulation key ‖ X25519 public key, 1216 bytes);
//! `encaps` is the server's side (ML-KEM-768 encapsulation to the share's key, a fresh X25519 key
//! pair and its agreement with the share's X25519 key; ciphertext = ML-KEM ciphertext ‖ X25519
//! public key, 1120 bytes); `decaps` is the client's finish (ML-KEM-768 decapsulation and the
//! X25519 agreement with the server's public key). The secret is ML-KEM secret ‖ X25519 secret
//! (64 bytes). Keys made before timing are parsed once, as for ML-KEM (the `hybrid-kem` entries
//! of definitions.rs). Columns that have no hybrid of their own compose it from their ML-KEM-768
//! and X25519; where that differs from the definition, the column's declarations say so.
//! Vectors (`hybrid_vectors.rs`, scripts/pq-vectors) join NIST's ML-KEM-768 ACVP cases with RFC
//! 7748's X25519 keys, so each byte is published.

use crate::hybrid_vectors::*;
use crate::{Algorithm, Kat, Primitive, SpeedRow};

pub(crate) const PRIMITIVES: &[Primitive] = &[Primitive {
    id: "x25519-mlkem768",
    aliases: &["X25519MLKEM768", "X25519-ML-KEM-768", "x25519_mlkem768"],
    algorithm: Algorithm::HybridKem {
        name: "X25519MLKEM768",
    },
    speed: SpeedRow::Kem {
        name: "X25519MLKEM768",
    },
    kats: &[
        Kat::KemKeygen {
            d: H768_KEYGEN_D,
            z: H768_KEYGEN_Z,
            ek: H768_KEYGEN_EK,
            source: "NIST ACVP ML-KEM-keyGen-FIPS203 tcId 26 ‖ RFC 7748 section 6.1 (Alice)",
        },
        Kat::KemEncaps {
            ek: H768_ENCAPS_EK,
            m: H768_ENCAPS_M,
            c: H768_ENCAPS_C,
            k: H768_ENCAPS_K,
            source: "NIST ACVP ML-KEM-encapDecap-FIPS203 encapsulation tcId 26 ‖ RFC 7748 section 6.1 (Bob to Alice)",
        },
        Kat::KemDecaps {
            dk: H768_DECAPS_DK,
            c: H768_DECAPS_C,
            k: H768_DECAPS_K,
            source: "NIST ACVP ML-KEM-encapDecap-FIPS203 decapsulation (modified ciphertext) tcId 86 ‖ RFC 7748 section 6.1 (Alice of Bob)",
        },
    ],
    groups: &["kem", "pq", "hybrid", "pkey"],
}];

/// Lengths of the parts, ML-KEM-768's first: (encapsulation key, ciphertext, expanded
/// decapsulation key, seed d ‖ z), then X25519's 32.
pub const MLKEM768_EK: usize = 1184;
pub const MLKEM768_CT: usize = 1088;
pub const MLKEM768_DK: usize = 2400;
pub const MLKEM_SEED: usize = 64;
pub const X25519_LEN: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unhex;

    /// The draft's sizes: share 1216, ciphertext 1120, secret 64; seed d ‖ z ‖ X25519 private.
    #[test]
    fn vectors_have_the_drafts_sizes() {
        for kat in PRIMITIVES[0].kats {
            let lens: Vec<usize> = match *kat {
                Kat::KemKeygen { d, z, ek, .. } => {
                    vec![unhex(d).len() + unhex(z).len(), unhex(ek).len()]
                }
                Kat::KemEncaps { ek, m, c, k, .. } => {
                    vec![
                        unhex(ek).len(),
                        unhex(m).len(),
                        unhex(c).len(),
                        unhex(k).len(),
                    ]
                }
                Kat::KemDecaps { dk, c, k, .. } => {
                    vec![unhex(dk).len(), unhex(c).len(), unhex(k).len()]
                }
                _ => panic!("unexpected vector"),
            };
            let want: &[usize] = match kat {
                Kat::KemKeygen { .. } => &[96, 1216],
                Kat::KemEncaps { .. } => &[1216, 64, 1120, 64],
                _ => &[2432, 1120, 64],
            };
            assert_eq!(lens, want);
        }
    }
}
