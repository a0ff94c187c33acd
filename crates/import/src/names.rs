//! Maps the names logs print (`des ede3`, `hmac(md5)`, `aes-128 cbc`, `rsa 1024 bits`,
//! `256 bits ecdsa (nistp256)`, `AES-128-GCM (16 bytes) seal`) onto catalog ids, so an imported
//! cell and a measured one share a row in `compare`. A name the catalog does not know is kept,
//! lowercased with dashes, and reported as unmapped rather than dropped.

use cryptospeed_catalog as catalog;
use cryptospeed_model::Op;

/// A printed name resolved to a primitive id.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapped {
    pub primitive: String,
    pub mapped: bool,
}

/// Lowercase, with every run of characters other than letters and digits turned into one dash.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

fn catalog_or_slug(name: &str) -> Mapped {
    match catalog::resolve(name) {
        Some(k) => Mapped {
            primitive: k.id().to_string(),
            mapped: true,
        },
        None => Mapped {
            primitive: slug(name),
            mapped: false,
        },
    }
}

/// A row of the `type 16 bytes 64 bytes …` table (or a `+F:` line): the primitive and the
/// operation its figures time.
pub fn symmetric(printed: &str, decrypt: bool) -> (Mapped, Op) {
    let m = catalog_or_slug(printed);
    let op = match catalog::resolve(printed) {
        Some(k) if decrypt && k.ops().contains(&Op::Decrypt) => Op::Decrypt,
        Some(k) => k.default_op(),
        None => guess_op(&m.primitive, decrypt),
    };
    (m, op)
}

/// The operation of a name the catalog does not know, from its family.
fn guess_op(slug: &str, decrypt: bool) -> Op {
    const MACS: &[&str] = &[
        "hmac", "cmac", "gmac", "ghash", "poly1305", "kmac", "siphash",
    ];
    const HASHES: &[&str] = &[
        "sha",
        "md2",
        "md4",
        "md5",
        "mdc2",
        "sm3",
        "blake",
        "shake",
        "whirlpool",
        "rmd",
        "ripemd",
        "keccak",
        "gost",
    ];
    if MACS.iter().any(|p| slug.starts_with(p)) {
        Op::Mac
    } else if HASHES.iter().any(|p| slug.starts_with(p)) {
        Op::Hash
    } else if decrypt {
        Op::Decrypt
    } else {
        Op::Encrypt
    }
}

/// `rsa-2048`, `dsa-1024`, `ffdh-2048`: a family and a key size.
pub fn sized(family: &str, bits: u32) -> Mapped {
    catalog_or_slug(&format!("{family}-{bits}"))
}

/// The primitive of an elliptic-curve row: `kind` is `ecdsa` or `ecdh`, `curve` as printed
/// (`nistp256`, `X25519`, `brainpoolP256r1`, `nistk163`, `secp160r1`).
pub fn curve(kind: &str, curve: &str) -> Mapped {
    let c = slug(curve).replace('-', "");
    let short = match c.as_str() {
        "nistp256" | "prime256v1" | "secp256r1" | "p256" => "p256".to_string(),
        "nistp384" | "secp384r1" | "p384" => "p384".to_string(),
        "nistp521" | "secp521r1" | "p521" => "p521".to_string(),
        "nistp192" | "prime192v1" | "secp192r1" | "p192" => "p192".to_string(),
        "nistp224" | "secp224r1" | "p224" => "p224".to_string(),
        other => binary_curve(other)
            .unwrap_or_else(|| other.strip_prefix("nist").unwrap_or(other))
            .to_string(),
    };
    if kind == "ecdh" && (c == "x25519" || c == "curve25519") {
        return catalog_or_slug("x25519");
    }
    if kind == "ecdh" && (c == "x448" || c == "curve448") {
        return catalog_or_slug("x448");
    }
    catalog_or_slug(&format!("{kind}-{short}"))
}

/// SECG names of the binary curves (4.0 prints them) as the NIST names older versions printed.
fn binary_curve(secg: &str) -> Option<&'static str> {
    const NAMES: [(&str, &str); 10] = [
        ("sect163k1", "k163"),
        ("sect233k1", "k233"),
        ("sect283k1", "k283"),
        ("sect409k1", "k409"),
        ("sect571k1", "k571"),
        ("sect163r2", "b163"),
        ("sect233r1", "b233"),
        ("sect283r1", "b283"),
        ("sect409r1", "b409"),
        ("sect571r1", "b571"),
    ];
    NAMES.iter().find(|(s, _)| *s == secg).map(|(_, n)| *n)
}

