//! The family of an algorithm: the one fact about it that decides its operations, how it is
//! timed and how implementations are compared. Code outside the catalog matches on [`Family`]
//! rather than listing [`Algorithm`]s, so a new algorithm of a known kind (another KEM, another
//! hash-based signature) is an `Algorithm` variant, its arms in this file, and the files of the
//! implementations that have it: no `match` elsewhere learns its name.

use crate::Algorithm;
use cryptospeed_model::Op;

/// What kind of primitive an algorithm is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// A hash or an extendable-output function over a message.
    Digest,
    /// A keyed MAC over a message (HMAC, CMAC, GMAC).
    Mac,
    /// A cipher mode over a message (key and IV, no tag).
    Cipher,
    /// An AEAD over a message (key, nonce, AAD, tag).
    Aead,
    /// A signature scheme with structured keys (RSA, DSA, ECDSA, EdDSA): sign and verify with
    /// one key made before timing.
    Signature,
    /// Key agreement (ECDH, X25519/X448, FFDH): derive with one key pair made before timing.
    KeyAgreement,
    /// A key-encapsulation mechanism whose keys are byte strings made from a seed (ML-KEM, the
    /// TLS hybrids): keygen, encaps, decaps.
    Kem,
    /// A signature scheme whose keys are byte strings made from a seed (ML-DSA, SLH-DSA):
    /// keygen, sign, verify.
    SeededSignature,
    /// A TLS 1.3 handshake between a client and a server of one library (tls.rs).
    Handshake,
}

impl Family {
    /// True for families whose cells have a message size.
    pub fn has_bytes(self) -> bool {
        matches!(
            self,
            Family::Digest | Family::Mac | Family::Cipher | Family::Aead
        )
    }

    /// Operations timed by default, in `openssl speed`'s order.
    pub fn default_ops(self) -> &'static [Op] {
        match self {
            Family::Digest => &[Op::Hash],
            Family::Mac => &[Op::Mac],
            Family::Cipher | Family::Aead => &[Op::Encrypt],
            Family::Signature => &[Op::Sign, Op::Verify],
            Family::KeyAgreement => &[Op::Derive],
            Family::Kem => &[Op::Keygen, Op::Encaps, Op::Decaps],
            Family::SeededSignature => &[Op::Keygen, Op::Sign, Op::Verify],
            Family::Handshake => &[Op::Handshake, Op::HandshakeClient, Op::HandshakeServer],
        }
    }

    /// True for the post-quantum-style families whose keys are byte strings from a seed.
    pub fn is_seeded(self) -> bool {
        matches!(self, Family::Kem | Family::SeededSignature)
    }
}

impl Algorithm {
    /// The algorithm's family.
    pub fn family(&self) -> Family {
        match self {
            Algorithm::Digest { .. } | Algorithm::Xof { .. } => Family::Digest,
            Algorithm::Hmac { .. } | Algorithm::Cmac { .. } | Algorithm::Gmac { .. } => Family::Mac,
            Algorithm::Cipher { .. } => Family::Cipher,
            Algorithm::Aead { .. } => Family::Aead,
            Algorithm::Rsa { .. }
            | Algorithm::Dsa { .. }
            | Algorithm::Ecdsa { .. }
            | Algorithm::Eddsa { .. } => Family::Signature,
            Algorithm::Ecdh { .. } | Algorithm::Ffdh { .. } => Family::KeyAgreement,
            Algorithm::MlKem { .. } | Algorithm::HybridKem { .. } => Family::Kem,
            Algorithm::MlDsa { .. } | Algorithm::SlhDsa { .. } => Family::SeededSignature,
            Algorithm::Tls13Handshake { .. } => Family::Handshake,
        }
    }

