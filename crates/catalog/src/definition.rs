//! Definitions: what one timed operation of a primitive is, written once for every column (DESIGN.md
//! "definition"). A definition says what exists before the clock starts and in what form (a key
//! object from the library's own keygen, an encoded key), what the timed call includes (parsing,
//! encoding, hashing), the lengths that go in and come out, and where randomness comes from.
//!
//! A column that cannot follow a definition says so as a [`Declared`] deviation next to its code
//! (crates/impls); [`conformance`] reads those declarations. Each entry carries a version: change
//! the text of an entry only by raising its version, so a figure taken under an older definition
//! is never read as one taken under the newer.

pub use crate::definitions::Randomness;
use crate::{Algorithm, Family, Kat, Primitive};
use cryptospeed_model::Op;
use serde::Serialize;

/// What a (primitive, operation) times, independent of any library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Definition {
    /// `kind/operation`, e.g. `ml-kem/encaps+parse`: one definition serves every primitive of a
    /// kind, its lengths filled in per primitive.
    pub id: String,
    pub version: u32,
    /// What exists before the clock starts, and in what form.
    pub prepared: &'static str,
    /// What one timed call does, from its inputs to its outputs.
    pub timed: &'static str,
    /// Byte lengths of what goes in and comes out.
    pub lengths: String,
    pub randomness: Randomness,
    /// Where the randomness comes from, when there is any.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub source: &'static str,
    /// The [`State`]s this definition takes as its norm (version 2's post-quantum entries).
    #[serde(skip_serializing_if = "<[State]>::is_empty")]
    pub norms: &'static [State],
}

/// Where random bytes come from in every column, unless a deviation says otherwise.
pub const RNG: &str = "the library's own generator; where the API takes a generator as an \
    argument, one ChaCha20 generator seeded once before timing (no system call per operation)";

/// How a column's timed call stands against the definition of a (primitive, operation).
/// Serialized as `"conforms"`, `{"deviates": why}` (with `"states"` for [`Conformance::Departs`])
/// or `{"not-offered": why}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conformance {
    /// The column times what the definition says.
    Conforms,
    /// The column times something else, said in one line.
    Deviates(&'static str),
    /// The column times something else, named as [`State`]s the definition's norm excludes
    /// (the post-quantum definitions, version 2), and said in one line.
    Departs(&'static [State], &'static str),
    /// The column does not time this operation (its API has no such call), said in one line.
    NotOffered(&'static str),
}

impl Conformance {
    /// The one-line text of a deviation (plain or named by states); `None` otherwise.
    pub fn deviation(&self) -> Option<&'static str> {
        match *self {
            Conformance::Deviates(why) | Conformance::Departs(_, why) => Some(why),
            _ => None,
        }
    }

    /// The states a deviation names (empty for a plain one, conformance or not offered).
    pub fn states(&self) -> &'static [State] {
        match *self {
            Conformance::Departs(states, _) => states,
            _ => &[],
        }
    }
}

impl Serialize for Conformance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match *self {
            Conformance::Conforms => s.serialize_str("conforms"),
            Conformance::Deviates(why) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("deviates", why)?;
                m.end()
            }
            Conformance::Departs(states, why) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("deviates", why)?;
                m.serialize_entry("states", states)?;
                m.end()
            }
            Conformance::NotOffered(why) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("not-offered", why)?;
                m.end()
            }
        }
    }
}

