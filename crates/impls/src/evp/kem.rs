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
use super::pq_calls::KemCalls;
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use cryptospeed_catalog::{hybrid, Algorithm, Curve, Primitive};

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

    /// The parameter that holds the encoded encapsulation key: the hybrid's key management
    /// offers its public key as `encoded-pub-key` only.
    fn public_param(&self) -> &'static std::ffi::CStr {
        if self.mlkem.is_some() {
            c"encoded-pub-key"
        } else {
            c"pub"
        }
    }

    /// (encapsulation key, expanded decapsulation key) of a key pair.
    fn encodings(&self, pkey: &Owned) -> Res<(Vec<u8>, Vec<u8>)> {
        Ok((
            self.octet_param(pkey, self.public_param())?,
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
}

impl<'a> KemCalls<'a> for Kem<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        let seed = seed.map(<[u8]>::to_vec);
        Ok(Box::new(move || {
            let pair = match &seed {
                Some(seed) => self.seeded_pair(seed)?,
                None => self.key_pair(None)?,
            };
            self.encodings(&pair)
        }))
    }

    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        if let (Some(mlkem), Some(m)) = (&self.mlkem, m) {
            let answer = self.hybrid_encaps_answer(mlkem, ek, m)?;
            return Ok(Box::new(move || Ok(answer.clone())));
        }
        let keep = self.encaps_ctx(ek, m)?;
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            self.encapsulate(ctx)
        }))
    }

    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        let keep = self.decaps_ctx(dk)?;
        Ok(Box::new(move |c| {
            let (ctx, _key) = &keep;
            self.decapsulate(ctx, c)
        }))
    }

    /// `EVP_PKEY_generate` on one context made here; OpenSSL's own hybrid also writes the
    /// client's share (its definition's keygen encodes it), as [`KemCalls::keygen_share_timed`].
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        if self.mlkem.is_some() {
            return self.keygen_share_timed();
        }
        let ctx = self.keygen_ctx()?;
        Ok(Box::new(move || self.generate(&ctx).map(drop)))
    }

    /// `EVP_PKEY_generate`, then the encoded encapsulation key (the hybrid's: its share) written
    /// into a buffer kept here.
    fn keygen_share_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        let mut ek = vec![0u8; 4096];
        Ok(Box::new(move || {
            let pair = self.generate(&ctx)?;
            std::hint::black_box(self.octet_param_into(pair.ptr, self.public_param(), &mut ek)?);
            Ok(())
        }))
    }

    /// `EVP_PKEY_generate` on one context made here (as `keygen`), then both keys' encodings
    /// (`EVP_PKEY_get_octet_string_param`) written into buffers kept here: no algorithm
    /// fetched by name, no context made, nothing allocated by the harness per call.
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        let (mut ek, mut dk) = (vec![0u8; 4096], vec![0u8; 4096]);
        Ok(Box::new(move || {
            let pair = self.generate(&ctx)?;
            let e = self.octet_param_into(pair.ptr, self.public_param(), &mut ek)?;
            let d = self.octet_param_into(pair.ptr, c"priv", &mut dk)?;
            std::hint::black_box((e, d));
            Ok(())
        }))
    }

    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let keep = self.encaps_ctx(ek, None)?;
        let (mut c, mut k) = (vec![0u8; 1568], vec![0u8; 64]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            std::hint::black_box(self.encapsulate_into(ctx, &mut c, &mut k)?);
            Ok(())
        }))
    }

    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let keep = self.decaps_ctx(dk)?;
        let (c, mut k) = (c.to_vec(), vec![0u8; 64]);
        Ok(Box::new(move || {
            let (ctx, _key) = &keep;
            std::hint::black_box(self.decapsulate_into(ctx, &c, &mut k)?);
            Ok(())
        }))
    }

    /// `EVP_PKEY_new_raw_public_key_ex`, a context for the key and `EVP_PKEY_encapsulate`.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let (ek, mut c, mut k) = (ek.to_vec(), vec![0u8; 1568], vec![0u8; 64]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.encaps_ctx(&ek, None)?;
            std::hint::black_box(self.encapsulate_into(&ctx, &mut c, &mut k)?);
            Ok(())
        }))
    }

    /// `EVP_PKEY_new_raw_private_key_ex`, a context for the key and `EVP_PKEY_decapsulate`.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (dk, c, mut k) = (dk.to_vec(), c.to_vec(), vec![0u8; 64]);
        Ok(Box::new(move || {
            let (ctx, _key) = self.decaps_ctx(&dk)?;
            std::hint::black_box(self.decapsulate_into(&ctx, &c, &mut k)?);
            Ok(())
        }))
    }
}
