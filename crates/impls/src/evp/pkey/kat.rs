//! The public-key known-answer tests and cross checks: published vectors where the operation is
//! deterministic, round trips and checks against another computation (num-bigint) where not.

use super::*;

/// Reads a BIGNUM parameter of a key as a number (OpenSSL 3).
fn bn_param(api: &Api, k: &Key, name: &str) -> Result<BigUint, String> {
    let n = CString::new(name).unwrap();
    // SAFETY: the BIGNUM and its hex string are freed before returning; RSA_get0_key's
    // BIGNUMs belong to the key and are duplicated before use.
    unsafe {
        let mut bn: Ptr = null_mut();
        match (
            api.EVP_PKEY_get_bn_param,
            api.EVP_PKEY_get0_RSA,
            api.RSA_get0_key,
            api.BN_dup,
        ) {
            (Some(get), _, _, _) => {
                if get(k.ptr, n.as_ptr(), &mut bn) != 1 {
                    return Err(format!("key has no parameter {name}: {}", api.errors()));
                }
            }
            // OpenSSL 1.1.1: the RSA modulus and exponent through the RSA object.
            (None, Some(get0_rsa), Some(get0_key), Some(dup)) if name == "n" || name == "e" => {
                let rsa = get0_rsa(k.ptr);
                if rsa.is_null() {
                    return Err(format!("not an RSA key: {}", api.errors()));
                }
                let (mut nn, mut ee): (Ptr, Ptr) = (null_mut(), null_mut());
                get0_key(rsa, &mut nn, &mut ee, null_mut());
                bn = dup(if name == "n" { nn } else { ee });
                if bn.is_null() {
                    return Err(format!("key has no parameter {name}"));
                }
            }
            (None, _, _, Some(dup)) if api.EVP_PKEY_get0_DH.is_some() => {
                bn = dup(dh_param(api, k, name)?);
            }
            _ => {
                return Err(format!(
                    "reading the key parameter {name} needs OpenSSL 3 (EVP_PKEY_get_bn_param)"
                ))
            }
        }
        let hex_ptr = (api.BN_bn2hex)(bn);
        let text = std::ffi::CStr::from_ptr(hex_ptr)
            .to_string_lossy()
            .into_owned();
        api.free(hex_ptr as *mut _);
        (api.BN_free)(bn);
        BigUint::parse_bytes(text.as_bytes(), 16).ok_or_else(|| format!("bad hex for {name}"))
    }
}

/// A DH key's p, priv or pub (borrowed from the key) through the 1.1.1-style accessors.
///
/// SAFETY: `k` is a live key; the result lives as long as it.
unsafe fn dh_param(api: &Api, k: &Key, name: &str) -> Result<Ptr, String> {
    let (Some(get0), Some(pqg), Some(keys)) =
        (api.EVP_PKEY_get0_DH, api.DH_get0_pqg, api.DH_get0_key)
    else {
        return Err("this libcrypto has no DH accessors".into());
    };
    let dh = get0(k.ptr);
    if dh.is_null() {
        return Err(format!("not a DH key: {}", api.errors()));
    }
    let (mut a, mut b): (Ptr, Ptr) = (null_mut(), null_mut());
    match name {
        "p" => pqg(dh, &mut a, null_mut(), null_mut()),
        "pub" | "priv" => keys(dh, &mut a, &mut b),
        _ => return Err(format!("a DH key has no parameter {name}")),
    }
    let bn = if name == "priv" { b } else { a };
    if bn.is_null() {
        return Err(format!("the DH key lacks {name}"));
    }
    Ok(bn)
}

pub(crate) fn digest(api: &Api, name: &str, msg: &[u8]) -> Result<Vec<u8>, String> {
    let md = fetch_md(api, name)?;
    let mut out = [0u8; 64];
    let mut len = 0u32;
    // SAFETY: owned buffers.
    if unsafe {
        (api.EVP_Digest)(
            msg.as_ptr() as *const _,
            msg.len(),
            out.as_mut_ptr(),
            &mut len,
            md,
            null_mut(),
        )
    } != 1
    {
        return Err(format!("EVP_Digest failed: {}", api.errors()));
    }
    Ok(out[..len as usize].to_vec())
}

