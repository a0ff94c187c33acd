//! `boringssl`: Google's BoringSSL (Chrome, Android, Cloudflare) through its libcrypto, with the
//! EVP calls `openssl speed` makes where BoringSSL has them and its own `EVP_AEAD` where it offers
//! an AEAD only there (ChaCha20-Poly1305), and its own non-EVP `mlkem.h`/`mldsa.h` for ML-KEM and
//! ML-DSA (openssl/bssl_pq.rs). Built with cmake from the tree the `boring-sys` crate
//! carries (cryptospeed_variants::cmake), together with its `bssl_bench`, the oracle these
//! figures are checked against (tests/boringssl_family.rs, docs/PERFORMANCE.md). Its own worker
//! process keeps its symbols away from OpenSSL's. `boringssl:PATH` loads another build.

use crate::ImplOptions;
use cryptospeed_engine::Implementation;

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    crate::openssl::create_built(
        "boringssl",
        &cryptospeed_variants::cmake::BORINGSSL,
        options,
    )
}
