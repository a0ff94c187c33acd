//! The from-bytes operations of the post-quantum families (catalog definitions.rs): what a TLS
//! peer does per handshake, keys crossing the call as their standard byte encodings. Written
//! once over the [`Suite`] calls that already take and give bytes, so every suite whose library
//! parses and encodes (the known-answer calls) times them without code of its own:
//! `keygen+encode` is [`Suite::kem_keygen_encode_timed`] (by default [`Suite::kem_keygen`]) or
//! [`Suite::sig_keygen`]; `encaps+parse`,
//! `decaps+parse` and `verify+parse` are [`Suite::kem_encaps_parse_timed`],
//! [`Suite::kem_decaps_parse_timed`] and [`Suite::verify_parse_timed`] (by default
//! [`Suite::kem_encaps`], [`Suite::kem_decaps`] or [`Suite::verify_foreign`] inside the timed
//! call; a suite that looks its library's calls up there resolves them once before timing).

use super::{timing_signer, SEEDED_MSG_LEN};
use super::{OpFn, Res, Suite};
use cryptospeed_catalog::{Family, Primitive};
use cryptospeed_model::Op;
use std::hint::black_box;

/// The timed call of from-bytes operation `op` of `p`.
pub(super) fn prepare<'a>(s: &'a dyn Suite, p: &Primitive, op: Op) -> Res<OpFn<'a>> {
    let p = *p;
    Ok(match (p.family(), op) {
        (Family::Kem, Op::KeygenEncode) => s.kem_keygen_encode_timed(&p)?,
        (Family::Kem, Op::EncapsParse) => {
            let (ek, _) = s.kem_keygen(&p, None)?()?;
            s.kem_encaps_parse_timed(&p, &ek)?
        }
        (Family::Kem, Op::DecapsParse) => {
            let (ek, dk) = s.kem_keygen(&p, None)?()?;
            let (c, _) = s.kem_encaps(&p, &ek, None)?()?;
            s.kem_decaps_parse_timed(&p, &dk, &c)?
        }
        (Family::SeededSignature, Op::KeygenEncode) => {
            let mut f = s.sig_keygen(&p)?;
            Box::new(move || f().map(|keys| drop(black_box(keys))))
        }
        (Family::SeededSignature, Op::VerifyParse) => verify_parse(s, p)?,
        _ => return Err(format!("{} has no from-bytes {op} of {}", s.name(), p.id)),
    })
}

/// Verification of one signature with the encoded public key parsed in every call.
fn verify_parse(s: &dyn Suite, p: Primitive) -> Res<OpFn<'_>> {
    let mut signer = timing_signer(s, &p)?;
    let msg: Vec<u8> = (0..SEEDED_MSG_LEN)
        .map(|i| (0x12 + 0x22 * i) as u8)
        .collect();
    let sig = signer.sign(&msg)?;
    let public = signer.public();
    if !s.verify_foreign(&p, &public, "", &msg, &sig)? {
        return Err(format!(
            "{} does not verify its own {} signature from bytes",
            s.name(),
            p.id
        ));
    }
    s.verify_parse_timed(&p, &public, &msg, &sig)
}
