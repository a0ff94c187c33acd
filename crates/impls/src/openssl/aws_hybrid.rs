//! X25519MLKEM768 in the aws-lc column: AWS-LC's libcrypto has no hybrid KEM (its libssl composes
//! the TLS key share itself), so it is composed here the same way from AWS-LC's own parts: its
//! ML-KEM-768 through aws_pq.rs's EVP_PKEY_KEM calls and its X25519 through BoringSSL's
//! `X25519_keypair`, `X25519_public_from_private` and `X25519`. Layout and work per operation as in
//! the catalog's hybrid.rs (ML-KEM's part first; secret = ML-KEM ‖ X25519). All three published
//! vectors run through these calls: the ML-KEM part derandomised by AWS-LC's deterministic entry
//! points, the X25519 part from the vectors' private keys.
#![allow(non_snake_case)]

use super::aws_pq::Kem;
use super::ffi::Api;
use super::pq::Owned;
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_DK, MLKEM768_EK, MLKEM_SEED};
use cryptospeed_catalog::{unhex, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Timed};
use cryptospeed_model::Op;
use std::os::raw::c_int;

type Res<T> = Result<T, String>;

crate::dynamic_api! {
    X25519Api, "libcrypto with BoringSSL's X25519 calls";
    required {
        X25519_keypair: fn(*mut u8, *mut u8);
        X25519_public_from_private: fn(*mut u8, *const u8);
        X25519: fn(*mut u8, *const u8, *const u8) -> c_int;
    }
    optional {}
}

/// ML-KEM-768 and X25519 of one AWS-LC.
pub struct Hybrid<'a> {
    kem: Kem<'a>,
    x: X25519Api,
}

