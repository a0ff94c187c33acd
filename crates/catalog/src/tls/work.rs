//! What a TLS 1.3 full handshake computes, as data: per key exchange group and server
//! certificate, which catalog primitives each side runs and how many times, and how many bytes
//! each group's key shares put on the wire. A handshake figure is explained by summing those
//! primitives' figures from the same run (crates/impls `tls::explain`); what is left over is the
//! record layer, parsing and the library's state machine.
//!
//! The counts follow RFC 8446 (no PSK, no client certificate, one-link chain: the client checks
//! the leaf's signature by the root and the CertificateVerify signature) and
//! draft-ietf-tls-ecdhe-mlkem (the hybrid shares). Where the catalog has no cell for a step, the
//! nearest one stands in and [`Work::note`] says so.

use cryptospeed_model::Op;

/// One kind of primitive operation a side runs during a handshake, `count` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    pub primitive: &'static str,
    pub op: Op,
    /// Message size of a symmetric cell (`hmac-sha256@64`), `None` for a public-key one.
    pub bytes: Option<u32>,
    pub count: u32,
    /// Where the cell is a stand-in for what the handshake runs.
    pub note: &'static str,
}

const fn work(primitive: &'static str, op: Op, count: u32) -> Work {
    Work {
        primitive,
        op,
        bytes: None,
        count,
        note: "",
    }
}

/// An X25519 key pair made per handshake: no keygen cell, so a derive stands in (a fixed-base
/// multiplication, which libraries make faster than a derive: an upper bound).
const X25519_KEYGEN: Work = Work {
    note: "key generation counted as a derive (fixed-base: an upper bound)",
    ..work("x25519", Op::Derive, 1)
};
const X25519_DERIVE: Work = work("x25519", Op::Derive, 1);
const P256_KEYGEN: Work = Work {
    note: "key generation counted as a derive (fixed-base: an upper bound)",
    ..work("ecdh-p256", Op::Derive, 1)
};
const P256_DERIVE: Work = work("ecdh-p256", Op::Derive, 1);
/// The client's ML-KEM key pair, encoded into its share.
const MLKEM_KEYGEN: Work = work("ml-kem-768", Op::KeygenEncode, 1);
/// The server encapsulates to the client's share, parsed (and checked) from bytes.
const MLKEM_ENCAPS: Work = work("ml-kem-768", Op::EncapsParse, 1);
/// The client decapsulates the server's ciphertext with the key it kept.
const MLKEM_DECAPS: Work = work("ml-kem-768", Op::Decaps, 1);

/// The key schedule per side with SHA-256 (RFC 8446 7.1, 7.3, 4.4.4): 3 HKDF-Extract, 7
/// Derive-Secret (2 "derived", 4 traffic secrets, the exporter), 8 traffic key/iv expansions,
/// 2 finished keys, 2 Finished MACs: 22 HMAC-SHA256 of at most 64-byte inputs. Each HMAC there
/// also sets up a new key (two more compression calls than the cell's, whose key is set once).
pub const KEY_SCHEDULE: Work = Work {
    bytes: Some(64),
    note: "HKDF re-keys each HMAC; the cell's key is set once",
    ..work("hmac-sha256", Op::Mac, 22)
};

/// The transcript hash per side: every handshake message hashed once (SHA-256); counted in
/// whole 1 KiB blocks of the bytes on the wire, at least one.
pub fn transcript(wire_bytes: u64) -> Work {
    Work {
        bytes: Some(1024),
        count: wire_bytes.div_ceil(1024).max(1) as u32,
        note: "transcript hashed in 1 KiB pieces",
        ..work("sha256", Op::Hash, 0)
    }
}

/// Which side of a handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Client,
    Server,
}