/// A state of the prepared key, or work in the timed call, that the version-2 post-quantum
/// definitions fix: each definition names the states that are its norm ([`Definition::norms`]),
/// and a column departing from it names the states it times instead
/// ([`Conformance::Departs`]). Two columns can then never declare opposite states of one thing
/// as deviations: the definition holds one side ([`State::opposite`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Â (and the key's other NTT-form values) held in the key object, computed before timing.
    PrecomputedInKey,
    /// Â expanded from ρ (and the key's NTT forms computed) inside every timed call.
    ExpandedPerCall,
    /// The prepared key kept only as its encoding: checked, hashed and unpacked in every call.
    ParsedPerCall,
    /// Keygen also writes the public (encapsulation) key's encoding.
    EncodesPublic,
    /// Keygen also writes the private key's encoding.
    EncodesPrivate,
    /// The private key written or read as the 64-byte seed d ‖ z; read, the pair is re-derived.
    SeedForm,
    /// FIPS 203 7.3's hash check is not made when the decapsulation key is parsed.
    NoHashCheck,
    /// FIPS 203 7.2's modulus check is not made when the encapsulation key is parsed.
    NoModulusCheck,
    /// A library context (OpenSSL 3: and a key type fetched by name) made per key, so per call
    /// of a from-bytes operation: the library's API has no call without one.
    ContextPerKey,
    /// A context or output buffers made per call on a prepared key by the library's API.
    ContextPerCall,
    /// A closure boxed or a vector allocated per call by the column's own composition.
    AllocationPerCall,
}

impl State {
    /// The other side of the same thing, where a definition could pick either as its norm.
    pub fn opposite(self) -> Option<State> {
        match self {
            State::PrecomputedInKey => Some(State::ExpandedPerCall),
            State::ExpandedPerCall => Some(State::PrecomputedInKey),
            _ => None,
        }
    }
}

/// The states version 2 of `kind/op` takes as its norm (what a conforming column does): ML-KEM's
/// key objects hold their precomputations, ML-DSA's sign and verify expand in the call.
pub fn norms(kind: &str, op: Op) -> &'static [State] {
    match (kind, op) {
        ("ml-kem" | "hybrid-kem", Op::Encaps | Op::Decaps) => &[State::PrecomputedInKey],
        // The client's share is the encoded encapsulation key: TLS sends it.
        ("hybrid-kem", Op::Keygen) => &[State::EncodesPublic],
        ("ml-dsa" | "slh-dsa", Op::Sign | Op::Verify) => &[State::ExpandedPerCall],
        _ => &[],
    }
}

/// A deviation an implementation declares: for the primitives of `kinds` (a definition kind such
/// as `ml-kem`, a primitive id, or `*-cbc` for the ids that end so; empty = every primitive) and
/// the operations `ops` (empty = every operation), the column's [`Conformance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    pub kinds: &'static [&'static str],
    pub ops: &'static [Op],
    pub note: Conformance,
}

impl Declared {
    /// True when the declaration speaks of operation `op` of `p`.
    pub fn covers(&self, p: &Primitive, op: Op) -> bool {
        let kind = kind(p);
        let named = |k: &&str| {
            *k == kind || *k == p.id || k.strip_prefix('*').is_some_and(|end| p.id.ends_with(end))
        };
        (self.kinds.is_empty() || self.kinds.iter().any(named))
            && (self.ops.is_empty() || self.ops.contains(&op))
    }
}

/// The column's conformance for `op` of `p`: the first declaration that covers it, else
/// [`Conformance::Conforms`].
pub fn conformance(declared: &[Declared], p: &Primitive, op: Op) -> Conformance {
    declared
        .iter()
        .find(|d| d.covers(p, op))
        .map_or(Conformance::Conforms, |d| d.note)
}

/// Why column `name` does not time `op` of `p`, as its declarations say; `None` when it may.
/// Every worker kind is held to this: the in-process wrapper (crates/impls declared.rs) and the
/// orchestrator's worker client, for the workers that are not cryptospeed (Go, C).
pub fn refusal(name: &str, declared: &[Declared], p: &Primitive, op: Op) -> Option<String> {
    match conformance(declared, p, op) {
        Conformance::NotOffered(why) => Some(format!("{name} does not time {op}: {why}")),
        _ => None,
    }
}

