//! The known-answer tests and cross checks of a [`Suite`]: each published vector through the
//! suite's calls, and for the primitives without a deterministic vector a check against another
//! computation (num-bigint for RSA and FFDH) or a sign-verify round trip.

use super::*;

/// RSA known-answer check without a vector per key size: the suite's PKCS#1 v1.5 SHA-256
/// signature is checked by recomputing s^e mod n with num-bigint.
fn rsa_cross_check(suite: &dyn Suite, p: &Primitive) -> Res<()> {
    let pem = cryptospeed_catalog::agreement::private_key_pem(&p.algorithm)
        .ok_or("no shipped key of this size")?;
    let der = cryptospeed_catalog::agreement::pem_to_der(pem);
    let (n, e) = rsa_public_from_pkcs8(&der)?;
    let mut signer = suite.signer(p, Some(&der))?;
    let msg = b"cryptospeed RSA cross-check";
    let sig = signer.sign(msg)?;
    let k = n.bits().div_ceil(8) as usize;
    let s = BigUint::from_bytes_be(&sig);
    let m = s.modpow(&e, &n).to_bytes_be();
    let mut em = vec![0u8; k - m.len()];
    em.extend(m);
    let digest = sha256(msg);
    let want = pkcs1_sha256(&digest, k);
    if em != want {
        return Err("s^e mod n is not the PKCS#1 v1.5 SHA-256 encoding of the message".into());
    }
    if !signer.verify(msg, &sig)? {
        return Err("its own signature does not verify".into());
    }
    if signer.verify(msg, &corrupt(&sig))? {
        return Err("a corrupted signature verifies".into());
    }
    Ok(())
}

/// FFDH without a vector: both directions agree, and the secret is b^x mod p recomputed with
/// num-bigint over the RFC 7919 prime (which also checks that the library used that group).
fn ffdh_cross_check(suite: &dyn Suite, p: &Primitive, group: &str) -> Res<()> {
    let prime = ffdh_prime(group)?;
    let ((xa, ya), (xb, yb)) = (suite.ffdh_keygen(p)?, suite.ffdh_keygen(p)?);
    let ab = suite.derive(p, &xa, &yb)?()?;
    let ba = suite.derive(p, &xb, &ya)?()?;
    if ab != ba {
        return Err(mismatch("the two directions' secrets", &ab, &ba));
    }
    let want = BigUint::from_bytes_be(&yb).modpow(&BigUint::from_bytes_be(&xa), &prime);
    if BigUint::from_bytes_be(&ab) != want || ab.len() != prime.bits().div_ceil(8) as usize {
        return Err("the secret is not peer^private mod p, padded to p's length".into());
    }
    Ok(())
}

/// Runs one known-answer vector through a suite.
pub(crate) fn known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    match (p.algorithm, *kat) {
        (Algorithm::Digest { .. } | Algorithm::Xof { .. }, Kat::Digest { msg, out, .. }) => {
            let (msg, want) = (unhex(msg), unhex(out));
            let mut got = vec![0u8; want.len()];
            suite.hash(p)?(&msg, &mut got)?;
            expect_eq("digest", &got, &want)
        }
        (
            _,
            Kat::Mac {
                key, iv, msg, out, ..
            },
        ) => {
            let want = unhex(out);
            let mut got = vec![0u8; want.len()];
            suite.mac(p, &unhex(key), &unhex(iv))?(&unhex(msg), &mut got)?;
            expect_eq("MAC", &got, &want)
        }
        (_, Kat::Cipher { .. }) => cipher_known_answer(suite, p, kat),
        (_, Kat::Aead { .. }) => aead_known_answer(suite, p, kat),
        (_, Kat::OcbIterated { .. }) => ocb_iterated_known_answer(suite, p, kat),
        (_, Kat::SignatureVerify { .. }) => signature_verify_known_answer(suite, p, kat),
        (_, Kat::EddsaSign { .. }) => eddsa_sign_known_answer(suite, p, kat),
        (
            _,
            Kat::Agreement {
                private,
                peer_public,
                shared,
                ..
            },
        ) => {
            let want = unhex(shared);
            let got = suite.derive(p, &unhex(private), &unhex(peer_public))?()?;
            expect_eq("shared secret", &got, &want)
        }
        (
            _,
            Kat::KemKeygen { .. }
            | Kat::KemEncaps { .. }
            | Kat::KemDecaps { .. }
            | Kat::SigKeygen { .. }
            | Kat::SigInternal { .. },
        ) => seeded_known_answer(suite, p, kat),
        (_, Kat::SigVerifyInternal { .. }) => verify_internal_known_answer(suite, p, kat),
        (Algorithm::Rsa { .. }, Kat::CrossCheck { .. }) => rsa_cross_check(suite, p),
        (
            Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. } | Algorithm::Eddsa { .. },
            Kat::CrossCheck { .. },
        ) => sign_verify_round_trip(suite, p),
        (Algorithm::Ffdh { group, .. }, Kat::CrossCheck { .. }) => {
            ffdh_cross_check(suite, p, group)
        }
        (_, Kat::CrossCheck { how }) => Err(format!("no generic check for: {how}")),
        (alg, k) => Err(format!("vector {k:?} does not fit {alg:?}")),
    }
}

