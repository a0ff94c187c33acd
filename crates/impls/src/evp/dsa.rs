//! ML-DSA and SLH-DSA through libcrypto's EVP_PKEY signature calls (OpenSSL ≥ 3.5), as `openssl
//! speed` 3.5 drives them (the two share every call and parameter name): key generation with `EVP_PKEY_generate` on one context; `EVP_PKEY_sign` and
//! `EVP_PKEY_verify` of 32 bytes on contexts made once per key (pure ML-DSA, empty context, hedged
//! signing). Known answers go through the same calls: the seed as the key-generation parameter
//! `seed` (ML-DSA's ξ; SLH-DSA's SK.seed ‖ SK.prf ‖ PK.seed), the internal interface as `message-encoding` 0 with `deterministic` 1, keys
//! imported with `EVP_PKEY_new_raw_*_key_ex`.

use super::ffi::Api;
use super::pq::{int_param, Owned, PqAlg};
use super::pq_calls::{KeySigner, SigCalls, SignWith};
use crate::suite::{verified, OpFn, Res, Signer};
use cryptospeed_catalog::{Algorithm, Primitive};
use std::os::raw::c_int;

/// Room for the largest signature of the parameter sets timed here (SLH-DSA-*-128f: 17088 bytes;
/// ML-DSA-87: 4627).
const MAX_SIG: usize = 17088;

/// One ML-DSA or SLH-DSA parameter set in one libcrypto.
pub struct Dsa<'a> {
    alg: PqAlg<'a>,
}

impl<'a> std::ops::Deref for Dsa<'a> {
    type Target = PqAlg<'a>;
    fn deref(&self) -> &PqAlg<'a> {
        &self.alg
    }
}

impl<'a> Dsa<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or why it is not there.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Dsa<'a>> {
        let name = match p.algorithm {
            Algorithm::MlDsa { level } => format!("ML-DSA-{level}"),
            Algorithm::SlhDsa { name } => name.to_string(),
            _ => return Err(format!("{} is not ML-DSA or SLH-DSA", p.id)),
        };
        let dsa = Dsa {
            alg: PqAlg::load(api, &name)?,
        };
        dsa.keygen_ctx().map_err(|e| {
            format!(
                "needs OpenSSL ≥ 3.5 ({} has no {name} key generation: {e})",
                dsa.k.path
            )
        })?;
        Ok(dsa)
    }

    fn public(&self, pkey: &Owned) -> Res<Vec<u8>> {
        self.octet_param(pkey, c"pub")
    }

    /// A signing (or verifying) context for `pkey`; `internal` selects the internal interface
    /// (the message is M') with deterministic signing. ML-DSA signs messages, so the context is
    /// made with `EVP_PKEY_sign_message_init` and the fetched algorithm (3.5's way; plain
    /// `EVP_PKEY_sign_init` is refused for ML-DSA keys).
    fn op_ctx(&self, pkey: &Owned, sign: bool, internal: bool) -> Res<Owned<'a>> {
        self.op_ctx_with(&self.fetch()?, pkey, sign, internal)
    }

    /// The signature algorithm, fetched (`EVP_SIGNATURE_fetch`: a look-up in the library's
    /// provider store).
    fn fetch(&self) -> Res<Owned<'a>> {
        let k = &self.k;
        let (Some(fetch), Some(free)) = (k.EVP_SIGNATURE_fetch, k.EVP_SIGNATURE_free) else {
            return Err("this libcrypto has no EVP_SIGNATURE_fetch (OpenSSL < 3.0)".into());
        };
        // SAFETY: a NUL-terminated name; the algorithm is owned below.
        let alg = unsafe { fetch(std::ptr::null_mut(), self.name.as_ptr(), std::ptr::null()) };
        self.own(alg, free, "EVP_SIGNATURE_fetch")
    }

    /// [`Dsa::op_ctx`] with the algorithm `alg` fetched before.
    fn op_ctx_with(&self, alg: &Owned, pkey: &Owned, sign: bool, internal: bool) -> Res<Owned<'a>> {
        let k = &self.k;
        let (Some(sign_init), Some(verify_init)) =
            (k.EVP_PKEY_sign_message_init, k.EVP_PKEY_verify_message_init)
        else {
            return Err("this libcrypto has no EVP_PKEY_sign_message_init (OpenSSL < 3.4)".into());
        };
        // SAFETY: a valid key; the context is owned below.
        let ctx = unsafe {
            (k.EVP_PKEY_CTX_new_from_pkey)(std::ptr::null_mut(), pkey.ptr, std::ptr::null())
        };
        let ctx = self.own(ctx, k.EVP_PKEY_CTX_free, "EVP_PKEY_CTX_new_from_pkey")?;
        let (raw, yes) = (0 as c_int, 1 as c_int);
        let params = [
            int_param(c"message-encoding", &raw),
            int_param(c"deterministic", &yes),
            super::ffi::OsslParam::end(),
        ];
        let p = if internal {
            params.as_ptr()
        } else {
            std::ptr::null()
        };
        let init = if sign { sign_init } else { verify_init };
        // SAFETY: a fresh context, the fetched algorithm, parameters that outlive the call.
        self.check(
            unsafe { init(ctx.ptr, alg.ptr, p) },
            "EVP_PKEY_sign/verify_message_init",
        )?;
        Ok(ctx)
    }
}