/// A row of 4.0's one signature-curve table (`EC (prime256v1)`, `EC (Ed25519)`, `EC (SM2)`).
pub fn signature_curve(curve: &str) -> Mapped {
    match slug(curve).as_str() {
        "ed25519" | "ed448" | "sm2" | "curvesm2" => named_scheme(curve),
        _ => self::curve("ecdsa", curve),
    }
}

/// 4.0's curve table behind `+F4`/`+F5` indices: (name, bits), the binary curves present unless
/// the build has `no-ec2m`.
const CURVES_4: [(&str, u32); 28] = [
    ("secp160r1", 160),
    ("prime192v1", 192),
    ("secp224r1", 224),
    ("prime256v1", 256),
    ("secp384r1", 384),
    ("secp521r1", 521),
    ("sect163k1", 163),
    ("sect233k1", 233),
    ("sect283k1", 283),
    ("sect409k1", 409),
    ("sect571k1", 571),
    ("sect163r2", 163),
    ("sect233r1", 233),
    ("sect283r1", 283),
    ("sect409r1", 409),
    ("sect571r1", 571),
    ("brainpoolP256r1", 256),
    ("brainpoolP256t1", 256),
    ("brainpoolP384r1", 384),
    ("brainpoolP384t1", 384),
    ("brainpoolP512r1", 512),
    ("brainpoolP512t1", 512),
    ("Ed25519", 253),
    ("Ed448", 456),
    ("X25519", 253),
    ("X448", 448),
    ("SM2", 256),
    ("curveSM2", 256),
];

/// The curve OpenSSL 4.0's `-mr` means by an `+F4` (signature) or `+F5` (ECDH) index and its
/// bits: the full table's entry when the bits agree, else the `no-ec2m` table's (binary curves
/// left out), else the index and bits kept as the name.
pub fn curve_by_index_4(kind: &str, index: u32, bits: u32) -> Mapped {
    let full = CURVES_4.get(index as usize);
    let no_ec2m = CURVES_4.get(index as usize + if index >= 6 { 10 } else { 0 });
    let found = [full, no_ec2m]
        .into_iter()
        .flatten()
        .find(|(_, b)| *b == bits);
    match (found, kind) {
        (Some((name, _)), "ecdsa") => signature_curve(name),
        (Some((name, _)), _) => curve(kind, name),
        (None, _) => Mapped {
            primitive: format!("{kind}-{bits}bit-curve{index}"),
            mapped: false,
        },
    }
}

/// The curve `openssl speed -mr` means by an `+F4`/`+F5` index: the first six entries of its
/// curve table have been the same since 0.9.8 (later entries moved between versions).
pub fn curve_by_index(kind: &str, index: u32, bits: u32) -> Mapped {
    if kind == "ecdh" && bits == 253 {
        return catalog_or_slug("x25519");
    }
    if kind == "ecdh" && bits == 448 {
        return catalog_or_slug("x448");
    }
    const FIRST: [&str; 6] = [
        "secp160r1",
        "nistp192",
        "nistp224",
        "nistp256",
        "nistp384",
        "nistp521",
    ];
    match FIRST.get(index as usize) {
        Some(name) => curve(kind, name),
        None => Mapped {
            primitive: format!("{kind}-{bits}bit-curve{index}"),
            mapped: false,
        },
    }
}

/// EdDSA and SM2 rows print the scheme's own name (`Ed25519`, `Ed448`, `CurveSM2`).
pub fn named_scheme(name: &str) -> Mapped {
    if slug(name) == "curvesm2" {
        return catalog_or_slug("sm2");
    }
    catalog_or_slug(name)
}

