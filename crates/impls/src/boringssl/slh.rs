//! SLH-DSA-SHA2-128s in the boringssl column through BoringSSL's own `<openssl/slhdsa.h>` (it has
//! SLH-DSA outside EVP only, and of the catalog's three sets only SHA2-128s). Keys are FIPS 205's
//! byte strings (public 32, private 64 bytes), so no key structs are needed.
//!
//! What each timed operation includes (as the catalog's slh.rs defines it): keygen
//! `SLHDSA_SHA2_128S_generate_key` (fresh seed from the RNG, the hypertree's top layer); sign
//! `SLHDSA_SHA2_128S_sign` of 32 bytes, pure, empty context, hedged (BoringSSL draws opt_rand
//! from its RNG), with a key made before timing; verify `SLHDSA_SHA2_128S_verify` of that
//! signature.
//!
//! Known answers: key generation through the public `SLHDSA_SHA2_128S_generate_key_from_seed`
//! (SK.seed ‖ SK.prf ‖ PK.seed); the internal-interface vectors (M' as given, deterministic:
//! opt_rand = PK.seed) through the BCM entry points libcrypto exports for BoringSSL's ACVP tests,
//! `BCM_slhdsa_sha2_128s_sign_internal` and `_verify_internal` (found as pq.rs finds
//! BCM names). A build without them fails those vectors with that reason.

use super::pq::{bcm_names, bcm_ok, Lib};
use crate::evp::ffi::Api;
use crate::evp::pq_calls::{KeySigner, SigCalls, SignWith};
use crate::suite::{OpFn, Res, Signer};
use cryptospeed_catalog::{Algorithm, Primitive};
use std::os::raw::c_int;

const PUBLIC: usize = 32;
const PRIVATE: usize = 64;
const SIG: usize = 7856;
/// n: the length of PK.seed (private key bytes 32..48), the deterministic opt_rand.
const N: usize = 16;

type Generate = unsafe extern "C" fn(*mut u8, *mut u8);
type FromSeed = unsafe extern "C" fn(*mut u8, *mut u8, *const u8);
type Sign = unsafe extern "C" fn(*mut u8, *const u8, *const u8, usize, *const u8, usize) -> c_int;
type Verify =
    unsafe extern "C" fn(*const u8, usize, *const u8, *const u8, usize, *const u8, usize) -> c_int;
/// `BCM_slhdsa_sha2_128s_sign_internal(sig, sk, header, context, len, msg, len, entropy)`; its
/// `bcm_infallible` result carries nothing.
type SignInternal = unsafe extern "C" fn(
    *mut u8,
    *const u8,
    *const u8,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
) -> c_int;
/// `BCM_slhdsa_sha2_128s_verify_internal(sig, len, pk, header, context, len, msg, len)`.
type VerifyInternal = unsafe extern "C" fn(
    *const u8,
    usize,
    *const u8,
    *const u8,
    *const u8,
    usize,
    *const u8,
    usize,
) -> c_int;

/// The slhdsa.h calls, and the BCM ones the internal-interface vectors need.
struct SlhFns {
    generate: Generate,
    from_seed: FromSeed,
    sign: Sign,
    verify: Verify,
    sign_internal: Option<SignInternal>,
    verify_internal: Option<VerifyInternal>,
}

impl SlhFns {
    fn load(lib: &Lib) -> Res<SlhFns> {
        let n = |f: &str| format!("SLHDSA_SHA2_128S_{f}");
        let family = "SLHDSA_SHA2_128S";
        let bcm = |f: &str, params: &str| bcm_names(&format!("BCM_slhdsa_sha2_128s_{f}"), params);
        // SAFETY: each type is the prototype slhdsa.h and bcm_interface.h give the name.
        unsafe {
            Ok(SlhFns {
                generate: lib.need(n("generate_key"), family)?,
                from_seed: lib.need(n("generate_key_from_seed"), family)?,
                sign: lib.need(n("sign"), family)?,
                verify: lib.need(n("verify"), family)?,
                sign_internal: lib.resolve(&bcm("sign_internal", "PhPKhS2_S2_mS2_mS2_")),
                verify_internal: lib.resolve(&bcm("verify_internal", "PKhmS1_S1_S1_mS1_m")),
            })
        }
    }
}

