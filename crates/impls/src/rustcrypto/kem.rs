//! ML-KEM for the `rustcrypto` column: RustCrypto's `ml-kem` crate (0.2, pure Rust, FIPS 203),
//! with its `deterministic` feature for the known-answer tests' seeded key generation and
//! derandomised encapsulation. Kept apart from rustcrypto.rs because its generic bounds are the
//! KEM crate's own. The timed calls draw randomness from one ChaCha20 generator seeded before
//! timing (the crate takes the generator as an argument) and keep their results as the crate
//! returns them, in arrays: nothing is allocated or encoded per operation that the definition
//! does not ask for.

use super::timing_rng;
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use ml_kem::kem::{Decapsulate, Encapsulate};
use ml_kem::{Ciphertext, EncapsulateDeterministic, Encoded, EncodedSizeUser, KemCore, B32};
use std::hint::black_box;

fn array<T: EncodedSizeUser>(bytes: &[u8], what: &str) -> Res<T> {
    let enc = Encoded::<T>::try_from(bytes)
        .map_err(|_| format!("{what} of {} bytes has the wrong length", bytes.len()))?;
    Ok(T::from_bytes(&enc))
}

fn b32(bytes: &[u8], what: &str) -> Res<B32> {
    B32::try_from(bytes).map_err(|_| format!("{what} must be 32 bytes, not {}", bytes.len()))
}

/// Key pairs of `K`: from a 64-byte seed (d ‖ z), or from the system's random generator.
pub fn keygen<K: KemCore + 'static>(seed: Option<&[u8]>) -> Res<KemKeygenFn<'static>> {
    let seed = match seed {
        Some(s) if s.len() == 64 => Some((b32(&s[..32], "d")?, b32(&s[32..], "z")?)),
        Some(s) => return Err(format!("an ML-KEM seed is 64 bytes, not {}", s.len())),
        None => None,
    };
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let (dk, ek) = match &seed {
            Some((d, z)) => K::generate_deterministic(d, z),
            None => K::generate(&mut rng),
        };
        Ok((ek.as_bytes().to_vec(), dk.as_bytes().to_vec()))
    }))
}

/// Encapsulation to `ek`; `m` derandomises it.
pub fn encaps<K: KemCore + 'static>(ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'static>> {
    let ek: K::EncapsulationKey = array(ek, "encapsulation key")?;
    let m = m.map(|m| b32(m, "m")).transpose()?;
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let (c, k) = match &m {
            Some(m) => ek
                .encapsulate_deterministic(m)
                .map_err(|e| format!("encapsulation failed: {e:?}"))?,
            None => ek
                .encapsulate(&mut rng)
                .map_err(|e| format!("encapsulation failed: {e:?}"))?,
        };
        Ok((c.to_vec(), k.to_vec()))
    }))
}

/// Decapsulation with the expanded decapsulation key `dk`.
pub fn decaps<K: KemCore + 'static>(dk: &[u8]) -> Res<DecapsFn<'static>> {
    let dk: K::DecapsulationKey = array(dk, "decapsulation key")?;
    Ok(Box::new(move |c| {
        let c = Ciphertext::<K>::try_from(c)
            .map_err(|_| format!("a ciphertext of {} bytes has the wrong length", c.len()))?;
        let k = dk
            .decapsulate(&c)
            .map_err(|e| format!("decapsulation failed: {e:?}"))?;
        Ok(k.to_vec())
    }))
}

/// The timed key generation: the key pair kept as the crate's key objects, nothing encoded.
pub fn keygen_timed<K: KemCore + 'static>() -> Res<OpFn<'static>> {
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        black_box(K::generate(&mut rng));
        Ok(())
    }))
}

/// The timed key generation with the encapsulation key written (X25519MLKEM768's share,
/// crate::hybrid_kem): the key objects, and ek's bytes in an array.
pub fn keygen_share_timed<K: KemCore + 'static>() -> Res<OpFn<'static>> {
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let (dk, ek) = K::generate(&mut rng);
        black_box((ek.as_bytes(), dk));
        Ok(())
    }))
}

/// The timed `keygen+encode`: both keys' FIPS 203 encodings (the expanded decapsulation key) in
/// the crate's arrays, nothing allocated.
pub fn keygen_encode_timed<K: KemCore + 'static>() -> Res<OpFn<'static>> {
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let (dk, ek) = K::generate(&mut rng);
        black_box((ek.as_bytes(), dk.as_bytes()));
        Ok(())
    }))
}

