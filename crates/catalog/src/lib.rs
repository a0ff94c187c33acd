//! The primitive registry: every algorithm cryptospeed knows, how `openssl speed` names and prints
//! it, which operations it has, and the published known-answer vector each implementation must
//! reproduce before a cell of it is timed.
//!
//! Adding a primitive is one entry in one of the family files (`digests.rs`, `ciphers.rs`,
//! `modes.rs`, `macs.rs`, `pkey.rs`, `kem.rs`, `dsa.rs`, `slh.rs`, `hybrid.rs`); what each of its
//! operations times is one entry per kind in `definitions.rs`. Implementations interpret
//! [`Algorithm`] generically. A new algorithm is a variant of [`Algorithm`] with its arms in
//! `family.rs`; code outside the catalog matches on its [`Family`]. Primitives known by name only
//! (legacy curves no implementation here measures) are one line in `named.rs`; [`resolve`] finds
//! either kind.

pub mod agreement;
mod ciphers;
pub mod definition;
mod definitions;
mod digests;
mod dsa;
mod dsa_vectors;
mod family;
pub mod hybrid;
mod hybrid_vectors;
mod kem;
mod kem_vectors;
mod macs;
mod modes;
pub mod named;
mod pkey;
pub mod plan;
mod slh;
mod slh_vectors;
pub mod tls;

pub use modes::{ocb_iterated, ocb_iterated_key};

use cryptospeed_model::Op;
pub use family::Family;
use std::sync::OnceLock;

/// An elliptic curve, by the group it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    P256,
    P384,
    P521,
    X25519,
    X448,
    Ed25519,
    Ed448,
}

impl Curve {
    /// The name OpenSSL and most libraries use for the group.
    pub fn name(self) -> &'static str {
        match self {
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
            Curve::X25519 => "X25519",
            Curve::X448 => "X448",
            Curve::Ed25519 => "ED25519",
            Curve::Ed448 => "ED448",
        }
    }
}

/// Parameters of an algorithm, independent of any library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// A hash; `name` is the common (OpenSSL) name.
    Digest {
        name: &'static str,
    },
    /// An extendable-output function timed with `out_len` bytes of output.
    Xof {
        name: &'static str,
        out_len: usize,
    },
    Hmac {
        digest: &'static str,
    },
    Cmac {
        cipher: &'static str,
    },
    /// GHASH as GMAC over the message (what `openssl speed ghash` times).
    Gmac {
        cipher: &'static str,
    },
    /// A non-AEAD cipher mode with a key and an IV.
    Cipher {
        name: &'static str,
        key_len: usize,
        iv_len: usize,
    },
    /// An AEAD, timed as `openssl speed -aead`: per message set nonce, 13 B AAD, encrypt, tag.
    Aead {
        name: &'static str,
        key_len: usize,
        nonce_len: usize,
        tag_len: usize,
    },
    Rsa {
        bits: u32,
    },
    Dsa {
        bits: u32,
    },
    Ecdsa {
        curve: Curve,
    },
    /// Key agreement on an elliptic curve (NIST curves or X25519/X448).
    Ecdh {
        curve: Curve,
    },
    Eddsa {
        curve: Curve,
    },
    Ffdh {
        group: &'static str,
        bits: u32,
    },
    /// ML-KEM (FIPS 203) at parameter set `level`: 512, 768 or 1024.
    MlKem {
        level: u16,
    },
    /// ML-DSA (FIPS 204) at parameter set `level`: 44, 65 or 87.
    MlDsa {
        level: u16,
    },
    /// SLH-DSA (FIPS 205); `name` is the parameter set as FIPS 205 and OpenSSL spell it
    /// (`SLH-DSA-SHA2-128s`).
    SlhDsa {
        name: &'static str,
    },
    /// A hybrid KEM of TLS 1.3 (hybrid.rs); `name` as OpenSSL and the IANA registry spell it
    /// (`X25519MLKEM768`).
    HybridKem {
        name: &'static str,
    },
    /// A TLS 1.3 handshake (tls.rs): `group` the key exchange group as IANA spells it
    /// (`X25519MLKEM768`), `cert` the server certificate's key (`ECDSA-P256`).
    Tls13Handshake {
        group: &'static str,
        cert: &'static str,
    },
}