/// SLH-DSA-SHA2-128s in BoringSSL.
pub struct Slh<'a> {
    lib: Lib<'a>,
    f: SlhFns,
}

impl<'a> Slh<'a> {
    /// SLH-DSA-SHA2-128s in the libcrypto behind `api`, or why `p` is not there; `None` when the
    /// library is not of the BoringSSL family.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Slh<'a>>> {
        let Some(lib) = Lib::load(api) else {
            return Ok(None);
        };
        match p.algorithm {
            Algorithm::SlhDsa {
                name: "SLH-DSA-SHA2-128s",
            } => {}
            Algorithm::SlhDsa { name } => {
                return Err(format!(
                    "BoringSSL has no {name} (its slhdsa.h offers SLH-DSA-SHA2-128s and \
                     SLH-DSA-SHAKE-256f only)"
                ))
            }
            _ => return Err(format!("{} is not an SLH-DSA parameter set", p.id)),
        }
        let f = SlhFns::load(&lib)?;
        Ok(Some(Slh { lib, f }))
    }

    /// (public, private) of the 48-byte seed, or of a fresh key pair.
    fn key_pair(&self, seed: Option<&[u8]>) -> Res<([u8; PUBLIC], [u8; PRIVATE])> {
        let (mut pk, mut sk) = ([0u8; PUBLIC], [0u8; PRIVATE]);
        match seed {
            Some(s) if s.len() != 3 * N => {
                return Err(format!(
                    "an SLH-DSA-SHA2-128s seed is 48 bytes, not {}",
                    s.len()
                ))
            }
            // SAFETY: buffers of the key sizes and a 48-byte seed, as slhdsa.h asks.
            Some(s) => unsafe { (self.f.from_seed)(pk.as_mut_ptr(), sk.as_mut_ptr(), s.as_ptr()) },
            // SAFETY: buffers of the key sizes.
            None => unsafe { (self.f.generate)(pk.as_mut_ptr(), sk.as_mut_ptr()) },
        }
        Ok((pk, sk))
    }

    fn missing(&self, what: &str) -> String {
        format!(
            "BoringSSL's slhdsa.h has no internal-interface (M') or deterministic signing, and {} \
             does not export BCM_slhdsa_sha2_128s_{what}, so the internal-interface vectors \
             cannot run here",
            self.lib.b.path
        )
    }

    /// The deterministic (opt_rand = PK.seed) internal-interface signature of M'.
    fn sign_internal_bcm(&self, sk: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        let sign = self
            .f
            .sign_internal
            .ok_or_else(|| self.missing("sign_internal"))?;
        if sk.len() != PRIVATE {
            return Err(format!(
                "an SLH-DSA-SHA2-128s private key is 64 bytes, not {}",
                sk.len()
            ));
        }
        let mut sig = vec![0u8; SIG];
        let null = std::ptr::null();
        // SAFETY: a buffer of the signature's size, a 64-byte key, no header or context (M' is
        // the message), PK.seed (n bytes inside the key) as the entropy.
        unsafe {
            sign(
                sig.as_mut_ptr(),
                sk.as_ptr(),
                null,
                null,
                0,
                msg.as_ptr(),
                msg.len(),
                sk[2 * N..].as_ptr(),
            )
        };
        Ok(sig)
    }

    /// Whether `sig` over M' verifies under `pk` through the internal interface.
    fn verifies_internal(&self, pk: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let verify = self
            .f
            .verify_internal
            .ok_or_else(|| self.missing("verify_internal"))?;
        if pk.len() != PUBLIC {
            return Ok(false);
        }
        let null = std::ptr::null();
        // SAFETY: the signature borrowed with its length, a 32-byte key, no header or context,
        // M' borrowed with its length.
        let rc = unsafe {
            verify(
                sig.as_ptr(),
                sig.len(),
                pk.as_ptr(),
                null,
                null,
                0,
                msg.as_ptr(),
                msg.len(),
            )
        };
        Ok(bcm_ok(rc))
    }
}

