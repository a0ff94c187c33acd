//! ML-DSA in the boringssl column through BoringSSL's own `<openssl/mldsa.h>` (it has ML-DSA
//! outside EVP only): pq.rs's module comment says why, what each timed operation includes
//! and through which calls the vectors run; this file is its ML-DSA half, on pq.rs's
//! symbol lookup, byte strings and key storage.

use super::pq::{bcm_names, bcm_ok, mangled, FromSeed, Lib, Marshal, Opaque, Parse};
use crate::evp::ffi::Api;
use crate::evp::pq_calls::{KeySigner, SigCalls, SignWith};
use crate::suite::{verified, OpFn, Res, Signer};
use cryptospeed_catalog::{Algorithm, Primitive};
use std::os::raw::{c_int, c_void};

type DsaGenerate = unsafe extern "C" fn(*mut u8, *mut u8, *mut c_void) -> c_int;
type DsaPublicFromPrivate = unsafe extern "C" fn(*mut c_void, *const c_void) -> c_int;
type Sign =
    unsafe extern "C" fn(*mut u8, *const c_void, *const u8, usize, *const u8, usize) -> c_int;
type Verify = unsafe extern "C" fn(
    *const c_void,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
) -> c_int;
/// `BCM_mldsa*_sign_internal(sig, key, msg, len, prefix, len, context, len, randomizer)`.
type SignInternal = unsafe extern "C" fn(
    *mut u8,
    *const c_void,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
) -> c_int;
/// `BCM_mldsa*_verify_internal(key, sig, msg, len, prefix, len, context, len)`: the signature
/// is the parameter set's fixed length.
type VerifyInternal = unsafe extern "C" fn(
    *const c_void,
    *const u8,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
) -> c_int;

/// One ML-DSA parameter set of BoringSSL: encoded sizes (FIPS 204) and struct sizes (mldsa.h).
struct DsaSet {
    level: u16,
    public_len: usize,
    sig: usize,
    public: usize,
    private: usize,
}

/// mldsa.h's struct sizes for k rows and l columns of A: public `32 + 64 + 256·4·k`, private
/// that `+ 32 + 256·4·(l + 2k)`.
const fn dsa_set(level: u16, k: usize, l: usize, public_len: usize, sig: usize) -> DsaSet {
    let public = 32 + 64 + 256 * 4 * k;
    DsaSet {
        level,
        public_len,
        sig,
        public,
        private: public + 32 + 256 * 4 * (l + 2 * k),
    }
}

const MLDSA44: DsaSet = dsa_set(44, 4, 4, 1312, 2420);
const MLDSA65: DsaSet = dsa_set(65, 6, 5, 1952, 3309);
const MLDSA87: DsaSet = dsa_set(87, 8, 7, 2592, 4627);

/// The public mldsa.h calls of one parameter set, and the BCM ones the vectors need.
struct DsaFns {
    generate: DsaGenerate,
    from_seed: FromSeed,
    public_from_private: DsaPublicFromPrivate,
    sign: Sign,
    verify: Verify,
    marshal: Marshal,
    parse_public: Parse,
    parse_private: Option<Parse>,
    sign_internal: Option<SignInternal>,
    verify_internal: Option<VerifyInternal>,
}

impl DsaFns {
    fn load(lib: &Lib, level: u16) -> Res<DsaFns> {
        let n = |f: &str| format!("MLDSA{level}_{f}");
        let family = format!("MLDSA{level}");
        let (public, private) = (
            mangled(&format!("MLDSA{level}_public_key")),
            mangled(&format!("MLDSA{level}_private_key")),
        );
        let bcm = |f: &str, params: String| bcm_names(&format!("BCM_mldsa{level}_{f}"), &params);
        // SAFETY: each type is the prototype mldsa.h and bcm_interface.h give the name.
        unsafe {
            Ok(DsaFns {
                generate: lib.need(n("generate_key"), &family)?,
                from_seed: lib.need(n("private_key_from_seed"), &family)?,
                public_from_private: lib.need(n("public_from_private"), &family)?,
                sign: lib.need(n("sign"), &family)?,
                verify: lib.need(n("verify"), &family)?,
                marshal: lib.need(n("marshal_public_key"), &family)?,
                parse_public: lib.need(n("parse_public_key"), &family)?,
                parse_private: lib
                    .resolve(&bcm("parse_private_key", format!("P{private}P6cbs_st"))),
                sign_internal: lib.resolve(&bcm(
                    "sign_internal",
                    format!("PhPK{private}PKhmS5_mS5_mS5_"),
                )),
                verify_internal: lib.resolve(&bcm(
                    "verify_internal",
                    format!("PK{public}PKhS4_mS4_mS4_m"),
                )),
            })
        }
    }
}

/// One ML-DSA parameter set in BoringSSL.
pub struct Dsa<'a> {
    lib: Lib<'a>,
    set: &'static DsaSet,
    f: DsaFns,
}