/// RFC 7253's iterated OCB vector: 385 sealings under one key, the last tag compared.
fn ocb_iterated_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let (Algorithm::Aead { key_len, .. }, Kat::OcbIterated { out, .. }) = (p.algorithm, *kat)
    else {
        return Err(format!("vector {kat:?} does not fit {:?}", p.algorithm));
    };
    let want = unhex(out);
    let key = cryptospeed_catalog::ocb_iterated_key(key_len, want.len());
    let mut seal = suite.aead(p, &key, true)?;
    let got = cryptospeed_catalog::ocb_iterated(|nonce, aad, pt| {
        let mut buf = pt.to_vec();
        let mut tag = vec![0u8; want.len()];
        seal(nonce, aad, &mut buf, &mut tag)?;
        buf.extend(tag);
        Ok(buf)
    })?;
    expect_eq("iterated OCB tag", &got, &want)
}

/// A cipher vector: the ciphertext, and the plaintext back.
fn cipher_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let Kat::Cipher {
        key, iv, pt, ct, ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not a cipher's"));
    };
    let (key, iv, pt, want) = (unhex(key), unhex(iv), unhex(pt), unhex(ct));
    let mut buf = pt.clone();
    suite.cipher(p, &key, &iv, true)?(&mut buf)?;
    if buf != want {
        return Err(mismatch("ciphertext", &buf, &want));
    }
    suite.cipher(p, &key, &iv, false)?(&mut buf)?;
    expect_eq("decrypted", &buf, &pt)
}

/// An EdDSA vector: the same signature byte for byte, which verifies; a corrupted one does not.
fn eddsa_sign_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let Kat::EddsaSign {
        private, msg, sig, ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not an EdDSA signing vector"));
    };
    let mut signer = suite.signer(p, Some(&unhex(private)))?;
    let (msg, want) = (unhex(msg), unhex(sig));
    let got = signer.sign(&msg)?;
    if got != want {
        return Err(mismatch("signature", &got, &want));
    }
    if !signer.verify(&msg, &got)? || signer.verify(&msg, &corrupt(&got))? {
        return Err("verification of the vector's signature is wrong".into());
    }
    Ok(())
}

/// An internal-interface verification vector (ML-DSA, SLH-DSA): the good case verifies, the
/// rejected case does not.
fn verify_internal_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let Kat::SigVerifyInternal {
        public,
        msg,
        sig,
        bad_public,
        bad_msg,
        bad_sig,
        ..
    } = *kat
    else {
        return Err(format!(
            "vector {kat:?} is not an internal verification vector"
        ));
    };
    if !suite.verify_internal(p, &unhex(public), &unhex(msg), &unhex(sig))? {
        return Err("the published signature does not verify".into());
    }
    if suite.verify_internal(p, &unhex(bad_public), &unhex(bad_msg), &unhex(bad_sig))? {
        return Err("a signature the vectors reject verifies".into());
    }
    Ok(())
}

/// `Ok` when `got` is `want`, else the mismatch in hex.
fn expect_eq(what: &str, got: &[u8], want: &[u8]) -> Res<()> {
    (got == want)
        .then_some(())
        .ok_or_else(|| mismatch(what, got, want))
}

