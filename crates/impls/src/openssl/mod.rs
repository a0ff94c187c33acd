//! `openssl`: OpenSSL's libcrypto loaded at run time (the system libcrypto.so.3 by default),
//! driven through the EVP layer the family shares (crate::evp). OpenSSL 3.5's post-quantum
//! primitives go through EVP itself; since `openssl:PATH` loads any build of the family
//! (AWS-LC, BoringSSL), their own post-quantum calls are tried after EVP's (crate::PQ_BACKENDS).

use crate::declared::{Conformance::*, Declared, State::*};
use crate::ImplOptions;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;

/// The system libcrypto of OpenSSL 3 (Debian's libssl3).
pub const DEFAULT_LIBRARY: &str = "libcrypto.so.3";

/// Where this column's timed calls depart from the catalog's definitions (declared.rs), against
/// version 2 of the post-quantum ones (OpenSSL 3.5's ML-KEM keys hold Â, its ML-DSA expands Â per
/// call: both the norm). An `openssl:PATH` that is AWS-LC or BoringSSL gets that library's
/// declarations instead (declared.rs `for_variant`).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["*-ccm", "*-ocb", "*-gcm-siv"],
        ops: &[],
        note: Deviates(
            "the key is set again per message, as openssl speed 3.5 does for every AE mode",
        ),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::EncapsParse, Op::DecapsParse],
        note: Departs(&[ContextPerKey], "OpenSSL's API fetches the key type by name and makes an EVP_PKEY_CTX per imported key, so in every call"),
    },
    Declared {
        kinds: &["ml-dsa", "slh-dsa"],
        ops: &[Op::VerifyParse],
        note: Departs(&[ContextPerKey], "OpenSSL's API fetches the key type by name to import the key and makes an EVP_PKEY_CTX for it, so in every call"),
    },
    Declared {
        kinds: &["ml-dsa", "slh-dsa"],
        ops: &[Op::KeygenEncode],
        note: NotOffered("no timed signature keygen with export through EVP here"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options
        .library
        .clone()
        .unwrap_or_else(|| DEFAULT_LIBRARY.to_string());
    crate::evp::create_as("openssl", &path, Vec::new(), None, crate::PQ_BACKENDS)
}
