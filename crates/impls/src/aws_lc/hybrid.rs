//! X25519MLKEM768 in the aws-lc column: AWS-LC's libcrypto has no hybrid KEM (its libssl composes
//! the TLS key share itself), so it is composed here the same way from AWS-LC's own parts: its
//! ML-KEM-768 through pq.rs's EVP_PKEY_KEM calls and its X25519 through BoringSSL's
//! `X25519_keypair`, `X25519_public_from_private` and `X25519`. Layout and work per operation as in
//! the catalog's hybrid.rs (ML-KEM's part first; secret = ML-KEM ‖ X25519). All three published
//! vectors run through these calls: the ML-KEM part derandomised by AWS-LC's deterministic entry
//! points, the X25519 part from the vectors' private keys.

use super::pq::Kem;
use crate::evp::ffi::Api;
use crate::evp::pq_calls::KemCalls;
use crate::evp::x25519::{split, x32, X25519Api};
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_DK, MLKEM768_EK, MLKEM_SEED};
use cryptospeed_catalog::Primitive;

/// ML-KEM-768 and X25519 of one AWS-LC.
pub struct Hybrid<'a> {
    kem: Kem<'a>,
    x: X25519Api,
}

impl<'a> Hybrid<'a> {
    /// The hybrid in the libcrypto behind `api`; `None` for a library without AWS-LC's calls.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Hybrid<'a>>> {
        let Some(kem) = Kem::new(api, p)? else {
            return Ok(None);
        };
        Ok(Some(Hybrid {
            kem,
            x: X25519Api::load(&api.path)?,
        }))
    }

    /// (share, private key) of a 96-byte seed d ‖ z ‖ X25519 private key, or fresh.
    fn pair(&self, seed: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (ek, dk) = self
            .kem
            .encodings(seed.map(|s| &s[..MLKEM_SEED.min(s.len())]))?;
        let (xpub, xpriv) = self.x.pair(
            seed.map(|s| x32(&s[MLKEM_SEED.min(s.len())..]))
                .transpose()?,
        );
        Ok(([ek, xpub.to_vec()].concat(), [dk, xpriv.to_vec()].concat()))
    }

    /// The server's reply to `ek`; `m` (m ‖ ephemeral X25519 private key) derandomises it.
    fn encaps_once(&self, ek: &[u8], m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        if ek.len() != MLKEM768_EK + 32 || m.is_some_and(|m| m.len() != 64) {
            return Err("a hybrid share is 1216 bytes and its message 64".into());
        }
        let (ctx, _key) = self.kem.encaps_ctx(&ek[..MLKEM768_EK])?;
        let (c, k) = self.kem.encapsulate(&ctx, m.map(|m| &m[..32]))?;
        let (epub, epriv) = self.x.pair(m.map(|m| x32(&m[32..])).transpose()?);
        let mut ss = [0u8; 32];
        self.x.shared(&epriv, &x32(&ek[MLKEM768_EK..])?, &mut ss)?;
        Ok(([c, epub.to_vec()].concat(), [k, ss.to_vec()].concat()))
    }

    /// The client's finish: the secret of ciphertext `c` under private key `dk`.
    fn decaps_once(&self, dk: &[u8], c: &[u8]) -> Res<Vec<u8>> {
        if dk.len() != MLKEM768_DK + 32 || c.len() != MLKEM768_CT + 32 {
            return Err("a hybrid private key is 2432 bytes and its ciphertext 1120".into());
        }
        let (ctx, _key) = self.kem.decaps_ctx(&dk[..MLKEM768_DK])?;
        let k = self.kem.decapsulate(&ctx, &c[..MLKEM768_CT])?;
        let mut ss = [0u8; 32];
        let (xpriv, epub) = (x32(&dk[MLKEM768_DK..])?, x32(&c[MLKEM768_CT..])?);
        self.x.shared(&xpriv, &epub, &mut ss)?;
        Ok([k, ss.to_vec()].concat())
    }
}

