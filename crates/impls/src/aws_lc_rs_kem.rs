//! ML-KEM for the `aws-lc-rs` column: aws-lc-rs's `kem` module (`ML_KEM_512/768/1024`, FIPS 203
//! through AWS-LC's EVP_PKEY KEM), whose keys cross the API as FIPS 203's byte encodings, the
//! decapsulation key in its expanded form. Kept apart from aws_lc_rs.rs, as rustcrypto_kem.rs is
//! from rustcrypto.rs, because it is the one part of the column that reaches under the Rust API.
//!
//! aws-lc-rs has neither a key generation from a seed nor a derandomised encapsulation, which
//! the NIST vectors need. Those two vectors run through the same AWS-LC build one level down
//! (aws-lc-sys's `EVP_PKEY_keygen_deterministic` and `EVP_PKEY_encapsulate_deterministic`, the
//! calls AWS-LC's own ACVP harness makes, over the same FIPS 203 code as the random ones); the
//! decapsulation vector and every timed call go through aws-lc-rs itself.

use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use aws_lc_rs::kem::{
    Algorithm, AlgorithmId, Ciphertext, DecapsulationKey, EncapsulationKey, ML_KEM_1024,
    ML_KEM_512, ML_KEM_768,
};
use aws_lc_sys as sys;
use cryptospeed_catalog::{Algorithm as Alg, Primitive};
use std::hint::black_box;

type Kem = &'static Algorithm<AlgorithmId>;

/// aws-lc-rs's algorithm and AWS-LC's NID for an ML-KEM primitive.
fn algorithm(p: &Primitive) -> Res<(Kem, i32)> {
    match p.algorithm {
        Alg::MlKem { level: 512 } => Ok((&ML_KEM_512, sys::NID_MLKEM512)),
        Alg::MlKem { level: 768 } => Ok((&ML_KEM_768, sys::NID_MLKEM768)),
        Alg::MlKem { level: 1024 } => Ok((&ML_KEM_1024, sys::NID_MLKEM1024)),
        _ => Err(format!("aws-lc-rs does not offer {}", p.id)),
    }
}

/// FIPS 203's encodings of a generated key: (encapsulation key, expanded decapsulation key).
fn encoded(dk: &DecapsulationKey<AlgorithmId>) -> Res<(Vec<u8>, Vec<u8>)> {
    let ek = dk
        .encapsulation_key()
        .map_err(|e| format!("no encapsulation key: {e}"))?;
    let ek = ek
        .key_bytes()
        .map_err(|e| format!("encapsulation key not encoded: {e}"))?;
    let dk = dk
        .key_bytes()
        .map_err(|e| format!("decapsulation key not encoded: {e}"))?;
    Ok((ek.as_ref().to_vec(), dk.as_ref().to_vec()))
}

/// Key pairs, both keys encoded: from a 64-byte seed (d ‖ z), or from AWS-LC's generator.
pub fn keygen(p: &Primitive, seed: Option<&[u8]>) -> Res<KemKeygenFn<'static>> {
    let (alg, nid) = algorithm(p)?;
    if let Some(seed) = seed {
        let keys = seeded_keygen(nid, seed)?;
        return Ok(Box::new(move || Ok(keys.clone())));
    }
    Ok(Box::new(move || {
        let dk = DecapsulationKey::generate(alg).map_err(|e| format!("keygen failed: {e}"))?;
        encoded(&dk)
    }))
}

/// Encapsulation to the encoded key `ek`, parsed once; `m` derandomises it.
pub fn encaps(p: &Primitive, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'static>> {
    let (alg, nid) = algorithm(p)?;
    if let Some(m) = m {
        let out = seeded_encaps(nid, ek, m)?;
        return Ok(Box::new(move || Ok(out.clone())));
    }
    let ek = EncapsulationKey::new(alg, ek).map_err(|e| format!("encapsulation key: {e}"))?;
    Ok(Box::new(move || {
        let (c, k) = ek
            .encapsulate()
            .map_err(|e| format!("encapsulation failed: {e}"))?;
        Ok((c.as_ref().to_vec(), k.as_ref().to_vec()))
    }))
}

/// Decapsulation with the expanded decapsulation key `dk`, parsed once.
pub fn decaps(p: &Primitive, dk: &[u8]) -> Res<DecapsFn<'static>> {
    let (alg, _) = algorithm(p)?;
    let dk = DecapsulationKey::new(alg, dk).map_err(|e| format!("decapsulation key: {e}"))?;
    Ok(Box::new(move |c| {
        let k = dk
            .decapsulate(Ciphertext::from(c))
            .map_err(|e| format!("decapsulation failed: {e}"))?;
        Ok(k.as_ref().to_vec())
    }))
}