impl<'a> Dsa<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or why it is not there; `None`
    /// when the library is not of the BoringSSL family.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Dsa<'a>>> {
        let Some(lib) = Lib::load(api) else {
            return Ok(None);
        };
        let set = match p.algorithm {
            Algorithm::MlDsa { level: 44 } => &MLDSA44,
            Algorithm::MlDsa { level: 65 } => &MLDSA65,
            Algorithm::MlDsa { level: 87 } => &MLDSA87,
            _ => return Err(format!("{} is not an ML-DSA parameter set", p.id)),
        };
        let f = DsaFns::load(&lib, set.level)?;
        Ok(Some(Dsa { lib, set, f }))
    }

    /// The encoded public key of a private key struct.
    fn public_key(&self, private: &Opaque) -> Res<Vec<u8>> {
        let mut public = Opaque::new(self.set.public);
        // SAFETY: a key struct of the right size, an initialised private key.
        match unsafe { (self.f.public_from_private)(public.mut_ptr(), private.ptr()) } {
            1 => self
                .lib
                .marshal(self.f.marshal, &public, self.set.public_len),
            _ => Err(format!(
                "MLDSA{}_public_from_private failed",
                self.set.level
            )),
        }
    }

    fn parse_public(&self, public: &[u8]) -> Res<Opaque> {
        self.lib
            .parse(self.f.parse_public, public, self.set.public, false)
    }

    /// (encoded public key, private key struct) of a fresh key pair.
    fn generate(&self) -> Res<(Vec<u8>, Opaque)> {
        let (mut pk, mut seed) = (vec![0u8; self.set.public_len], [0u8; 32]);
        let mut private = Opaque::new(self.set.private);
        // SAFETY: buffers of the encoded key's and the seed's sizes, a key struct.
        let rc =
            unsafe { (self.f.generate)(pk.as_mut_ptr(), seed.as_mut_ptr(), private.mut_ptr()) };
        match rc {
            1 => Ok((pk, private)),
            _ => Err(format!("MLDSA{}_generate_key failed", self.set.level)),
        }
    }

    fn missing(&self, what: &str) -> String {
        format!(
            "BoringSSL's mldsa.h has no internal-interface (M') or deterministic signing nor an \
             import of an expanded private key, and {} does not export BCM_mldsa{}_{what}, so \
             the internal-interface vectors cannot run here",
            self.lib.b.path, self.set.level
        )
    }

    /// The deterministic (rnd = 0) internal-interface signature of M' with an expanded key.
    fn sign_internal_bcm(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        let parse = self
            .f
            .parse_private
            .ok_or_else(|| self.missing("parse_private_key"))?;
        let sign = self
            .f
            .sign_internal
            .ok_or_else(|| self.missing("sign_internal"))?;
        let key = self.lib.parse(parse, private, self.set.private, true)?;
        let (mut sig, rnd) = (vec![0u8; self.set.sig], [0u8; 32]);
        let null = std::ptr::null();
        // SAFETY: a buffer of the signature's size, a parsed key, M' borrowed, no prefix or
        // context (M' is the message), a 32-byte randomizer.
        let rc = unsafe {
            sign(
                sig.as_mut_ptr(),
                key.ptr(),
                msg.as_ptr(),
                msg.len(),
                null,
                0,
                null,
                0,
                rnd.as_ptr(),
            )
        };
        match bcm_ok(rc) {
            true => Ok(sig),
            false => Err(format!("BCM_mldsa{}_sign_internal failed", self.set.level)),
        }
    }

    /// Whether `sig` over M' verifies under `public` through the internal interface.
    fn verifies_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let verify = self
            .f
            .verify_internal
            .ok_or_else(|| self.missing("verify_internal"))?;
        let key = self.parse_public(public)?;
        // BCM's verify reads a signature of the parameter set's length; any other is invalid.
        if sig.len() != self.set.sig {
            return Ok(false);
        }
        let null = std::ptr::null();
        // SAFETY: a parsed key, a signature of the fixed length, M' borrowed, no prefix/context.
        let rc = unsafe {
            verify(
                key.ptr(),
                sig.as_ptr(),
                msg.as_ptr(),
                msg.len(),
                null,
                0,
                null,
                0,
            )
        };
        // SAFETY: a rejected signature may leave errors behind.
        unsafe { (self.lib.api.ERR_clear_error)() };
        Ok(bcm_ok(rc))
    }
}

