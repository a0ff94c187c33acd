//! X25519MLKEM768 composed from a library's ML-KEM-768 and X25519, for columns whose library has
//! no hybrid of its own (rustcrypto): exactly what TLS 1.3 does with the two
//! (draft-ietf-tls-ecdhe-mlkem), in the same layout as OpenSSL 3.5's native hybrid. Keys and
//! ciphertexts put ML-KEM's part first, then X25519's 32 bytes; the secret is ML-KEM's ‖ X25519's.
//! Seeds: d ‖ z ‖ X25519 private key; the derandomising message: m ‖ the ephemeral X25519 private key.

use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, Res};
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_DK, MLKEM768_EK, MLKEM_SEED};

/// A library's X25519: the (public, private) key pair of a private key, or of a fresh one.
pub type XKeypair = Box<dyn FnMut(Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)>>;
/// A library's X25519 agreement: (own private key, peer public key) -> shared secret.
pub type XShared = Box<dyn FnMut(&[u8], &[u8]) -> Res<Vec<u8>>>;

fn split(bytes: &[u8], at: usize, what: &str) -> Res<(Vec<u8>, Vec<u8>)> {
    if bytes.len() != at + 32 {
        return Err(format!(
            "a hybrid {what} is {} bytes, not {}",
            at + 32,
            bytes.len()
        ));
    }
    Ok((bytes[..at].to_vec(), bytes[at..].to_vec()))
}

/// The client's key share: ML-KEM-768's key pair (from `mlkem`), then X25519's.
pub fn keygen(
    mlkem: impl FnOnce(Option<&[u8]>) -> Res<KemKeygenFn<'static>>,
    mut x: XKeypair,
    seed: Option<&[u8]>,
) -> Res<KemKeygenFn<'static>> {
    let parts = seed.map(|s| split(s, MLKEM_SEED, "seed")).transpose()?;
    let mut ml = mlkem(parts.as_ref().map(|p| &p.0[..]))?;
    Ok(Box::new(move || {
        let (ek, dk) = ml()?;
        let (xpub, xpriv) = x(parts.as_ref().map(|p| &p.1[..]))?;
        Ok(([ek, xpub].concat(), [dk, xpriv].concat()))
    }))
}

/// The server's reply to share `ek`: ML-KEM-768 encapsulation, a fresh X25519 key pair (or the
/// one of `m`'s last 32 bytes) and its agreement with the share's X25519 key.
pub fn encaps(
    mlkem: impl FnOnce(&[u8], Option<&[u8]>) -> Res<EncapsFn<'static>>,
    mut x: XKeypair,
    mut shared: XShared,
    ek: &[u8],
    m: Option<&[u8]>,
) -> Res<EncapsFn<'static>> {
    let (ek, peer) = split(ek, MLKEM768_EK, "encapsulation key")?;
    let m = m
        .map(|m| split(m, 32, "encapsulation message"))
        .transpose()?;
    let mut ml = mlkem(&ek, m.as_ref().map(|m| &m.0[..]))?;
    Ok(Box::new(move || {
        let (c, k) = ml()?;
        let (epub, epriv) = x(m.as_ref().map(|m| &m.1[..]))?;
        let ss = shared(&epriv, &peer)?;
        Ok(([c, epub].concat(), [k, ss].concat()))
    }))
}

/// The client's finish: ML-KEM-768 decapsulation, and X25519 with the server's public key.
pub fn decaps(
    mlkem: impl FnOnce(&[u8]) -> Res<DecapsFn<'static>>,
    mut shared: XShared,
    dk: &[u8],
) -> Res<DecapsFn<'static>> {
    let (dk, xpriv) = split(dk, MLKEM768_DK, "decapsulation key")?;
    let mut ml = mlkem(&dk)?;
    Ok(Box::new(move |c| {
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        Ok([ml(&c)?, shared(&xpriv, &epub)?].concat())
    }))
}
