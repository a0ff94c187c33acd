//! X25519MLKEM768 in the boringssl column: BoringSSL composes the TLS key share in libssl
//! (ssl/ssl_key_share.cc, from `MLKEM768_*` and `X25519*`), and its libcrypto has no hybrid of
//! its own, so it is composed here from the same libcrypto calls, as aws_hybrid.rs does for
//! AWS-LC: ML-KEM-768 through bssl_pq.rs, X25519 through `X25519_keypair`,
//! `X25519_public_from_private` and `X25519` (aws_hybrid.rs's table). Layout and work per
//! operation as in the catalog's hybrid.rs (ML-KEM's part first; secret = ML-KEM ‖ X25519):
//! keygen `MLKEM768_generate_key` + `X25519_keypair`; encaps `MLKEM768_encap` to a share parsed
//! before timing + `X25519_keypair` + `X25519`; decaps `MLKEM768_decap` + `X25519`. The vectors
//! run with the ML-KEM part derandomised as bssl_pq.rs's are (seeded key generation; BCM's
//! external-entropy encapsulation and expanded-key import) and the X25519 part from the vectors'
//! private keys.

use super::aws_hybrid::X25519Api;
use super::bssl_pq::{Kem, Opaque};
use super::ffi::Api;
use cryptospeed_catalog::hybrid::{MLKEM768_CT, MLKEM768_DK, MLKEM768_EK, MLKEM_SEED};
use cryptospeed_catalog::{unhex, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Timed};
use cryptospeed_model::Op;

type Res<T> = Result<T, String>;

/// ML-KEM-768 and X25519 of one BoringSSL.
pub struct Hybrid<'a> {
    kem: Kem<'a>,
    x: X25519Api,
}

fn x32(bytes: &[u8]) -> Res<[u8; 32]> {
    bytes
        .try_into()
        .map_err(|_| format!("an X25519 key is 32 bytes, not {}", bytes.len()))
}

