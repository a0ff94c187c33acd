//! ML-DSA for the `rustcrypto` column: RustCrypto's `ml-dsa` crate (0.0.4, pure Rust, FIPS 204).
//! Signing is pure ML-DSA with an empty context, hedged with rnd from one ChaCha20 generator
//! seeded before timing (the crate takes the generator as an argument; no system call per
//! signature); the known answers use the crate's internal-interface calls (`sign_internal` with
//! rnd = 0, `verify_internal`), which take FIPS 204's M' as the ACVP vectors give it.

use super::{timing_rng, TimingRng};
use crate::suite::{KemKeygenFn, OpFn, Res, Signer};
use ml_dsa::{
    EncodedSignature, EncodedSigningKey, EncodedVerifyingKey, KeyGen, KeyPair, MlDsaParams,
    Signature, SigningKey, VerifyingKey, B32,
};

fn decoded<T: for<'a> TryFrom<&'a [u8]>>(bytes: &[u8], what: &str) -> Res<T> {
    T::try_from(bytes).map_err(|_| format!("{what} of {} bytes has the wrong length", bytes.len()))
}

struct MlDsaSigner<P: MlDsaParams> {
    pair: KeyPair<P>,
    rng: TimingRng,
}

impl<P: MlDsaParams> MlDsaSigner<P> {
    fn signature(&mut self, msg: &[u8]) -> Res<EncodedSignature<P>> {
        let sig = self
            .pair
            .signing_key()
            .sign_randomized(msg, &[], &mut self.rng)
            .map_err(|e| format!("signing failed: {e}"))?;
        Ok(sig.encode())
    }
}

impl<P: MlDsaParams> Signer for MlDsaSigner<P> {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        Ok(self.signature(msg)?.to_vec())
    }
    /// The encoded signature stays in the array the crate returns (no vector per signature).
    fn sign_timed(&mut self, msg: &[u8]) -> Res<()> {
        std::hint::black_box(self.signature(msg)?);
        Ok(())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        verify::<P>(self.pair.verifying_key(), msg, sig)
    }
    fn public(&self) -> Vec<u8> {
        self.pair.verifying_key().encode().to_vec()
    }
}

fn verify<P: MlDsaParams>(key: &VerifyingKey<P>, msg: &[u8], sig: &[u8]) -> Res<bool> {
    let enc: EncodedSignature<P> = decoded(sig, "signature")?;
    Ok(Signature::<P>::decode(&enc).is_some_and(|s| key.verify_with_context(msg, &[], &s)))
}

/// A signer with the key pair from the 32-byte seed ξ, or a fresh one.
pub fn signer<P: MlDsaParams + KeyGen<KeyPair = KeyPair<P>> + 'static>(
    seed: Option<&[u8]>,
) -> Res<Box<dyn Signer>> {
    let mut rng = timing_rng();
    let pair = match seed {
        Some(s) => P::key_gen_internal(&decoded::<B32>(s, "seed")?),
        None => P::key_gen(&mut rng),
    };
    Ok(Box::new(MlDsaSigner { pair, rng }))
}

/// Fresh key pairs: (public key, private key) in FIPS 204's encodings.
pub fn keygen<P: MlDsaParams + KeyGen<KeyPair = KeyPair<P>> + 'static>() -> Res<KemKeygenFn<'static>>
{
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let pair = P::key_gen(&mut rng);
        Ok((
            pair.verifying_key().encode().to_vec(),
            pair.signing_key().encode().to_vec(),
        ))
    }))
}

/// The timed key generation: the crate's key pair, nothing written out (its
/// `VerifyingKey::new` encodes the public key only to hash it into tr, as FIPS 204's keygen
/// does); the pair is dropped by reference, not moved.
pub fn keygen_timed<P: MlDsaParams + KeyGen<KeyPair = KeyPair<P>> + 'static>() -> Res<OpFn<'static>>
{
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        std::hint::black_box(&P::key_gen(&mut rng));
        Ok(())
    }))
}

/// Pure ML-DSA verification (empty context) under an encoded public key, decoded in the call:
/// the crate hashes M' = 0 ‖ 0 ‖ M in parts, nothing allocated.
pub fn verify_pure<P: MlDsaParams>(public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
    let enc: EncodedVerifyingKey<P> = decoded(public, "public key")?;
    verify::<P>(&VerifyingKey::<P>::decode(&enc), msg, sig)
}

/// ML-DSA.Sign_internal(sk, M', rnd = 0).
pub fn sign_internal<P: MlDsaParams>(private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
    let enc: EncodedSigningKey<P> = decoded(private, "private key")?;
    let key = SigningKey::<P>::decode(&enc);
    Ok(key.sign_internal(&[msg], &B32::default()).encode().to_vec())
}

/// ML-DSA.Verify_internal(pk, M', σ).
pub fn verify_internal<P: MlDsaParams>(public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
    let enc: EncodedVerifyingKey<P> = decoded(public, "public key")?;
    let key = VerifyingKey::<P>::decode(&enc);
    let enc: EncodedSignature<P> = decoded(sig, "signature")?;
    Ok(Signature::<P>::decode(&enc).is_some_and(|s| key.verify_internal(&[msg], &s)))
}