impl<'a> SigCalls<'a> for Dsa<'a> {
    /// The seed's key through `MLDSA*_private_key_from_seed`, a fresh one through
    /// `MLDSA*_generate_key`; its public half parsed for verifying.
    fn signer(self: Box<Self>, seed: Option<&[u8]>) -> Res<Box<dyn Signer + 'a>> {
        let (pk, private) = match seed {
            Some(seed) => {
                let private = self.lib.seeded(self.f.from_seed, seed, self.set.private)?;
                (self.public_key(&private)?, private)
            }
            None => self.generate()?,
        };
        let public = self.parse_public(&pk)?;
        Ok(Box::new(KeySigner {
            signing: private,
            verifying: public,
            public: pk,
            out: vec![0; self.set.sig],
            dsa: *self,
        }))
    }

    /// `MLDSA*_generate_key` into buffers kept between calls.
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut pk, mut seed) = (vec![0u8; self.set.public_len], [0u8; 32]);
        let mut private = Opaque::new(self.set.private);
        Ok(Box::new(move || {
            // SAFETY: as in Dsa::generate.
            let rc =
                unsafe { (self.f.generate)(pk.as_mut_ptr(), seed.as_mut_ptr(), private.mut_ptr()) };
            match rc {
                1 => Ok(()),
                _ => Err(format!("MLDSA{}_generate_key failed", self.set.level)),
            }
        }))
    }

    fn sign_internal(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        self.sign_internal_bcm(private, msg)
    }

    fn verify_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        self.verifies_internal(public, msg, sig)
    }

    fn verify(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        self.verify_with(&self.parse_public(public)?, msg, sig)
    }

    /// `MLDSA*_parse_public_key` into a key struct kept between calls (none allocated and
    /// zeroed per call), then `MLDSA*_verify`.
    fn verify_parse_timed(self: Box<Self>, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<OpFn<'a>>
    where
        Self: 'a,
    {
        let (public, msg, sig) = (public.to_vec(), msg.to_vec(), sig.to_vec());
        let mut key = Opaque::new(self.set.public);
        Ok(Box::new(move || {
            self.lib
                .parse_into(self.f.parse_public, &public, &mut key, false)?;
            verified(self.verify_with(&key, &msg, &sig))
        }))
    }
}

impl SignWith for Dsa<'_> {
    /// The private key struct.
    type Signing = Opaque;
    /// The parsed public key struct.
    type Verifying = Opaque;

    /// Signs into a buffer of the signature's size (pure ML-DSA, empty context, hedged).
    fn sign_into(&self, private: &Opaque, msg: &[u8], sig: &mut [u8]) -> Res<usize> {
        assert!(sig.len() >= self.set.sig);
        // SAFETY: a buffer of the signature's size, a private key, the message borrowed.
        let rc = unsafe {
            (self.f.sign)(
                sig.as_mut_ptr(),
                private.ptr(),
                msg.as_ptr(),
                msg.len(),
                std::ptr::null(),
                0,
            )
        };
        match rc {
            1 => Ok(self.set.sig),
            _ => Err(format!("MLDSA{}_sign failed", self.set.level)),
        }
    }

    fn verify_with(&self, public: &Opaque, msg: &[u8], sig: &[u8]) -> Res<bool> {
        // SAFETY: a parsed public key; the signature and message borrowed with their lengths.
        let rc = unsafe {
            (self.f.verify)(
                public.ptr(),
                sig.as_ptr(),
                sig.len(),
                msg.as_ptr(),
                msg.len(),
                std::ptr::null(),
                0,
            )
        };
        if rc != 1 {
            // SAFETY: a rejected signature may leave errors behind.
            unsafe { (self.lib.api.ERR_clear_error)() };
        }
        Ok(rc == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boringssl::pq::tests::passing;
    use cryptospeed_catalog::{unhex, Kat};

    #[test]
    fn a_wrong_ml_dsa_vector_fails_and_a_missing_bcm_entry_point_fails_with_the_reason() {
        let (api, d, suite) = passing("ml-dsa-65");
        let mut dsa = Dsa::new(api, d).unwrap().expect("a BoringSSL");
        (dsa.f.sign_internal, dsa.f.verify_internal) = (None, None);
        let Kat::SigInternal { private, msg, .. } = d.kats[1] else {
            panic!("the second ML-DSA vector is signing's");
        };
        let why = SigCalls::sign_internal(&dsa, &unhex(private), &unhex(msg)).unwrap_err();
        assert!(why.contains("BCM_mldsa65_sign_internal"), "{why}");
        let Kat::SigKeygen { seed, .. } = d.kats[0] else {
            panic!("the first ML-DSA vector is key generation's");
        };
        let wrong = Kat::SigKeygen {
            seed,
            public: "00",
            source: "deliberately wrong",
        };
        let why = crate::suite::known_answer(&suite, d, &wrong).unwrap_err();
        assert!(why.contains("public key"), "{why}");
    }

    #[test]
    fn verify_parse_parses_the_key_in_every_timed_call() {
        use crate::suite::Suite;
        let (_, p, suite) = passing("ml-dsa-65");
        let mut signer = suite.signer(p, None).unwrap();
        let msg = [0x5a; 32];
        let sig = signer.sign(&msg).unwrap();
        let public = signer.public();
        let mut verify = suite.verify_parse_timed(p, &public, &msg, &sig).unwrap();
        for _ in 0..3 {
            verify().unwrap();
        }
        let mut wrong = sig.clone();
        wrong[0] ^= 1;
        let mut verify = suite.verify_parse_timed(p, &public, &msg, &wrong).unwrap();
        assert!(verify().is_err());
    }

    #[test]
    fn the_struct_sizes_are_mldsa_hs() {
        assert_eq!(MLDSA65.private, 23680);
        assert_eq!(MLDSA87.public, 8288);
    }
}
