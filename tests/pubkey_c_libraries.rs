//! Public key in the C libraries loaded at run time (Mbed TLS, wolfSSL, libgcrypt, Nettle):
//! their known-answer tests against published vectors (RFC 6979, RFC 7748, RFC 8032,
//! Wycheproof, and RSA signatures recomputed with num-bigint), their signatures and shared
//! secrets checked against OpenSSL's and RustCrypto's in the agreement check, the reasons given
//! where the Debian builds lack a primitive, and a number for every cell they offer. FFDH, which
//! has no common output, is checked the same way in every library that has it, AWS-LC and
//! BoringSSL included.

mod common;

use common::{bin, quick};

const C_LIBRARIES: [&str; 4] = ["libgcrypt", "mbedtls", "nettle", "wolfssl"];

/// The verify table's row for a primitive, split into its result columns.
fn row<'a>(text: &'a str, id: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!(" {id} ")))
        .unwrap_or_else(|| panic!("no row {id}: {text}"));
    line.split_whitespace().skip(1).collect()
}

#[test]
fn known_answers_pass_and_outputs_agree_with_openssl_and_rustcrypto() {
    let impls = "openssl,rustcrypto,libgcrypt,mbedtls,nettle,wolfssl";
    let out = bin()
        .args(["verify", "--impl", impls, "-a", "pkey"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(", 0 problems across 6 implementations"),
        "{text}"
    );
    // Columns: openssl, rustcrypto, libgcrypt, mbedtls, nettle, wolfssl. Deterministic
    // outputs (RSA PKCS#1 v1.5, EdDSA, shared secrets) are compared byte for byte; ECDSA
    // signatures are verified by every other library.
    let all = ["agrees"; 6];
    for id in [
        "rsa-2048",
        "ecdsa-p256",
        "ecdsa-p384",
        "ecdh-p256",
        "x25519",
    ] {
        assert_eq!(row(&text, id), all, "{id}: {text}");
    }
    assert_eq!(
        row(&text, "ed25519"),
        ["agrees", "agrees", "agrees", "n/a", "agrees", "agrees"]
    );
    assert_eq!(
        row(&text, "x448"),
        ["agrees", "n/a", "agrees", "agrees", "agrees", "agrees"]
    );
    assert_eq!(
        row(&text, "ecdsa-p521"),
        ["agrees", "n/a", "agrees", "agrees", "agrees", "agrees"]
    );
    // DSA has no common output; each library passes the Wycheproof vector and a round trip.
    assert_eq!(
        row(&text, "dsa-2048"),
        ["kat", "n/a", "kat", "n/a", "kat", "n/a"]
    );
    // FFDH likewise: both directions agree and equal peer^x mod RFC 7919's prime.
    assert_eq!(
        row(&text, "ffdh-2048"),
        ["kat", "n/a", "n/a", "kat", "n/a", "kat"]
    );
}

#[test]
fn ffdh_passes_in_every_library_that_has_it() {
    // AWS-LC and BoringSSL come from the variant cache (built there once if missing).
    for name in ["aws-lc", "boringssl"] {
        let out = bin()
            .args(["variant", "build-library", name])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let impls = "openssl,aws-lc,boringssl,mbedtls,wolfssl";
    let out = bin()
        .args(["verify", "--impl", impls, "-a", "ffdh-2048"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert_eq!(row(&text, "ffdh-2048"), ["kat"; 5], "{text}");
}

/// Per library: primitives it must offer, and (primitive, words of the reason) it must not.
type Expectation = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// What the Debian builds offer, and the reasons given for what they lack.
const EXPECTED: [Expectation; 4] = [
    (
        "libgcrypt",
        &[
            "rsa-15360",
            "dsa-1024",
            "ecdsa-p521",
            "ecdh-p384",
            "x448",
            "ed25519",
        ],
        &[
            ("ed448", "RFC 8032 public key"),
            ("ffdh-2048", "no Diffie-Hellman API"),
        ],
    ),
    (
        "mbedtls",
        &[
            "rsa-7680",
            "ecdsa-p521",
            "ecdh-p384",
            "x25519",
            "x448",
            "ffdh-2048",
        ],
        &[
            ("rsa-15360", "MBEDTLS_MPI_MAX_SIZE"),
            ("ed25519", "no EdDSA"),
            ("dsa-2048", "no DSA"),
        ],
    ),
    (
        "nettle",
        &["rsa-15360", "dsa-2048", "ecdsa-p521", "ecdh-p256", "ed448"],
        &[("ffdh-2048", "no finite-field Diffie-Hellman")],
    ),
    (
        "wolfssl",
        &[
            "rsa-4096",
            "ecdsa-p521",
            "ecdh-p384",
            "x448",
            "ed448",
            "ffdh-2048",
        ],
        &[
            ("rsa-7680", "RSA_MAX_SIZE"),
            ("dsa-1024", "20-byte (SHA-1) digest"),
        ],
    ),
];

#[test]
fn each_library_offers_its_public_key_and_says_why_not_elsewhere() {
    for (name, offered, missing) in EXPECTED {
        let out = bin().args(["list", "--impl", name]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        let line = |id: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!(" {id} ")))
                .unwrap_or_else(|| panic!("{name}: no {id}"))
                .to_string()
        };
        for id in offered {
            assert!(
                line(id).trim_end().ends_with("available"),
                "{name}: {}",
                line(id)
            );
            assert!(!line(id).contains("unavailable"), "{name}: {}", line(id));
        }
        for (id, why) in missing {
            assert!(line(id).contains(why), "{name}: {}", line(id));
        }
    }
}

#[test]
fn every_offered_public_key_cell_is_timed() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "--impl", &C_LIBRARIES.join(",")])
        .args(["-a", "ecdsa-p256,rsa2048,ed25519,ecdh-p256,x25519"])
        .args(quick(&dir.path().join("p.db")))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let recs = recs.as_array().unwrap();
    // 4 libraries × (2 sign/verify primitives × 2 ops + 2 derive + ed25519's 2 ops).
    assert_eq!(recs.len(), 4 * 8, "{recs:#?}");
    for r in recs {
        if r["impl"] == "mbedtls" && r["primitive"] == "ed25519" {
            assert_eq!(r["status"], "unavailable", "{r}");
            assert!(r["reason"].as_str().unwrap().contains("no EdDSA"), "{r}");
            continue;
        }
        assert!(r["status"] == "ok" || r["status"] == "imprecise", "{r}");
        assert_eq!(r["unit"], "ops/s", "{r}");
        assert!(r["median"].as_f64().unwrap() > 0.0, "{r}");
    }
}