/// The timed key generation: the key pair kept as aws-lc-rs's key object, nothing copied out.
pub fn keygen_timed(p: &Primitive) -> Res<OpFn<'static>> {
    let (alg, _) = algorithm(p)?;
    Ok(Box::new(move || {
        let dk = DecapsulationKey::generate(alg).map_err(|e| format!("keygen failed: {e}"))?;
        black_box(dk);
        Ok(())
    }))
}

/// The timed `keygen+encode`: a key pair and both its encodings as aws-lc-rs returns them (in
/// buffers its `key_bytes` allocates, the encapsulation key a new object), nothing copied out.
pub fn keygen_encode_timed(p: &Primitive) -> Res<OpFn<'static>> {
    let (alg, _) = algorithm(p)?;
    Ok(Box::new(move || {
        let dk = DecapsulationKey::generate(alg).map_err(|e| format!("keygen failed: {e}"))?;
        let ek = dk
            .encapsulation_key()
            .map_err(|e| format!("no encapsulation key: {e}"))?;
        let e = ek
            .key_bytes()
            .map_err(|e| format!("encapsulation key not encoded: {e}"))?;
        let d = dk
            .key_bytes()
            .map_err(|e| format!("decapsulation key not encoded: {e}"))?;
        black_box((e, d));
        Ok(())
    }))
}

/// The timed encapsulation to `ek`, parsed once: ciphertext and secret as the API returns them.
pub fn encaps_timed(p: &Primitive, ek: &[u8]) -> Res<OpFn<'static>> {
    let (alg, _) = algorithm(p)?;
    let ek = EncapsulationKey::new(alg, ek).map_err(|e| format!("encapsulation key: {e}"))?;
    Ok(Box::new(move || {
        let out = ek.encapsulate();
        black_box(out.map_err(|e| format!("encapsulation failed: {e}"))?);
        Ok(())
    }))
}

/// The timed decapsulation of `c` with `dk`, the key parsed once: the secret as returned.
pub fn decaps_timed(p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'static>> {
    let (alg, _) = algorithm(p)?;
    let dk = DecapsulationKey::new(alg, dk).map_err(|e| format!("decapsulation key: {e}"))?;
    let c = c.to_vec();
    Ok(Box::new(move || {
        let k = dk.decapsulate(Ciphertext::from(c.as_slice()));
        black_box(k.map_err(|e| format!("decapsulation failed: {e}"))?);
        Ok(())
    }))
}

/// An `EVP_PKEY_CTX` freed when dropped.
struct Ctx(*mut sys::EVP_PKEY_CTX);

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: the context was allocated by AWS-LC and is freed once, here.
        unsafe { sys::EVP_PKEY_CTX_free(self.0) }
    }
}

/// An `EVP_PKEY` freed when dropped.
struct Pkey(*mut sys::EVP_PKEY);

impl Drop for Pkey {
    fn drop(&mut self) {
        // SAFETY: the key was allocated by AWS-LC (or is null, which it accepts) and is freed once.
        unsafe { sys::EVP_PKEY_free(self.0) }
    }
}

/// A raw key of `pkey` through `get` (`EVP_PKEY_get_raw_public_key` or `…_private_key`).
fn raw(
    pkey: &Pkey,
    get: unsafe extern "C" fn(*const sys::EVP_PKEY, *mut u8, *mut usize) -> i32,
) -> Res<Vec<u8>> {
    let mut len = 0usize;
    // SAFETY: a null output asks for the length only; then the buffer has that length.
    unsafe {
        if get(pkey.0, std::ptr::null_mut(), &mut len) != 1 {
            return Err("AWS-LC did not give the key's length".into());
        }
        let mut out = vec![0u8; len];
        if get(pkey.0, out.as_mut_ptr(), &mut len) != 1 {
            return Err("AWS-LC did not write the key".into());
        }
        out.truncate(len);
        Ok(out)
    }
}

/// FIPS 203's ML-KEM.KeyGen_internal(d, z) through `EVP_PKEY_keygen_deterministic`:
/// (encapsulation key, expanded decapsulation key).
fn seeded_keygen(nid: i32, seed: &[u8]) -> Res<(Vec<u8>, Vec<u8>)> {
    if seed.len() != 64 {
        return Err(format!("an ML-KEM seed is 64 bytes, not {}", seed.len()));
    }
    // SAFETY: every pointer is AWS-LC's own or a live buffer of the length passed with it.
    unsafe {
        let ctx = Ctx(sys::EVP_PKEY_CTX_new_id(
            sys::EVP_PKEY_KEM,
            std::ptr::null_mut(),
        ));
        if ctx.0.is_null()
            || sys::EVP_PKEY_CTX_kem_set_params(ctx.0, nid) != 1
            || sys::EVP_PKEY_keygen_init(ctx.0) != 1
        {
            return Err("AWS-LC's KEM context could not be set up".into());
        }
        let mut pkey = Pkey(std::ptr::null_mut());
        let mut len = seed.len();
        if sys::EVP_PKEY_keygen_deterministic(ctx.0, &mut pkey.0, seed.as_ptr(), &mut len) != 1 {
            return Err("EVP_PKEY_keygen_deterministic failed".into());
        }
        let ek = raw(&pkey, sys::EVP_PKEY_get_raw_public_key)?;
        let dk = raw(&pkey, sys::EVP_PKEY_get_raw_private_key)?;
        Ok((ek, dk))
    }
}

