//! The catalog as data, for workers written in other languages: each primitive's parameters, its
//! known-answer vectors, its agreement inputs and its shipped key, in the `vectors` request of the
//! worker protocol. It exists so that the known answers have one source, the Rust catalog: a
//! worker that asks for them in its `hello` reply (the Go worker) runs the same vectors as the
//! in-process implementations instead of carrying a copy that could drift.

use cryptospeed_catalog::agreement::{pem_to_der, private_key_pem, signature_digest};
use cryptospeed_catalog::{Algorithm, Kat, Primitive};
use serde::{Deserialize, Serialize};

/// One primitive as a foreign worker needs it. Byte strings are lowercase hex; fields a family
/// does not use are empty or zero.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimitiveVectors {
    pub id: String,
    /// `digest`, `xof`, `hmac`, `cmac`, `gmac`, `cipher`, `aead`, `rsa`, `dsa`, `ecdsa`, `ecdh`,
    /// `eddsa` or `ffdh`.
    pub family: String,
    /// The algorithm's common name (digest, cipher or group name), or the curve's.
    pub name: String,
    pub key_len: usize,
    /// IV length (ciphers) or nonce length (AEADs).
    pub iv_len: usize,
    pub tag_len: usize,
    /// Output bytes of an XOF as timed.
    pub out_len: usize,
    /// Key size of RSA, DSA and FFDH.
    pub bits: u32,
    /// The hash a hash-and-sign scheme signs with in the agreement check (`SHA256` …).
    pub signature_digest: String,
    /// `same-bytes`, `cross-verify`, or empty when there is no agreement check.
    pub agreement: String,
    /// The agreement inputs' keys (see `cryptospeed_catalog::agreement`): the MAC key's length,
    /// GMAC's IV, the EdDSA seed and the ECDH key pair are also the timing keys, as in the
    /// in-process implementations. `msg` and `aad` are left empty (each `agree` request carries
    /// its own inputs), and so is RSA's `key` (it is `private_key`).
    pub case: Option<CaseVectors>,
    /// The shipped PKCS#8 private key (DER, hex) of RSA and DSA: the timing key.
    pub private_key: String,
    pub kats: Vec<KatVector>,
}

/// `AgreementCase` in hex.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseVectors {
    pub key: String,
    pub iv: String,
    pub msg: String,
    pub aad: String,
    pub peer: String,
}

/// One known-answer test: `kind` is the catalog's `Kat` variant in kebab case (`digest`, `mac`,
/// `cipher`, `aead`, `signature-verify`, `eddsa-sign`, `agreement`, `cross-check`); the fields
/// are those of that variant, hex without whitespace, and `source` says where it comes from (for
/// `cross-check`, what is compared).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KatVector {
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub iv: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub msg: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub aad: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub out: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub public: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
    pub source: String,
}