fn x32(bytes: &[u8]) -> Res<[u8; 32]> {
    bytes
        .try_into()
        .map_err(|_| format!("an X25519 key is 32 bytes, not {}", bytes.len()))
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

    /// An X25519 key pair (public, private): of `private`, or fresh.
    fn x_pair(&self, private: Option<&[u8]>) -> Res<([u8; 32], [u8; 32])> {
        let (mut public, mut own) = ([0u8; 32], [0u8; 32]);
        match private {
            // SAFETY: 32-byte buffers, as the prototypes ask.
            Some(k) => unsafe {
                own = x32(k)?;
                (self.x.X25519_public_from_private)(public.as_mut_ptr(), own.as_ptr());
            },
            // SAFETY: as above.
            None => unsafe { (self.x.X25519_keypair)(public.as_mut_ptr(), own.as_mut_ptr()) },
        }
        Ok((public, own))
    }

    fn x_shared(&self, private: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> Res<()> {
        let peer = x32(peer)?;
        // SAFETY: 32-byte buffers; X25519 returns 0 for a low-order peer key.
        match unsafe { (self.x.X25519)(out.as_mut_ptr(), private.as_ptr(), peer.as_ptr()) } {
            1 => Ok(()),
            _ => Err(format!("{}'s X25519 rejected the peer key", self.x.path)),
        }
    }

    /// (share, private key) of a 96-byte seed d ‖ z ‖ X25519 private key, or fresh.
    fn pair(&self, seed: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (ek, dk) = self
            .kem
            .encodings(seed.map(|s| &s[..MLKEM_SEED.min(s.len())]))?;
        let (xpub, xpriv) = self.x_pair(seed.map(|s| &s[MLKEM_SEED.min(s.len())..]))?;
        Ok(([ek, xpub.to_vec()].concat(), [dk, xpriv.to_vec()].concat()))
    }

    /// The server's reply to `ek`; `m` (m ‖ ephemeral X25519 private key) derandomises it.
    fn encaps(&self, ek: &[u8], m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        if ek.len() != MLKEM768_EK + 32 || m.is_some_and(|m| m.len() != 64) {
            return Err("a hybrid share is 1216 bytes and its message 64".into());
        }
        let (ctx, _key) = self.kem.encaps_ctx(&ek[..MLKEM768_EK])?;
        let (c, k) = self.kem.encapsulate(&ctx, m.map(|m| &m[..32]))?;
        let (epub, epriv) = self.x_pair(m.map(|m| &m[32..]))?;
        let mut ss = [0u8; 32];
        self.x_shared(&epriv, &ek[MLKEM768_EK..], &mut ss)?;
        Ok(([c, epub.to_vec()].concat(), [k, ss.to_vec()].concat()))
    }

    /// The client's finish: the secret of ciphertext `c` under private key `dk`.
    fn decaps(&self, dk: &[u8], c: &[u8]) -> Res<Vec<u8>> {
        if dk.len() != MLKEM768_DK + 32 || c.len() != MLKEM768_CT + 32 {
            return Err("a hybrid private key is 2432 bytes and its ciphertext 1120".into());
        }
        let (ctx, _key) = self.kem.decaps_ctx(&dk[..MLKEM768_DK])?;
        let k = self.kem.decapsulate(&ctx, &c[..MLKEM768_CT])?;
        let mut ss = [0u8; 32];
        self.x_shared(&x32(&dk[MLKEM768_DK..])?, &c[MLKEM768_CT..], &mut ss)?;
        Ok([k, ss.to_vec()].concat())
    }

    /// Runs one of the hybrid's vectors through the calls above.
    pub fn known_answer(&self, kat: &Kat) -> Res<()> {
        let same = |what: &str, got: Vec<u8>, want: &str| {
            let want = unhex(want);
            (got == want).then_some(()).ok_or_else(|| {
                format!(
                    "{what}: got {}, want {}",
                    hex::encode(&got),
                    hex::encode(&want)
                )
            })
        };
        match *kat {
            Kat::KemKeygen { d, z, ek, .. } => same(
                "share",
                self.pair(Some(&[unhex(d), unhex(z)].concat()))?.0,
                ek,
            ),
            Kat::KemEncaps { ek, m, c, k, .. } => {
                let (got_c, got_k) = self.encaps(&unhex(ek), Some(&unhex(m)))?;
                same("ciphertext", got_c, c)?;
                same("shared secret", got_k, k)
            }
            Kat::KemDecaps { dk, c, k, .. } => {
                same("shared secret", self.decaps(&unhex(dk), &unhex(c))?, k)
            }
            ref other => Err(format!("vector {other:?} does not fit a KEM")),
        }
    }

    /// Encapsulates to the agreement seed's key: the ciphertext, and the secret as `public`.
    pub fn agree(&self, seed: &[u8]) -> Res<AgreementOutput> {
        let (output, public) = self.encaps(&self.pair(Some(seed))?.0, None)?;
        Ok(AgreementOutput { output, public })
    }

    /// Whether decapsulating another library's ciphertext with the seed's key gives its secret.
    pub fn decapsulates_to(&self, seed: &[u8], secret: &[u8], c: &[u8]) -> Res<bool> {
        Ok(self.decaps(&self.pair(Some(seed))?.1, c)? == secret)
    }

    /// The timed loop of `op`, its keys made and parsed before timing.
    pub fn prepare(self, op: Op) -> Res<Box<dyn Timed + 'a>> {
        let (ek, dk) = self.pair(None)?;
        let (c, _) = self.encaps(&ek, None)?;
        let peer = x32(&ek[MLKEM768_EK..])?;
        let (xpriv, epub) = (x32(&dk[MLKEM768_DK..])?, x32(&c[MLKEM768_CT..])?);
        let ctx = match op {
            Op::Keygen => self.kem.keygen_ctx()?,
            Op::Encaps => self.kem.encaps_ctx(&ek[..MLKEM768_EK])?.0,
            Op::Decaps => self.kem.decaps_ctx(&dk[..MLKEM768_DK])?.0,
            other => return Err(format!("a KEM has no {other} operation")),
        };
        Ok(Box::new(HybridLoop {
            ctx,
            op,
            c: c[..MLKEM768_CT].to_vec(),
            buf: vec![0; 1568],
            k: vec![0; 32],
            peer,
            xpriv,
            epub,
            h: self,
        }))
    }
}

// Fields drop in order: the context before the table that frees it.
struct HybridLoop<'a> {
    ctx: Owned<'a>,
    op: Op,
    /// The ML-KEM ciphertext decapsulated, and where encapsulation writes (nothing allocated).
    c: Vec<u8>,
    buf: Vec<u8>,
    k: Vec<u8>,
    peer: [u8; 32],
    xpriv: [u8; 32],
    epub: [u8; 32],
    h: Hybrid<'a>,
}

impl HybridLoop<'_> {
    fn once(&mut self) -> Res<()> {
        let mut ss = [0u8; 32];
        match self.op {
            Op::Keygen => {
                drop(self.h.kem.generate(&self.ctx)?);
                std::hint::black_box(self.h.x_pair(None)?);
            }
            Op::Encaps => {
                let kem = &self.h.kem;
                kem.encapsulate_into(&self.ctx, None, &mut self.buf, &mut self.k)?;
                let (epub, epriv) = self.h.x_pair(None)?;
                self.h.x_shared(&epriv, &self.peer, &mut ss)?;
                std::hint::black_box(epub);
            }
            _ => {
                self.h
                    .kem
                    .decapsulate_into(&self.ctx, &self.c, &mut self.k)?;
                self.h.x_shared(&self.xpriv, &self.epub, &mut ss)?;
            }
        }
        std::hint::black_box(ss);
        Ok(())
    }
}

impl Timed for HybridLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            self.once()?;
        }
        Ok(())
    }
}
