//! The bytes each flight of a libssl column's handshake wrote, counted from its memory BIOs:
//! one libssl per process (OpenSSL, BoringSSL and AWS-LC define the same symbols), so each
//! library is counted by its own run of this example.
//!
//! `cargo run -p cryptospeed-impls --example libssl_flights -- LIBCRYPTO CELL...`

use cryptospeed_catalog::lookup;
use cryptospeed_impls::tls::libssl::checked_flights;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let library = args
        .next()
        .ok_or("usage: libssl_flights LIBCRYPTO CELL...")?;
    for id in args {
        let p = lookup(&id).ok_or(format!("no cell {id}"))?;
        let f = checked_flights(&library, p)?;
        let total: usize = f.iter().sum();
        println!("{id}: bytes per flight {f:?}, total {total}");
    }
    Ok(())
}
