//! X25519MLKEM768 in the boringssl column: BoringSSL composes the TLS key share in libssl
//! (ssl/ssl_key_share.cc, from `MLKEM768_*` and `X25519*`), and its libcrypto has no hybrid of
//! its own, so it is composed here from the same libcrypto calls, as crate::aws_lc::hybrid does for
//! AWS-LC: ML-KEM-768 through pq.rs, X25519 through `X25519_keypair`,
//! `X25519_public_from_private` and `X25519` (crate::evp::x25519). Layout and work per
//! operation as in the catalog's hybrid.rs (ML-KEM's part first; secret = ML-KEM ‖ X25519):
//! keygen `MLKEM768_generate_key` + `X25519_keypair`; encaps `MLKEM768_encap` to a share parsed
//! before timing + `X25519_keypair` + `X25519`; decaps `MLKEM768_decap` + `X25519`. The vectors
//! run with the ML-KEM part derandomised as pq.rs's are (seeded key generation; BCM's
//! external-entropy encapsulation and expanded-key import) and the X25519 part from the vectors'
//! private keys.

use super::pq::{Kem, Opaque};
use crate::evp::ffi::Api;
use crate::evp::pq_calls::KemCalls;
use crate::evp::x25519::{split, X25519Api};
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_DK, MLKEM768_EK, MLKEM_SEED};
use cryptospeed_catalog::Primitive;

/// The ML-KEM part of a decapsulation key as key generation gives it: the seed d ‖ z.
const SEED: usize = MLKEM_SEED;

/// ML-KEM-768 and X25519 of one BoringSSL.
pub struct Hybrid<'a> {
    kem: Kem<'a>,
    x: X25519Api,
}

impl<'a> Hybrid<'a> {
    /// The hybrid in the libcrypto behind `api`; `None` for a library outside the BoringSSL
    /// family.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Hybrid<'a>>> {
        let Some(kem) = Kem::new(api, p)? else {
            return Ok(None);
        };
        Ok(Some(Hybrid {
            kem,
            x: X25519Api::load(&api.path)?,
        }))
    }

    /// The share (ML-KEM-768 encapsulation key ‖ X25519 public key) of a 96-byte seed
    /// d ‖ z ‖ X25519 private key.
    fn share(&self, seed: &[u8]) -> Res<Vec<u8>> {
        let (dz, xpriv) = split(seed, MLKEM_SEED, "seed")?;
        let ek = self
            .kem
            .encapsulation_key(&self.kem.private_from_seed(&dz)?)?;
        let (xpub, _) = self.x.pair(Some(xpriv));
        Ok([ek, xpub.to_vec()].concat())
    }

    /// The server's reply to share `ek`; `m` (m ‖ ephemeral X25519 private key) derandomises it.
    fn encaps_once(&self, ek: &[u8], m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let m = m.map(|m| split(m, 32, "message")).transpose()?;
        let public = self.kem.parse_public(&ek)?;
        let (c, k) = self.kem.encap(&public, m.as_ref().map(|m| &m.0[..]))?;
        let (epub, epriv) = self.x.pair(m.map(|m| m.1));
        let mut ss = [0u8; 32];
        self.x.shared(&epriv, &peer, &mut ss)?;
        Ok(([c, epub.to_vec()].concat(), [k, ss.to_vec()].concat()))
    }

    /// The client's finish: the secret of ciphertext `c`.
    fn decaps_once(&self, private: &Opaque, xpriv: &[u8; 32], c: &[u8]) -> Res<Vec<u8>> {
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let k = self.kem.decap(private, &c)?;
        let mut ss = [0u8; 32];
        self.x.shared(xpriv, &epub, &mut ss)?;
        Ok([k, ss.to_vec()].concat())
    }

    /// The ML-KEM private key struct and X25519 private key of a decapsulation key: the
    /// ML-KEM seed d ‖ z (what key generation gives) or expanded key, then the X25519 key.
    fn private_of(&self, dk: &[u8]) -> Res<(Opaque, [u8; 32])> {
        let at = dk.len().saturating_sub(32);
        if at != SEED && at != MLKEM768_DK {
            return Err(format!(
                "a hybrid private key is {} or {} bytes, not {}",
                SEED + 32,
                MLKEM768_DK + 32,
                dk.len()
            ));
        }
        let (dk, xpriv) = split(dk, at, "private key")?;
        Ok((self.kem.private_of(&dk)?, xpriv))
    }
}