/// How `openssl speed` (3.0 numbering) labels and numbers a primitive, for the openssl and -mr
/// output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeedRow {
    /// A row of the symmetric table: `+F:index:name`. Primitives `openssl speed` only reaches
    /// through `-evp` use index 25 (D_EVP), as `openssl speed -evp NAME -mr` prints them.
    Symmetric {
        index: u32,
        name: &'static str,
    },
    Rsa {
        index: u32,
        bits: u32,
    },
    Dsa {
        index: u32,
        bits: u32,
    },
    Ecdsa {
        index: u32,
        bits: u32,
        name: &'static str,
    },
    Ecdh {
        index: u32,
        bits: u32,
        name: &'static str,
    },
    Eddsa {
        index: u32,
        bits: u32,
        name: &'static str,
    },
    Ffdh {
        index: u32,
        bits: u32,
    },
    /// A row of `openssl speed` 3.5's KEM table (keygen, encaps, decaps), by its printed name.
    Kem {
        name: &'static str,
    },
    /// A row of `openssl speed` 3.5's signature table (keygen, sign, verify).
    Signature {
        name: &'static str,
    },
    /// Not a row of `openssl speed` (a TLS handshake).
    Handshake,
}

/// A published known-answer vector (all byte strings hex), or a check against an independent
/// implementation for primitives whose signatures are randomised or keys too large to publish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kat {
    Digest {
        msg: &'static str,
        out: &'static str,
        source: &'static str,
    },
    Mac {
        key: &'static str,
        iv: &'static str,
        msg: &'static str,
        out: &'static str,
        source: &'static str,
    },
    Cipher {
        key: &'static str,
        iv: &'static str,
        pt: &'static str,
        ct: &'static str,
        source: &'static str,
    },
    Aead {
        key: &'static str,
        nonce: &'static str,
        aad: &'static str,
        pt: &'static str,
        ct: &'static str,
        tag: &'static str,
        source: &'static str,
    },
    /// RFC 7253 appendix A's iterated OCB test ([`ocb_iterated`]): the key length comes from
    /// the algorithm, the tag length from `out`, the final tag.
    OcbIterated {
        out: &'static str,
        source: &'static str,
    },
    /// Verify a published signature: `spki` is a DER SubjectPublicKeyInfo, `digest` the hash the
    /// signature is over, or `None` for EdDSA (the message is signed directly).
    SignatureVerify {
        spki: &'static str,
        digest: Option<&'static str>,
        msg: &'static str,
        sig: &'static str,
        source: &'static str,
    },
    /// Deterministic signature: sign `msg` with the raw private key and compare bytes (EdDSA).
    EddsaSign {
        private: &'static str,
        public: &'static str,
        msg: &'static str,
        sig: &'static str,
        source: &'static str,
    },
    /// Key agreement with a raw private key and a raw (X25519/X448) or SEC1 (NIST) peer key.
    Agreement {
        private: &'static str,
        peer_public: &'static str,
        shared: &'static str,
        source: &'static str,
    },
    /// KEM key generation from seeds (ML-KEM: `d`, `z`): the encapsulation key must be `ek`.
    KemKeygen {
        d: &'static str,
        z: &'static str,
        ek: &'static str,
        source: &'static str,
    },
    /// Derandomised encapsulation to `ek` with message `m`: ciphertext `c`, shared secret `k`.
    KemEncaps {
        ek: &'static str,
        m: &'static str,
        c: &'static str,
        k: &'static str,
        source: &'static str,
    },
    /// Decapsulation of `c` with the (expanded) decapsulation key `dk`: shared secret `k`.
    KemDecaps {
        dk: &'static str,
        c: &'static str,
        k: &'static str,
        source: &'static str,
    },
    /// Signature key generation from a seed (ML-DSA: ξ): the public key must be `public`.
    SigKeygen {
        seed: &'static str,
        public: &'static str,
        source: &'static str,
    },
    /// Deterministic signing of `msg` through the internal interface (ML-DSA: M', rnd = 0)
    /// with the encoded private key: the signature must be `sig`.
    SigInternal {
        private: &'static str,
        msg: &'static str,
        sig: &'static str,
        source: &'static str,
    },
    /// Verification through the internal interface: `sig` over `msg` must verify under
    /// `public`, and `bad_sig` over `bad_msg` (a case the vectors reject) must not under
    /// `bad_public` (the same key for ML-DSA; SLH-DSA's vectors give each case its own).
    SigVerifyInternal {
        public: &'static str,
        msg: &'static str,
        sig: &'static str,
        bad_public: &'static str,
        bad_msg: &'static str,
        bad_sig: &'static str,
        source: &'static str,
    },
    /// No fixed vector: the implementation checks its output against an independent one
    /// (e.g. RSA PKCS#1 v1.5 signatures verified by another library, FFDH against modular
    /// exponentiation). `how` says what is compared.
    CrossCheck { how: &'static str },
}