/// Runs one public-key known-answer vector or cross check.
pub fn known_answer(api: &Api, algorithm: &Algorithm, kat: &Kat) -> Result<(), String> {
    match (*algorithm, *kat) {
        (
            Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. },
            Kat::SignatureVerify {
                spki,
                digest: Some(md),
                msg,
                sig,
                ..
            },
        ) => {
            let k = spki_key(api, &unhex(spki))?;
            let ctx = init_ctx(api, &k, Op::Verify)?;
            let h = digest(api, md, &unhex(msg))?;
            let sig = unhex(sig);
            if !verify_once(api, &ctx, &h, &sig) {
                return Err("a published valid signature was rejected".into());
            }
            if verify_once(api, &ctx, &h, &corrupt(&sig)) {
                return Err("a corrupted signature was accepted".into());
            }
            Ok(())
        }
        (Algorithm::Eddsa { .. }, Kat::SignatureVerify { digest: None, .. }) => {
            eddsa_verify_known_answer(api, kat)
        }
        (Algorithm::Eddsa { curve }, Kat::EddsaSign { .. }) => {
            eddsa_sign_known_answer(api, curve, kat)
        }
        (
            Algorithm::Ecdh { curve },
            Kat::Agreement {
                private,
                peer_public,
                shared,
                ..
            },
        ) => {
            let (private, peer, want) = (unhex(private), unhex(peer_public), unhex(shared));
            let (own, other) = agreement_keys(api, curve, &private, &peer)?;
            let got = derive(api, &own, &other)?;
            (got == want).then_some(()).ok_or_else(|| {
                format!(
                    "shared secret: got {}, expected {}",
                    hex::encode(&got),
                    hex::encode(&want)
                )
            })
        }
        (Algorithm::Rsa { .. }, Kat::CrossCheck { .. }) => rsa_cross_check(api, algorithm),
        (
            Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. } | Algorithm::Eddsa { .. },
            Kat::CrossCheck { .. },
        ) => sign_verify_round_trip(api, algorithm),
        (Algorithm::Ecdh { .. }, Kat::CrossCheck { .. }) => {
            let (a, b) = (timing_key(api, algorithm)?, timing_key(api, algorithm)?);
            let (ab, ba) = (derive(api, &a, &b)?, derive(api, &b, &a)?);
            (ab == ba && !ab.is_empty())
                .then_some(())
                .ok_or_else(|| "the two directions derived different secrets".into())
        }
        (Algorithm::Ffdh { .. }, Kat::CrossCheck { .. }) => ffdh_cross_check(api, algorithm),
        (alg, kat) => Err(format!("no way to apply {kat:?} to {alg:?}")),
    }
}

/// An EdDSA signature from a SubjectPublicKeyInfo verifies; a corrupted one does not.
fn eddsa_verify_known_answer(api: &Api, kat: &Kat) -> Result<(), String> {
    let Kat::SignatureVerify { spki, msg, sig, .. } = *kat else {
        return Err(format!("vector {kat:?} is not a signature's"));
    };
    let k = spki_key(api, &unhex(spki))?;
    let mdctx = digest_sign_ctx(api, &k, false)?;
    let (msg, sig) = (unhex(msg), unhex(sig));
    // SAFETY: live context, owned buffers.
    let good =
        unsafe { (api.EVP_DigestVerify)(mdctx, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len()) };
    let bad_sig = corrupt(&sig);
    let m2 = digest_sign_ctx(api, &k, false)?;
    let bad = unsafe {
        (api.EVP_DigestVerify)(m2, bad_sig.as_ptr(), bad_sig.len(), msg.as_ptr(), msg.len())
    };
    unsafe {
        (api.EVP_MD_CTX_free)(mdctx);
        (api.EVP_MD_CTX_free)(m2);
        (api.ERR_clear_error)();
    }
    match (good, bad) {
        (1, 1) => Err("a corrupted signature was accepted".into()),
        (1, _) => Ok(()),
        _ => Err("a published valid signature was rejected".into()),
    }
}

/// RFC 8032's signature byte for byte, which the public key verifies.
fn eddsa_sign_known_answer(api: &Api, curve: Curve, kat: &Kat) -> Result<(), String> {
    let Kat::EddsaSign {
        private,
        public,
        msg,
        sig,
        ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not an EdDSA signing vector"));
    };
    let (private, public, msg, want) = (unhex(private), unhex(public), unhex(msg), unhex(sig));
    let got = eddsa_sign(api, &raw_key(api, curve, &private, true)?, &msg)?;
    if got != want {
        return Err(format!(
            "signature: got {}, expected {}",
            hex::encode(&got),
            hex::encode(&want)
        ));
    }
    let pk = raw_key(api, curve, &public, false)?;
    let v = digest_sign_ctx(api, &pk, false)?;
    let ok =
        unsafe { (api.EVP_DigestVerify)(v, want.as_ptr(), want.len(), msg.as_ptr(), msg.len()) };
    unsafe { (api.EVP_MD_CTX_free)(v) };
    (ok == 1)
        .then_some(())
        .ok_or_else(|| "the published signature does not verify".into())
}

