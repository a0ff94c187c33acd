//! The agreement computation for libcrypto: each primitive computed once on the catalog's
//! agreement inputs with the same EVP calls the timed loops use, and ECDSA signatures of other
//! implementations checked.

use super::ffi::Api;
use super::pkey::{
    agreement_keys, derive, digest, eddsa_sign, generate, init_ctx, pem_key, raw_key, sign_once,
    spki_key, spki_prefix, verify_once,
};
use super::symmetric::{aead_seal, cipher_ctx, fetch_md, mac_ctx};
use cryptospeed_catalog::agreement::{private_key_pem, signature_digest, AgreementCase};
use cryptospeed_catalog::{unhex, Algorithm, Primitive};
use cryptospeed_engine::AgreementOutput;
use cryptospeed_model::Op;
use std::os::raw::c_uint;
use std::ptr::null_mut;

fn bytes(output: Vec<u8>) -> AgreementOutput {
    AgreementOutput {
        output,
        public: Vec::new(),
    }
}

/// DigestInfo prefix of SHA-256 (RFC 8017 section 9.2 note 1): signing prefix || digest with
/// PKCS#1 v1.5 padding and no digest set is the standard SHA-256 signature.
const SHA256_DIGEST_INFO: &str = "3031300d060960864801650304020105000420";