impl Kat {
    pub fn source(&self) -> &'static str {
        match self {
            Kat::Digest { source, .. }
            | Kat::Mac { source, .. }
            | Kat::Cipher { source, .. }
            | Kat::Aead { source, .. }
            | Kat::OcbIterated { source, .. }
            | Kat::SignatureVerify { source, .. }
            | Kat::EddsaSign { source, .. }
            | Kat::Agreement { source, .. }
            | Kat::KemKeygen { source, .. }
            | Kat::KemEncaps { source, .. }
            | Kat::KemDecaps { source, .. }
            | Kat::SigKeygen { source, .. }
            | Kat::SigInternal { source, .. }
            | Kat::SigVerifyInternal { source, .. } => source,
            Kat::CrossCheck { how } => how,
        }
    }
}

/// One primitive of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Primitive {
    /// Canonical id: lowercase with dashes.
    pub id: &'static str,
    /// Other spellings, `openssl speed`'s among them.
    pub aliases: &'static [&'static str],
    pub algorithm: Algorithm,
    pub speed: SpeedRow,
    /// Known-answer tests: every one must pass before the primitive is timed.
    pub kats: &'static [Kat],
    /// Groups the primitive belongs to for selection (`rsa`, `aes`, `legacy` …).
    pub groups: &'static [&'static str],
}

impl Primitive {
    /// True for primitives whose cells have a message size.
    pub fn has_bytes(&self) -> bool {
        self.family().has_bytes()
    }

    /// The primitive's family (its algorithm's).
    pub fn family(&self) -> Family {
        self.algorithm.family()
    }

    /// Operations timed by default, in `openssl speed`'s order.
    pub fn default_ops(&self) -> &'static [Op] {
        self.family().default_ops()
    }

    /// Every operation the primitive supports: `openssl speed`'s, then the from-bytes ones
    /// (`encaps+parse` …) of the post-quantum families.
    pub fn ops(&self) -> &'static [Op] {
        if let Some(ops) = definition::family_ops(self.family()) {
            return ops;
        }
        match self.algorithm {
            Algorithm::Cipher { .. } | Algorithm::Aead { .. } => &[Op::Encrypt, Op::Decrypt],
            Algorithm::Rsa { .. } => &[Op::Sign, Op::Verify, Op::Encrypt, Op::Decrypt],
            _ => self.default_ops(),
        }
    }

    /// What operation `op` times, the same for every column ([`definition`]).
    pub fn definition(&self, op: Op) -> Option<definition::Definition> {
        definition::definition(self, op)
    }

    pub fn in_group(&self, group: &str) -> bool {
        self.groups.contains(&group)
    }
}

/// Every primitive, in `openssl speed`'s print order.
pub fn all() -> &'static [Primitive] {
    static ALL: OnceLock<Vec<Primitive>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = Vec::new();
        v.extend_from_slice(digests::PRIMITIVES);
        v.extend_from_slice(macs::PRIMITIVES);
        v.extend_from_slice(ciphers::PRIMITIVES);
        v.extend_from_slice(modes::PRIMITIVES);
        v.extend_from_slice(pkey::PRIMITIVES);
        v.extend_from_slice(kem::PRIMITIVES);
        v.extend_from_slice(dsa::PRIMITIVES);
        v.extend_from_slice(slh::PRIMITIVES);
        v.extend_from_slice(hybrid::PRIMITIVES);
        v.extend_from_slice(tls::PRIMITIVES);
        v
    })
}

