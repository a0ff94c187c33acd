//! The implementation registry. Each module wraps one library behind the engine's
//! [`Implementation`] trait; a worker process hosts exactly one of them.
//!
//! Adding an implementation is one module plus one line in [`REGISTRY`].

pub mod aws_lc;
pub mod aws_lc_rs;
pub mod boringssl;
pub mod buffer;
pub mod dl;
pub mod go;
mod hybrid_kem;
pub mod libgcrypt;
pub mod libsodium;
pub mod mbedtls;
pub mod nettle;
pub mod openssl;
pub mod openssl_cli;
pub mod ring;
pub mod ring_like;
pub mod rustcrypto;
mod rustcrypto_dsa;
mod rustcrypto_kem;
mod rustcrypto_slh;
pub mod suite;
pub mod wolfssl;

use cryptospeed_engine::Implementation;

/// Options an implementation may honour, given on the worker's command line.
#[derive(Debug, Clone, Default)]
pub struct ImplOptions {
    /// Path of the shared library to load instead of the system one.
    pub library: Option<String>,
}

type Constructor = fn(&ImplOptions) -> Result<Box<dyn Implementation>, String>;

/// Every implementation this build carries: name, one-line description, constructor.
pub const REGISTRY: &[(&str, &str, Constructor)] = &[
    (
        "openssl",
        "OpenSSL libcrypto through EVP, loaded at run time (system libcrypto.so.3 by default)",
        openssl::create,
    ),
    (
        "openssl-cli",
        "an openssl executable (openssl-cli:PATH), timed by `openssl speed -mr`",
        openssl_cli::create,
    ),
    (
        "aws-lc",
        "AWS-LC's whole libcrypto through EVP, built with cmake from the aws-lc-sys crate's tree",
        aws_lc::create,
    ),
    (
        "aws-lc-rs",
        "AWS-LC through aws-lc-rs (crates.io), the Rust API rustls calls, statically linked",
        aws_lc_rs::create,
    ),
    (
        "boringssl",
        "BoringSSL's libcrypto through EVP, built with cmake from the boring-sys crate's tree",
        boringssl::create,
    ),
    (
        "go",
        "Go's crypto (standard library, golang.org/x/crypto) in the Go worker, built with the Go toolchain",
        go::create,
    ),
    (
        "libgcrypt",
        "libgcrypt (Debian libgcrypt20), loaded at run time",
        libgcrypt::create,
    ),
    (
        "libsodium",
        "libsodium (Debian libsodium23), loaded at run time",
        libsodium::create,
    ),
    (
        "mbedtls",
        "Mbed TLS crypto (Debian libmbedcrypto7), loaded at run time",
        mbedtls::create,
    ),
    (
        "nettle",
        "GNU Nettle and Hogweed (Debian libnettle8, libhogweed6), loaded at run time",
        nettle::create,
    ),
    (
        "ring",
        "ring 0.17 (crates.io), statically linked",
        ring::create,
    ),
    (
        "rustcrypto",
        "the RustCrypto crates (pure Rust), legacy ciphers and hashes included",
        rustcrypto::create,
    ),
    (
        "wolfssl",
        "wolfSSL's wolfCrypt (Debian libwolfssl35), loaded at run time",
        wolfssl::create,
    ),
];

/// Instantiates an implementation by registry name.
pub fn create(name: &str, options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    match REGISTRY.iter().find(|(n, _, _)| *n == name) {
        Some((_, _, make)) => make(options),
        None => Err(format!(
            "unknown implementation '{name}'; known: {}",
            REGISTRY
                .iter()
                .map(|(n, _, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
