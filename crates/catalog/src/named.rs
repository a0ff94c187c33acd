//! Primitives the catalog knows by name but no implementation measures yet: post-quantum KEMs and
//! signatures (ML-KEM, ML-DSA, SLH-DSA, hybrid groups), and the legacy or rare rows `openssl speed`
//! printed between 0.9.6 and 3.6 (binary curves, brainpool, AES-IGE, AES-192-ECB, SM2 …).
//!
//! They exist so an imported log files its figures under a canonical id and the right operation
//! instead of the log's own spelling. A name-only entry has no algorithm parameters, no known-answer
//! test and no `openssl speed` index, so it cannot be timed: when an implementation learns to
//! measure one, it moves to a family file (`digests.rs`, `pkey.rs` …) with its vectors. Adding one
//! is one line in [`NAMED`].

use cryptospeed_model::Op;

/// What a name-only primitive does, which fixes its operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Hash,
    Mac,
    Cipher,
    /// Key encapsulation: keygen, encaps, decaps.
    Kem,
    /// Signature scheme: keygen, sign, verify (and `openssl speed`'s classic sign/verify rows).
    Signature,
    /// Key agreement: derive (and keygen where a log times it).
    Agreement,
    /// Random bytes (`openssl speed rand`), timed like a hash.
    Rand,
}

impl Kind {
    /// Every operation a log may print for this kind, the default first.
    pub fn ops(self) -> &'static [Op] {
        match self {
            Kind::Hash | Kind::Rand => &[Op::Hash],
            Kind::Mac => &[Op::Mac],
            Kind::Cipher => &[Op::Encrypt, Op::Decrypt],
            Kind::Kem => &[Op::Keygen, Op::Encaps, Op::Decaps],
            Kind::Signature => &[Op::Sign, Op::Verify, Op::Keygen],
            Kind::Agreement => &[Op::Derive, Op::Keygen],
        }
    }

    /// True for kinds whose cells have a message size.
    pub fn has_bytes(self) -> bool {
        matches!(self, Kind::Hash | Kind::Mac | Kind::Cipher | Kind::Rand)
    }
}

/// A primitive known by name only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    /// Canonical id: lowercase with dashes.
    pub id: &'static str,
    /// Spellings logs print (`openssl speed`, `bssl speed`, oqsprovider).
    pub aliases: &'static [&'static str],
    pub kind: Kind,
}