/// The definition kind of a primitive: its protocol kind, XTS apart from the other ciphers.
pub fn kind(p: &Primitive) -> &'static str {
    match p.algorithm {
        Algorithm::Cipher { name, .. } if name.ends_with("XTS") => "xts",
        a => a.protocol_name().0,
    }
}

/// The definition of operation `op` of `p`; `None` when `p` has no such operation.
pub fn definition(p: &Primitive, op: Op) -> Option<Definition> {
    if !p.ops().contains(&op) {
        return None;
    }
    let kind = kind(p);
    let e = crate::definitions::ENTRIES
        .iter()
        .find(|e| e.op == op && e.kinds.contains(&kind))?;
    Some(Definition {
        id: format!("{kind}/{op}"),
        version: e.version,
        prepared: e.prepared,
        timed: e.timed,
        lengths: lengths(p, op),
        randomness: e.randomness,
        source: if e.randomness == Randomness::None {
            ""
        } else {
            RNG
        },
        norms: norms(kind, op),
    })
}

/// ML-KEM's (encapsulation key, expanded decapsulation key, ciphertext) lengths (FIPS 203 table 3).
fn ml_kem_sizes(level: u16) -> (usize, usize, usize) {
    match level {
        512 => (800, 1632, 768),
        768 => (1184, 2400, 1088),
        _ => (1568, 3168, 1568),
    }
}

/// ML-DSA's (public key, private key, signature) lengths (FIPS 204 table 2).
fn ml_dsa_sizes(level: u16) -> (usize, usize, usize) {
    match level {
        44 => (1312, 2560, 2420),
        65 => (1952, 4032, 3309),
        _ => (2592, 4896, 4627),
    }
}

/// SLH-DSA's (n, signature) lengths (FIPS 205 table 2).
fn slh_sizes(name: &str) -> (usize, usize) {
    let table = [
        ("128s", 16, 7856),
        ("128f", 16, 17088),
        ("192s", 24, 16224),
        ("192f", 24, 35664),
        ("256s", 32, 29792),
        ("256f", 32, 49856),
    ];
    let (_, n, sig) = table
        .iter()
        .find(|(set, _, _)| name.ends_with(set))
        .copied()
        .unwrap_or(("", 0, 0));
    (n, sig)
}

fn kem_lengths(ek: usize, dk: usize, ct: usize, ss: usize, seed: usize) -> String {
    format!(
        "seed {seed}; encapsulation key {ek}; decapsulation key {dk}; ciphertext {ct}; secret {ss}"
    )
}

fn sig_lengths(public: usize, private: usize, sig: usize, seed: usize) -> String {
    format!("seed {seed}; public key {public}; private key {private}; message 32, empty context; signature {sig}")
}

/// Bytes of a curve's field element or EdDSA key.
fn curve_len(curve: crate::Curve) -> usize {
    use crate::Curve::*;
    match curve {
        P256 | X25519 | Ed25519 => 32,
        P384 => 48,
        P521 => 66,
        X448 => 56,
        Ed448 => 57,
    }
}

/// The output length of a digest primitive, from its vector.
fn digest_len(p: &Primitive) -> usize {
    p.kats
        .iter()
        .find_map(|k| match k {
            Kat::Digest { out, .. } | Kat::Mac { out, .. } => Some(crate::unhex(out).len()),
            _ => None,
        })
        .unwrap_or(0)
}