/// FIPS 203's ML-KEM.Encaps_internal(ek, m) through `EVP_PKEY_encapsulate_deterministic`:
/// (ciphertext, shared secret).
fn seeded_encaps(nid: i32, ek: &[u8], m: &[u8]) -> Res<(Vec<u8>, Vec<u8>)> {
    if m.len() != 32 {
        return Err(format!("m must be 32 bytes, not {}", m.len()));
    }
    // Room for ML-KEM-1024's ciphertext; AWS-LC writes the lengths it used (FIPS 203 table 3).
    let mut c = vec![0u8; 1568];
    let mut k = vec![0u8; 32];
    let (mut c_len, mut k_len, mut m_len) = (c.len(), k.len(), m.len());
    // SAFETY: every pointer is AWS-LC's own or a live buffer of the length passed with it.
    unsafe {
        let pkey = Pkey(sys::EVP_PKEY_kem_new_raw_public_key(
            nid,
            ek.as_ptr(),
            ek.len(),
        ));
        if pkey.0.is_null() {
            return Err(format!(
                "AWS-LC rejects the {}-byte encapsulation key",
                ek.len()
            ));
        }
        let ctx = Ctx(sys::EVP_PKEY_CTX_new(pkey.0, std::ptr::null_mut()));
        if ctx.0.is_null()
            || sys::EVP_PKEY_encapsulate_deterministic(
                ctx.0,
                c.as_mut_ptr(),
                &mut c_len,
                k.as_mut_ptr(),
                &mut k_len,
                m.as_ptr(),
                &mut m_len,
            ) != 1
        {
            return Err("EVP_PKEY_encapsulate_deterministic failed".into());
        }
    }
    c.truncate(c_len);
    k.truncate(k_len);
    Ok((c, k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_catalog::{lookup, unhex, Kat};

    fn ml_kem_768() -> &'static Primitive {
        lookup("ml-kem-768").unwrap()
    }

    /// The ACVP keyGen vector through the seeded path, and the seed's halves where FIPS 203 puts
    /// them: d makes the encapsulation key, z is only kept in the decapsulation key.
    #[test]
    fn the_seeded_key_generation_follows_the_keygen_vector_and_the_seed_layout() {
        let p = ml_kem_768();
        let Some(Kat::KemKeygen { d, z, ek, .. }) = p.kats.first().copied() else {
            panic!("ml-kem-768's first vector is its keyGen vector");
        };
        let seed = [unhex(d), unhex(z)].concat();
        let (got_ek, got_dk) = keygen(p, Some(&seed)).unwrap()().unwrap();
        assert_eq!(got_ek, unhex(ek));
        assert_eq!(got_dk.len(), 2400, "the expanded decapsulation key");
        // dk = dk_PKE ‖ ek ‖ H(ek) ‖ z (FIPS 203 algorithm 16).
        assert_eq!(&got_dk[1152..2336], got_ek.as_slice());
        assert_eq!(&got_dk[2368..], &seed[32..]);
        let mut other_z = seed.clone();
        other_z[63] ^= 1;
        let (ek2, dk2) = keygen(p, Some(&other_z)).unwrap()().unwrap();
        assert_eq!(ek2, got_ek);
        assert_ne!(dk2, got_dk);
        assert!(
            keygen(p, Some(&seed[..63])).is_err(),
            "a short seed is refused"
        );
    }

    /// Keys from aws-lc-rs's own generator round-trip through the timed calls' parsing: what is
    /// encapsulated to the encoded key decapsulates with the encoded expanded key.
    #[test]
    fn generated_keys_round_trip_through_their_encodings() {
        for id in ["ml-kem-512", "ml-kem-768", "ml-kem-1024"] {
            let p = lookup(id).unwrap();
            let (ek, dk) = keygen(p, None).unwrap()().unwrap();
            let (c, k) = encaps(p, &ek, None).unwrap()().unwrap();
            assert_eq!(decaps(p, &dk).unwrap()(&c).unwrap(), k, "{id}");
            let mut tampered = c.clone();
            tampered[0] ^= 1;
            let rejected = decaps(p, &dk).unwrap()(&tampered).unwrap();
            assert_ne!(rejected, k, "{id}: implicit rejection gives another secret");
            for mut timed in [
                keygen_timed(p).unwrap(),
                encaps_timed(p, &ek).unwrap(),
                decaps_timed(p, &dk, &c).unwrap(),
            ] {
                timed().unwrap();
            }
        }
        assert!(encaps(ml_kem_768(), &[0u8; 800], None).is_err());
        assert!(keygen(lookup("x25519").unwrap(), None).is_err());
    }
}