/// The timed encapsulation to `ek`, parsed once: ciphertext and secret left in their arrays.
pub fn encaps_timed<K: KemCore + 'static>(ek: &[u8]) -> Res<OpFn<'static>> {
    let ek: K::EncapsulationKey = array(ek, "encapsulation key")?;
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let out = ek.encapsulate(&mut rng);
        black_box(out.map_err(|e| format!("encapsulation failed: {e:?}"))?);
        Ok(())
    }))
}

/// The timed `encaps+parse`: in every call `ek` parsed from its bytes and checked as FIPS 203
/// §7.2 asks (every coefficient below q: the crate's ByteDecode_12 reduces them, so a key whose
/// re-encoding differs from its bytes is refused), then encapsulation, ciphertext and secret left
/// in their arrays. The bytes and the generator are made before timing; no closure is boxed and
/// nothing allocated per call.
pub fn encaps_parse_timed<K: KemCore + 'static>(ek: &[u8]) -> Res<OpFn<'static>> {
    let bytes = Encoded::<K::EncapsulationKey>::try_from(ek).map_err(|_| {
        format!(
            "encapsulation key of {} bytes has the wrong length",
            ek.len()
        )
    })?;
    let mut rng = timing_rng();
    Ok(Box::new(move || {
        let key = K::EncapsulationKey::from_bytes(&bytes);
        if key.as_bytes() != bytes {
            return Err("encapsulation key refused: a coefficient is not below q (FIPS 203 7.2's modulus check)".into());
        }
        let out = key.encapsulate(&mut rng);
        black_box(out.map_err(|e| format!("encapsulation failed: {e:?}"))?);
        Ok(())
    }))
}

/// The timed decapsulation of `c` with `dk`, both parsed once: the secret left in its array.
pub fn decaps_timed<K: KemCore + 'static>(dk: &[u8], c: &[u8]) -> Res<OpFn<'static>> {
    let dk: K::DecapsulationKey = array(dk, "decapsulation key")?;
    let c = Ciphertext::<K>::try_from(c)
        .map_err(|_| format!("a ciphertext of {} bytes has the wrong length", c.len()))?;
    Ok(Box::new(move || {
        let k = dk.decapsulate(&c);
        black_box(k.map_err(|e| format!("decapsulation failed: {e:?}"))?);
        Ok(())
    }))
}

/// The timed `decaps+parse`: in every call `dk` parsed from its bytes (`from_bytes`, which makes
/// no FIPS 203 7.3 hash check: declared), then decapsulation of `c`; the bytes and the
/// ciphertext kept in arrays made before timing, nothing boxed or allocated per call.
pub fn decaps_parse_timed<K: KemCore + 'static>(dk: &[u8], c: &[u8]) -> Res<OpFn<'static>> {
    let bytes = Encoded::<K::DecapsulationKey>::try_from(dk).map_err(|_| {
        format!(
            "decapsulation key of {} bytes has the wrong length",
            dk.len()
        )
    })?;
    let c = Ciphertext::<K>::try_from(c)
        .map_err(|_| format!("a ciphertext of {} bytes has the wrong length", c.len()))?;
    Ok(Box::new(move || {
        let k = K::DecapsulationKey::from_bytes(&bytes).decapsulate(&c);
        black_box(k.map_err(|e| format!("decapsulation failed: {e:?}"))?);
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ml_kem::MlKem768;

    #[test]
    fn encaps_parse_parses_and_checks_the_key_in_every_timed_call() {
        let (ek, _) = keygen::<MlKem768>(None).unwrap()().unwrap();
        let mut encaps = encaps_parse_timed::<MlKem768>(&ek).unwrap();
        for _ in 0..3 {
            encaps().unwrap();
        }
        // A first coefficient of 0xfff (not below q = 3329) is refused inside the timed call.
        let mut bad = ek.clone();
        (bad[0], bad[1]) = (0xff, bad[1] | 0x0f);
        let mut encaps = encaps_parse_timed::<MlKem768>(&bad).unwrap();
        let why = encaps().unwrap_err();
        assert!(why.contains("modulus check"), "{why}");
    }
}