impl<'a> KemCalls<'a> for Hybrid<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        let seed = seed.map(<[u8]>::to_vec);
        Ok(Box::new(move || self.pair(seed.as_deref())))
    }

    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        let (ek, m) = (ek.to_vec(), m.map(<[u8]>::to_vec));
        Ok(Box::new(move || self.encaps_once(&ek, m.as_deref())))
    }

    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        let dk = dk.to_vec();
        Ok(Box::new(move |c| self.decaps_once(&dk, c)))
    }

    /// ML-KEM-768's `EVP_PKEY_keygen` and `X25519_keypair`.
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.kem.keygen_ctx()?;
        Ok(Box::new(move || {
            drop(self.kem.generate(&ctx)?);
            std::hint::black_box(self.x.pair(None));
            Ok(())
        }))
    }

    /// Encapsulation to the share's ML-KEM key imported before timing, a fresh X25519 key pair
    /// and its agreement with the share's X25519 key.
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let (ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let keep = self.kem.encaps_ctx(&ek)?;
        let (mut c, mut k, mut ss) = (vec![0u8; 1568], vec![0u8; 32], [0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            self.kem.encapsulate_into(ctx, None, &mut c, &mut k)?;
            let (epub, epriv) = self.x.pair(None);
            self.x.shared(&epriv, &peer, &mut ss)?;
            std::hint::black_box((epub, ss));
            Ok(())
        }))
    }

    /// ML-KEM-768 decapsulation with the key imported before timing, and X25519.
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (dk, xpriv) = split(dk, MLKEM768_DK, "private key")?;
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let keep = self.kem.decaps_ctx(&dk)?;
        let (mut k, mut ss) = (vec![0u8; 32], [0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            self.kem.decapsulate_into(ctx, &c, &mut k)?;
            self.x.shared(&xpriv, &epub, &mut ss)?;
            std::hint::black_box(ss);
            Ok(())
        }))
    }

    /// ML-KEM-768's `EVP_PKEY_keygen` on one context made here, both FIPS 203 encodings written
    /// into buffers kept here, and `X25519_keypair`: no context or buffer made per call.
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.kem.keygen_ctx()?;
        let (mut ek, mut dk) = (vec![0u8; 8192], vec![0u8; 8192]);
        Ok(Box::new(move || {
            let lens = self.kem.generate_encoded_into(&ctx, &mut ek, &mut dk)?;
            std::hint::black_box((lens, self.x.pair(None)));
            Ok(())
        }))
    }

    /// The share's ML-KEM key imported (`EVP_PKEY_kem_new_raw_public_key` and a context for it:
    /// AWS-LC encapsulates only through a key's context) and its X25519 key read in every call,
    /// then encaps as `encaps_timed`, into buffers kept here.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        split(ek, MLKEM768_EK, "share")?;
        let ek = ek.to_vec();
        let (mut c, mut k, mut ss) = (vec![0u8; 1568], vec![0u8; 32], [0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.kem.encaps_ctx(&ek[..MLKEM768_EK])?;
            self.kem.encapsulate_into(&ctx, None, &mut c, &mut k)?;
            let (epub, epriv) = self.x.pair(None);
            self.x.shared(&epriv, &x32(&ek[MLKEM768_EK..])?, &mut ss)?;
            std::hint::black_box((epub, ss));
            Ok(())
        }))
    }

    /// The private part imported (`EVP_PKEY_kem_new_raw_secret_key` and a context for it, the
    /// X25519 key read) in every call, then decaps as `decaps_timed`, into buffers kept here.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        split(dk, MLKEM768_DK, "private key")?;
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let (dk, mut k, mut ss) = (dk.to_vec(), vec![0u8; 32], [0u8; 32]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.kem.decaps_ctx(&dk[..MLKEM768_DK])?;
            self.kem.decapsulate_into(&ctx, &c, &mut k)?;
            self.x.shared(&x32(&dk[MLKEM768_DK..])?, &epub, &mut ss)?;
            std::hint::black_box(ss);
            Ok(())
        }))
    }
}
