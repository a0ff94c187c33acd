//! The catalog ships keys as PKCS#8 and SubjectPublicKeyInfo DER and compares ECDSA/DSA
//! signatures as DER, while the C libraries wired at run time (Mbed TLS, wolfSSL, libgcrypt,
//! Nettle) want numbers, PKCS#1 documents or S-expressions. This is the little DER they share:
//! reading the parts of those documents and writing the few structures the libraries need.

use crate::suite::{der_next, Res};
use cryptospeed_catalog::Curve;
use num_bigint::BigUint;

/// The integers of an RSA private key (PKCS#1 RSAPrivateKey), unsigned big-endian.
pub struct RsaParts {
    pub n: Vec<u8>,
    pub e: Vec<u8>,
    pub d: Vec<u8>,
    pub p: Vec<u8>,
    pub q: Vec<u8>,
    pub qinv: Vec<u8>,
}

/// The domain parameters and key of a DSA key; `x` is empty for a public key.
pub struct DsaParts {
    pub p: BigUint,
    pub q: BigUint,
    pub g: BigUint,
    pub y: BigUint,
    pub x: BigUint,
}

/// An INTEGER's content without the sign byte.
fn unsigned(content: &[u8]) -> Vec<u8> {
    let first = content
        .iter()
        .position(|&b| b != 0)
        .unwrap_or(content.len());
    content[first..].to_vec()
}

/// Reads `n` INTEGERs from a run of DER.
fn integers(mut input: &[u8], n: usize) -> Res<Vec<Vec<u8>>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (tag, content, rest) = der_next(input)?;
        if tag != 0x02 {
            return Err("expected a DER INTEGER".into());
        }
        out.push(unsigned(content));
        input = rest;
    }
    Ok(out)
}

/// PKCS#8: (algorithm parameters, privateKey OCTET STRING content).
fn pkcs8(der: &[u8]) -> Res<(&[u8], &[u8])> {
    let (_, body, _) = der_next(der)?;
    let (_, _version, rest) = der_next(body)?;
    let (_, alg, rest) = der_next(rest)?;
    let (_, key, _) = der_next(rest)?;
    let (_, _oid, params) = der_next(alg)?;
    Ok((params, key))
}

/// The PKCS#1 RSAPrivateKey inside a PKCS#8 document, and its integers.
pub fn rsa_pkcs8(der: &[u8]) -> Res<(&[u8], RsaParts)> {
    let (_, pkcs1) = pkcs8(der)?;
    let (_, body, _) = der_next(pkcs1)?;
    let v = integers(body, 9)?;
    let parts = RsaParts {
        n: v[1].clone(),
        e: v[2].clone(),
        d: v[3].clone(),
        p: v[4].clone(),
        q: v[5].clone(),
        qinv: v[8].clone(),
    };
    Ok((pkcs1, parts))
}

fn big(v: &[u8]) -> BigUint {
    BigUint::from_bytes_be(v)
}

/// A DSA private key from PKCS#8; y = g^x mod p is recomputed (PKCS#8 does not carry it).
pub fn dsa_pkcs8(der: &[u8]) -> Res<DsaParts> {
    let (params, key) = pkcs8(der)?;
    let (_, seq, _) = der_next(params)?;
    let pqg = integers(seq, 3)?;
    let x = big(&integers(key, 1)?[0]);
    let (p, q, g) = (big(&pqg[0]), big(&pqg[1]), big(&pqg[2]));
    let y = g.modpow(&x, &p);
    Ok(DsaParts { p, q, g, y, x })
}

/// A DSA public key from a SubjectPublicKeyInfo.
pub fn dsa_spki(der: &[u8]) -> Res<DsaParts> {
    let (_, body, _) = der_next(der)?;
    let (_, alg, rest) = der_next(body)?;
    let (_, bits, _) = der_next(rest)?;
    let (_, _oid, params) = der_next(alg)?;
    let (_, seq, _) = der_next(params)?;
    let pqg = integers(seq, 3)?;
    // The BIT STRING's first byte counts unused bits; the rest is the INTEGER y.
    let y = integers(bits.get(1..).ok_or("empty BIT STRING")?, 1)?;
    Ok(DsaParts {
        p: big(&pqg[0]),
        q: big(&pqg[1]),
        g: big(&pqg[2]),
        y: big(&y[0]),
        x: BigUint::default(),
    })
}