/// A row of 3.2+'s KEM (`kem`) or signature table: `rsa2048`, `ECP-256` (DH on P-256 as a KEM,
/// ECDSA in the signature table), `X25519`, `ML-KEM-768`, `mlkem512` (oqsprovider), `mldsa44`,
/// `SLH-DSA-SHA2-128s`, `X25519MLKEM768`.
pub fn table_scheme(name: &str, kem: bool) -> Mapped {
    let lower = name.to_ascii_lowercase();
    if let Some(curve) = lower.strip_prefix("ecp-") {
        let kind = if kem { "ecdh" } else { "ecdsa" };
        return catalog_or_slug(&format!("{kind}-p{curve}"));
    }
    named_scheme(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_names_map_onto_the_catalog() {
        let cases = [
            ("des ede3", "des-ede3-cbc", Op::Encrypt),
            ("des-ede3", "des-ede3-cbc", Op::Encrypt),
            ("des cbc", "des-cbc", Op::Encrypt),
            ("hmac(md5)", "hmac-md5", Op::Mac),
            ("aes-128 cbc", "aes-128-cbc", Op::Encrypt),
            ("AES-128-GCM", "aes-128-gcm", Op::Encrypt),
            ("blowfish cbc", "bf-cbc", Op::Encrypt),
            ("rmd160", "ripemd160", Op::Hash),
            ("rc5-32/12 cbc", "rc5-cbc", Op::Encrypt),
            ("camellia-256 cbc", "camellia-256-cbc", Op::Encrypt),
        ];
        for (printed, id, op) in cases {
            let (m, o) = symmetric(printed, false);
            assert_eq!(
                (m.primitive.as_str(), o, m.mapped),
                (id, op, true),
                "{printed}"
            );
        }
        assert_eq!(symmetric("aes-128-cbc", true).1, Op::Decrypt);
        assert_eq!(sized("rsa", 1024).primitive, "rsa-1024");
        assert_eq!(curve("ecdsa", "nistp256").primitive, "ecdsa-p256");
        assert_eq!(curve("ecdh", "X25519").primitive, "x25519");
        assert_eq!(curve_by_index("ecdsa", 4, 384).primitive, "ecdsa-p384");
        assert_eq!(named_scheme("Ed25519").primitive, "ed25519");
    }

    #[test]
    fn the_modes_and_sm_rows_map_onto_their_primitives() {
        // `-evp` rows as OpenSSL 3 prints them (EVP_CIPHER_get0_name), as 1.1.1 printed them
        // (OBJ_nid2ln), and Tongsuo's own `sm3`/`sm4` rows.
        let cases = [
            ("AES-128-CCM", "aes-128-ccm", Op::Encrypt),
            ("aes-256-ccm", "aes-256-ccm", Op::Encrypt),
            ("AES-128-OCB", "aes-128-ocb", Op::Encrypt),
            ("AES-256-XTS", "aes-256-xts", Op::Encrypt),
            ("AES-128-GCM-SIV", "aes-128-gcm-siv", Op::Encrypt),
            ("AES-256-ECB", "aes-256-ecb", Op::Encrypt),
            ("aes-128 ecb", "aes-128-ecb", Op::Encrypt),
            ("SM3", "sm3", Op::Hash),
            ("sm3", "sm3", Op::Hash),
            ("sm4", "sm4-cbc", Op::Encrypt),
            ("SM4-CBC", "sm4-cbc", Op::Encrypt),
            ("SM4-ECB", "sm4-ecb", Op::Encrypt),
        ];
        for (printed, id, op) in cases {
            let (m, o) = symmetric(printed, false);
            assert_eq!(
                (m.primitive.as_str(), o, m.mapped),
                (id, op, true),
                "{printed}"
            );
        }
        assert_eq!(symmetric("AES-128-CCM", true).1, Op::Decrypt);
        // Other SM4 modes stay unmapped rather than filed under CBC.
        let (m, _) = symmetric("SM4-CTR", false);
        assert_eq!((m.primitive.as_str(), m.mapped), ("sm4-ctr", false));
    }

    #[test]
    fn unknown_names_are_kept_and_flagged() {
        let (m, op) = symmetric("aes-128 ige", false);
        assert_eq!(
            (m.primitive.as_str(), m.mapped, op),
            ("aes-128-ige", true, Op::Encrypt)
        );
        let (m, op) = symmetric("aes-128 xts-ish", false);
        assert_eq!(
            (m.primitive.as_str(), m.mapped, op),
            ("aes-128-xts-ish", false, Op::Encrypt)
        );
        let (m, op) = symmetric("hmac(sha512)", false);
        assert_eq!((m.primitive.as_str(), op), ("hmac-sha512", Op::Mac));
        let (m, op) = symmetric("sha384", false);
        assert_eq!((m.primitive.as_str(), op), ("sha384", Op::Hash));
        let m = curve("ecdsa", "brainpoolP256r1");
        assert_eq!(
            (m.primitive.as_str(), m.mapped),
            ("ecdsa-brainpoolp256r1", true)
        );
        assert_eq!(curve("ecdh", "nistk163").primitive, "ecdh-k163");
        assert_eq!(curve("ecdsa", "secp160r1").primitive, "ecdsa-secp160r1");
        assert_eq!(curve("ecdh", "nistp521").primitive, "ecdh-p521");
        let m = curve("ecdsa", "frp256v1");
        assert_eq!((m.primitive.as_str(), m.mapped), ("ecdsa-frp256v1", false));
        assert_eq!(table_scheme("ECP-256", true).primitive, "ecdh-p256");
        assert_eq!(table_scheme("mlkem512", true).primitive, "ml-kem-512");
        assert_eq!(table_scheme("rsa2048", false).primitive, "rsa-2048");
        assert_eq!(
            table_scheme("SLH-DSA-SHAKE-256f", false).primitive,
            "slh-dsa-shake-256f"
        );
    }
}
