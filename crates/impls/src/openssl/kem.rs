//! ML-KEM through libcrypto's EVP_PKEY KEM calls (OpenSSL ≥ 3.5), as `openssl speed` 3.5 drives
//! them: key generation with `EVP_PKEY_generate` on one context, `EVP_PKEY_encapsulate` and
//! `EVP_PKEY_decapsulate` on contexts made once per key. Known answers go through the same calls:
//! the seed as the key-generation parameter `seed` (d ‖ z), the derandomising message as the
//! encapsulation parameter `ikme`, the expanded decapsulation key through
//! `EVP_PKEY_new_raw_private_key_ex`. The calls come from pq.rs's table.
//!
//! OpenSSL 3.5's own X25519MLKEM768 goes through the same calls (its keys: ML-KEM-768's then
//! X25519's, its secret ML-KEM's ‖ X25519's). It takes neither `seed` nor `ikme`, so a key pair
//! from a seed is ML-KEM-768's from d ‖ z (this library's ML-KEM) imported with the X25519 private
//! key as one raw hybrid private key, and the encapsulation vector is checked part by part: this
//! library's ML-KEM-768 with `ikme`, and its X25519 agreement (pkey.rs). Decapsulation vectors go
//! through the hybrid itself.

use super::ffi::Api;
use super::pq::{octets, Owned, PqAlg};
use cryptospeed_catalog::{hybrid, unhex, Algorithm, Curve, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Timed};
use cryptospeed_model::Op;

type Res<T> = Result<T, String>;

/// One ML-KEM parameter set, or the X25519MLKEM768 hybrid, in one libcrypto.
pub struct Kem<'a> {
    alg: PqAlg<'a>,
    /// The hybrid's ML-KEM-768 part (seeded key pairs and the encapsulation vector).
    mlkem: Option<Box<Kem<'a>>>,
}

impl<'a> std::ops::Deref for Kem<'a> {
    type Target = PqAlg<'a>;
    fn deref(&self) -> &PqAlg<'a> {
        &self.alg
    }
}

