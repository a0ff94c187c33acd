//! `aws-lc`: AWS-LC through its whole OpenSSL-compatible libcrypto, so every primitive AWS-LC
//! has is measured (legacy ones included) with the EVP calls `openssl speed` makes. The library is
//! built with cmake from the tree the `aws-lc-sys` crate carries, as a shared libcrypto without
//! a symbol prefix (cryptospeed_variants::cmake), and driven by the `openssl` module (crate::openssl),
//! which falls back to the 1.1.1-style calls where AWS-LC lacks OpenSSL 3's. Its own worker
//! process keeps its symbols away from OpenSSL's. `aws-lc:PATH` loads another build.

use crate::declared::{Conformance::*, Declared};
use crate::ImplOptions;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Deviates("AWS-LC's key keeps only its encoding: every call re-checks, re-hashes and unpacks it"),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Deviates("AWS-LC's key keeps no expanded form: the matrix A is expanded on every sign and verify"),
    },
    Declared {
        kinds: &["ml-dsa", "slh-dsa"],
        ops: &[Op::KeygenEncode],
        note: NotOffered("no timed signature keygen with export through AWS-LC's API here"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    crate::openssl::create_built("aws-lc", &cryptospeed_variants::cmake::AWS_LC, options)
}