fn der_len(len: usize) -> Vec<u8> {
    match len {
        0..=0x7f => vec![len as u8],
        0x80..=0xff => vec![0x81, len as u8],
        _ => vec![0x82, (len >> 8) as u8, len as u8],
    }
}

fn der_tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend(der_len(content.len()));
    out.extend_from_slice(content);
    out
}

fn der_uint(v: &[u8]) -> Vec<u8> {
    let mut c = unsigned(v);
    if c.first().is_none_or(|&b| b & 0x80 != 0) {
        c.insert(0, 0);
    }
    der_tlv(0x02, &c)
}

/// An ECDSA/DSA signature `SEQUENCE { r, s }` from its two unsigned integers.
pub fn sig_to_der(r: &[u8], s: &[u8]) -> Vec<u8> {
    der_tlv(0x30, &[der_uint(r), der_uint(s)].concat())
}

/// The (r, s) of a DER signature, unsigned big-endian; `None` when it is not one.
pub fn sig_from_der(sig: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let (tag, body, rest) = der_next(sig).ok()?;
    if tag != 0x30 || !rest.is_empty() {
        return None;
    }
    let v = integers(body, 2).ok()?;
    Some((v[0].clone(), v[1].clone()))
}

/// The named-curve SubjectPublicKeyInfo of an uncompressed SEC1 point.
pub fn ec_spki(curve: Curve, point: &[u8]) -> Res<Vec<u8>> {
    let oid: &[u8] = match curve {
        Curve::P256 => &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
        Curve::P384 => &[0x2b, 0x81, 0x04, 0x00, 0x22],
        Curve::P521 => &[0x2b, 0x81, 0x04, 0x00, 0x23],
        _ => return Err(format!("{curve:?} is not a NIST curve")),
    };
    let ec_public_key = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    let alg = der_tlv(
        0x30,
        &[der_tlv(0x06, &ec_public_key), der_tlv(0x06, oid)].concat(),
    );
    let bits = der_tlv(0x03, &[&[0u8][..], point].concat());
    Ok(der_tlv(0x30, &[alg, bits].concat()))
}

/// `v` left-padded with zeros to `len` bytes (big-endian integers whose leading zeros a
/// library dropped).
pub fn pad_to(v: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len.saturating_sub(v.len())];
    out.extend_from_slice(v);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_catalog::agreement::{pem_to_der, private_key_pem};
    use cryptospeed_catalog::{unhex, Algorithm};

    #[test]
    fn rfc6979_p256_spki_is_rebuilt_byte_for_byte() {
        // The SubjectPublicKeyInfo the catalog quotes for RFC 6979 A.2.5 (written by OpenSSL).
        let spki = unhex("3059301306072a8648ce3d020106082a8648ce3d0301070342000460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299");
        let point = &spki[spki.len() - 65..];
        assert_eq!(ec_spki(Curve::P256, point).unwrap(), spki);
    }

    #[test]
    fn rfc6979_signature_round_trips_through_der() {
        let der = unhex("3046022100efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716022100f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8");
        let (r, s) = sig_from_der(&der).unwrap();
        assert_eq!(r.len(), 32);
        assert_eq!(sig_to_der(&r, &s), der);
    }

    #[test]
    fn shipped_keys_have_consistent_parts() {
        let der = pem_to_der(private_key_pem(&Algorithm::Rsa { bits: 2048 }).unwrap());
        let (_, k) = rsa_pkcs8(&der).unwrap();
        assert_eq!(big(&k.p) * big(&k.q), big(&k.n));
        let dsa = dsa_pkcs8(&pem_to_der(
            private_key_pem(&Algorithm::Dsa { bits: 1024 }).unwrap(),
        ))
        .unwrap();
        // y has order q: y^q = 1 mod p.
        assert_eq!(dsa.y.modpow(&dsa.q, &dsa.p), BigUint::from(1u8));
    }
}
