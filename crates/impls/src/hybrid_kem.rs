//! X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem) composed from any column's ML-KEM-768 and an
//! X25519, written once for every library without a hybrid of its own: the OpenSSL family's
//! (crate::evp::pq_suite composes it from whichever backend serves ML-KEM-768 there, AWS-LC's,
//! BoringSSL's or a library yet to come, with the library's own X25519) and rustcrypto's
//! (x25519-dalek). Each operation is the ML-KEM-768 half's calls of the same operation (its
//! timed closures, so what its column declares) plus X25519's work, so a column's hybrid times
//! what its ML-KEM-768 times and carries its declarations (crate::declared's tests).
//!
//! Layout as the draft has it for X25519MLKEM768 (ML-KEM first, unlike SecP256r1MLKEM768):
//! share = ek ‖ X25519 public key, ciphertext = ML-KEM ciphertext ‖ X25519 public key, secret =
//! ML-KEM secret ‖ X25519 secret. Seeds: d ‖ z ‖ X25519 private key; the derandomising message:
//! m ‖ the ephemeral X25519 private key.

use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res, Suite};
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_EK, MLKEM_SEED, X25519_LEN};
use cryptospeed_catalog::Primitive;
use std::hint::black_box;

/// A library's X25519 as the hybrid uses it: keys as 32-byte arrays, nothing allocated.
pub trait X25519 {
    /// (public, private): the pair of `private`, or a fresh one from the library's generator.
    fn pair(&self, private: Option<&[u8; 32]>) -> ([u8; 32], [u8; 32]);
    /// The agreement of `private` with `peer` into `out`; an error for a low-order peer.
    fn shared(&self, private: &[u8; 32], peer: &[u8; 32], out: &mut [u8; 32]) -> Res<()>;
}

/// ML-KEM-768, the hybrid's half, as the catalog has it.
pub fn half() -> &'static Primitive {
    cryptospeed_catalog::lookup("ml-kem-768").expect("the catalog has ML-KEM-768")
}

/// `bytes` split into its ML-KEM part (`at` bytes) and its last 32 bytes (X25519's).
fn split<'b>(bytes: &'b [u8], at: usize, what: &str) -> Res<(&'b [u8], [u8; 32])> {
    if bytes.len() != at + X25519_LEN {
        return Err(format!(
            "a hybrid {what} is {} bytes, not {}",
            at + X25519_LEN,
            bytes.len()
        ));
    }
    let (ml, x) = bytes.split_at(at);
    Ok((ml, x_part(x)))
}

/// The private part: the ML-KEM key in the form the half's keygen wrote it (the expanded key,
/// or the seed d ‖ z where the library keeps no other), then the X25519 private key.
fn split_private(dk: &[u8]) -> Res<(&[u8], [u8; 32])> {
    if dk.len() <= X25519_LEN {
        return Err(format!("a hybrid private key of {} bytes", dk.len()));
    }
    split(dk, dk.len() - X25519_LEN, "private key")
}

/// The X25519 part of a share, reply or private part: its last 32 bytes, read.
fn x_part(bytes: &[u8]) -> [u8; 32] {
    let mut x = [0u8; 32];
    x.copy_from_slice(&bytes[bytes.len() - X25519_LEN..]);
    x
}

/// One column's hybrid: its suite's ML-KEM-768 calls and its X25519.
#[derive(Clone, Copy)]
pub struct Hybrid<'s> {
    pub half: &'s dyn Suite,
    pub x: &'s dyn X25519,
}

