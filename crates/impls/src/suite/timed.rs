//! The timed loops of a [`Suite`]: one cell's calls set up before timing (keys, buffers, a
//! ciphertext to decrypt), then the operation called back to back. Chosen by the primitive's
//! family, so a new algorithm of a known family needs no arm here.

use super::{
    aead_tag_len, digest_len, ffdh_derive, mac_len, timing_signer, AeadFn, CipherFn, DeriveFn,
    HashFn, OpFn, Res, Signer, Suite, SEEDED_MSG_LEN,
};
use crate::buffer::AlignedBuffer;
use cryptospeed_catalog::{Algorithm, Family, Primitive};
use cryptospeed_engine::Timed;
use cryptospeed_model::{CellSpec, Op};

/// The timed loop of `cell`, by the primitive's family.
pub(super) fn prepare<'a>(
    s: &'a dyn Suite,
    p: &Primitive,
    cell: &CellSpec,
) -> Res<Box<dyn Timed + 'a>> {
    let buffer =
        || AlignedBuffer::new(cell.bytes.unwrap_or(0) as usize, 64, cell.misalign as usize);
    let case = p.agreement_case().unwrap_or_default();
    Ok(match (p.family(), cell.op) {
        (Family::Digest, Op::Hash) => Box::new(HashLoop {
            f: s.hash(p)?,
            msg: buffer(),
            out: vec![0; hash_len(p)?],
        }),
        (Family::Mac, Op::Mac) => Box::new(HashLoop {
            f: s.mac(p, &timing_key(case.key.len()), &case.iv)?,
            msg: buffer(),
            out: vec![0; mac_len(p)?],
        }),
        (Family::Cipher, Op::Encrypt | Op::Decrypt) => {
            let encrypt = cell.op == Op::Encrypt;
            let f = s.cipher(
                p,
                &timing_key(case.key.len()),
                &vec![0; case.iv.len()],
                encrypt,
            )?;
            Box::new(CipherLoop { f, buf: buffer() })
        }
        (Family::Aead, Op::Encrypt) => Box::new(AeadSealLoop {
            f: s.aead(p, &timing_key(case.key.len()), true)?,
            nonce: vec![0; case.iv.len()],
            aad: vec![0xcc; 13],
            buf: buffer(),
            tag: vec![0; aead_tag_len(p)],
        }),
        (Family::Aead, Op::Decrypt) => {
            aead_open_loop(s, p, timing_key(case.key.len()), case.iv.len(), buffer())?
        }
        (Family::Signature | Family::SeededSignature, Op::Sign | Op::Verify) => {
            sign_or_verify_loop(s, p, cell.op)?
        }
        (Family::SeededSignature, Op::Keygen) => Box::new(OpLoop(s.sig_keygen_timed(p)?)),
        (Family::KeyAgreement, Op::Derive) => Box::new(DeriveLoop(match p.algorithm {
            Algorithm::Ffdh { .. } => ffdh_derive(s, p)?,
            _ => s.derive(p, &case.key, &case.peer)?,
        })),
        (Family::Kem, Op::Keygen) => Box::new(OpLoop(s.kem_keygen_timed(p)?)),
        (Family::Kem, Op::Encaps | Op::Decaps) => kem_loop(s, p, cell.op)?,
        (
            Family::Kem | Family::SeededSignature,
            Op::KeygenEncode | Op::EncapsParse | Op::DecapsParse | Op::VerifyParse,
        ) => Box::new(OpLoop(super::from_bytes::prepare(s, p, cell.op)?)),
        (_, op) => return Err(format!("{} does not time {} {op}", s.name(), p.id)),
    })
}

/// Output length of a hash or XOF cell.
pub(super) fn hash_len(p: &Primitive) -> Res<usize> {
    match p.algorithm {
        Algorithm::Xof { out_len, .. } => Ok(out_len),
        _ => digest_len(p),
    }
}

/// AEAD decryption of one message whose tags verify every time (see [`AeadOpenLoop`]).
fn aead_open_loop<'a>(
    s: &'a dyn Suite,
    p: &Primitive,
    key: Vec<u8>,
    nonce_len: usize,
    mut buf: AlignedBuffer,
) -> Res<Box<dyn Timed + 'a>> {
    let (nonce, aad) = (vec![0; nonce_len], vec![0xcc; 13]);
    let mut seal = s.aead(p, &key, true)?;
    let mut tag_pt = vec![0; aead_tag_len(p)];
    let mut tag_ct = tag_pt.clone();
    // buf: plaintext -> ciphertext (tag over the ciphertext) -> plaintext again (its tag is
    // over the plaintext read as a ciphertext).
    seal(&nonce, &aad, buf.as_mut_slice(), &mut tag_ct)?;
    let ct = buf.as_slice().to_vec();
    seal(&nonce, &aad, buf.as_mut_slice(), &mut tag_pt)?;
    buf.as_mut_slice().copy_from_slice(&ct);
    let mut open = AeadOpenLoop {
        f: s.aead(p, &key, false)?,
        nonce,
        aad,
        buf,
        tags: [tag_ct, tag_pt],
        next: 0,
        restore: None,
    };
    // Two opens must authenticate and bring the ciphertext back; if not, the AEAD is not
    // counter-mode based and each operation starts from a copy of the ciphertext.
    let alternates = open.open_once()? && open.open_once()? && open.buf.as_slice() == ct;
    if !alternates {
        open.tags[1] = open.tags[0].clone();
        open.restore = Some(ct);
    }
    open.next = 0;
    Ok(Box::new(open))
}