impl<'a> SigCalls<'a> for Slh<'a> {
    fn signer(self: Box<Self>, seed: Option<&[u8]>) -> Res<Box<dyn Signer + 'a>> {
        let (pk, sk) = self.key_pair(seed)?;
        Ok(Box::new(KeySigner {
            signing: sk,
            verifying: pk,
            public: pk.to_vec(),
            out: vec![0; SIG],
            dsa: *self,
        }))
    }

    /// `SLHDSA_SHA2_128S_generate_key` into buffers kept between calls.
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut pk, mut sk) = ([0u8; PUBLIC], [0u8; PRIVATE]);
        Ok(Box::new(move || {
            // SAFETY: buffers of the key sizes.
            unsafe { (self.f.generate)(pk.as_mut_ptr(), sk.as_mut_ptr()) };
            std::hint::black_box(&mut pk);
            Ok(())
        }))
    }

    fn sign_internal(&self, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        self.sign_internal_bcm(private, msg)
    }

    fn verify_internal(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        self.verifies_internal(public, msg, sig)
    }

    fn verify(&self, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let pk = public.try_into().map_err(|_| {
            format!(
                "an SLH-DSA-SHA2-128s public key is 32 bytes, not {}",
                public.len()
            )
        })?;
        self.verify_with(&pk, msg, sig)
    }
}

impl SignWith for Slh<'_> {
    /// The 64-byte private key.
    type Signing = [u8; PRIVATE];
    /// The 32-byte public key.
    type Verifying = [u8; PUBLIC];

    /// Signs into a buffer of the signature's size (pure, empty context, hedged).
    fn sign_into(&self, sk: &[u8; PRIVATE], msg: &[u8], sig: &mut [u8]) -> Res<usize> {
        assert!(sig.len() >= SIG);
        let null = std::ptr::null();
        // SAFETY: a buffer of the signature's size, a 64-byte private key, the message borrowed.
        match unsafe {
            (self.f.sign)(
                sig.as_mut_ptr(),
                sk.as_ptr(),
                msg.as_ptr(),
                msg.len(),
                null,
                0,
            )
        } {
            1 => Ok(SIG),
            _ => Err("SLHDSA_SHA2_128S_sign failed".into()),
        }
    }

    /// Whether `sig` over `msg` (pure, empty context) verifies under `pk`.
    fn verify_with(&self, pk: &[u8; PUBLIC], msg: &[u8], sig: &[u8]) -> Res<bool> {
        let null = std::ptr::null();
        // SAFETY: the signature and message borrowed with their lengths, a 32-byte public key.
        let rc = unsafe {
            (self.f.verify)(
                sig.as_ptr(),
                sig.len(),
                pk.as_ptr(),
                msg.as_ptr(),
                msg.len(),
                null,
                0,
            )
        };
        Ok(rc == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boringssl::pq::tests::{passing, primitive};
    use cryptospeed_catalog::{unhex, Kat};

    #[test]
    fn a_wrong_slh_dsa_vector_fails_and_a_missing_bcm_entry_point_fails_with_the_reason() {
        let (api, p, suite) = passing("slh-dsa-sha2-128s");
        let Kat::SigInternal {
            private, msg, sig, ..
        } = p.kats[1]
        else {
            panic!("the second SLH-DSA vector is signing's");
        };
        let wrong = Kat::SigInternal {
            private,
            msg: &msg[2..],
            sig,
            source: "deliberately wrong",
        };
        let why = crate::suite::known_answer(&suite, p, &wrong).unwrap_err();
        assert!(why.contains("signature"), "{why}");
        let mut slh = Slh::new(api, p).unwrap().expect("a BoringSSL");
        (slh.f.sign_internal, slh.f.verify_internal) = (None, None);
        let why = SigCalls::sign_internal(&slh, &unhex(private), &unhex(msg)).unwrap_err();
        assert!(why.contains("BCM_slhdsa_sha2_128s_sign_internal"), "{why}");
        let other = primitive("slh-dsa-shake-128f");
        let why = Slh::new(api, other).err().expect("no SHAKE-128f");
        assert!(why.contains("SLH-DSA-SHAKE-128f"), "{why}");
    }
}
