//! The symmetric known-answer tests: each published vector runs through the same context set-up
//! and calls as the timed loops (symmetric/mod.rs, mac.rs, evp_aead.rs).

use super::*;

/// Runs one symmetric known-answer vector.
pub fn known_answer(api: &Api, algorithm: &Algorithm, kat: &Kat) -> Result<(), String> {
    match (*algorithm, *kat) {
        (Algorithm::Digest { name }, Kat::Digest { msg, out, .. }) => {
            digest_known_answer(api, name, &unhex(msg), &unhex(out))
        }
        (Algorithm::Xof { name, .. }, Kat::Digest { msg, out, .. }) => {
            let (msg, want) = (unhex(msg), unhex(out));
            let mut t = XofLoop {
                api,
                md: fetch_md(api, name)?,
                ctx: unsafe { (api.EVP_MD_CTX_new)() },
                msg: AlignedBuffer::new(msg.len(), 0, 0),
                out: vec![0; want.len()],
            };
            t.msg.as_mut_slice().copy_from_slice(&msg);
            t.run(1)?;
            (t.out == want)
                .then_some(())
                .ok_or_else(|| mismatch("XOF output", &t.out, &want))
        }
        (
            Algorithm::Hmac { .. } | Algorithm::Cmac { .. } | Algorithm::Gmac { .. },
            Kat::Mac {
                key, iv, msg, out, ..
            },
        ) => {
            let (key, iv, msg, want) = (unhex(key), unhex(iv), unhex(msg), unhex(out));
            let mut mac = mac_ctx(api, algorithm, &key, &iv)?;
            let mut got = [0u8; 64];
            let len = mac
                .update(msg.as_ptr(), msg.len())
                .then(|| mac.finish(&mut got))
                .flatten()
                .ok_or_else(|| format!("MAC computation failed: {}", api.errors()))?;
            let got = &got[..len];
            (got == want.as_slice())
                .then_some(())
                .ok_or_else(|| mismatch("MAC", got, &want))
        }
        (Algorithm::Cipher { name, .. }, Kat::Cipher { .. }) => cipher_known_answer(api, name, kat),
        (Algorithm::Aead { name, .. }, Kat::Aead { .. }) => aead_known_answer(api, name, kat),
        (Algorithm::Aead { name, key_len, .. }, Kat::OcbIterated { out, .. }) => {
            ocb_iterated_known_answer(api, name, key_len, &unhex(out))
        }
        (alg, kat) => Err(format!("no way to apply {kat:?} to {alg:?}")),
    }
}

/// RFC 7253's iterated OCB vector: 385 sealings under one key, the last tag compared.
fn ocb_iterated_known_answer(
    api: &Api,
    name: &str,
    key_len: usize,
    want: &[u8],
) -> Result<(), String> {
    let key = cryptospeed_catalog::ocb_iterated_key(key_len, want.len());
    let got = cryptospeed_catalog::ocb_iterated(|nonce, aad, pt| {
        let (mut ct, tag) = aead_seal(api, name, &key, nonce, aad, pt, want.len())?;
        ct.extend(tag);
        Ok(ct)
    })?;
    (got == want)
        .then_some(())
        .ok_or_else(|| mismatch("iterated OCB tag", &got, want))
}

/// A digest vector through `EVP_Digest`.
fn digest_known_answer(api: &Api, name: &str, msg: &[u8], want: &[u8]) -> Result<(), String> {
    let md = fetch_md(api, name)?;
    let mut got = [0u8; 64];
    let mut len: c_uint = 0;
    // SAFETY: owned buffers.
    if unsafe {
        (api.EVP_Digest)(
            msg.as_ptr() as *const _,
            msg.len(),
            got.as_mut_ptr(),
            &mut len,
            md,
            null_mut(),
        )
    } != 1
    {
        return Err(format!("EVP_Digest failed: {}", api.errors()));
    }
    let got = &got[..len as usize];
    (got == want)
        .then_some(())
        .ok_or_else(|| mismatch("digest", got, want))
}

/// A cipher vector, encrypted and decrypted through `EVP_Cipher`.
fn cipher_known_answer(api: &Api, name: &str, kat: &Kat) -> Result<(), String> {
    let Kat::Cipher {
        key, iv, pt, ct, ..
    } = *kat
    else {
        return Err(format!("vector {kat:?} is not a cipher's"));
    };
    let (key, iv, pt, want) = (unhex(key), unhex(iv), unhex(pt), unhex(ct));
    for encrypt in [true, false] {
        let ctx = cipher_ctx(api, name, &key, &iv, encrypt)?;
        let (input, expected) = if encrypt { (&pt, &want) } else { (&want, &pt) };
        let mut out = vec![0u8; input.len() + 32];
        // SAFETY: owned buffers with a block of slack.
        if unsafe {
            (api.EVP_Cipher)(
                ctx.ctx,
                out.as_mut_ptr(),
                input.as_ptr(),
                input.len() as c_uint,
            )
        } <= 0
        {
            return Err(format!("EVP_Cipher failed: {}", api.errors()));
        }
        let got = &out[..input.len()];
        if got != expected.as_slice() {
            return Err(mismatch(
                if encrypt {
                    "ciphertext"
                } else {
                    "decrypted plaintext"
                },
                got,
                expected,
            ));
        }
    }
    Ok(())
}

/// An AEAD vector: sealed to the ciphertext and tag, opened back, a corrupted tag refused.
fn aead_known_answer(api: &Api, name: &str, kat: &Kat) -> Result<(), String> {
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
    let (key, nonce, aad, pt, want_ct, want_tag) = (
        unhex(key),
        unhex(nonce),
        unhex(aad),
        unhex(pt),
        unhex(ct),
        unhex(tag),
    );
    // The vector's tag length: CCM's published examples use shorter tags than the 16 bytes
    // timed.
    let (got_ct, got_tag) = aead_seal(api, name, &key, &nonce, &aad, &pt, want_tag.len())?;
    if got_ct != want_ct {
        return Err(mismatch("ciphertext", &got_ct, &want_ct));
    }
    if got_tag != want_tag {
        return Err(mismatch("tag", &got_tag, &want_tag));
    }
    match aead_open(api, name, &key, &nonce, &aad, &want_ct, &want_tag)? {
        Some(p) if p == pt => {}
        Some(p) => return Err(mismatch("decrypted plaintext", &p, &pt)),
        None => return Err("a valid tag was rejected on decryption".into()),
    }
    let mut bad = want_tag.clone();
    bad[0] ^= 1;
    match aead_open(api, name, &key, &nonce, &aad, &want_ct, &bad)? {
        None => Ok(()),
        Some(_) => Err("a corrupted tag was accepted".into()),
    }
}