/// Signing or verifying with the timing key pair; verification checks one signature made
/// before timing.
fn sign_or_verify_loop<'a>(s: &'a dyn Suite, p: &Primitive, op: Op) -> Res<Box<dyn Timed + 'a>> {
    let mut signer = timing_signer(s, p)?;
    let msg = timing_key(tbs_len(p));
    if op == Op::Sign {
        return Ok(Box::new(SignLoop { signer, msg }));
    }
    let sig = signer.sign(&msg)?;
    Ok(Box::new(VerifyLoop { signer, msg, sig }))
}

/// Encapsulation or decapsulation with one key pair made before timing, as openssl speed does.
fn kem_loop<'a>(s: &'a dyn Suite, p: &Primitive, op: Op) -> Res<Box<dyn Timed + 'a>> {
    let (ek, dk) = s.kem_keygen(p, None)?()?;
    if op == Op::Encaps {
        return Ok(Box::new(OpLoop(s.kem_encaps_timed(p, &ek)?)));
    }
    let (c, _) = s.kem_encaps(p, &ek, None)?()?;
    Ok(Box::new(OpLoop(s.kem_decaps_timed(p, &dk, &c)?)))
}

/// Bytes signed per operation in the timed loop, as `openssl speed` does: 36 for RSA, 32 for
/// the seeded (post-quantum) schemes, 20 (a SHA-1-sized digest) for the others.
fn tbs_len(p: &Primitive) -> usize {
    match (p.algorithm, p.family()) {
        (Algorithm::Rsa { .. }, _) => 36,
        (_, Family::SeededSignature) => SEEDED_MSG_LEN,
        _ => 20,
    }
}

/// Bytes per message: the cell's size, or the fixed length for public key.
fn timing_key(len: usize) -> Vec<u8> {
    (0..len).map(|i| (0x12 + 0x22 * i) as u8).collect()
}

struct HashLoop {
    f: HashFn,
    msg: AlignedBuffer,
    out: Vec<u8>,
}
impl Timed for HashLoop {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            (self.f)(self.msg.as_slice(), &mut self.out)?;
        }
        Ok(())
    }
}

struct CipherLoop {
    f: CipherFn,
    buf: AlignedBuffer,
}
impl Timed for CipherLoop {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            (self.f)(self.buf.as_mut_slice())?;
        }
        Ok(())
    }
}

struct AeadSealLoop {
    f: AeadFn,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    buf: AlignedBuffer,
    tag: Vec<u8>,
}
impl Timed for AeadSealLoop {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            (self.f)(
                &self.nonce,
                &self.aad,
                self.buf.as_mut_slice(),
                &mut self.tag,
            )?;
        }
        Ok(())
    }
}

/// Decryption in place needs a ciphertext whose tag verifies every time. For counter-mode
/// AEADs (GCM, CCM, ChaCha20-Poly1305) decrypting the plaintext again (as if it were a
/// ciphertext) gives the ciphertext back: the loop alternates between the two, each with its own
/// precomputed tag. The others start each operation from the ciphertext (`restore`).
struct AeadOpenLoop {
    f: AeadFn,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    buf: AlignedBuffer,
    tags: [Vec<u8>; 2],
    next: usize,
    /// The ciphertext, copied back before each operation, for AEADs that are not counter-mode
    /// based (OCB, GCM-SIV): a memcpy of the message, small beside the AEAD's own work.
    restore: Option<Vec<u8>>,
}
impl AeadOpenLoop {
    fn open_once(&mut self) -> Res<bool> {
        if let Some(ct) = &self.restore {
            self.buf.as_mut_slice().copy_from_slice(ct);
        }
        let tag = &mut self.tags[self.next];
        let ok = (self.f)(&self.nonce, &self.aad, self.buf.as_mut_slice(), tag)?;
        if self.restore.is_none() {
            self.next ^= 1;
        }
        Ok(ok)
    }
}
impl Timed for AeadOpenLoop {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            if !self.open_once()? {
                return Err("tag did not authenticate".into());
            }
        }
        Ok(())
    }
}

struct SignLoop<'a> {
    signer: Box<dyn Signer + 'a>,
    msg: Vec<u8>,
}
impl Timed for SignLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            self.signer.sign_timed(&self.msg)?;
        }
        Ok(())
    }
}

struct VerifyLoop<'a> {
    signer: Box<dyn Signer + 'a>,
    msg: Vec<u8>,
    sig: Vec<u8>,
}
impl Timed for VerifyLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            if !self.signer.verify(&self.msg, &self.sig)? {
                return Err("signature did not verify".into());
            }
        }
        Ok(())
    }
}

struct DeriveLoop(DeriveFn);
impl Timed for DeriveLoop {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            std::hint::black_box((self.0)()?);
        }
        Ok(())
    }
}

/// Key generation, encapsulation or decapsulation: one call of the suite's timed operation.
struct OpLoop<'a>(OpFn<'a>);
impl Timed for OpLoop<'_> {
    fn run(&mut self, iters: u64) -> Res<()> {
        for _ in 0..iters {
            (self.0)()?;
        }
        Ok(())
    }
}
