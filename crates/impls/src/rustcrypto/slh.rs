//! SLH-DSA for the `rustcrypto` column: RustCrypto's `slh-dsa` crate (0.2 release candidate, pure
//! Rust, FIPS 205; 0.1 needs a `signature` release ml-dsa 0.0.4 cannot share). Key pairs come
//! from fresh SK.seed, SK.prf and PK.seed (FIPS 205's slh_keygen), signing is pure SLH-DSA with an
//! empty context, hedged with a fresh opt_rand; the known answers use the crate's
//! internal-interface calls (`slh_sign_internal` with opt_rand = PK.seed, `slh_verify_internal`).
//! Random bytes come from one ChaCha20 generator seeded before timing (rand_core 0.6; the
//! crate's own wants rand_core 0.10, so the bytes are drawn here and handed over), into a buffer
//! the signer keeps; verification uses the verifying key parsed once.

use super::{timing_rng, TimingRng};
use crate::suite::{KemKeygenFn, OpFn, Res, Signer};
use rand_core::RngCore;
use slh_dsa::{ParameterSet, Signature, SigningKey, VerifyingKey};

fn random(rng: &mut TimingRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
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
    verifying: VerifyingKey<P>,
    /// opt_rand, refilled per signature.
    rand: Vec<u8>,
    rng: TimingRng,
}

impl<P: ParameterSet> SlhSigner<P> {
    fn signature(&mut self, msg: &[u8]) -> Res<Signature<P>> {
        self.rng.fill_bytes(&mut self.rand);
        self.key
            .try_sign_with_context(msg, &[], Some(&self.rand))
            .map_err(|e| format!("signing failed: {e}"))
    }
}

impl<P: ParameterSet> Signer for SlhSigner<P> {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        Ok(self.signature(msg)?.to_vec())
    }
    /// The signature is kept as the crate's value, not copied into a vector.
    fn sign_timed(&mut self, msg: &[u8]) -> Res<()> {
        std::hint::black_box(self.signature(msg)?);
        Ok(())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let Ok(sig) = Signature::<P>::try_from(sig) else {
            return Ok(false);
        };
        Ok(self
            .verifying
            .try_verify_with_context(msg, &[], &sig)
            .is_ok())
    }
    fn public(&self) -> Vec<u8> {
        let vk: &VerifyingKey<P> = self.key.as_ref();
        vk.to_vec()
    }
}

/// A signer with the key pair of a 3n-byte seed, or a fresh one.
pub fn signer<P: ParameterSet + 'static>(seed: Option<&[u8]>, n: usize) -> Res<Box<dyn Signer>> {
    let mut rng = timing_rng();
    let key = from_seed::<P>(
        &seed.map_or_else(|| random(&mut rng, 3 * n), <[u8]>::to_vec),
        n,
    )?;
    let verifying: &VerifyingKey<P> = key.as_ref();
    let verifying = verifying.clone();
    let rand = vec![0u8; n];
    Ok(Box::new(SlhSigner {
        key,
        verifying,
        rand,
        rng,
    }))
}

/// Fresh key pairs: (public key, private key) in FIPS 205's encodings.
pub fn keygen<P: ParameterSet + 'static>(n: usize) -> Res<KemKeygenFn<'static>> {
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let key = from_seed::<P>(&random(&mut rng, 3 * n), n)?;
        let vk: &VerifyingKey<P> = key.as_ref();
        Ok((vk.to_vec(), key.to_vec()))
    }))
}

/// The timed key generation: fresh SK.seed ‖ SK.prf ‖ PK.seed into a buffer kept here, the
/// signing key (with its verifying key: the hypertree's root) made from it, neither encoded.
pub fn keygen_timed<P: ParameterSet + 'static>(n: usize) -> Res<OpFn<'static>> {
    let (mut rng, mut seed) = (timing_rng(), vec![0u8; 3 * n]);
    Ok(Box::new(move || {
        rng.fill_bytes(&mut seed);
        std::hint::black_box(&from_seed::<P>(&seed, n)?);
        Ok(())
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
