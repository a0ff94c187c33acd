//! `boringssl`: Google's BoringSSL (Chrome, Android, Cloudflare) through its libcrypto, with the
//! EVP calls `openssl speed` makes where BoringSSL has them and its own `EVP_AEAD` where it offers
//! an AEAD only there (ChaCha20-Poly1305), and its own non-EVP `mlkem.h`/`mldsa.h` for ML-KEM and
//! ML-DSA (pq.rs, dsa.rs; SLH-DSA slh.rs; X25519MLKEM768 composed from its ML-KEM-768 and
//! X25519 as for any library of the family, crate::hybrid_kem), over the EVP layer the
//! family shares (crate::evp). Built with cmake from the tree the `boring-sys` crate
//! carries (cryptospeed_variants::cmake), together with its `bssl_bench`, the oracle these
//! figures are checked against (tests/boringssl_family.rs, docs/PERFORMANCE.md). Its own worker
//! process keeps its symbols away from OpenSSL's. `boringssl:PATH` loads another build.

mod dsa;
pub(crate) mod pq;
mod slh;

use crate::declared::{Conformance::*, Declared, State::*};
use crate::evp::ffi::Api;
use crate::evp::pq_calls::{kem_box, sig_box, AnyKem, AnySig, PqBackend};
use crate::suite::Res;
use crate::ImplOptions;
use cryptospeed_catalog::{Algorithm, Primitive};
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;

/// Where this column's timed calls depart from the catalog's definitions (declared.rs), against
/// version 2 of the post-quantum ones: its key objects hold Â (the norm for ML-KEM) and its
/// ML-DSA expands Â per call (the norm for ML-DSA); X25519MLKEM768 carries its ML-KEM-768 half's.
/// `openssl:PATH` loading a BoringSSL build gets these too (declared.rs `for_variant`).
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["ml-kem"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic], "BoringSSL's keygen always writes the encoded public key (its API has no other call)"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::KeygenEncode],
        note: Departs(&[SeedForm], "the ML-KEM private key is written as its 64-byte seed (BoringSSL's only private encoding)"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::DecapsParse],
        note: Departs(&[SeedForm], "parses the 64-byte ML-KEM seed: the key pair is re-derived (BoringSSL has no expanded-key parser)"),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic], "BoringSSL's MLDSA*_generate_key always writes the encoded public key"),
    },
    Declared {
        kinds: &["slh-dsa"],
        ops: &[Op::Keygen],
        note: Departs(&[EncodesPublic, EncodesPrivate], "BoringSSL's SLH-DSA keys are their FIPS 205 encodings: keygen writes both"),
    },
    Declared {
        kinds: &["ml-dsa", "slh-dsa"],
        ops: &[Op::KeygenEncode],
        note: NotOffered("no timed signature keygen with export through BoringSSL's API here"),
    },
];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    crate::evp::create_built(
        "boringssl",
        &cryptospeed_variants::cmake::BORINGSSL,
        options,
        crate::PQ_BACKENDS,
    )
}

/// BoringSSL's own post-quantum calls, for a libcrypto of the BoringSSL family (`None` for any
/// other). Its reason for a primitive it lacks stands alone, without EVP's.
pub(crate) struct Pq;

impl PqBackend for Pq {
    fn kem<'a>(&self, api: &'a Api, p: &Primitive, _evp: &str) -> Res<Option<AnyKem<'a>>> {
        pq::Kem::new(api, p).map(|k| k.map(kem_box))
    }

    fn sig<'a>(&self, api: &'a Api, p: &Primitive, _evp: &str) -> Res<Option<AnySig<'a>>> {
        if matches!(p.algorithm, Algorithm::SlhDsa { .. }) {
            slh::Slh::new(api, p).map(|s| s.map(sig_box))
        } else {
            dsa::Dsa::new(api, p).map(|d| d.map(sig_box))
        }
    }
}