impl<'s> Hybrid<'s> {
    /// The client's share and private part: of a seed d ‖ z ‖ X25519 private key, or fresh.
    pub fn keygen(self, seed: Option<&[u8]>) -> Res<KemKeygenFn<'s>> {
        let seed = seed.map(|s| split(s, MLKEM_SEED, "seed")).transpose()?;
        let mut ml = self.half.kem_keygen(half(), seed.map(|s| s.0))?;
        let own = seed.map(|s| s.1);
        Ok(Box::new(move || {
            let (ek, dk) = ml()?;
            let (xpub, xpriv) = self.x.pair(own.as_ref());
            Ok(([&ek[..], &xpub].concat(), [&dk[..], &xpriv].concat()))
        }))
    }

    /// The server's reply to share `ek`; `m` (m ‖ ephemeral X25519 private key) derandomises it.
    pub fn encaps(self, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'s>> {
        let (ml_ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let m = m.map(|m| split(m, 32, "message")).transpose()?;
        let mut ml = self.half.kem_encaps(half(), ml_ek, m.map(|m| m.0))?;
        let own = m.map(|m| m.1);
        Ok(Box::new(move || {
            let (c, k) = ml()?;
            let (epub, epriv) = self.x.pair(own.as_ref());
            let mut ss = [0u8; 32];
            self.x.shared(&epriv, &peer, &mut ss)?;
            Ok(([&c[..], &epub].concat(), [&k[..], &ss].concat()))
        }))
    }

    /// The client's finish: the secret of a reply, with private part `dk`.
    pub fn decaps(self, dk: &[u8]) -> Res<DecapsFn<'s>> {
        let (ml_dk, xpriv) = split_private(dk)?;
        let mut ml = self.half.kem_decaps(half(), ml_dk)?;
        Ok(Box::new(move |c| {
            let (ml_c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
            let k = ml(ml_c)?;
            let mut ss = [0u8; 32];
            self.x.shared(&xpriv, &epub, &mut ss)?;
            Ok([&k[..], &ss].concat())
        }))
    }

    /// The half's key generation with its encapsulation key written (the share's ML-KEM part:
    /// [`Suite::kem_keygen_share_timed`]) and a fresh X25519 pair (the share's other part).
    pub fn keygen_timed(self) -> Res<OpFn<'s>> {
        self.with_pair(self.half.kem_keygen_share_timed(half())?)
    }

    /// The half's `keygen+encode` and a fresh X25519 pair (both its keys are their bytes).
    pub fn keygen_encode_timed(self) -> Res<OpFn<'s>> {
        self.with_pair(self.half.kem_keygen_encode_timed(half())?)
    }

    fn with_pair(self, mut ml: OpFn<'s>) -> Res<OpFn<'s>> {
        Ok(Box::new(move || {
            ml()?;
            black_box(self.x.pair(None));
            Ok(())
        }))
    }

    /// The half's encapsulation to the share's key (prepared as its column prepares it), then
    /// X25519's reply to the share's X25519 key.
    pub fn encaps_timed(self, ek: &[u8]) -> Res<OpFn<'s>> {
        let (ml_ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let mut ml = self.half.kem_encaps_timed(half(), ml_ek)?;
        Ok(Box::new(move || {
            ml()?;
            self.reply(&peer)
        }))
    }

    /// The half's `encaps+parse` of the share's ML-KEM key, the X25519 key read from the
    /// share's bytes, then X25519's reply.
    pub fn encaps_parse_timed(self, ek: &[u8]) -> Res<OpFn<'s>> {
        let (ml_ek, _) = split(ek, MLKEM768_EK, "share")?;
        let mut ml = self.half.kem_encaps_parse_timed(half(), ml_ek)?;
        let share = ek.to_vec();
        Ok(Box::new(move || {
            ml()?;
            self.reply(&x_part(&share))
        }))
    }

    /// The half's decapsulation of the reply's ML-KEM part, the reply's X25519 key read, and
    /// X25519's agreement.
    pub fn decaps_timed(self, dk: &[u8], c: &[u8]) -> Res<OpFn<'s>> {
        let (ml_dk, xpriv) = split_private(dk)?;
        let (ml_c, _) = split(c, MLKEM768_CT, "ciphertext")?;
        let mut ml = self.half.kem_decaps_timed(half(), ml_dk, ml_c)?;
        let reply = c.to_vec();
        Ok(Box::new(move || {
            ml()?;
            self.finish(&xpriv, &x_part(&reply))
        }))
    }

    /// The half's `decaps+parse`, both X25519 keys read from their bytes, X25519's agreement.
    pub fn decaps_parse_timed(self, dk: &[u8], c: &[u8]) -> Res<OpFn<'s>> {
        let (ml_dk, _) = split_private(dk)?;
        let (ml_c, _) = split(c, MLKEM768_CT, "ciphertext")?;
        let mut ml = self.half.kem_decaps_parse_timed(half(), ml_dk, ml_c)?;
        let (private, reply) = (dk.to_vec(), c.to_vec());
        Ok(Box::new(move || {
            ml()?;
            self.finish(&x_part(&private), &x_part(&reply))
        }))
    }

    /// X25519's part of the server's reply: a fresh pair and its agreement with `peer`.
    fn reply(self, peer: &[u8; 32]) -> Res<()> {
        let (epub, epriv) = self.x.pair(None);
        let mut ss = [0u8; 32];
        self.x.shared(&epriv, peer, &mut ss)?;
        black_box((epub, ss));
        Ok(())
    }

    /// X25519's part of the client's finish.
    fn finish(self, xpriv: &[u8; 32], epub: &[u8; 32]) -> Res<()> {
        let mut ss = [0u8; 32];
        self.x.shared(xpriv, epub, &mut ss)?;
        black_box(ss);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_catalog::{unhex, Kat};

    /// RFC 7748 section 6.1: Alice's key pair, Bob's public key and their shared secret.
    const ALICE_PUB: &str = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
    const BOB_PUB: &str = "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
    const SHARED: &str = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

    /// The combiner puts ML-KEM-768 first, X25519 second, in the share, the reply and the secret
    /// (draft-ietf-tls-ecdhe-mlkem's X25519MLKEM768): the ML-KEM parts are what the ml-kem crate
    /// gives alone, the X25519 parts RFC 7748's published values; and every timed call of the
    /// composition runs on the keys it made.
    #[test]
    fn the_parts_are_in_the_drafts_order_and_the_timed_calls_run() {
        let rc = crate::rustcrypto::RustCrypto;
        let h = crate::rustcrypto::hybrid_of(&rc);
        let hybrid = cryptospeed_catalog::lookup("x25519-mlkem768").unwrap();
        let (mut seed, mut enc) = (None, None);
        for kat in hybrid.kats {
            match *kat {
                Kat::KemKeygen { d, z, .. } => seed = Some(unhex(&format!("{d}{z}"))),
                Kat::KemEncaps { ek, m, .. } => enc = Some((unhex(ek), unhex(m))),
                _ => {}
            }
        }
        let (seed, (ek, m)) = (seed.unwrap(), enc.unwrap());
        // The keygen vector's z field carries z ‖ Alice's private key.
        let (share, dk) = h.keygen(Some(&seed)).unwrap()().unwrap();
        let (ml_ek, _) = rc.kem_keygen(half(), Some(&seed[..64])).unwrap()().unwrap();
        assert_eq!(
            (&share[..MLKEM768_EK], &share[MLKEM768_EK..]),
            (&ml_ek[..], &unhex(ALICE_PUB)[..])
        );
        // Bob's reply to the encapsulation vector's share, m ‖ Bob's private key.
        let (c, k) = h.encaps(&ek, Some(&m)).unwrap()().unwrap();
        let (ml_c, ml_k) = rc
            .kem_encaps(half(), &ek[..MLKEM768_EK], Some(&m[..32]))
            .unwrap()()
        .unwrap();
        assert_eq!(
            (&c[..MLKEM768_CT], &c[MLKEM768_CT..]),
            (&ml_c[..], &unhex(BOB_PUB)[..])
        );
        assert_eq!((&k[..32], &k[32..]), (&ml_k[..], &unhex(SHARED)[..]));
        // A fresh reply to the seeded share decapsulates to its secret, and the timed calls run.
        let (c, k) = h.encaps(&share, None).unwrap()().unwrap();
        assert_eq!(h.decaps(&dk).unwrap()(&c).unwrap(), k);
        let mut timed = [
            h.keygen_timed().unwrap(),
            h.keygen_encode_timed().unwrap(),
            h.encaps_timed(&share).unwrap(),
            h.encaps_parse_timed(&share).unwrap(),
            h.decaps_timed(&dk, &c).unwrap(),
            h.decaps_parse_timed(&dk, &c).unwrap(),
        ];
        for f in &mut timed {
            f().unwrap();
            f().unwrap();
        }
        assert!(h.encaps(&share[1..], None).is_err());
    }
}