fn split(bytes: &[u8], at: usize, what: &str) -> Res<(Vec<u8>, [u8; 32])> {
    if bytes.len() != at + 32 {
        return Err(format!(
            "a hybrid {what} is {} bytes, not {}",
            at + 32,
            bytes.len()
        ));
    }
    Ok((bytes[..at].to_vec(), x32(&bytes[at..])?))
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

    /// An X25519 key pair (public, private): of `private`, or fresh.
    fn x_pair(&self, private: Option<[u8; 32]>) -> ([u8; 32], [u8; 32]) {
        let mut public = [0u8; 32];
        match private {
            // SAFETY: 32-byte buffers, as the prototypes ask.
            Some(own) => unsafe {
                (self.x.X25519_public_from_private)(public.as_mut_ptr(), own.as_ptr());
                (public, own)
            },
            None => {
                let mut own = [0u8; 32];
                // SAFETY: as above.
                unsafe { (self.x.X25519_keypair)(public.as_mut_ptr(), own.as_mut_ptr()) };
                (public, own)
            }
        }
    }

    fn x_shared(&self, private: &[u8; 32], peer: &[u8; 32], out: &mut [u8; 32]) -> Res<()> {
        // SAFETY: 32-byte buffers; X25519 returns 0 for a low-order peer key.
        match unsafe { (self.x.X25519)(out.as_mut_ptr(), private.as_ptr(), peer.as_ptr()) } {
            1 => Ok(()),
            _ => Err(format!("{}'s X25519 rejected the peer key", self.x.path)),
        }
    }

    /// The share (ML-KEM-768 encapsulation key ‖ X25519 public key) of a 96-byte seed
    /// d ‖ z ‖ X25519 private key, and the ML-KEM private key and X25519 private key.
    fn seeded(&self, seed: &[u8]) -> Res<(Vec<u8>, Opaque, [u8; 32])> {
        let (dz, xpriv) = split(seed, MLKEM_SEED, "seed")?;
        let private = self.kem.private_from_seed(&dz)?;
        let ek = self.kem.encapsulation_key(&private)?;
        let (xpub, xpriv) = self.x_pair(Some(xpriv));
        Ok(([ek, xpub.to_vec()].concat(), private, xpriv))
    }

    /// The server's reply to share `ek`; `m` (m ‖ ephemeral X25519 private key) derandomises it.
    fn encaps(&self, ek: &[u8], m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (ek, peer) = split(ek, MLKEM768_EK, "share")?;
        let m = m.map(|m| split(m, 32, "message")).transpose()?;
        let public = self.kem.parse_public(&ek)?;
        let (c, k) = self.kem.encap(&public, m.as_ref().map(|m| &m.0[..]))?;
        let (epub, epriv) = self.x_pair(m.map(|m| m.1));
        let mut ss = [0u8; 32];
        self.x_shared(&epriv, &peer, &mut ss)?;
        Ok(([c, epub.to_vec()].concat(), [k, ss.to_vec()].concat()))
    }

    /// The client's finish: the secret of ciphertext `c`.
    fn decaps(&self, private: &Opaque, xpriv: &[u8; 32], c: &[u8]) -> Res<Vec<u8>> {
        let (c, epub) = split(c, MLKEM768_CT, "ciphertext")?;
        let k = self.kem.decap(private, &c)?;
        let mut ss = [0u8; 32];
        self.x_shared(xpriv, &epub, &mut ss)?;
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
            Kat::KemKeygen { d, z, ek, .. } => {
                same("share", self.seeded(&[unhex(d), unhex(z)].concat())?.0, ek)
            }
            Kat::KemEncaps { ek, m, c, k, .. } => {
                let (got_c, got_k) = self.encaps(&unhex(ek), Some(&unhex(m)))?;
                same("ciphertext", got_c, c)?;
                same("shared secret", got_k, k)
            }
            Kat::KemDecaps { dk, c, k, .. } => {
                let (dk, xpriv) = split(&unhex(dk), MLKEM768_DK, "private key")?;
                let private = self.kem.parse_private(&dk)?;
                same(
                    "shared secret",
                    self.decaps(&private, &xpriv, &unhex(c))?,
                    k,
                )
            }
            ref other => Err(format!("vector {other:?} does not fit a KEM")),
        }
    }

    /// Encapsulates to the agreement seed's key: the ciphertext, and the secret as `public`.
    pub fn agree(&self, seed: &[u8]) -> Res<AgreementOutput> {
        let (output, public) = self.encaps(&self.seeded(seed)?.0, None)?;
        Ok(AgreementOutput { output, public })
    }

    /// Whether decapsulating another library's ciphertext with the seed's key gives its secret.
    pub fn decapsulates_to(&self, seed: &[u8], secret: &[u8], c: &[u8]) -> Res<bool> {
        let (_, private, xpriv) = self.seeded(seed)?;
        Ok(self.decaps(&private, &xpriv, c)? == secret)
    }

    /// The timed loop of `op`, its keys made and parsed before timing.
    pub fn prepare(self, op: Op) -> Res<Box<dyn Timed + 'a>> {
        if !matches!(op, Op::Keygen | Op::Encaps | Op::Decaps) {
            return Err(format!("a KEM has no {op} operation"));
        }
        let (ek, private) = self.kem.generate();
        let public = self.kem.parse_public(&ek)?;
        let (peer, xpriv) = self.x_pair(None);
        let (c, _) = self.encaps(&[&ek[..], &peer].concat(), None)?;
        let epub = x32(&c[MLKEM768_CT..])?;
        Ok(Box::new(HybridLoop {
            op,
            ek,
            public,
            private,
            c: c[..MLKEM768_CT].to_vec(),
            k: [0; 32],
            peer,
            xpriv,
            epub,
            h: self,
        }))
    }
}

/// The timed calls, on keys and buffers made before timing (nothing allocated).
struct HybridLoop<'a> {
    op: Op,
    /// Where key generation writes the encoded key.
    ek: Vec<u8>,
    public: Opaque,
    private: Opaque,
    /// The ML-KEM ciphertext decapsulated; encapsulation overwrites it.
    c: Vec<u8>,
    k: [u8; 32],
    peer: [u8; 32],
    xpriv: [u8; 32],
    epub: [u8; 32],
    h: Hybrid<'a>,
}

impl HybridLoop<'_> {
    fn once(&mut self) -> Res<()> {
        let (h, mut ss) = (&self.h, [0u8; 32]);
        match self.op {
            Op::Keygen => {
                h.kem.generate_into(&mut self.ek, &mut self.private);
                std::hint::black_box(h.x_pair(None));
            }
            Op::Encaps => {
                h.kem.encap_into(&self.public, &mut self.c, &mut self.k);
                let (epub, epriv) = h.x_pair(None);
                h.x_shared(&epriv, &self.peer, &mut ss)?;
                std::hint::black_box(epub);
            }
            _ => {
                h.kem.decap_into(&self.private, &self.c, &mut self.k)?;
                h.x_shared(&self.xpriv, &self.epub, &mut ss)?;
            }
        }
        std::hint::black_box((&mut self.k, ss));
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