/// An AEAD vector: the ciphertext and tag, the plaintext back, and a corrupted tag refused.
fn aead_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let Kat::Aead {
        key,
        nonce,
        aad,
        pt,
        ct,
        tag,
        ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not an AEAD's"));
    };
    let (key, nonce, aad, pt) = (unhex(key), unhex(nonce), unhex(aad), unhex(pt));
    let (want_ct, want_tag) = (unhex(ct), unhex(tag));
    let mut buf = pt.clone();
    let mut got_tag = vec![0u8; want_tag.len()];
    suite.aead(p, &key, true)?(&nonce, &aad, &mut buf, &mut got_tag)?;
    if buf != want_ct {
        return Err(mismatch("ciphertext", &buf, &want_ct));
    }
    if got_tag != want_tag {
        return Err(mismatch("tag", &got_tag, &want_tag));
    }
    let mut open = suite.aead(p, &key, false)?;
    if !open(&nonce, &aad, &mut buf, &mut got_tag)? || buf != pt {
        return Err("decryption of the vector failed".into());
    }
    let mut bad_tag = corrupt(&want_tag);
    let mut again = want_ct.clone();
    if open(&nonce, &aad, &mut again, &mut bad_tag)? {
        return Err("a corrupted tag authenticates".into());
    }
    Ok(())
}

/// A published signature verifies, and a corrupted one does not.
fn signature_verify_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    let Kat::SignatureVerify {
        spki,
        digest,
        msg,
        sig,
        ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not a signature's"));
    };

    let spki = unhex(spki);
    let public = match p.algorithm {
        Algorithm::Ecdsa { curve } => spki_point(curve, &spki)?.to_vec(),
        // An EdDSA SubjectPublicKeyInfo ends with the raw public key.
        Algorithm::Eddsa { curve } if spki.len() >= field_bytes(curve) => {
            spki[spki.len() - field_bytes(curve)..].to_vec()
        }
        _ => spki,
    };
    let digest = digest.unwrap_or("");
    let (msg, sig) = (unhex(msg), unhex(sig));
    if !suite.verify_foreign(p, &public, digest, &msg, &sig)? {
        return Err("the published signature does not verify".into());
    }
    if suite.verify_foreign(p, &public, digest, &msg, &corrupt(&sig))? {
        return Err("a corrupted signature verifies".into());
    }
    Ok(())
}

/// A signature of the timing key verifies in the same implementation and a corrupted one does
/// not (the check for signatures with no deterministic known answer).
fn sign_verify_round_trip(suite: &dyn Suite, p: &Primitive) -> Res<()> {
    let mut signer = timing_signer(suite, p)?;
    let msg = b"cryptospeed sign-verify round trip";
    let sig = signer.sign(msg)?;
    if !signer.verify(msg, &sig)? || signer.verify(msg, &corrupt(&sig))? {
        return Err("sign/verify round trip failed".into());
    }
    Ok(())
}

/// A vector of the seeded (post-quantum) families: key generation from a seed, derandomised
/// encapsulation, decapsulation, and the internal (M') signing interface.
fn seeded_known_answer(suite: &dyn Suite, p: &Primitive, kat: &Kat) -> Res<()> {
    match *kat {
        Kat::KemKeygen { d, z, ek, .. } => {
            let seed = [unhex(d), unhex(z)].concat();
            let (got, _) = suite.kem_keygen(p, Some(&seed))?()?;
            let want = unhex(ek);
            expect_eq("encapsulation key", &got, &want)
        }
        Kat::KemEncaps { ek, m, c, k, .. } => {
            let (got_c, got_k) = suite.kem_encaps(p, &unhex(ek), Some(&unhex(m)))?()?;
            let (want_c, want_k) = (unhex(c), unhex(k));
            if got_c != want_c {
                return Err(mismatch("ciphertext", &got_c, &want_c));
            }
            expect_eq("shared secret", &got_k, &want_k)
        }
        Kat::KemDecaps { dk, c, k, .. } => {
            let got = suite.kem_decaps(p, &unhex(dk))?(&unhex(c))?;
            let want = unhex(k);
            expect_eq("shared secret", &got, &want)
        }
        Kat::SigKeygen { seed, public, .. } => {
            let got = suite.signer(p, Some(&unhex(seed)))?.public();
            let want = unhex(public);
            expect_eq("public key", &got, &want)
        }
        Kat::SigInternal {
            private, msg, sig, ..
        } => {
            let got = suite.sign_internal(p, &unhex(private), &unhex(msg))?;
            let want = unhex(sig);
            expect_eq("signature", &got, &want)
        }
        _ => Err(format!("vector {kat:?} is not of a seeded family")),
    }
}