impl<'a> Kem<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or why it is not there.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Kem<'a>> {
        let (name, mlkem) = match p.algorithm {
            Algorithm::MlKem { level } => (format!("ML-KEM-{level}"), None),
            Algorithm::HybridKem { name } => {
                (name.to_string(), Some(Box::new(Self::ml_kem_768(api)?)))
            }
            _ => return Err(format!("{} is not a KEM", p.id)),
        };
        let kem = Kem {
            alg: PqAlg::load(api, &name)?,
            mlkem,
        };
        kem.keygen_ctx().map_err(|e| {
            format!(
                "needs OpenSSL ≥ 3.5 ({} has no {name} key generation: {e})",
                kem.k.path
            )
        })?;
        Ok(kem)
    }

    fn ml_kem_768(api: &'a Api) -> Res<Kem<'a>> {
        Ok(Kem {
            alg: PqAlg::load(api, "ML-KEM-768")?,
            mlkem: None,
        })
    }

    /// (encapsulation key, expanded decapsulation key) of a key pair.
    fn encodings(&self, pkey: &Owned) -> Res<(Vec<u8>, Vec<u8>)> {
        // The hybrid's key management offers its public key as `encoded-pub-key` only.
        let public = if self.mlkem.is_some() {
            c"encoded-pub-key"
        } else {
            c"pub"
        };
        Ok((
            self.octet_param(pkey, public)?,
            self.octet_param(pkey, c"priv")?,
        ))
    }

    /// The key pair of `seed` (d ‖ z, then the hybrid's X25519 private key).
    fn seeded_pair(&self, seed: &[u8]) -> Res<Owned<'a>> {
        let Some(mlkem) = &self.mlkem else {
            return self.key_pair(Some(seed));
        };
        let (_, dk) = mlkem.encodings(&mlkem.key_pair(Some(&seed[..hybrid::MLKEM_SEED]))?)?;
        self.raw_key(&[&dk[..], &seed[hybrid::MLKEM_SEED..]].concat(), true)
    }

    /// The encapsulation vector of the hybrid, part by part (its own calls take no `ikme`).
    fn hybrid_encaps_answer(&self, mlkem: &Kem, ek: &[u8], m: &[u8]) -> Res<(Vec<u8>, Vec<u8>)> {
        let (e, x) = (hybrid::MLKEM768_EK, hybrid::MLKEM_SEED / 2);
        let (ctx, _key) = mlkem.encaps_ctx(&ek[..e], Some(&m[..x]))?;
        let (c, k) = mlkem.encapsulate(&ctx)?;
        let (own, peer) = super::pkey::agreement_keys(self.api, Curve::X25519, &m[x..], &ek[e..])?;
        let shared = super::pkey::derive(self.api, &own, &peer)?;
        let public = self.octet_param_of(own.ptr, c"pub")?;
        Ok(([c, public].concat(), [k, shared].concat()))
    }

    /// An encapsulation context for the public key `ek`; `m` derandomises it (`ikme`).
    fn encaps_ctx(&self, ek: &[u8], m: Option<&[u8]>) -> Res<(Owned<'a>, Owned<'a>)> {
        let pkey = self.raw_key(ek, false)?;
        // SAFETY: a valid key; the context is owned below.
        let ctx = unsafe {
            (self.k.EVP_PKEY_CTX_new_from_pkey)(std::ptr::null_mut(), pkey.ptr, std::ptr::null())
        };
        let ctx = self.own(ctx, self.k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new_from_pkey")?;
        let params = m.map(|m| octets(c"ikme", m));
        let p = params.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        // SAFETY: a fresh context; the parameters outlive the call.
        self.check(
            unsafe { (self.k.EVP_PKEY_encapsulate_init)(ctx.ptr, p) },
            "EVP_PKEY_encapsulate_init",
        )?;
        Ok((ctx, pkey))
    }

    fn encapsulate(&self, ctx: &Owned) -> Res<(Vec<u8>, Vec<u8>)> {
        let (mut c, mut k) = (vec![0u8; 1568], vec![0u8; 64]);
        let (clen, klen) = self.encapsulate_into(ctx, &mut c, &mut k)?;
        c.truncate(clen);
        k.truncate(klen);
        Ok((c, k))
    }

    /// Encapsulation into buffers the caller keeps (the timed loop allocates nothing); the
    /// lengths written.
    fn encapsulate_into(&self, ctx: &Owned, c: &mut [u8], k: &mut [u8]) -> Res<(usize, usize)> {
        let (mut clen, mut klen) = (c.len(), k.len());
        // SAFETY: output buffers sized for the largest parameter set.
        let ok = unsafe {
            (self.k.EVP_PKEY_encapsulate)(
                ctx.ptr,
                c.as_mut_ptr(),
                &mut clen,
                k.as_mut_ptr(),
                &mut klen,
            )
        };
        self.check(ok, "EVP_PKEY_encapsulate")?;
        Ok((clen, klen))
    }

    fn decaps_ctx(&self, dk: &[u8]) -> Res<(Owned<'a>, Owned<'a>)> {
        let pkey = self.raw_key(dk, true)?;
        // SAFETY: a valid key; the context is owned below.
        let ctx = unsafe {
            (self.k.EVP_PKEY_CTX_new_from_pkey)(std::ptr::null_mut(), pkey.ptr, std::ptr::null())
        };
        let ctx = self.own(ctx, self.k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new_from_pkey")?;
        // SAFETY: a fresh context.
        self.check(
            unsafe { (self.k.EVP_PKEY_decapsulate_init)(ctx.ptr, std::ptr::null()) },
            "EVP_PKEY_decapsulate_init",
        )?;
        Ok((ctx, pkey))
    }

    fn decapsulate(&self, ctx: &Owned, c: &[u8]) -> Res<Vec<u8>> {
        let mut k = vec![0u8; 64];
        let klen = self.decapsulate_into(ctx, c, &mut k)?;
        k.truncate(klen);
        Ok(k)
    }

    /// Decapsulation into a buffer the caller keeps; the length written.
    fn decapsulate_into(&self, ctx: &Owned, c: &[u8], k: &mut [u8]) -> Res<usize> {
        let mut klen = k.len();
        // SAFETY: `klen` is the buffer's size (64: the hybrid's secret), the ciphertext borrowed.
        let ok = unsafe {
            (self.k.EVP_PKEY_decapsulate)(ctx.ptr, k.as_mut_ptr(), &mut klen, c.as_ptr(), c.len())
        };
        self.check(ok, "EVP_PKEY_decapsulate")?;
        Ok(klen)
    }

    /// Runs one known-answer vector through the timed calls.
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
                let pair = self.seeded_pair(&[unhex(d), unhex(z)].concat())?;
                same("encapsulation key", self.encodings(&pair)?.0, ek)
            }
            Kat::KemEncaps { ek, m, c, k, .. } if self.mlkem.is_some() => {
                let mlkem = self.mlkem.as_deref().ok_or("no ML-KEM-768")?;
                let (got_c, got_k) = self.hybrid_encaps_answer(mlkem, &unhex(ek), &unhex(m))?;
                same("ciphertext", got_c, c)?;
                same("shared secret", got_k, k)
            }
            Kat::KemEncaps { ek, m, c, k, .. } => {
                let (ctx, _key) = self.encaps_ctx(&unhex(ek), Some(&unhex(m)))?;
                let (got_c, got_k) = self.encapsulate(&ctx)?;
                same("ciphertext", got_c, c)?;
                same("shared secret", got_k, k)
            }
            Kat::KemDecaps { dk, c, k, .. } => {
                let (ctx, _key) = self.decaps_ctx(&unhex(dk))?;
                same("shared secret", self.decapsulate(&ctx, &unhex(c))?, k)
            }
            ref other => Err(format!("vector {other:?} does not fit a KEM")),
        }
    }

    /// Encapsulates to the agreement seed's key: the ciphertext, and the secret as `public`.
    pub fn agree(&self, seed: &[u8]) -> Res<AgreementOutput> {
        let (ek, _) = self.encodings(&self.seeded_pair(seed)?)?;
        let (ctx, _key) = self.encaps_ctx(&ek, None)?;
        let (output, public) = self.encapsulate(&ctx)?;
        Ok(AgreementOutput { output, public })
    }

    /// Whether decapsulating another library's ciphertext with the seed's key gives its secret.
    pub fn decapsulates_to(&self, seed: &[u8], secret: &[u8], c: &[u8]) -> Res<bool> {
        let (_, dk) = self.encodings(&self.seeded_pair(seed)?)?;
        let (ctx, _key) = self.decaps_ctx(&dk)?;
        Ok(self.decapsulate(&ctx, c)? == secret)
    }

    /// The timed loop of `op`, its keys made before timing.
    pub fn prepare(self, op: Op) -> Res<Box<dyn Timed + 'a>> {
        let (ek, dk) = self.encodings(&self.key_pair(None)?)?;
        Ok(match op {
            Op::Keygen => {
                let ctx = self.keygen_ctx()?;
                Box::new(KeygenLoop { kem: self, ctx })
            }
            Op::Encaps => {
                let (ctx, key) = self.encaps_ctx(&ek, None)?;
                Box::new(EncapsLoop {
                    kem: self,
                    ctx,
                    _key: key,
                    c: vec![0; 1568],
                    k: vec![0; 64],
                })
            }
            Op::Decaps => {
                let (ectx, _ekey) = self.encaps_ctx(&ek, None)?;
                let (c, _) = self.encapsulate(&ectx)?;
                let (ctx, key) = self.decaps_ctx(&dk)?;
                Box::new(DecapsLoop {
                    kem: self,
                    ctx,
                    _key: key,
                    c,
                    k: vec![0; 64],
                })
            }
            other => return Err(format!("a KEM has no {other} operation")),
        })
    }
}

// Fields drop in order: the contexts and keys before the table that frees them.
struct KeygenLoop<'a> {
    ctx: Owned<'a>,
    kem: Kem<'a>,
}
impl Timed for KeygenLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            drop(self.kem.generate(&self.ctx)?);
        }
        Ok(())
    }
}

struct EncapsLoop<'a> {
    ctx: Owned<'a>,
    _key: Owned<'a>,
    c: Vec<u8>,
    k: Vec<u8>,
    kem: Kem<'a>,
}
impl Timed for EncapsLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            std::hint::black_box(
                self.kem
                    .encapsulate_into(&self.ctx, &mut self.c, &mut self.k)?,
            );
        }
        Ok(())
    }
}

struct DecapsLoop<'a> {
    ctx: Owned<'a>,
    _key: Owned<'a>,
    c: Vec<u8>,
    k: Vec<u8>,
    kem: Kem<'a>,
}
impl Timed for DecapsLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            std::hint::black_box(self.kem.decapsulate_into(&self.ctx, &self.c, &mut self.k)?);
        }
        Ok(())
    }
}
