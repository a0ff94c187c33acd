//! ML-KEM through libcrypto's EVP_PKEY KEM calls (OpenSSL ≥ 3.5), as `openssl speed` 3.5 drives
//! them: key generation with `EVP_PKEY_generate` on one context, `EVP_PKEY_encapsulate` and
//! `EVP_PKEY_decapsulate` on contexts made once per key. Known answers go through the same calls:
//! the seed as the key-generation parameter `seed` (d ‖ z), the derandomising message as the
//! encapsulation parameter `ikme`, the expanded decapsulation key through
//! `EVP_PKEY_new_raw_private_key_ex`. The calls come from pq.rs's table.

use super::ffi::Api;
use super::pq::{octets, Owned, PqAlg};
use cryptospeed_catalog::{unhex, Algorithm, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Timed};
use cryptospeed_model::Op;

type Res<T> = Result<T, String>;

/// One ML-KEM parameter set in one libcrypto.
pub struct Kem<'a> {
    alg: PqAlg<'a>,
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
        let Algorithm::MlKem { level } = p.algorithm else {
            return Err(format!("{} is not a KEM", p.id));
        };
        let kem = Kem {
            alg: PqAlg::load(api, &format!("ML-KEM-{level}"))?,
        };
        kem.keygen_ctx().map_err(|e| {
            format!(
                "needs OpenSSL ≥ 3.5 ({} has no ML-KEM key generation: {e})",
                kem.k.path
            )
        })?;
        Ok(kem)
    }

    /// (encapsulation key, expanded decapsulation key) of a key pair.
    fn encodings(&self, pkey: &Owned) -> Res<(Vec<u8>, Vec<u8>)> {
        Ok((
            self.octet_param(pkey, c"pub")?,
            self.octet_param(pkey, c"priv")?,
        ))
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
        let (mut c, mut k) = (vec![0u8; 1568], vec![0u8; 32]);
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
        let mut k = vec![0u8; 32];
        let klen = self.decapsulate_into(ctx, c, &mut k)?;
        k.truncate(klen);
        Ok(k)
    }

    /// Decapsulation into a buffer the caller keeps; the length written.
    fn decapsulate_into(&self, ctx: &Owned, c: &[u8], k: &mut [u8]) -> Res<usize> {
        let mut klen = k.len();
        // SAFETY: a 32-byte output buffer, the ciphertext borrowed for the call.
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
                let pair = self.key_pair(Some(&[unhex(d), unhex(z)].concat()))?;
                same("encapsulation key", self.encodings(&pair)?.0, ek)
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
            ref other => Err(format!("vector {other:?} does not fit ML-KEM")),
        }
    }

    /// Encapsulates to the agreement seed's key: the ciphertext, and the secret as `public`.
    pub fn agree(&self, seed: &[u8]) -> Res<AgreementOutput> {
        let (ek, _) = self.encodings(&self.key_pair(Some(seed))?)?;
        let (ctx, _key) = self.encaps_ctx(&ek, None)?;
        let (output, public) = self.encapsulate(&ctx)?;
        Ok(AgreementOutput { output, public })
    }

    /// Whether decapsulating another library's ciphertext with the seed's key gives its secret.
    pub fn decapsulates_to(&self, seed: &[u8], secret: &[u8], c: &[u8]) -> Res<bool> {
        let (_, dk) = self.encodings(&self.key_pair(Some(seed))?)?;
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
                    k: vec![0; 32],
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
                    k: vec![0; 32],
                })
            }
            other => return Err(format!("ML-KEM has no {other} operation")),
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