const fn n(id: &'static str, aliases: &'static [&'static str], kind: Kind) -> Named {
    Named { id, aliases, kind }
}

use Kind::*;

/// Every name-only primitive.
pub const NAMED: &[Named] = &[
    // Post-quantum KEMs (FIPS 203) as openssl 3.5+, oqsprovider and bssl print them.
    // (ML-KEM-512/768/1024 are timed primitives now: kem.rs.)
    // Hybrid groups (TLS 1.3 key shares), timed as KEMs.
    // (X25519MLKEM768 is a timed primitive now: hybrid.rs.)
    n(
        "x448-mlkem1024",
        &["X448MLKEM1024", "X448-ML-KEM-1024"],
        Kem,
    ),
    n(
        "p256-mlkem768",
        &["SecP256r1MLKEM768", "secp256r1mlkem768", "p256_mlkem768"],
        Kem,
    ),
    n(
        "p384-mlkem1024",
        &["SecP384r1MLKEM1024", "secp384r1mlkem1024", "p384_mlkem1024"],
        Kem,
    ),
    // Post-quantum signatures (FIPS 204, FIPS 205) in openssl 3.5's spellings.
    // (ML-DSA-44/65/87 are timed primitives now: dsa.rs; SLH-DSA-SHA2-128s/128f and
    // SLH-DSA-SHAKE-128f: slh.rs.)
    n(
        "slh-dsa-sha2-192s",
        &["SLH-DSA-SHA2-192s", "slhdsasha2192s"],
        Signature,
    ),
    n(
        "slh-dsa-sha2-192f",
        &["SLH-DSA-SHA2-192f", "slhdsasha2192f"],
        Signature,
    ),
    n(
        "slh-dsa-sha2-256s",
        &["SLH-DSA-SHA2-256s", "slhdsasha2256s"],
        Signature,
    ),
    n(
        "slh-dsa-sha2-256f",
        &["SLH-DSA-SHA2-256f", "slhdsasha2256f"],
        Signature,
    ),
    n(
        "slh-dsa-shake-128s",
        &["SLH-DSA-SHAKE-128s", "slhdsashake128s"],
        Signature,
    ),
    n(
        "slh-dsa-shake-192s",
        &["SLH-DSA-SHAKE-192s", "slhdsashake192s"],
        Signature,
    ),
    n(
        "slh-dsa-shake-192f",
        &["SLH-DSA-SHAKE-192f", "slhdsashake192f"],
        Signature,
    ),
    n(
        "slh-dsa-shake-256s",
        &["SLH-DSA-SHAKE-256s", "slhdsashake256s"],
        Signature,
    ),
    n(
        "slh-dsa-shake-256f",
        &["SLH-DSA-SHAKE-256f", "slhdsashake256f"],
        Signature,
    ),
    // Digests and MACs openssl speed prints that the timed catalog lacks.
    n("sha224", &["sha-224"], Hash),
    n("sha384", &["sha-384"], Hash),
    n("sha512-224", &["sha512/224"], Hash),
    n("sha512-256", &["sha512/256"], Hash),
    n("sha3-224", &[], Hash),
    n("sha3-384", &[], Hash),
    n("sha3-512", &[], Hash),
    n("shake256", &[], Hash),
    n("blake2s-256", &["blake2s256"], Hash),
    n("md5-sha1", &[], Hash),
    n("rand", &[], Rand),
    n("hmac-sha1", &["hmac(sha1)"], Mac),
    n("hmac-sha224", &["hmac(sha224)"], Mac),
    n("hmac-sha384", &["hmac(sha384)"], Mac),
    n("hmac-sha512", &["hmac(sha512)"], Mac),
    n("hmac-sha3-256", &["hmac(sha3-256)"], Mac),
    n("kmac128", &[], Mac),
    n("kmac256", &[], Mac),
    n("poly1305", &[], Mac),
    // Cipher modes. (AES-128/256 in ECB, CCM, OCB, XTS and GCM-SIV, SM4-CBC/ECB and SM3 are
    // timed primitives now: modes.rs, digests.rs.)
    n("aes-192-ecb", &["aes-192 ecb", "AES-192-ECB"], Cipher),
    n("aes-192-ctr", &["aes192-ctr"], Cipher),
    n("aes-256-ctr", &["aes256-ctr"], Cipher),
    n("aes-192-gcm", &["aes192-gcm", "id-aes192-gcm"], Cipher),
    n("aes-128-ige", &["aes-128 ige"], Cipher),
    n("aes-192-ige", &["aes-192 ige"], Cipher),
    n("aes-256-ige", &["aes-256 ige"], Cipher),
    n("aes-128-cbc-hmac-sha1", &[], Cipher),
    n("aes-256-cbc-hmac-sha1", &[], Cipher),
    n("aes-128-cbc-hmac-sha256", &[], Cipher),
    n("aes-256-cbc-hmac-sha256", &[], Cipher),
    n("chacha20", &[], Cipher),
    n("des-ede", &["des ede"], Cipher),
    n("aria-128-cbc", &["aria-128 cbc"], Cipher),
    n("aria-192-cbc", &["aria-192 cbc"], Cipher),
    n("aria-256-cbc", &["aria-256 cbc"], Cipher),
    n("xchacha20-poly1305", &["XChaCha20-Poly1305"], Cipher),
    // Classic public key beyond the timed sizes and curves.
    n("dsa-512", &["dsa512"], Signature),
    n("ffdh-3072", &["ffdh3072", "3072 bits ffdh"], Agreement),
    n("ffdh-4096", &["ffdh4096", "4096 bits ffdh"], Agreement),
    n("ffdh-6144", &["ffdh6144", "6144 bits ffdh"], Agreement),
    n("ffdh-8192", &["ffdh8192", "8192 bits ffdh"], Agreement),
    n(
        "ecdh-p521",
        &["ecdhp521", "ecdh-nistp521", "521 bits ecdh (nistp521)"],
        Agreement,
    ),
    n("ecdh-p192", &["ecdhp192", "ecdh-nistp192"], Agreement),
    n("ecdh-p224", &["ecdhp224", "ecdh-nistp224"], Agreement),
    n("ecdh-secp160r1", &["ecdhp160"], Agreement),
    n("ecdsa-p192", &["ecdsap192", "ecdsa-nistp192"], Signature),
    n("ecdsa-p224", &["ecdsap224", "ecdsa-nistp224"], Signature),
    n("ecdsa-secp160r1", &["ecdsap160"], Signature),
    n("ecdsa-secp256k1", &[], Signature),
    n("sm2", &["curvesm2", "SM2"], Signature),
    // Binary curves (openssl speed until 3.x: nistk163 … nistb571).
    n("ecdsa-k163", &["ecdsak163", "ecdsa-nistk163"], Signature),
    n("ecdsa-k233", &["ecdsak233", "ecdsa-nistk233"], Signature),
    n("ecdsa-k283", &["ecdsak283", "ecdsa-nistk283"], Signature),
    n("ecdsa-k409", &["ecdsak409", "ecdsa-nistk409"], Signature),
    n("ecdsa-k571", &["ecdsak571", "ecdsa-nistk571"], Signature),
    n("ecdsa-b163", &["ecdsab163", "ecdsa-nistb163"], Signature),
    n("ecdsa-b233", &["ecdsab233", "ecdsa-nistb233"], Signature),
    n("ecdsa-b283", &["ecdsab283", "ecdsa-nistb283"], Signature),
    n("ecdsa-b409", &["ecdsab409", "ecdsa-nistb409"], Signature),
    n("ecdsa-b571", &["ecdsab571", "ecdsa-nistb571"], Signature),
    n("ecdh-k163", &["ecdhk163", "ecdh-nistk163"], Agreement),
    n("ecdh-k233", &["ecdhk233", "ecdh-nistk233"], Agreement),
    n("ecdh-k283", &["ecdhk283", "ecdh-nistk283"], Agreement),
    n("ecdh-k409", &["ecdhk409", "ecdh-nistk409"], Agreement),
    n("ecdh-k571", &["ecdhk571", "ecdh-nistk571"], Agreement),
    n("ecdh-b163", &["ecdhb163", "ecdh-nistb163"], Agreement),
    n("ecdh-b233", &["ecdhb233", "ecdh-nistb233"], Agreement),
    n("ecdh-b283", &["ecdhb283", "ecdh-nistb283"], Agreement),
    n("ecdh-b409", &["ecdhb409", "ecdh-nistb409"], Agreement),
    n("ecdh-b571", &["ecdhb571", "ecdh-nistb571"], Agreement),
    // Brainpool curves (openssl speed 1.1.1+).
    n("ecdsa-brainpoolp256r1", &["ecdsabrp256r1"], Signature),
    n("ecdsa-brainpoolp256t1", &["ecdsabrp256t1"], Signature),
    n("ecdsa-brainpoolp384r1", &["ecdsabrp384r1"], Signature),
    n("ecdsa-brainpoolp384t1", &["ecdsabrp384t1"], Signature),
    n("ecdsa-brainpoolp512r1", &["ecdsabrp512r1"], Signature),
    n("ecdsa-brainpoolp512t1", &["ecdsabrp512t1"], Signature),
    n("ecdh-brainpoolp256r1", &["ecdhbrp256r1"], Agreement),
    n("ecdh-brainpoolp256t1", &["ecdhbrp256t1"], Agreement),
    n("ecdh-brainpoolp384r1", &["ecdhbrp384r1"], Agreement),
    n("ecdh-brainpoolp384t1", &["ecdhbrp384t1"], Agreement),
    n("ecdh-brainpoolp512r1", &["ecdhbrp512r1"], Agreement),
    n("ecdh-brainpoolp512t1", &["ecdhbrp512t1"], Agreement),
];