/// Lowercase letters and digits only, with a trailing "bits" dropped: the form under which
/// `rsa 2048 bits`, `rsa2048` and `rsa-2048`, or `hmac(md5)` and `hmac-md5`, are one name.
fn squash(name: &str) -> String {
    let s: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    s.strip_suffix("bits").map(str::to_string).unwrap_or(s)
}

/// Whether `op` of the primitive named `name` takes a time that varies per call by design
/// ([`Algorithm::time_varies_per_call`]); false for a name the catalog does not know.
pub fn time_varies_per_call(name: &str, op: cryptospeed_model::Op) -> bool {
    lookup(name).is_some_and(|p| p.algorithm.time_varies_per_call(op))
}

/// Finds a primitive by id or alias, in any of `openssl speed`'s spellings: the first primitive
/// of the catalog that has the name, through an index built once (the site and the comparisons
/// look names up for every cell they show).
pub fn lookup(name: &str) -> Option<&'static Primitive> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<String, usize>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = std::collections::HashMap::new();
        for (i, p) in all().iter().enumerate() {
            for name in std::iter::once(&p.id).chain(p.aliases.iter()) {
                index.entry(squash(name)).or_insert(i);
            }
        }
        index
    });
    let key = squash(name);
    if key.is_empty() {
        return None;
    }
    index.get(&key).map(|&i| &all()[i])
}

/// A name resolved against the whole catalog: a timed primitive, or one known by name only.
#[derive(Debug, Clone, Copy)]
pub enum Known {
    Timed(&'static Primitive),
    Named(&'static named::Named),
}

impl Known {
    pub fn id(&self) -> &'static str {
        match self {
            Known::Timed(p) => p.id,
            Known::Named(n) => n.id,
        }
    }

    /// Every operation the primitive has, its default first.
    pub fn ops(&self) -> &'static [Op] {
        match self {
            Known::Timed(p) => p.ops(),
            Known::Named(n) => n.kind.ops(),
        }
    }

    /// The operation a row that names none times (`encrypt` for ciphers, `hash` for digests).
    pub fn default_op(&self) -> Op {
        self.ops()[0]
    }

    pub fn has_bytes(&self) -> bool {
        match self {
            Known::Timed(p) => p.has_bytes(),
            Known::Named(n) => n.kind.has_bytes(),
        }
    }
}

/// Finds a primitive, timed or name-only, by id or alias in any spelling [`lookup`] accepts.
pub fn resolve(name: &str) -> Option<Known> {
    if let Some(p) = lookup(name) {
        return Some(Known::Timed(p));
    }
    let key = squash(name);
    if key.is_empty() {
        return None;
    }
    named::NAMED
        .iter()
        .find(|n| squash(n.id) == key || n.aliases.iter().any(|a| squash(a) == key))
        .map(Known::Named)
}

/// Up to three known names closest to an unknown one, for "did you mean" messages.
pub fn suggest(name: &str) -> Vec<&'static str> {
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(f64, &'static str)> = Vec::new();
    for p in all() {
        let best = std::iter::once(p.id)
            .chain(p.aliases.iter().copied())
            .map(|n| strsim::jaro_winkler(&lower, n))
            .fold(0.0, f64::max);
        scored.push((best, p.id));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .filter(|(s, _)| *s > 0.7)
        .take(3)
        .map(|(_, id)| id)
        .collect()
}

/// Error for a name that is neither a primitive nor a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    pub name: String,
    pub suggestions: Vec<&'static str>,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown algorithm '{}'", self.name)?;
        if !self.suggestions.is_empty() {
            write!(f, "; did you mean {}?", self.suggestions.join(", "))?;
        }
        write!(f, " ('cryptospeed list' shows every name)")
    }
}

impl std::error::Error for UnknownName {}

/// Expands a user's list of names and groups into primitives, in catalog order, without
/// duplicates. `all` selects everything.
pub fn select(names: &[String]) -> Result<Vec<&'static Primitive>, UnknownName> {
    let mut chosen: Vec<&'static str> = Vec::new();
    for raw in names {
        let name = raw.trim();
        if name.is_empty() {
            continue;
        }
        if name.eq_ignore_ascii_case("all") {
            chosen.extend(all().iter().map(|p| p.id));
            continue;
        }
        if let Some(p) = lookup(name) {
            chosen.push(p.id);
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let members: Vec<&'static str> = all()
            .iter()
            .filter(|p| p.in_group(&lower))
            .map(|p| p.id)
            .collect();
        if members.is_empty() {
            return Err(UnknownName {
                name: name.to_string(),
                suggestions: suggest(name),
            });
        }
        chosen.extend(members);
    }
    Ok(all().iter().filter(|p| chosen.contains(&p.id)).collect())
}