    /// The kind and parameter name the worker protocol's vectors carry (`("ml-kem",
    /// "ML-KEM-768")`, `("cipher", "AES-128-CBC")`); see engine::vectors.
    pub fn protocol_name(&self) -> (&'static str, String) {
        match *self {
            Algorithm::Digest { name } => ("digest", name.into()),
            Algorithm::Xof { name, .. } => ("xof", name.into()),
            Algorithm::Hmac { digest } => ("hmac", digest.into()),
            Algorithm::Cmac { cipher } => ("cmac", cipher.into()),
            Algorithm::Gmac { cipher } => ("gmac", cipher.into()),
            Algorithm::Cipher { name, .. } => ("cipher", name.into()),
            Algorithm::Aead { name, .. } => ("aead", name.into()),
            Algorithm::Rsa { .. } => ("rsa", String::new()),
            Algorithm::Dsa { .. } => ("dsa", String::new()),
            Algorithm::Ecdsa { curve } => ("ecdsa", curve.name().into()),
            Algorithm::Ecdh { curve } => ("ecdh", curve.name().into()),
            Algorithm::Eddsa { curve } => ("eddsa", curve.name().into()),
            Algorithm::Ffdh { group, .. } => ("ffdh", group.into()),
            Algorithm::MlKem { level } => ("ml-kem", format!("ML-KEM-{level}")),
            Algorithm::MlDsa { level } => ("ml-dsa", format!("ML-DSA-{level}")),
            Algorithm::SlhDsa { name } => ("slh-dsa", name.into()),
            Algorithm::HybridKem { name } => ("hybrid-kem", name.into()),
            Algorithm::Tls13Handshake { group, cert } => {
                ("tls13-handshake", format!("{group}/{cert}"))
            }
        }
    }

    /// Whether one call's time varies from call to call by the algorithm's own design rather
    /// than the host's: ML-DSA signing runs its rejection loop a random number of times (5.1 on
    /// average at ML-DSA-65, FIPS 204 Table 1; one call's time has a coefficient of variation
    /// near 0.9), and so does a handshake whose server signs with an ML-DSA certificate. Such a
    /// cell's bouts scatter by the code's own skewed spread, so its figure is the mean time per
    /// call of its bouts, not their trimmed log mean, which reads it fast
    /// (`cryptospeed_stats::Center`).
    pub fn time_varies_per_call(&self, op: Op) -> bool {
        match *self {
            Algorithm::MlDsa { .. } => op == Op::Sign,
            Algorithm::Tls13Handshake { cert, .. } => {
                cert.starts_with("ML-DSA") && matches!(op, Op::Handshake | Op::HandshakeServer)
            }
            _ => false,
        }
    }

    /// Length of the seed a seeded family's key pair is made from (ML-KEM's d ‖ z, ML-DSA's ξ,
    /// SLH-DSA's SK.seed ‖ SK.prf ‖ PK.seed, the hybrid's d ‖ z ‖ X25519 key); `None` for the
    /// other families.
    pub fn key_seed_len(&self) -> Option<usize> {
        match *self {
            Algorithm::MlKem { .. } => Some(64),
            Algorithm::MlDsa { .. } => Some(32),
            // Three n-byte values; n = 16, 24, 32 at the 128-, 192- and 256-bit sets.
            Algorithm::SlhDsa { name } => ["-128", "-192", "-256"]
                .iter()
                .position(|level| name.contains(level))
                .map(|i| 3 * (16 + 8 * i)),
            Algorithm::HybridKem { .. } => Some(96),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::time_varies_per_call;
    use cryptospeed_model::Op;

    #[test]
    fn only_calls_with_a_rejection_loop_vary_per_call() {
        assert!(time_varies_per_call("ml-dsa-65", Op::Sign));
        assert!(time_varies_per_call("ml-dsa-44", Op::Sign));
        for op in [Op::Keygen, Op::Verify, Op::VerifyParse] {
            assert!(!time_varies_per_call("ml-dsa-65", op), "{op}");
        }
        assert!(!time_varies_per_call("slh-dsa-sha2-128f", Op::Sign));
        assert!(!time_varies_per_call("ecdsa-p256", Op::Sign));
        assert!(time_varies_per_call(
            "tls13-x25519-mldsa65",
            Op::HandshakeServer
        ));
        assert!(time_varies_per_call("tls13-x25519-mldsa65", Op::Handshake));
        assert!(!time_varies_per_call(
            "tls13-x25519-mldsa65",
            Op::HandshakeClient
        ));
        assert!(!time_varies_per_call(
            "tls13-x25519-ecdsa-p256",
            Op::Handshake
        ));
        assert!(!time_varies_per_call("no-such-primitive", Op::Sign));
    }
}
