//! SLH-DSA for the `rustcrypto` column: RustCrypto's `slh-dsa` crate (0.2 release candidate, pure
//! Rust, FIPS 205; 0.1 needs a `signature` release ml-dsa 0.0.4 cannot share). Key pairs come
//! from fresh SK.seed, SK.prf and PK.seed (FIPS 205's slh_keygen), signing is pure SLH-DSA with an
//! empty context, hedged with a fresh opt_rand; the known answers use the crate's
//! internal-interface calls (`slh_sign_internal` with opt_rand = PK.seed, `slh_verify_internal`).
//! The system's randomness comes through rand_core 0.6 (the crate's own wants rand_core 0.10).

use crate::suite::{KemKeygenFn, Res, Signer};
use rand_core::RngCore;
use slh_dsa::{ParameterSet, Signature, SigningKey, VerifyingKey};

fn random(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rand_core::OsRng.fill_bytes(&mut v);
    v
}

/// The key pair of seed SK.seed ‖ SK.prf ‖ PK.seed (3n bytes).
fn from_seed<P: ParameterSet>(seed: &[u8], n: usize) -> Res<SigningKey<P>> {
    if seed.len() != 3 * n {
        return Err(format!(
            "an SLH-DSA seed is {} bytes, not {}",
            3 * n,
            seed.len()
        ));
    }
    Ok(SigningKey::<P>::slh_keygen_internal(
        &seed[..n],
        &seed[n..2 * n],
        &seed[2 * n..],
    ))
}

struct SlhSigner<P: ParameterSet> {
    key: SigningKey<P>,
    n: usize,
}

impl<P: ParameterSet> Signer for SlhSigner<P> {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        let rand = random(self.n);
        let sig = self
            .key
            .try_sign_with_context(msg, &[], Some(&rand))
            .map_err(|e| format!("signing failed: {e}"))?;
        Ok(sig.to_vec())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        verify::<P>(&self.public(), msg, sig)
    }
    fn public(&self) -> Vec<u8> {
        let vk: &VerifyingKey<P> = self.key.as_ref();
        vk.to_vec()
    }
}

/// A signer with the key pair of a 3n-byte seed, or a fresh one.
pub fn signer<P: ParameterSet + 'static>(seed: Option<&[u8]>, n: usize) -> Res<Box<dyn Signer>> {
    let key = from_seed::<P>(&seed.map_or_else(|| random(3 * n), <[u8]>::to_vec), n)?;
    Ok(Box::new(SlhSigner { key, n }))
}

/// Fresh key pairs: (public key, private key) in FIPS 205's encodings.
pub fn keygen<P: ParameterSet + 'static>(n: usize) -> Res<KemKeygenFn<'static>> {
    Ok(Box::new(move || {
        let key = from_seed::<P>(&random(3 * n), n)?;
        let vk: &VerifyingKey<P> = key.as_ref();
        Ok((vk.to_vec(), key.to_vec()))
    }))
}

/// Pure SLH-DSA verification with an empty context.
pub fn verify<P: ParameterSet>(public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
    let key = VerifyingKey::<P>::try_from(public).map_err(|_| "a malformed public key")?;
    let Ok(sig) = Signature::<P>::try_from(sig) else {
        return Ok(false);
    };
    Ok(key.try_verify_with_context(msg, &[], &sig).is_ok())
}

/// slh_sign_internal(M', sk) with opt_rand = PK.seed (deterministic).
pub fn sign_internal<P: ParameterSet>(private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
    let key = SigningKey::<P>::try_from(private).map_err(|_| "a malformed private key")?;
    Ok(key.slh_sign_internal(&[msg], None).to_vec())
}

/// slh_verify_internal(M', σ, pk).
pub fn verify_internal<P: ParameterSet>(public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
    let key = VerifyingKey::<P>::try_from(public).map_err(|_| "a malformed public key")?;
    let Ok(sig) = Signature::<P>::try_from(sig) else {
        return Ok(false);
    };
    Ok(key.slh_verify_internal(&[msg], &sig).is_ok())
}