/// Byte lengths of what goes in and comes out of `op` of `p`.
fn lengths(p: &Primitive, op: Op) -> String {
    let seed = p.algorithm.key_seed_len().unwrap_or(0);
    match p.algorithm {
        Algorithm::MlKem { level } => {
            let (ek, dk, ct) = ml_kem_sizes(level);
            kem_lengths(ek, dk, ct, 32, seed)
        }
        Algorithm::HybridKem { .. } => kem_lengths(1216, 2432, 1120, 64, seed),
        Algorithm::Tls13Handshake { group, cert } => format!(
            "group {group}; server certificate {cert} ({}), self-signed; no application data",
            crate::tls::signature_scheme(cert)
        ),
        Algorithm::MlDsa { level } => {
            let (pk, sk, sig) = ml_dsa_sizes(level);
            sig_lengths(pk, sk, sig, seed)
        }
        Algorithm::SlhDsa { name } => {
            let (n, sig) = slh_sizes(name);
            sig_lengths(2 * n, 4 * n, sig, seed)
        }
        Algorithm::Rsa { bits } if matches!(op, Op::Sign | Op::Verify) => {
            format!("input 36 (signed as given, PKCS#1 v1.5 type 1); signature {}", bits / 8)
        }
        Algorithm::Rsa { bits } => format!("plaintext 36 (PKCS#1 v1.5 type 2); ciphertext {}", bits / 8),
        Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. } => "digest 20; signature DER".into(),
        Algorithm::Eddsa { curve } => {
            format!("message 20; signature {}", 2 * curve_len(curve))
        }
        Algorithm::Ecdh { curve } => format!("secret {}", curve_len(curve)),
        Algorithm::Ffdh { bits, .. } => format!("secret {}", bits / 8),
        Algorithm::Digest { .. } | Algorithm::Hmac { .. } => {
            format!("message: the cell's size; output {}", digest_len(p))
        }
        Algorithm::Xof { out_len, .. } => format!("message: the cell's size; output {out_len}"),
        Algorithm::Cmac { .. } | Algorithm::Gmac { .. } => "message: the cell's size; tag 16".into(),
        Algorithm::Cipher {
            key_len, iv_len: 0, ..
        } => format!("message: the cell's size, in place; key {key_len}"),
        Algorithm::Cipher {
            key_len, iv_len, ..
        } => format!("message: the cell's size, in place; key {key_len}; IV {iv_len}"),
        Algorithm::Aead {
            key_len,
            nonce_len,
            tag_len,
            ..
        } => format!(
            "message: the cell's size, in place; key {key_len}; nonce {nonce_len}; AAD 13; tag {tag_len}"
        ),
    }
}