impl<'a> SigCalls<'a> for Dsa<'a> {
    fn signer(self: Box<Self>, seed: Option<&[u8]>) -> Res<Box<dyn Signer + 'a>> {
        let key = self.key_pair(seed)?;
        let public = self.public(&key)?;
        let sign = self.op_ctx(&key, true, false)?;
        let verify = self.op_ctx(&key, false, false)?;
        Ok(Box::new(KeySigner {
            signing: (sign, key),
            verifying: verify,
            public,
            out: vec![0; MAX_SIG],
            dsa: *self,
        }))
    }

    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let ctx = self.keygen_ctx()?;
        Ok(Box::new(move || self.generate(&ctx).map(drop)))
    }

    fn sign_internal(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        let key = self.raw_key(private, true)?;
        let ctx = self.op_ctx(&key, true, true)?;
        let mut sig = vec![0u8; MAX_SIG];
        let len = self.sign_into(&(ctx, key), msg, &mut sig)?;
        sig.truncate(len);
        Ok(sig)
    }

    fn verify_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let key = self.raw_key(public, false)?;
        self.verify_with(&self.op_ctx(&key, false, true)?, msg, sig)
    }

    fn verify(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let key = self.raw_key(public, false)?;
        self.verify_with(&self.op_ctx(&key, false, false)?, msg, sig)
    }

    /// The algorithm fetched once; in each call `EVP_PKEY_new_raw_public_key_ex`, a context
    /// (`EVP_PKEY_verify_message_init`) and `EVP_PKEY_verify`.
    fn verify_parse_timed(self: Box<Self>, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<OpFn<'a>> {
        let alg = self.fetch()?;
        let (public, msg, sig) = (public.to_vec(), msg.to_vec(), sig.to_vec());
        Ok(Box::new(move || {
            let key = self.raw_key(&public, false)?;
            let ctx = self.op_ctx_with(&alg, &key, false, false)?;
            verified(self.verify_with(&ctx, &msg, &sig))
        }))
    }
}

impl<'a> SignWith for Dsa<'a> {
    /// The signing context, and the key it was made for (kept as long).
    type Signing = (Owned<'a>, Owned<'a>);
    type Verifying = Owned<'a>;

    fn sign_into(&self, (ctx, _key): &Self::Signing, msg: &[u8], sig: &mut [u8]) -> Res<usize> {
        let mut len = sig.len();
        // SAFETY: `len` is the buffer's size; libcrypto refuses to write past it.
        let rc = unsafe {
            (self.k.EVP_PKEY_sign)(ctx.ptr, sig.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len())
        };
        self.check(rc, "EVP_PKEY_sign")?;
        Ok(len)
    }

    fn verify_with(&self, ctx: &Owned<'a>, msg: &[u8], sig: &[u8]) -> Res<bool> {
        // SAFETY: borrowed buffers for the call.
        let rc = unsafe {
            (self.k.EVP_PKEY_verify)(ctx.ptr, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len())
        };
        if rc != 1 {
            // SAFETY: a rejected signature leaves errors behind.
            unsafe { (self.api.ERR_clear_error)() };
        }
        Ok(rc == 1)
    }
}