/// The EC public key as a SEC1 uncompressed point.
fn ec_public(
    api: &Api,
    k: &super::pkey::Key,
    curve: cryptospeed_catalog::Curve,
) -> Result<Vec<u8>, String> {
    let Some(get) = api.EVP_PKEY_get_octet_string_param else {
        return ec_public_from_spki(api, k, curve);
    };
    let mut out = vec![0u8; 200];
    let mut len = 0usize;
    // SAFETY: NUL-terminated parameter name and an owned buffer.
    if unsafe {
        get(
            k.ptr,
            c"encoded-pub-key".as_ptr(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
        )
    } != 1
    {
        return Err(format!("cannot read the public key: {}", api.errors()));
    }
    out.truncate(len);
    Ok(out)
}

/// Without OpenSSL 3's parameter API (OpenSSL 1.1.1, AWS-LC, BoringSSL): the point is the tail
/// of the key's SubjectPublicKeyInfo, after the prefix every uncompressed point on that curve has.
fn ec_public_from_spki(
    api: &Api,
    k: &super::pkey::Key,
    curve: cryptospeed_catalog::Curve,
) -> Result<Vec<u8>, String> {
    let i2d = api
        .i2d_PUBKEY
        .ok_or("this libcrypto has neither EVP_PKEY_get_octet_string_param nor i2d_PUBKEY")?;
    let mut der = vec![0u8; 512];
    // SAFETY: a first call with NULL gives the length; the buffer is then large enough.
    let len = unsafe {
        let need = i2d(k.ptr, std::ptr::null_mut());
        if need <= 0 || need as usize > der.len() {
            return Err(format!("cannot encode the public key: {}", api.errors()));
        }
        let mut p = der.as_mut_ptr();
        i2d(k.ptr, &mut p)
    };
    der.truncate(len.max(0) as usize);
    let prefix = unhex(spki_prefix(curve));
    der.strip_prefix(prefix.as_slice())
        .map(<[u8]>::to_vec)
        .ok_or_else(|| format!("unexpected SubjectPublicKeyInfo {}", hex::encode(&der)))
}

pub fn agree(api: &Api, p: &Primitive, case: &AgreementCase) -> Result<AgreementOutput, String> {
    Ok(match p.algorithm {
        Algorithm::Digest { name } => bytes(digest(api, name, &case.msg)?),
        Algorithm::Xof { name, out_len } => {
            let md = fetch_md(api, name)?;
            let mut out = vec![0u8; out_len];
            // SAFETY: a fresh digest context, freed below; owned buffers.
            unsafe {
                let ctx = (api.EVP_MD_CTX_new)();
                let fin = api.EVP_DigestFinalXOF.ok_or("no EVP_DigestFinalXOF")?;
                let ok = (api.EVP_DigestInit_ex)(ctx, md, null_mut()) == 1
                    && (api.EVP_DigestUpdate)(ctx, case.msg.as_ptr() as _, case.msg.len()) == 1
                    && fin(ctx, out.as_mut_ptr(), out.len()) == 1;
                (api.EVP_MD_CTX_free)(ctx);
                if !ok {
                    return Err(format!("XOF failed: {}", api.errors()));
                }
            }
            bytes(out)
        }
        Algorithm::Hmac { .. } | Algorithm::Cmac { .. } | Algorithm::Gmac { .. } => {
            let mut mac = mac_ctx(api, &p.algorithm, &case.key, &case.iv)?;
            let mut out = [0u8; 64];
            let len = mac
                .update(case.msg.as_ptr(), case.msg.len())
                .then(|| mac.finish(&mut out))
                .flatten()
                .ok_or_else(|| format!("MAC computation failed: {}", api.errors()))?;
            bytes(out[..len].to_vec())
        }
        Algorithm::Cipher { name, .. } => {
            let ctx = cipher_ctx(api, name, &case.key, &case.iv, true)?;
            let mut out = vec![0u8; case.msg.len() + 32];
            // SAFETY: owned buffers with a block of slack.
            if unsafe {
                (api.EVP_Cipher)(
                    ctx.ctx,
                    out.as_mut_ptr(),
                    case.msg.as_ptr(),
                    case.msg.len() as c_uint,
                )
            } <= 0
            {
                return Err(format!("EVP_Cipher failed: {}", api.errors()));
            }
            out.truncate(case.msg.len());
            bytes(out)
        }
        Algorithm::Aead { name, tag_len, .. } => {
            let (mut ct, tag) = aead_seal(
                api, name, &case.key, &case.iv, &case.aad, &case.msg, tag_len,
            )?;
            ct.extend(tag);
            bytes(ct)
        }
        Algorithm::Rsa { .. } => {
            let pem = private_key_pem(&p.algorithm).ok_or("no shipped key of this size")?;
            let k = pem_key(api, pem)?;
            let mut tbs = unhex(SHA256_DIGEST_INFO);
            tbs.extend(digest(api, "SHA256", &case.msg)?);
            let ctx = init_ctx(api, &k, Op::Sign)?;
            bytes(sign_once(api, &ctx, &tbs)?)
        }
        Algorithm::Eddsa { curve } => bytes(eddsa_sign(
            api,
            &raw_key(api, curve, &case.key, true)?,
            &case.msg,
        )?),
        Algorithm::Ecdh { curve } => {
            let (own, peer) = agreement_keys(api, curve, &case.key, &case.peer)?;
            bytes(derive(api, &own, &peer)?)
        }
        Algorithm::Ecdsa { curve } => {
            let k = generate(api, "EC", Some(curve.name()))?;
            let md = signature_digest(&p.algorithm).ok_or("no digest for this curve")?;
            let ctx = init_ctx(api, &k, Op::Sign)?;
            AgreementOutput {
                output: sign_once(api, &ctx, &digest(api, md, &case.msg)?)?,
                public: ec_public(api, &k, curve)?,
            }
        }
        // DSA, FFDH, and the seeded families (mod.rs routes those to kem.rs and dsa.rs).
        _ => return Err(format!("{} has no agreement check", p.id)),
    })
}

pub fn check_signature(
    api: &Api,
    p: &Primitive,
    public: &[u8],
    msg: &[u8],
    sig: &[u8],
) -> Result<bool, String> {
    let Algorithm::Ecdsa { curve } = p.algorithm else {
        return Err(format!("{} signatures are compared as bytes", p.id));
    };
    let spki = unhex(&format!("{}{}", spki_prefix(curve), hex::encode(public)));
    let k = spki_key(api, &spki)?;
    let md = signature_digest(&p.algorithm).ok_or("no digest for this curve")?;
    let ctx = init_ctx(api, &k, Op::Verify)?;
    Ok(verify_once(api, &ctx, &digest(api, md, msg)?, sig))
}
