//! TLS 1.3 handshakes: one primitive per (key exchange group, server certificate), so a
//! handshake is a cell like any other (variant, primitive, operation) and the cost of turning on
//! post-quantum key exchange is a comparison of two primitives that differ in the group alone.
//!
//! What one handshake includes (the `tls13-handshake` entries of definitions.rs): a fresh client
//! and server of one library, each made from a configuration built before timing (certificate
//! chain and key parsed, the client's trust anchor set, one group and one cipher suite offered);
//! a full handshake without client authentication or session resumption, through an in-memory
//! transport (no sockets), up to both ends holding the traffic keys; the server certificate
//! verified by the client against its self-signed root. `handshake-client` and
//! `handshake-server` time one side's steps of the same handshake each.
//!
//! There is no published vector for a handshake (every one is randomised): before timing, each
//! column checks that the handshake completes, that the negotiated group and signature scheme
//! are the ones asked for, and that both ends export the same keying material (RFC 8446 7.5).

use crate::{Algorithm, Kat, Primitive, SpeedRow};

/// What each side of a handshake computes, as data (the explanation's primitive list).
pub mod work;

const CHECK: &[Kat] = &[Kat::CrossCheck {
    how: "the handshake completes between the library's own client and server; the negotiated \
          group and signature scheme are the ones asked for; RFC 8446 7.5 exported keying \
          material agrees between the ends",
}];

const GROUPS: &[&str] = &["tls13-handshake", "tls", "pkey"];

macro_rules! handshake {
    ($id:literal, $group:literal, $cert:literal, [$($alias:literal),*]) => {
        Primitive {
            id: $id,
            aliases: &[$($alias),*],
            algorithm: Algorithm::Tls13Handshake { group: $group, cert: $cert },
            speed: SpeedRow::Handshake,
            kats: CHECK,
            groups: GROUPS,
        }
    };
}

pub(crate) const PRIMITIVES: &[Primitive] = &[
    handshake!("tls13-x25519-ecdsa-p256", "X25519", "ECDSA-P256", []),
    handshake!(
        "tls13-x25519mlkem768-ecdsa-p256",
        "X25519MLKEM768",
        "ECDSA-P256",
        []
    ),
    handshake!(
        "tls13-secp256r1mlkem768-ecdsa-p256",
        "SecP256r1MLKEM768",
        "ECDSA-P256",
        []
    ),
    handshake!("tls13-mlkem768-ecdsa-p256", "MLKEM768", "ECDSA-P256", []),
    handshake!("tls13-x25519-ed25519", "X25519", "Ed25519", []),
    handshake!(
        "tls13-x25519mlkem768-ed25519",
        "X25519MLKEM768",
        "Ed25519",
        []
    ),
    handshake!(
        "tls13-x25519-rsa2048",
        "X25519",
        "RSA-2048",
        ["tls13-x25519-rsa-2048"]
    ),
    handshake!(
        "tls13-x25519mlkem768-rsa2048",
        "X25519MLKEM768",
        "RSA-2048",
        ["tls13-x25519mlkem768-rsa-2048"]
    ),
    handshake!("tls13-x25519-mldsa65", "X25519", "ML-DSA-65", []),
    handshake!(
        "tls13-x25519mlkem768-mldsa65",
        "X25519MLKEM768",
        "ML-DSA-65",
        []
    ),
];

/// The TLS signature scheme (RFC 8446 4.2.3 name) a certificate's key signs with in TLS 1.3.
pub fn signature_scheme(cert: &str) -> &'static str {
    match cert {
        "ECDSA-P256" => "ecdsa_secp256r1_sha256",
        "Ed25519" => "ed25519",
        "RSA-2048" => "rsa_pss_rsae_sha256",
        "ML-DSA-65" => "mldsa65",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_handshake_names_a_known_scheme_and_resolves_by_group() {
        for p in PRIMITIVES {
            let Algorithm::Tls13Handshake { cert, .. } = p.algorithm else {
                panic!("{}", p.id)
            };
            assert_ne!(signature_scheme(cert), "unknown", "{}", p.id);
        }
        let all = crate::select(&["tls13-handshake".into()]).unwrap();
        assert_eq!(all.len(), PRIMITIVES.len());
    }
}