/// Every operation of a family, the from-bytes ones after `openssl speed`'s.
pub(crate) fn family_ops(family: Family) -> Option<&'static [Op]> {
    match family {
        Family::Kem => Some(&[
            Op::Keygen,
            Op::Encaps,
            Op::Decaps,
            Op::KeygenEncode,
            Op::EncapsParse,
            Op::DecapsParse,
        ]),
        Family::SeededSignature => Some(&[
            Op::Keygen,
            Op::Sign,
            Op::Verify,
            Op::KeygenEncode,
            Op::VerifyParse,
        ]),
        Family::Handshake => Some(&[
            Op::Handshake,
            Op::HandshakeClient,
            Op::HandshakeServer,
            Op::HandshakeResumed,
        ]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::all;

    #[test]
    fn every_operation_of_every_primitive_has_a_definition() {
        for p in all() {
            for &op in p.ops() {
                let d = definition(p, op).unwrap_or_else(|| panic!("{} {op}: no definition", p.id));
                assert!(d.version >= 1, "{}", d.id);
                assert!(!d.prepared.is_empty() && !d.timed.is_empty(), "{}", d.id);
                assert!(
                    !d.lengths.contains(" 0;") && !d.lengths.ends_with(" 0"),
                    "{}: {}",
                    p.id,
                    d.lengths
                );
            }
            assert!(definition(p, Op::VerifyFreshKey).is_none(), "{}", p.id);
        }
    }

    #[test]
    fn every_table_entry_is_reached_and_no_two_overlap() {
        let mut seen = std::collections::HashSet::new();
        for e in crate::definitions::ENTRIES {
            for k in e.kinds {
                assert!(seen.insert((*k, e.op)), "{k}/{} twice", e.op);
            }
            let used = all()
                .iter()
                .any(|p| e.kinds.contains(&kind(p)) && p.ops().contains(&e.op));
            assert!(used, "{:?}/{} serves no primitive", e.kinds, e.op);
        }
    }

    #[test]
    fn from_bytes_operations_are_offered_and_serialize_as_they_print() {
        let kem = crate::lookup("ml-kem-768").unwrap();
        assert!(kem.ops().contains(&Op::EncapsParse));
        assert!(!kem.default_ops().contains(&Op::EncapsParse));
        let d = definition(kem, Op::DecapsParse).unwrap();
        assert_eq!(d.id, "ml-kem/decaps+parse");
        assert!(
            d.lengths.contains("decapsulation key 2400"),
            "{}",
            d.lengths
        );
        for op in [
            Op::KeygenEncode,
            Op::EncapsParse,
            Op::DecapsParse,
            Op::VerifyParse,
        ] {
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.as_str()));
            assert_eq!(serde_json::from_str::<Op>(&json).unwrap(), op);
        }
    }

    /// Version 2 of the post-quantum definitions states the key's state: each names its norm
    /// where a column could hold either side, and a departure serializes with its states.
    #[test]
    fn post_quantum_definitions_state_the_key_and_its_checks() {
        let at = |id, op| definition(crate::lookup(id).unwrap(), op).unwrap();
        for id in [
            "ml-kem-768",
            "x25519-mlkem768",
            "ml-dsa-65",
            "slh-dsa-sha2-128s",
        ] {
            let p = crate::lookup(id).unwrap();
            for &op in p.ops() {
                assert_eq!(at(id, op).version, 2, "{id} {op}");
            }
        }
        assert_eq!(
            at("ml-kem-768", Op::Encaps).norms,
            [State::PrecomputedInKey]
        );
        assert_eq!(
            at("x25519-mlkem768", Op::Decaps).norms,
            [State::PrecomputedInKey]
        );
        assert_eq!(at("ml-dsa-65", Op::Sign).norms, [State::ExpandedPerCall]);
        assert!(at("ml-kem-768", Op::EncapsParse).timed.contains("7.2"));
        assert!(at("ml-kem-768", Op::DecapsParse).timed.contains("7.3"));
        assert!(at("x25519-mlkem768", Op::DecapsParse).timed.contains("7.3"));
        assert!(at("ml-kem-768", Op::KeygenEncode)
            .timed
            .contains("not the 64-byte seed"));
        assert_eq!(at("sha256", Op::Hash).version, 1);
        let json = serde_json::to_value(Conformance::Departs(&[State::SeedForm], "seed")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"deviates": "seed", "states": ["seed-form"]})
        );
        let json = serde_json::to_value(Conformance::Deviates("x")).unwrap();
        assert_eq!(json, serde_json::json!({"deviates": "x"}));
        assert_eq!(
            serde_json::to_value(Conformance::Conforms).unwrap(),
            "conforms"
        );
        let d = serde_json::to_value(at("ml-dsa-65", Op::Verify)).unwrap();
        assert_eq!(d["norms"], serde_json::json!(["expanded-per-call"]));
    }

    #[test]
    fn the_first_covering_declaration_wins() {
        let kem = crate::lookup("ml-kem-768").unwrap();
        let declared = [
            Declared {
                kinds: &["ml-kem-768"],
                ops: &[Op::Decaps],
                note: Conformance::Deviates("from the seed"),
            },
            Declared {
                kinds: &["ml-kem"],
                ops: &[],
                note: Conformance::NotOffered("no"),
            },
        ];
        assert_eq!(
            conformance(&declared, kem, Op::Decaps),
            Conformance::Deviates("from the seed")
        );
        assert_eq!(
            conformance(&declared, kem, Op::Encaps),
            Conformance::NotOffered("no")
        );
        let dsa = crate::lookup("ml-dsa-65").unwrap();
        assert_eq!(conformance(&declared, dsa, Op::Sign), Conformance::Conforms);
    }
}