impl<'a> KemCalls<'a> for Hybrid<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        let seed = seed.map(<[u8]>::to_vec);
        Ok(Box::new(move || match &seed {
            Some(seed) => Ok((self.share(seed)?, seed.clone())),
            None => {
                let (ek, dz) = self.kem.generate();
                let (xpub, xpriv) = self.x.pair(None);
                Ok(([ek, xpub.to_vec()].concat(), [dz, xpriv.to_vec()].concat()))
            }
        }))
    }

    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        let (ek, m) = (ek.to_vec(), m.map(<[u8]>::to_vec));
        Ok(Box::new(move || self.encaps_once(&ek, m.as_deref())))
    }

    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        let (private, xpriv) = self.private_of(dk)?;
        Ok(Box::new(move |c| self.decaps_once(&private, &xpriv, c)))
    }

    /// `MLKEM768_generate_key` into buffers kept between calls, and `X25519_keypair`.
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut ek, mut private) = (vec![0u8; MLKEM768_EK], self.kem.new_private());
        Ok(Box::new(move || {
            self.kem.generate_into(&mut ek, &mut private);
            std::hint::black_box((self.x.pair(None), &mut ek));
            Ok(())
        }))
    }

    /// `MLKEM768_encap` to the share's key parsed before timing, `X25519_keypair` and `X25519`.
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let (ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let public = self.kem.parse_public(&ek)?;
        let (mut c, mut k) = (vec![0u8; MLKEM768_CT], [0u8; 32]);
        Ok(Box::new(move || {
            let mut ss = [0u8; 32];
            self.kem.encap_into(&public, &mut c, &mut k);
            let (epub, epriv) = self.x.pair(None);
            self.x.shared(&epriv, &peer, &mut ss)?;
            std::hint::black_box((epub, &mut k, ss));
            Ok(())
        }))
    }

    /// `MLKEM768_decap` with a key made before timing, and `X25519`.
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (private, xpriv) = self.private_of(dk)?;
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let mut k = [0u8; 32];
        Ok(Box::new(move || {
            let mut ss = [0u8; 32];
            self.kem.decap_into(&private, &c, &mut k)?;
            self.x.shared(&xpriv, &epub, &mut ss)?;
            std::hint::black_box((&mut k, ss));
            Ok(())
        }))
    }

    /// `MLKEM768_generate_key` writing the encoded key and the seed, and `X25519_keypair`, into
    /// buffers kept between calls, the key struct too.
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut ek, mut seed) = (vec![0u8; MLKEM768_EK], vec![0u8; SEED]);
        let mut private = self.kem.new_private();
        Ok(Box::new(move || {
            self.kem
                .generate_seed_into(&mut ek, &mut seed, &mut private);
            std::hint::black_box((self.x.pair(None), &mut ek, &mut seed));
            Ok(())
        }))
    }

    /// The share parsed (`MLKEM768_parse_public_key` into a key struct kept between calls, the
    /// X25519 key read) in every call, then encaps as `encaps_timed`.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        split(ek, MLKEM768_EK, "share")?;
        let ek = ek.to_vec();
        let mut public = self.kem.new_public();
        let (mut c, mut k) = (vec![0u8; MLKEM768_CT], [0u8; 32]);
        Ok(Box::new(move || {
            let (mlkem, x) = ek.split_at(MLKEM768_EK);
            let peer = <&[u8; 32]>::try_from(x).map_err(|_| "an X25519 key is 32 bytes")?;
            self.kem.parse_public_into(mlkem, &mut public)?;
            self.kem.encap_into(&public, &mut c, &mut k);
            let (epub, epriv) = self.x.pair(None);
            let mut ss = [0u8; 32];
            self.x.shared(&epriv, peer, &mut ss)?;
            std::hint::black_box((epub, &mut c, &mut k, ss));
            Ok(())
        }))
    }

    /// The private part parsed (the ML-KEM key from its seed into a key struct kept between
    /// calls, the X25519 key read) in every call, then decaps as `decaps_timed`.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        self.private_of(dk)?;
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let (dk, mut k) = (dk.to_vec(), [0u8; 32]);
        let mut private = self.kem.new_private();
        Ok(Box::new(move || {
            let (mlkem, x) = dk.split_at(dk.len() - 32);
            let xpriv = <&[u8; 32]>::try_from(x).map_err(|_| "an X25519 key is 32 bytes")?;
            self.kem.private_into(mlkem, &mut private)?;
            self.kem.decap_into(&private, &c, &mut k)?;
            let mut ss = [0u8; 32];
            self.x.shared(xpriv, &epub, &mut ss)?;
            std::hint::black_box((&mut k, ss));
            Ok(())
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::suite::Suite;

    #[test]
    fn the_from_bytes_calls_run_on_structs_kept_between_calls_and_agree() {
        let (_, p, suite) = super::super::pq::tests::passing("x25519-mlkem768");
        let (ek, dk) = suite.kem_keygen(p, None).unwrap()().unwrap();
        let (c, k) = suite.kem_encaps(p, &ek, None).unwrap()().unwrap();
        assert_eq!(suite.kem_decaps(p, &dk).unwrap()(&c).unwrap(), k);
        let mut keygen = suite.kem_keygen_encode_timed(p).unwrap();
        let mut encaps = suite.kem_encaps_parse_timed(p, &ek).unwrap();
        let mut decaps = suite.kem_decaps_parse_timed(p, &dk, &c).unwrap();
        for _ in 0..3 {
            keygen().unwrap();
            encaps().unwrap();
            decaps().unwrap();
        }
        // The share is parsed inside the timed call: a bad ML-KEM key fails there.
        let mut bad = ek.clone();
        (bad[0], bad[1]) = (0xff, bad[1] | 0x0f);
        let mut encaps = suite.kem_encaps_parse_timed(p, &bad).unwrap();
        assert!(encaps().is_err());
    }
}