fn clean(hex_text: &str) -> String {
    hex_text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The wire form of one known answer: one function per family of known answers, each a table of
/// which field carries what.
fn kat_vector(kat: &Kat) -> KatVector {
    let v = KatVector {
        source: kat.source().to_string(),
        ..Default::default()
    };
    match kat {
        Kat::Digest { .. }
        | Kat::Mac { .. }
        | Kat::Cipher { .. }
        | Kat::Aead { .. }
        | Kat::OcbIterated { .. } => symmetric_vector(kat, v),
        Kat::SignatureVerify { .. }
        | Kat::EddsaSign { .. }
        | Kat::Agreement { .. }
        | Kat::CrossCheck { .. } => public_key_vector(kat, v),
        Kat::KemKeygen { .. }
        | Kat::KemEncaps { .. }
        | Kat::KemDecaps { .. }
        | Kat::SigKeygen { .. }
        | Kat::SigInternal { .. }
        | Kat::SigVerifyInternal { .. } => post_quantum_vector(kat, v),
    }
}

/// A digest, MAC, cipher or AEAD known answer; `v` unchanged for any other kind.
fn symmetric_vector(kat: &Kat, v: KatVector) -> KatVector {
    match *kat {
        Kat::Digest { msg, out, .. } => KatVector {
            kind: "digest".into(),
            msg: clean(msg),
            out: clean(out),
            ..v
        },
        Kat::Mac {
            key, iv, msg, out, ..
        } => KatVector {
            kind: "mac".into(),
            key: clean(key),
            iv: clean(iv),
            msg: clean(msg),
            out: clean(out),
            ..v
        },
        Kat::Cipher {
            key, iv, pt, ct, ..
        } => KatVector {
            kind: "cipher".into(),
            key: clean(key),
            iv: clean(iv),
            msg: clean(pt),
            out: clean(ct),
            ..v
        },
        Kat::Aead {
            key,
            nonce,
            aad,
            pt,
            ct,
            tag,
            ..
        } => KatVector {
            kind: "aead".into(),
            key: clean(key),
            iv: clean(nonce),
            aad: clean(aad),
            msg: clean(pt),
            out: clean(ct),
            tag: clean(tag),
            ..v
        },
        Kat::OcbIterated { out, .. } => KatVector {
            kind: "ocb-iterated".into(),
            out: clean(out),
            ..v
        },
        _ => v,
    }
}

/// A classic public-key known answer (signature, EdDSA, agreement); `v` unchanged for any other kind.
fn public_key_vector(kat: &Kat, v: KatVector) -> KatVector {
    match *kat {
        Kat::SignatureVerify {
            spki,
            digest,
            msg,
            sig,
            ..
        } => KatVector {
            kind: "signature-verify".into(),
            public: clean(spki),
            digest: digest.unwrap_or("").to_string(),
            msg: clean(msg),
            out: clean(sig),
            ..v
        },
        Kat::EddsaSign {
            private,
            public,
            msg,
            sig,
            ..
        } => KatVector {
            kind: "eddsa-sign".into(),
            key: clean(private),
            public: clean(public),
            msg: clean(msg),
            out: clean(sig),
            ..v
        },
        Kat::Agreement {
            private,
            peer_public,
            shared,
            ..
        } => KatVector {
            kind: "agreement".into(),
            key: clean(private),
            public: clean(peer_public),
            out: clean(shared),
            ..v
        },
        Kat::CrossCheck { .. } => KatVector {
            kind: "cross-check".into(),
            ..v
        },
        _ => v,
    }
}

/// A KEM or post-quantum signature known answer; `v` unchanged for any other kind.
fn post_quantum_vector(kat: &Kat, v: KatVector) -> KatVector {
    match *kat {
        Kat::KemKeygen { d, z, ek, .. } => KatVector {
            kind: "kem-keygen".into(),
            key: clean(d) + &clean(z),
            public: clean(ek),
            ..v
        },
        Kat::KemEncaps { ek, m, c, k, .. } => KatVector {
            kind: "kem-encaps".into(),
            public: clean(ek),
            msg: clean(m),
            out: clean(c),
            tag: clean(k),
            ..v
        },
        Kat::KemDecaps { dk, c, k, .. } => KatVector {
            kind: "kem-decaps".into(),
            key: clean(dk),
            msg: clean(c),
            out: clean(k),
            ..v
        },
        Kat::SigKeygen { seed, public, .. } => KatVector {
            kind: "sig-keygen".into(),
            key: clean(seed),
            public: clean(public),
            ..v
        },
        Kat::SigInternal {
            private, msg, sig, ..
        } => KatVector {
            kind: "sig-internal".into(),
            key: clean(private),
            msg: clean(msg),
            out: clean(sig),
            ..v
        },
        Kat::SigVerifyInternal {
            public,
            msg,
            sig,
            bad_public,
            bad_msg,
            bad_sig,
            ..
        } => KatVector {
            kind: "sig-verify-internal".into(),
            public: clean(public),
            key: clean(bad_public),
            msg: clean(msg),
            out: clean(sig),
            aad: clean(bad_msg),
            tag: clean(bad_sig),
            ..v
        },
        _ => v,
    }
}

/// One primitive's vectors. In a [`KatVector`], `msg` holds the plaintext of a cipher or AEAD
/// vector, `out` its ciphertext, the digest, the MAC, the signature or the shared secret, `iv`
/// an AEAD's nonce, `public` a SubjectPublicKeyInfo (`signature-verify`), a raw public key
/// (`eddsa-sign`) or the peer key (`agreement`), and `key` a raw private key or seed. KEM
/// vectors: `kem-keygen` seeds `key` (d ‖ z) → encapsulation key `public`; `kem-encaps` to
/// `public` with message `msg` → ciphertext `out`, shared secret `tag`; `kem-decaps` of `msg`
/// with decapsulation key `key` → shared secret `out`. Signature vectors: `sig-keygen` seed
/// `key` → public key `public`; `sig-internal` signs `msg` (M') with private key `key` →
/// `out`; `sig-verify-internal` accepts `out` over `msg` under `public` and rejects `tag` over
/// `aad` under `key`.
pub fn of(p: &Primitive) -> PrimitiveVectors {
    let mut v = PrimitiveVectors {
        id: p.id.to_string(),
        ..Default::default()
    };
    match p.algorithm {
        Algorithm::Xof { out_len, .. } => v.out_len = out_len,
        Algorithm::Cipher {
            key_len, iv_len, ..
        } => (v.key_len, v.iv_len) = (key_len, iv_len),
        Algorithm::Aead {
            key_len,
            nonce_len,
            tag_len,
            ..
        } => (v.key_len, v.iv_len, v.tag_len) = (key_len, nonce_len, tag_len),
        Algorithm::Rsa { bits } | Algorithm::Dsa { bits } | Algorithm::Ffdh { bits, .. } => {
            v.bits = bits
        }
        _ => {}
    }
    let (family, name) = p.algorithm.protocol_name();
    v.family = family.into();
    v.name = name;
    v.signature_digest = signature_digest(&p.algorithm).unwrap_or("").to_string();
    v.agreement = match p.agreement_kind() {
        Some(cryptospeed_catalog::agreement::AgreementKind::SameBytes) => "same-bytes".into(),
        Some(cryptospeed_catalog::agreement::AgreementKind::CrossVerify) => "cross-verify".into(),
        None => String::new(),
    };
    let rsa = matches!(p.algorithm, Algorithm::Rsa { .. });
    v.case = p.agreement_case().map(|c| CaseVectors {
        key: if rsa {
            String::new()
        } else {
            hex::encode(c.key)
        },
        iv: hex::encode(c.iv),
        peer: hex::encode(c.peer),
        ..Default::default()
    });
    v.private_key = private_key_pem(&p.algorithm)
        .map(|pem| hex::encode(pem_to_der(pem)))
        .unwrap_or_default();
    v.kats = p.kats.iter().map(kat_vector).collect();
    v
}

/// Every primitive of the catalog, in catalog order.
pub fn catalog() -> Vec<PrimitiveVectors> {
    cryptospeed_catalog::all().iter().map(of).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_primitive_is_described_with_its_vectors() {
        let all = catalog();
        assert_eq!(all.len(), cryptospeed_catalog::all().len());
        let sha256 = all.iter().find(|p| p.id == "sha256").unwrap();
        assert_eq!(sha256.family, "digest");
        // FIPS 180-2's "abc".
        assert!(sha256
            .kats
            .iter()
            .any(|k| k.kind == "digest" && k.msg == "616263"));
        let gcm = all.iter().find(|p| p.id == "aes-128-gcm").unwrap();
        assert_eq!((gcm.key_len, gcm.iv_len, gcm.tag_len), (16, 12, 16));
        assert_eq!(gcm.case.as_ref().unwrap().iv.len(), 24, "the nonce, in hex");
        let rsa = all.iter().find(|p| p.id == "rsa-2048").unwrap();
        assert!(rsa.private_key.starts_with("30"), "a DER SEQUENCE");
        assert_eq!(rsa.kats[0].kind, "cross-check");
        let ecdsa = all.iter().find(|p| p.id == "ecdsa-p384").unwrap();
        assert_eq!(
            (ecdsa.signature_digest.as_str(), ecdsa.agreement.as_str()),
            ("SHA384", "cross-verify")
        );
        // Sent to every Go worker a run starts (a few milliseconds to parse, beside the process
        // start itself); the post-quantum vectors are most of it, SLH-DSA's 7.8 and 17 KB
        // signatures (three per parameter set, in hex) alone about 250 KB.
        let bytes = serde_json::to_string(&all).unwrap().len();
        eprintln!("vectors: {bytes} bytes of JSON");
        assert!(bytes < 640 * 1024, "{bytes}");
        for p in &all {
            for k in &p.kats {
                for field in [&k.key, &k.iv, &k.msg, &k.aad, &k.out, &k.tag, &k.public] {
                    assert!(hex::decode(field).is_ok(), "{}: {field}", p.id);
                }
            }
        }
    }
}