/// The key exchange's work on one side, by IANA group name; `None` for an unknown group.
pub fn key_exchange(group: &str, end: End) -> Option<Vec<Work>> {
    use End::*;
    Some(match (group, end) {
        ("X25519", _) => vec![X25519_KEYGEN, X25519_DERIVE],
        ("X25519MLKEM768", Client) => {
            vec![MLKEM_KEYGEN, MLKEM_DECAPS, X25519_KEYGEN, X25519_DERIVE]
        }
        ("X25519MLKEM768", Server) => vec![MLKEM_ENCAPS, X25519_KEYGEN, X25519_DERIVE],
        ("SecP256r1MLKEM768", Client) => vec![MLKEM_KEYGEN, MLKEM_DECAPS, P256_KEYGEN, P256_DERIVE],
        ("SecP256r1MLKEM768", Server) => vec![MLKEM_ENCAPS, P256_KEYGEN, P256_DERIVE],
        ("MLKEM768", Client) => vec![MLKEM_KEYGEN, MLKEM_DECAPS],
        ("MLKEM768", Server) => vec![MLKEM_ENCAPS],
        _ => return None,
    })
}

/// The certificate's work on one side: the server signs its CertificateVerify once; the client
/// verifies the leaf's signature by the root and the CertificateVerify signature.
pub fn authentication(cert: &str, end: End) -> Option<Vec<Work>> {
    let primitive = match cert {
        "ECDSA-P256" => "ecdsa-p256",
        "Ed25519" => "ed25519",
        "RSA-2048" => "rsa-2048",
        "ML-DSA-65" => "ml-dsa-65",
        _ => return None,
    };
    let note = match cert {
        "RSA-2048" => "the cell's padding may differ from RSA-PSS",
        _ => "",
    };
    Some(vec![match end {
        End::Server => Work {
            note,
            ..work(primitive, Op::Sign, 1)
        },
        End::Client => Work {
            note,
            ..work(primitive, Op::Verify, 2)
        },
    }])
}

/// Everything one side of a `(group, cert)` handshake computes, `wire_bytes` being the bytes of
/// the handshake messages both ends sent (for the transcript hash).
pub fn side(group: &str, cert: &str, end: End, wire_bytes: u64) -> Option<Vec<Work>> {
    let mut all = key_exchange(group, end)?;
    all.extend(authentication(cert, end)?);
    all.push(KEY_SCHEDULE);
    all.push(transcript(wire_bytes));
    Some(all)
}

/// The bytes of a group's key shares on the wire (client's, server's): RFC 8446 / RFC 7748 for
/// X25519 (32, 32), SEC 1 uncompressed points for P-256 (65), FIPS 203 for ML-KEM-768
/// (encapsulation key 1184, ciphertext 1088), concatenated in the hybrids
/// (draft-ietf-tls-ecdhe-mlkem: X25519MLKEM768 1216 and 1120).
pub fn key_share_bytes(group: &str) -> Option<(u32, u32)> {
    Some(match group {
        "X25519" => (32, 32),
        "X25519MLKEM768" => (1184 + 32, 1088 + 32),
        "SecP256r1MLKEM768" => (65 + 1184, 65 + 1088),
        "MLKEM768" => (1184, 1088),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lookup, Algorithm};

    /// Every handshake primitive has work on both sides, and every cell named is a catalog
    /// primitive that offers the operation named.
    #[test]
    fn every_handshake_names_catalog_cells() {
        for p in super::super::PRIMITIVES {
            let Algorithm::Tls13Handshake { group, cert } = p.algorithm else {
                panic!("{}", p.id)
            };
            for end in [End::Client, End::Server] {
                for w in side(group, cert, end, 2000).unwrap_or_else(|| panic!("{}", p.id)) {
                    let q = lookup(w.primitive).unwrap_or_else(|| panic!("{}", w.primitive));
                    assert!(q.ops().contains(&w.op), "{} {}", w.primitive, w.op);
                }
            }
            key_share_bytes(group).unwrap();
        }
    }

    #[test]
    fn the_hybrid_shares_are_the_drafts_sizes() {
        assert_eq!(key_share_bytes("X25519MLKEM768"), Some((1216, 1120)));
        assert_eq!(transcript(2049).count, 3);
    }
}
