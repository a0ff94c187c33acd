//! `aws-lc`: AWS-LC through its whole OpenSSL-compatible libcrypto, so every primitive AWS-LC
//! has is measured (legacy ones included) with the EVP calls `openssl speed` makes. The library is
//! built with cmake from the tree the `aws-lc-sys` crate carries, as a shared libcrypto without
//! a symbol prefix (cryptospeed_variants::cmake), and driven by the `openssl` module (crate::openssl),
//! which falls back to the 1.1.1-style calls where AWS-LC lacks OpenSSL 3's. Its own worker
//! process keeps its symbols away from OpenSSL's. `aws-lc:PATH` loads another build.

use crate::ImplOptions;
use cryptospeed_engine::Implementation;

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    crate::openssl::create_built("aws-lc", &cryptospeed_variants::cmake::AWS_LC, options)
}