/// Round trip with the timing key through the timed calls; the verifier itself is pinned by
/// the published vector.
fn sign_verify_round_trip(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let k = timing_key(api, algorithm)?;
    let tbs: Vec<u8> = (0..tbs_len(algorithm) as u8).collect();
    if let Algorithm::Eddsa { .. } = algorithm {
        let s = digest_sign_ctx(api, &k, true)?;
        let sig = digest_sign(api, s, &tbs);
        unsafe { (api.EVP_MD_CTX_free)(s) };
        let sig = sig?;
        for (candidate, want) in [(sig.clone(), 1), (corrupt(&sig), 0)] {
            let v = digest_sign_ctx(api, &k, false)?;
            let r = unsafe {
                (api.EVP_DigestVerify)(
                    v,
                    candidate.as_ptr(),
                    candidate.len(),
                    tbs.as_ptr(),
                    tbs.len(),
                )
            };
            unsafe {
                (api.EVP_MD_CTX_free)(v);
                (api.ERR_clear_error)()
            };
            if (r == 1) != (want == 1) {
                return Err(if want == 1 {
                    "own signature rejected".into()
                } else {
                    "corrupted signature accepted".into()
                });
            }
        }
        return Ok(());
    }
    let sig = sign_once(api, &init_ctx(api, &k, Op::Sign)?, &tbs)?;
    let v = init_ctx(api, &k, Op::Verify)?;
    if !verify_once(api, &v, &tbs, &sig) {
        return Err("own signature rejected".into());
    }
    if verify_once(api, &v, &tbs, &corrupt(&sig)) {
        return Err("corrupted signature accepted".into());
    }
    Ok(())
}

/// FFDH: both directions derive the same secret, and it is pub_b^priv_a mod p.
fn ffdh_cross_check(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let (a, b) = (timing_key(api, algorithm)?, timing_key(api, algorithm)?);
    let (ab, ba) = (derive(api, &a, &b)?, derive(api, &b, &a)?);
    if ab != ba {
        return Err("the two directions derived different secrets".into());
    }
    let (p, priv_a, pub_b) = (
        bn_param(api, &a, "p")?,
        bn_param(api, &a, "priv")?,
        bn_param(api, &b, "pub")?,
    );
    let want = pub_b.modpow(&priv_a, &p);
    (BigUint::from_bytes_be(&ab) == want)
        .then_some(())
        .ok_or_else(|| "shared secret differs from pub_b^priv_a mod p".into())
}

/// RSA: the PKCS#1 v1.5 signature of the timed 36-byte message, checked by recomputing
/// s^e mod n outside the library; verification and encryption round trips.
fn rsa_cross_check(api: &Api, algorithm: &Algorithm) -> Result<(), String> {
    let k = timing_key(api, algorithm)?;
    let tbs: Vec<u8> = (0..36u8).collect();
    let sig = sign_once(api, &init_ctx(api, &k, Op::Sign)?, &tbs)?;
    let (n, e) = (bn_param(api, &k, "n")?, bn_param(api, &k, "e")?);
    let k_len = (n.bits() as usize).div_ceil(8);
    let mut em = vec![0u8, 1];
    em.extend(std::iter::repeat_n(0xffu8, k_len - 3 - tbs.len()));
    em.push(0);
    em.extend_from_slice(&tbs);
    if BigUint::from_bytes_be(&sig).modpow(&e, &n) != BigUint::from_bytes_be(&em) {
        return Err("s^e mod n is not the PKCS#1 v1.5 encoding of the message".into());
    }
    let v = init_ctx(api, &k, Op::Verify)?;
    if !verify_once(api, &v, &tbs, &sig) {
        return Err("own signature rejected".into());
    }
    if verify_once(api, &v, &tbs, &corrupt(&sig)) {
        return Err("corrupted signature accepted".into());
    }
    let msg = [0x5au8; 32];
    let enc = init_ctx(api, &k, Op::Encrypt)?;
    let dec = init_ctx(api, &k, Op::Decrypt)?;
    let mut ct = vec![0u8; 4096];
    let mut pt = vec![0u8; 4096];
    let (mut cl, mut pl) = (ct.len(), pt.len());
    // SAFETY: owned buffers large enough for a 15360-bit modulus.
    unsafe {
        if (api.EVP_PKEY_encrypt)(enc.ptr, ct.as_mut_ptr(), &mut cl, msg.as_ptr(), msg.len()) <= 0
            || (api.EVP_PKEY_decrypt)(dec.ptr, pt.as_mut_ptr(), &mut pl, ct.as_ptr(), cl) <= 0
        {
            return Err(format!("encryption round trip failed: {}", api.errors()));
        }
    }
    (pt[..pl] == msg)
        .then_some(())
        .ok_or_else(|| "decryption did not return the plaintext".into())
}
