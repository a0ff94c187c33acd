//! `aws-lc`: AWS-LC through its whole OpenSSL-compatible libcrypto, so every primitive AWS-LC
//! has is measured (legacy ones included) with the EVP calls `openssl speed` makes. The library is
//! built with cmake from the tree the `aws-lc-sys` crate carries, as a shared libcrypto without
//! a symbol prefix (cryptospeed_variants::cmake), and driven by the EVP layer the family shares
//! (crate::evp), which falls back to the 1.1.1-style calls where AWS-LC lacks OpenSSL 3's.
//! ML-KEM and ML-DSA go through AWS-LC's own EVP calls (pq.rs), X25519MLKEM768 is composed from
//! its ML-KEM-768 and X25519 as for any library of the family (crate::hybrid_kem). Its own worker
//! process keeps its symbols away from OpenSSL's. `aws-lc:PATH` loads another build.

mod pq;

use crate::declared::{Conformance::*, Declared, State::*};
use crate::evp::ffi::Api;
use crate::evp::pq_calls::{kem_box, sig_box, AnyKem, AnySig, PqBackend};
use crate::suite::Res;
use crate::ImplOptions;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;

/// Where this column's timed calls depart from the catalog's definitions (declared.rs), against
/// version 2 of the post-quantum ones; X25519MLKEM768 (crate::hybrid_kem) carries its ML-KEM-768
/// half's.
/// `openssl:PATH` loading an AWS-LC build gets these too (declared.rs `for_variant`).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic, EncodesPrivate], "AWS-LC's KEM key is its two FIPS 203 encodings: keygen writes both"),
    },
    Declared {
        kinds: &["hybrid-kem"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPrivate], "AWS-LC's ML-KEM key is its two FIPS 203 encodings: keygen also writes the expanded decapsulation key"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Departs(&[ParsedPerCall, ExpandedPerCall], "AWS-LC's key keeps only its encoding: every call re-checks, re-hashes and unpacks it, Â expanded"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::EncapsParse, Op::DecapsParse],
        note: Departs(&[ContextPerKey], "AWS-LC's API needs an EVP_PKEY_CTX per imported key, so one is made in every call"),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic, EncodesPrivate], "AWS-LC's ML-DSA key is its encodings: keygen writes both"),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::VerifyParse],
        note: Departs(&[ContextPerKey], "AWS-LC verifies through an EVP_MD_CTX made for the imported key, so one is made in every call"),
    },
    Declared {
        kinds: &["ml-dsa", "slh-dsa"],
        ops: &[Op::KeygenEncode],
        note: NotOffered("no timed signature keygen with export through AWS-LC's API here"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    crate::evp::create_built(
        "aws-lc",
        &cryptospeed_variants::cmake::AWS_LC,
        options,
        crate::PQ_BACKENDS,
    )
}

/// AWS-LC's own post-quantum calls, for a libcrypto with them (`None` for any other).
pub(crate) struct Pq;

impl PqBackend for Pq {
    fn kem<'a>(&self, api: &'a Api, p: &Primitive, evp: &str) -> Res<Option<AnyKem<'a>>> {
        pq::Kem::new(api, p)
            .map(|k| k.map(kem_box))
            .map_err(|e2| format!("{evp}; nor through AWS-LC's ML-KEM API: {e2}"))
    }

    fn sig<'a>(&self, api: &'a Api, p: &Primitive, evp: &str) -> Res<Option<AnySig<'a>>> {
        pq::Dsa::new(api, p)
            .map(|d| d.map(sig_box))
            .map_err(|e2| format!("{evp}; nor through AWS-LC's ML-DSA API: {e2}"))
    }
}