/// Decodes a hex vector from the registry (which is tested to hold only valid hex).
pub fn unhex(s: &str) -> Vec<u8> {
    let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(clean).expect("catalog vectors are valid hex")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_canonical() {
        let mut seen = std::collections::HashSet::new();
        for p in all() {
            assert!(seen.insert(squash(p.id)), "duplicate id {}", p.id);
            assert_eq!(p.id, p.id.to_ascii_lowercase());
            assert!(!p.id.contains(' '));
        }
    }

    #[test]
    fn aliases_do_not_collide() {
        let mut owner = std::collections::HashMap::new();
        for p in all() {
            for n in std::iter::once(p.id).chain(p.aliases.iter().copied()) {
                if let Some(prev) = owner.insert(squash(n), p.id) {
                    assert_eq!(prev, p.id, "alias {n} names both {prev} and {}", p.id);
                }
            }
        }
    }

    #[test]
    fn name_only_primitives_do_not_collide_with_timed_ones() {
        let mut owner = std::collections::HashMap::new();
        for p in all() {
            for n in std::iter::once(p.id).chain(p.aliases.iter().copied()) {
                owner.insert(squash(n), p.id);
            }
        }
        for n in named::NAMED {
            assert_eq!(n.id, n.id.to_ascii_lowercase(), "{}", n.id);
            for a in std::iter::once(n.id).chain(n.aliases.iter().copied()) {
                if let Some(prev) = owner.insert(squash(a), n.id) {
                    assert_eq!(prev, n.id, "alias {a} names both {prev} and {}", n.id);
                }
            }
        }
    }

    #[test]
    fn post_quantum_and_legacy_names_resolve_with_their_operations() {
        for (spelling, id, op) in [
            ("mlkem512", "ml-kem-512", Op::Keygen),
            ("ML-KEM-768", "ml-kem-768", Op::Keygen),
            ("mldsa44", "ml-dsa-44", Op::Keygen),
            ("ML-DSA-87", "ml-dsa-87", Op::Keygen),
            ("SLH-DSA-SHA2-128s", "slh-dsa-sha2-128s", Op::Keygen),
            ("SLH-DSA-SHA2-192s", "slh-dsa-sha2-192s", Op::Sign),
            ("X25519MLKEM768", "x25519-mlkem768", Op::Keygen),
            ("AES-128-ECB", "aes-128-ecb", Op::Encrypt),
            ("AES-192-ECB", "aes-192-ecb", Op::Encrypt),
            ("521 bits ecdh (nistp521)", "ecdh-p521", Op::Derive),
            ("aes-128 ige", "aes-128-ige", Op::Encrypt),
            ("hmac(sha512)", "hmac-sha512", Op::Mac),
            ("sha384", "sha384", Op::Hash),
            ("aes-128-cbc", "aes-128-cbc", Op::Encrypt),
            ("rsa2048", "rsa-2048", Op::Sign),
        ] {
            let k = resolve(spelling).unwrap_or_else(|| panic!("{spelling}"));
            assert_eq!((k.id(), k.default_op()), (id, op), "{spelling}");
        }
        assert!(resolve("ml-kem-768").unwrap().ops().contains(&Op::Decaps));
        assert!(lookup("ml-kem-768").is_some(), "ML-KEM is timed (kem.rs)");
        assert!(resolve("ml-dsa-65").unwrap().ops().contains(&Op::Sign));
        assert!(lookup("ml-dsa-65").is_some(), "ML-DSA is timed (dsa.rs)");
        assert!(
            lookup("slh-dsa-shake-128f").is_some(),
            "SLH-DSA is timed (slh.rs)"
        );
        assert!(
            lookup("x25519mlkem768").is_some(),
            "the hybrid is timed (hybrid.rs)"
        );
        assert!(
            lookup("slh-dsa-sha2-192s").is_none(),
            "name-only entries are not timed"
        );
        assert!(resolve("no-such-thing").is_none());
    }

    #[test]
    fn openssl_speed_spellings_resolve() {
        for (spelling, id) in [
            ("des ede3", "des-ede3-cbc"),
            ("des-ede3", "des-ede3-cbc"),
            ("hmac(md5)", "hmac-md5"),
            ("rsa2048", "rsa-2048"),
            ("rsa 2048 bits", "rsa-2048"),
            ("aes-128-cbc", "aes-128-cbc"),
            ("aes-128 cbc", "aes-128-cbc"),
            ("blowfish", "bf-cbc"),
            ("rmd160", "ripemd160"),
            ("ecdsap256", "ecdsa-p256"),
            ("ecdhx25519", "x25519"),
            ("ffdh2048", "ffdh-2048"),
            ("Ed25519", "ed25519"),
            ("camellia-128 cbc", "camellia-128-cbc"),
            ("AES-128-CCM", "aes-128-ccm"),
            ("id-aes256-CCM", "aes-256-ccm"),
            ("AES-256-GCM-SIV", "aes-256-gcm-siv"),
            ("AES-128-XTS", "aes-128-xts"),
            ("SM3", "sm3"),
            ("sm4", "sm4-cbc"),
        ] {
            assert_eq!(lookup(spelling).map(|p| p.id), Some(id), "{spelling}");
        }
    }

    #[test]
    fn unknown_names_suggest() {
        let err = select(&["sha265".into()]).unwrap_err();
        assert!(err.suggestions.contains(&"sha256"), "{err}");
        assert!(err.to_string().contains("did you mean"));
    }

    #[test]
    fn groups_expand() {
        let rsa = select(&["rsa".into()]).unwrap();
        assert_eq!(rsa.len(), 7);
        let both = select(&["md5".into(), "MD5".into(), "sha256".into()]).unwrap();
        assert_eq!(both.len(), 2);
    }

    #[test]
    fn every_vector_is_hex_and_every_primitive_has_a_kat() {
        for p in all() {
            assert!(!p.kats.is_empty(), "{} has no KAT", p.id);
            for k in p.kats {
                let fields: Vec<&str> = match *k {
                    Kat::Digest { msg, out, .. } => vec![msg, out],
                    Kat::Mac {
                        key, iv, msg, out, ..
                    } => vec![key, iv, msg, out],
                    Kat::Cipher {
                        key, iv, pt, ct, ..
                    } => vec![key, iv, pt, ct],
                    Kat::Aead {
                        key,
                        nonce,
                        aad,
                        pt,
                        ct,
                        tag,
                        ..
                    } => vec![key, nonce, aad, pt, ct, tag],
                    Kat::OcbIterated { out, .. } => vec![out],
                    Kat::SignatureVerify { spki, msg, sig, .. } => vec![spki, msg, sig],
                    Kat::EddsaSign {
                        private,
                        public,
                        msg,
                        sig,
                        ..
                    } => vec![private, public, msg, sig],
                    Kat::Agreement {
                        private,
                        peer_public,
                        shared,
                        ..
                    } => vec![private, peer_public, shared],
                    Kat::KemKeygen { d, z, ek, .. } => vec![d, z, ek],
                    Kat::KemEncaps { ek, m, c, k, .. } => vec![ek, m, c, k],
                    Kat::KemDecaps { dk, c, k, .. } => vec![dk, c, k],
                    Kat::SigKeygen { seed, public, .. } => vec![seed, public],
                    Kat::SigInternal {
                        private, msg, sig, ..
                    } => vec![private, msg, sig],
                    Kat::SigVerifyInternal {
                        public,
                        msg,
                        sig,
                        bad_public,
                        bad_msg,
                        bad_sig,
                        ..
                    } => vec![public, msg, sig, bad_public, bad_msg, bad_sig],
                    Kat::CrossCheck { .. } => vec![],
                };
                for f in fields {
                    let clean: String = f.chars().filter(|c| !c.is_whitespace()).collect();
                    assert!(hex::decode(&clean).is_ok(), "{}: bad hex {f}", p.id);
                }
            }
        }
    }
}
