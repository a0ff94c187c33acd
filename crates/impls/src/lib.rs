//! The implementation registry. Each module wraps one library behind the engine's
//! [`Implementation`] trait; a worker process hosts exactly one of them.
//!
//! Adding an implementation is one module plus one entry in [`REGISTRY`]; the module declares
//! where its timed calls depart from the catalog's definitions (`DECLARED`, declared.rs).

pub mod aws_lc;
pub mod aws_lc_rs;
pub mod boringssl;
pub mod buffer;
pub mod declared;
pub mod dl;
pub mod evp;
pub mod go;
mod hybrid_kem;
mod kat;
pub mod libgcrypt;
pub mod libsodium;
pub mod mbedtls;
pub mod nettle;
pub mod openssl;
pub mod openssl_cli;
pub mod pkey_der;
pub mod ring;
pub mod ring_like;
pub mod rustcrypto;
pub mod suite;
pub mod tls;
pub mod wolfssl;

use cryptospeed_catalog::definition::Declared;
use cryptospeed_engine::Implementation;

/// Options an implementation may honour, given on the worker's command line.
#[derive(Debug, Clone, Default)]
pub struct ImplOptions {
    /// Path of the shared library to load instead of the system one.
    pub library: Option<String>,
}

type Constructor = fn(&ImplOptions) -> Result<Box<dyn Implementation>, String>;

/// What the rest of cryptospeed may rely on an implementation for, declared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// How a CPU-feature mask reaches it, if at all.
    pub masks: MaskControl,
    /// Its worker runs each cell's calls in its own process between valgrind markers, so
    /// `profile` can trace it call by call (not an external program, not a worker without
    /// markers).
    pub traceable: bool,
}

/// How an implementation can be told to hide CPU features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskControl {
    /// It chooses its code paths itself, with no way to override them.
    None,
    /// It reads `OPENSSL_ia32cap` at start-up (the worker, or the `openssl speed` it runs,
    /// inherits the environment).
    OpensslIa32cap,
    /// Go's runtime reads `GODEBUG=cpu.X=off` at start-up.
    GoDebug,
}

/// The capabilities of most implementations: no mask control, traceable in process.
const IN_PROCESS: Capabilities = Capabilities {
    masks: MaskControl::None,
    traceable: true,
};

/// One implementation this build carries.
pub struct Registered {
    pub name: &'static str,
    /// One line, for `list` and the docs.
    pub description: &'static str,
    pub create: Constructor,
    pub capabilities: Capabilities,
    /// Where its timed calls depart from the catalog's definitions (declared.rs), declared in
    /// its module as `DECLARED`.
    pub declared: &'static [Declared],
}

/// The post-quantum calls of the OpenSSL family's libraries beyond EVP's (crate::evp), tried in
/// this order by every column of the family, since each loads any build of it (`NAME:PATH`): a
/// backend recognises its library by its symbols.
pub(crate) const PQ_BACKENDS: &[&dyn evp::PqBackend] = &[&aws_lc::Pq, &boringssl::Pq];

/// Every implementation this build carries.
pub const REGISTRY: &[Registered] = &[
    Registered {
        name: "openssl",
        description: "OpenSSL libcrypto through EVP, loaded at run time (system libcrypto.so.3 by default)",
        create: openssl::create,
        capabilities: Capabilities { masks: MaskControl::OpensslIa32cap, traceable: true },
        declared: openssl::DECLARED,
    },
    Registered {
        name: "openssl-cli",
        description: "an openssl executable (openssl-cli:PATH), timed by `openssl speed -mr`",
        create: openssl_cli::create,
        capabilities: Capabilities { masks: MaskControl::OpensslIa32cap, traceable: false },
        declared: openssl_cli::DECLARED,
    },
    Registered {
        name: "aws-lc",
        description: "AWS-LC's whole libcrypto through EVP, built with cmake from the aws-lc-sys crate's tree",
        create: aws_lc::create,
        capabilities: IN_PROCESS,
        declared: aws_lc::DECLARED,
    },
    Registered {
        name: "aws-lc-rs",
        description: "AWS-LC through aws-lc-rs (crates.io), the Rust API rustls calls, statically linked",
        create: aws_lc_rs::create,
        capabilities: IN_PROCESS,
        declared: aws_lc_rs::DECLARED,
    },
    Registered {
        name: "boringssl",
        description: "BoringSSL's libcrypto through EVP, built with cmake from the boring-sys crate's tree",
        create: boringssl::create,
        capabilities: IN_PROCESS,
        declared: boringssl::DECLARED,
    },
    Registered {
        name: "go",
        description: "Go's crypto (standard library, golang.org/x/crypto) in the Go worker, built with the Go toolchain",
        create: go::create,
        capabilities: Capabilities { masks: MaskControl::GoDebug, traceable: false },
        declared: go::DECLARED,
    },
    Registered {
        name: "libgcrypt",
        description: "libgcrypt (Debian libgcrypt20), loaded at run time",
        create: libgcrypt::create,
        capabilities: IN_PROCESS,
        declared: libgcrypt::DECLARED,
    },
    Registered {
        name: "libsodium",
        description: "libsodium (Debian libsodium23), loaded at run time",
        create: libsodium::create,
        capabilities: IN_PROCESS,
        declared: libsodium::DECLARED,
    },
    Registered {
        name: "mbedtls",
        description: "Mbed TLS crypto (Debian libmbedcrypto7), loaded at run time",
        create: mbedtls::create,
        capabilities: IN_PROCESS,
        declared: mbedtls::DECLARED,
    },
    Registered {
        name: "nettle",
        description: "GNU Nettle and Hogweed (Debian libnettle8, libhogweed6), loaded at run time",
        create: nettle::create,
        capabilities: IN_PROCESS,
        declared: nettle::DECLARED,
    },
    Registered {
        name: "ring",
        description: "ring 0.17 (crates.io), statically linked",
        create: ring::create,
        capabilities: IN_PROCESS,
        declared: ring::DECLARED,
    },
    Registered {
        name: "rustcrypto",
        description: "the RustCrypto crates (pure Rust), legacy ciphers and hashes included",
        create: rustcrypto::create,
        capabilities: IN_PROCESS,
        declared: rustcrypto::DECLARED,
    },
    Registered { name: "rustls-aws-lc-rs", description: "rustls 0.23 TLS 1.3 handshakes over its aws-lc-rs provider (X25519, X25519MLKEM768, SecP256r1MLKEM768, MLKEM768)", create: tls::rustls::create_aws_lc_rs, capabilities: IN_PROCESS, declared: tls::rustls::DECLARED },
    Registered { name: "rustls-ring", description: "rustls 0.23 TLS 1.3 handshakes over its ring provider (X25519)", create: tls::rustls::create_ring, capabilities: IN_PROCESS, declared: tls::rustls::DECLARED },
    Registered {
        name: "wolfssl",
        description: "wolfSSL's wolfCrypt (Debian libwolfssl35), loaded at run time",
        create: wolfssl::create,
        capabilities: IN_PROCESS,
        declared: wolfssl::DECLARED,
    },
];

/// The registry entry of an implementation.
pub fn registered(name: &str) -> Option<&'static Registered> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Instantiates an implementation by registry name.
pub fn create(name: &str, options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    match registered(name) {
        Some(r) => Ok(Box::new(declared::Declaring {
            inner: (r.create)(options)?,
            declared: r.declared,
        })),
        None => Err(format!(
            "unknown implementation '{name}'; known: {}",
            REGISTRY
                .iter()
                .map(|r| r.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
