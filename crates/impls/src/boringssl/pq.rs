//! ML-KEM and ML-DSA in the boringssl column. BoringSSL offers them only through its own non-EVP
//! API (`<openssl/mlkem.h>`, `<openssl/mldsa.h>`: key structs the caller allocates, one call per
//! operation), which `bssl speed` times, so crate::evp's kem.rs and dsa.rs cannot reach them;
//! crate::evp::pq_suite falls back to this module for a libcrypto of the BoringSSL family (one with `CBB`) that
//! has neither OpenSSL 3.5's nor AWS-LC's calls. Every function is looked up by name at run time,
//! so a BoringSSL without a parameter set reports it unavailable with the reason. This file holds
//! what both share (symbol lookup, `CBB`/`CBS` byte strings, key storage) and ML-KEM; ML-DSA is
//! dsa.rs, SLH-DSA slh.rs (X25519MLKEM768 is composed from this ML-KEM-768, crate::hybrid_kem).
//!
//! What each timed operation includes (the same work as the openssl and aws-lc columns, as the
//! catalog's kem.rs and dsa.rs define it; keys are the structs BoringSSL parses into):
//! - ML-KEM keygen: `MLKEM*_generate_key` (fresh seed from the RNG, expansion, and the encoded
//!   encapsulation key, which FIPS 203 key generation computes anyway for H(ek)).
//! - ML-KEM encaps: `MLKEM*_encap` to a public key parsed (`MLKEM*_parse_public_key`) before
//!   timing; decaps: `MLKEM*_decap` of one ciphertext with a private key made before timing.
//! - ML-DSA keygen: `MLDSA*_generate_key` (fresh seed, expansion, encoded public key); sign:
//!   `MLDSA*_sign` of 32 bytes, pure ML-DSA, empty context, hedged, with a key made before
//!   timing; verify: `MLDSA*_verify` of that signature under a key parsed before timing.
//!
//! Known answers: key generation from the seed through the public `MLKEM*_private_key_from_seed`
//! (d ‖ z) and `MLDSA*_private_key_from_seed` (ξ), the key marshalled with
//! `*_marshal_public_key`. The public API has no derandomised encapsulation, no import of an
//! expanded (NIST-format) private key and no internal-interface (M') or deterministic signing,
//! so those vectors go through the BCM entry points libcrypto exports for BoringSSL's own ACVP
//! tests (crypto/fipsmodule/bcm_interface.h, C++ functions in namespace `bssl`, found by their
//! mangled names, or by the plain names older trees gave them):
//! `BCM_mlkem*_encap_external_entropy`, `BCM_mlkem*_parse_private_key`,
//! `BCM_mldsa*_parse_private_key`, `BCM_mldsa*_sign_internal` (rnd = 0) and
//! `BCM_mldsa*_verify_internal`. They return `bcm_status` (0 approved, 1 not approved, 2
//! failure). A build that does not export them fails those vectors with that reason.
//!
//! BoringSSL keeps an ML-KEM private key as its 64-byte seed d ‖ z and cannot write the expanded
//! form, so the decapsulation key this module hands the suite is that seed; decapsulation takes
//! either (the seed through `MLKEM*_private_key_from_seed`, an expanded key through BCM).
#![allow(non_snake_case)]

use crate::evp::ffi::{Api, Ptr};
use crate::evp::pq_calls::KemCalls;
use crate::suite::{DecapsFn, EncapsFn, KemKeygenFn, OpFn, Res};
use cryptospeed_catalog::{Algorithm, Primitive};
use std::os::raw::{c_int, c_void};

/// The length of an ML-KEM seed d ‖ z (mlkem.h's MLKEM_SEED_BYTES).
const SEED: usize = 64;

crate::dynamic_api! {
    BsslApi, "libcrypto of the BoringSSL family (CBB byte strings)";
    required {
        CBB_init_fixed: fn(*mut c_void, *mut u8, usize) -> c_int;
        CBB_len: fn(*const c_void) -> usize;
        CBB_cleanup: fn(*mut c_void);
    }
    optional {}
}

/// `CBS` of bytestring.h (`{ const uint8_t *data; size_t len; }`): bytes a parser reads.
#[repr(C)]
pub(super) struct Cbs {
    data: *const u8,
    len: usize,
}

type KemGenerate = unsafe extern "C" fn(*mut u8, *mut u8, *mut c_void);
type KemPublicFromPrivate = unsafe extern "C" fn(*mut c_void, *const c_void);
type Encap = unsafe extern "C" fn(*mut u8, *mut u8, *const c_void);
type Decap = unsafe extern "C" fn(*mut u8, *const u8, usize, *const c_void) -> c_int;
/// `BCM_mlkem*_encap_external_entropy`; its `bcm_infallible` result carries nothing.
type EncapEntropy = unsafe extern "C" fn(*mut u8, *mut u8, *const c_void, *const u8) -> c_int;
pub(super) type FromSeed = unsafe extern "C" fn(*mut c_void, *const u8, usize) -> c_int;
pub(super) type Marshal = unsafe extern "C" fn(*mut c_void, *const c_void) -> c_int;
pub(super) type Parse = unsafe extern "C" fn(*mut c_void, *mut Cbs) -> c_int;

/// Whether a `bcm_status` is a success (approved or not approved).
pub(super) fn bcm_ok(status: c_int) -> bool {
    status == 0 || status == 1
}

/// Storage for one of BoringSSL's opaque key structs (`MLKEM768_private_key` …), 8-byte aligned
/// (the headers ask for 2 or 4). Sized from the headers of boring-sys 5.4.0's tree, doubled: a
/// build loaded with `boringssl:PATH` whose structs grew still writes inside it.
pub(crate) struct Opaque(Box<[u64]>);

impl Opaque {
    pub(super) fn new(bytes: usize) -> Opaque {
        Opaque(vec![0u64; (2 * bytes).div_ceil(8)].into_boxed_slice())
    }
    pub(super) fn ptr(&self) -> *const c_void {
        self.0.as_ptr().cast()
    }
    pub(super) fn mut_ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
}

/// The Itanium-mangled name of `bssl::NAME(PARAMS)`, and the plain C name.
pub(super) fn bcm_names(name: &str, params: &str) -> [String; 2] {
    [
        format!("_ZN4bssl{}{name}E{params}", name.len()),
        name.to_string(),
    ]
}

/// A type name as Itanium mangling writes it (length, then the name).
pub(super) fn mangled(type_name: &str) -> String {
    format!("{}{type_name}", type_name.len())
}

/// The byte-string calls and the library's symbols, shared by ML-KEM and ML-DSA.
pub(super) struct Lib<'a> {
    pub(super) api: &'a Api,
    pub(super) b: BsslApi,
}

impl<'a> Lib<'a> {
    /// BoringSSL's calls in the library behind `api`; `None` for a library outside the
    /// BoringSSL family (OpenSSL: no `CBB`).
    pub(super) fn load(api: &'a Api) -> Option<Lib<'a>> {
        Some(Lib {
            api,
            b: BsslApi::load(&api.path).ok()?,
        })
    }

    /// The first of `names` the library exports, as a function of type `F`.
    ///
    /// # Safety
    /// `F` must be an `unsafe extern "C" fn` with the C prototype of every name given.
    pub(super) unsafe fn resolve<F: Copy>(&self, names: &[String]) -> Option<F> {
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<Ptr>());
        let p = names.iter().find_map(|n| self.b.symbol(n))?;
        // SAFETY: a non-null function address given the prototype the caller vouches for.
        Some(unsafe { std::mem::transmute_copy::<Ptr, F>(&p) })
    }

    /// A required function `name`, or why this BoringSSL lacks the parameter set.
    ///
    /// # Safety
    /// As for `resolve`.
    pub(super) unsafe fn need<F: Copy>(&self, name: String, family: &str) -> Res<F> {
        // SAFETY: passed on to the caller.
        unsafe { self.resolve(std::slice::from_ref(&name)) }.ok_or_else(|| {
            format!(
                "this BoringSSL ({}) has no {family}_* functions (no {name})",
                self.b.path
            )
        })
    }

    /// The encoding `marshal` writes of `key` (at most `cap` bytes).
    pub(super) fn marshal(&self, marshal: Marshal, key: &Opaque, cap: usize) -> Res<Vec<u8>> {
        let mut out = vec![0u8; cap];
        // A `CBB` is 48 bytes on 64-bit targets (bytestring.h); room to spare.
        let mut cbb = [0u64; 16];
        let cbb = cbb.as_mut_ptr().cast::<c_void>();
        // SAFETY: a fixed CBB over `out`, which outlives it; `key` is an initialised key struct
        // of the matching type; a fixed CBB owns no memory, but cleanup is still its contract.
        let (ok, len) = unsafe {
            let init = (self.b.CBB_init_fixed)(cbb, out.as_mut_ptr(), out.len());
            let ok = init == 1 && marshal(cbb, key.ptr()) == 1;
            let len = (self.b.CBB_len)(cbb);
            (self.b.CBB_cleanup)(cbb);
            (ok, len)
        };
        if !ok {
            return Err(format!("marshalling the key failed: {}", self.api.errors()));
        }
        out.truncate(len);
        Ok(out)
    }

    /// A key struct of `size` bytes parsed by `parse` from `bytes` (`bcm`: BCM's status codes).
    pub(super) fn parse(&self, parse: Parse, bytes: &[u8], size: usize, bcm: bool) -> Res<Opaque> {
        let mut key = Opaque::new(size);
        self.parse_into(parse, bytes, &mut key, bcm)?;
        Ok(key)
    }

    /// [`Lib::parse`] into a key struct the caller keeps (made by `Opaque::new` of its size).
    pub(super) fn parse_into(
        &self,
        parse: Parse,
        bytes: &[u8],
        key: &mut Opaque,
        bcm: bool,
    ) -> Res<()> {
        let mut cbs = Cbs {
            data: bytes.as_ptr(),
            len: bytes.len(),
        };
        // SAFETY: `key` is large enough for the struct; the CBS borrows `bytes` for the call.
        let rc = unsafe { parse(key.mut_ptr(), &mut cbs) };
        let ok = if bcm { bcm_ok(rc) } else { rc == 1 };
        if !ok || cbs.len != 0 {
            return Err(format!(
                "parsing the {}-byte key failed: {}",
                bytes.len(),
                self.api.errors()
            ));
        }
        Ok(())
    }

    /// A key struct of `size` bytes from a seed.
    pub(super) fn seeded(&self, f: FromSeed, seed: &[u8], size: usize) -> Res<Opaque> {
        let mut key = Opaque::new(size);
        self.seeded_into(f, seed, &mut key)?;
        Ok(key)
    }

    /// [`Lib::seeded`] into a key struct the caller keeps.
    pub(super) fn seeded_into(&self, f: FromSeed, seed: &[u8], key: &mut Opaque) -> Res<()> {
        // SAFETY: `key` is large enough for the struct; the seed is borrowed for the call.
        match unsafe { f(key.mut_ptr(), seed.as_ptr(), seed.len()) } {
            1 => Ok(()),
            _ => Err(format!(
                "a private key from the {}-byte seed failed: {}",
                seed.len(),
                self.api.errors()
            )),
        }
    }
}

/// One ML-KEM parameter set of BoringSSL: encoded sizes (FIPS 203) and struct sizes (mlkem.h).
struct KemSet {
    level: u16,
    ek: usize,
    ct: usize,
    public: usize,
    private: usize,
}

const MLKEM768: KemSet = KemSet {
    level: 768,
    ek: 1184,
    ct: 1088,
    public: 512 * (3 + 9) + 32 + 32,
    private: 512 * (3 + 3 + 9) + 32 + 32 + 32,
};

const MLKEM1024: KemSet = KemSet {
    level: 1024,
    ek: 1568,
    ct: 1568,
    public: 512 * (4 + 16) + 32 + 32,
    private: 512 * (4 + 4 + 16) + 32 + 32 + 32,
};

/// The public mlkem.h calls of one parameter set, and the BCM ones the vectors need.
struct KemFns {
    generate: KemGenerate,
    from_seed: FromSeed,
    public_from_private: KemPublicFromPrivate,
    encap: Encap,
    decap: Decap,
    marshal: Marshal,
    parse_public: Parse,
    encap_entropy: Option<EncapEntropy>,
    parse_private: Option<Parse>,
}

impl KemFns {
    fn load(lib: &Lib, level: u16) -> Res<KemFns> {
        let n = |f: &str| format!("MLKEM{level}_{f}");
        let family = format!("MLKEM{level}");
        let (public, private) = (
            mangled(&format!("MLKEM{level}_public_key")),
            mangled(&format!("MLKEM{level}_private_key")),
        );
        // SAFETY: each type is the prototype mlkem.h and bcm_interface.h give the name.
        unsafe {
            Ok(KemFns {
                generate: lib.need(n("generate_key"), &family)?,
                from_seed: lib.need(n("private_key_from_seed"), &family)?,
                public_from_private: lib.need(n("public_from_private"), &family)?,
                encap: lib.need(n("encap"), &family)?,
                decap: lib.need(n("decap"), &family)?,
                marshal: lib.need(n("marshal_public_key"), &family)?,
                parse_public: lib.need(n("parse_public_key"), &family)?,
                encap_entropy: lib.resolve(&bcm_names(
                    &format!("BCM_mlkem{level}_encap_external_entropy"),
                    &format!("PhS0_PK{public}PKh"),
                )),
                parse_private: lib.resolve(&bcm_names(
                    &format!("BCM_mlkem{level}_parse_private_key"),
                    &format!("P{private}P6cbs_st"),
                )),
            })
        }
    }
}

/// One ML-KEM parameter set in BoringSSL.
pub struct Kem<'a> {
    lib: Lib<'a>,
    set: &'static KemSet,
    f: KemFns,
}

impl<'a> Kem<'a> {
    /// The parameter set of `p` in the libcrypto behind `api`, or
    /// why it is not there; `None` when the library is not of the BoringSSL family.
    pub fn new(api: &'a Api, p: &Primitive) -> Res<Option<Kem<'a>>> {
        let Some(lib) = Lib::load(api) else {
            return Ok(None);
        };
        let set = match p.algorithm {
            Algorithm::MlKem { level: 768 } => &MLKEM768,
            Algorithm::MlKem { level: 1024 } => &MLKEM1024,
            Algorithm::MlKem { level } => {
                return Err(format!(
                    "BoringSSL has no ML-KEM-{level} (its mlkem.h offers MLKEM768_* and MLKEM1024_* only)"
                ))
            }
            _ => return Err(format!("{} is not an ML-KEM parameter set", p.id)),
        };
        let f = KemFns::load(&lib, set.level)?;
        Ok(Some(Kem { lib, set, f }))
    }

    /// (encoded encapsulation key, seed d ‖ z) of a fresh key pair: BoringSSL keeps private
    /// keys as their seed, the decapsulation key [`Kem::private_of`] takes back.
    pub(super) fn generate(&self) -> (Vec<u8>, Vec<u8>) {
        let (mut ek, mut seed) = (vec![0u8; self.set.ek], vec![0u8; SEED]);
        let mut private = Opaque::new(self.set.private);
        // SAFETY: buffers of the encoded key's and the seed's sizes, a key struct of this
        // parameter set's size.
        unsafe { (self.f.generate)(ek.as_mut_ptr(), seed.as_mut_ptr(), private.mut_ptr()) };
        (ek, seed)
    }

    /// Room for a private key struct of this parameter set.
    pub(super) fn new_private(&self) -> Opaque {
        Opaque::new(self.set.private)
    }

    /// A fresh key pair into buffers the caller keeps (`ek` of the encoded key's size).
    pub(super) fn generate_into(&self, ek: &mut [u8], private: &mut Opaque) {
        assert!(ek.len() >= self.set.ek);
        // SAFETY: an output buffer of the encoded key's size, no seed output, a key struct of
        // this parameter set's size (Opaque::new(self.set.private) everywhere in this module).
        unsafe { (self.f.generate)(ek.as_mut_ptr(), std::ptr::null_mut(), private.mut_ptr()) };
    }

    /// [`Kem::generate`] into buffers the caller keeps: the encoded key and the seed d ‖ z.
    pub(super) fn generate_seed_into(&self, ek: &mut [u8], seed: &mut [u8], private: &mut Opaque) {
        assert!(ek.len() >= self.set.ek && seed.len() >= SEED);
        // SAFETY: as in generate_into, and a seed output of the seed's size.
        unsafe { (self.f.generate)(ek.as_mut_ptr(), seed.as_mut_ptr(), private.mut_ptr()) };
    }

    /// [`Kem::private_of`] into a key struct the caller keeps (from [`Kem::new_private`]).
    pub(super) fn private_into(&self, dk: &[u8], private: &mut Opaque) -> Res<()> {
        if dk.len() == SEED {
            return self.lib.seeded_into(self.f.from_seed, dk, private);
        }
        let parse = self
            .f
            .parse_private
            .ok_or("no expanded-key parser in this BoringSSL")?;
        self.lib.parse_into(parse, dk, private, true)
    }

    /// [`Kem::parse_public`] into a key struct the caller keeps (from [`Kem::new_public`]).
    pub(super) fn parse_public_into(&self, ek: &[u8], public: &mut Opaque) -> Res<()> {
        self.lib.parse_into(self.f.parse_public, ek, public, false)
    }

    /// Room for a public key struct of this parameter set.
    pub(super) fn new_public(&self) -> Opaque {
        Opaque::new(self.set.public)
    }

    /// The private key struct of a decapsulation key: the 64-byte seed d ‖ z, or an expanded
    /// (NIST-format) key.
    pub(super) fn private_of(&self, dk: &[u8]) -> Res<Opaque> {
        match dk.len() {
            SEED => self.private_from_seed(dk),
            _ => self.parse_private(dk),
        }
    }

    /// The private key struct of the 64-byte seed d ‖ z.
    pub(super) fn private_from_seed(&self, seed: &[u8]) -> Res<Opaque> {
        self.lib.seeded(self.f.from_seed, seed, self.set.private)
    }

    /// The encoded encapsulation key of a private key struct.
    pub(super) fn encapsulation_key(&self, private: &Opaque) -> Res<Vec<u8>> {
        let mut public = Opaque::new(self.set.public);
        // SAFETY: a key struct of the right size, an initialised private key.
        unsafe { (self.f.public_from_private)(public.mut_ptr(), private.ptr()) };
        self.lib.marshal(self.f.marshal, &public, self.set.ek)
    }

    /// The public key struct of an encoded encapsulation key.
    pub(super) fn parse_public(&self, ek: &[u8]) -> Res<Opaque> {
        self.lib
            .parse(self.f.parse_public, ek, self.set.public, false)
    }

    /// The private key struct of an expanded (NIST-format) decapsulation key, through BCM.
    pub(super) fn parse_private(&self, dk: &[u8]) -> Res<Opaque> {
        let parse = self.f.parse_private.ok_or_else(|| {
            format!(
                "BoringSSL's mlkem.h cannot import an expanded decapsulation key, and {} does not \
                 export BCM_mlkem{}_parse_private_key, so the decapsulation vector cannot run here",
                self.lib.b.path, self.set.level
            )
        })?;
        self.lib.parse(parse, dk, self.set.private, true)
    }

    /// Encapsulates into buffers the caller keeps (`c` of the ciphertext's size, `k` of 32).
    pub(super) fn encap_into(&self, public: &Opaque, c: &mut [u8], k: &mut [u8]) {
        assert!(c.len() >= self.set.ct && k.len() >= 32);
        // SAFETY: buffers of the ciphertext's and the secret's sizes, a parsed public key.
        unsafe { (self.f.encap)(c.as_mut_ptr(), k.as_mut_ptr(), public.ptr()) };
    }

    /// (ciphertext, secret); `m` derandomises it through BCM.
    pub(super) fn encap(&self, public: &Opaque, m: Option<&[u8]>) -> Res<(Vec<u8>, Vec<u8>)> {
        let (mut c, mut k) = (vec![0u8; self.set.ct], vec![0u8; 32]);
        let Some(m) = m else {
            self.encap_into(public, &mut c, &mut k);
            return Ok((c, k));
        };
        let f = self.f.encap_entropy.ok_or_else(|| {
            format!(
                "BoringSSL's mlkem.h has no derandomised encapsulation, and {} does not export \
                 BCM_mlkem{}_encap_external_entropy, so the encapsulation vector cannot run here",
                self.lib.b.path, self.set.level
            )
        })?;
        if m.len() != 32 {
            return Err(format!(
                "the encapsulation message is 32 bytes, not {}",
                m.len()
            ));
        }
        // SAFETY: buffers of the ciphertext's and secret's sizes, a parsed key, 32 bytes of m.
        unsafe { f(c.as_mut_ptr(), k.as_mut_ptr(), public.ptr(), m.as_ptr()) };
        Ok((c, k))
    }

    /// Decapsulates into a 32-byte buffer the caller keeps.
    pub(super) fn decap_into(&self, private: &Opaque, c: &[u8], k: &mut [u8]) -> Res<()> {
        assert!(k.len() >= 32);
        // SAFETY: a 32-byte output, the ciphertext borrowed with its length, a private key.
        match unsafe { (self.f.decap)(k.as_mut_ptr(), c.as_ptr(), c.len(), private.ptr()) } {
            1 => Ok(()),
            _ => Err(format!(
                "MLKEM{}_decap refused a {}-byte ciphertext",
                self.set.level,
                c.len()
            )),
        }
    }

    pub(super) fn decap(&self, private: &Opaque, c: &[u8]) -> Res<Vec<u8>> {
        let mut k = vec![0u8; 32];
        self.decap_into(private, c, &mut k)?;
        Ok(k)
    }
}

impl<'a> KemCalls<'a> for Kem<'a> {
    fn keygen(self: Box<Self>, seed: Option<&[u8]>) -> Res<KemKeygenFn<'a>> {
        let seed = seed.map(<[u8]>::to_vec);
        Ok(Box::new(move || match &seed {
            Some(seed) => {
                let ek = self.encapsulation_key(&self.private_from_seed(seed)?)?;
                Ok((ek, seed.clone()))
            }
            None => Ok(self.generate()),
        }))
    }

    fn encaps(self: Box<Self>, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'a>> {
        let (public, m) = (self.parse_public(ek)?, m.map(<[u8]>::to_vec));
        Ok(Box::new(move || self.encap(&public, m.as_deref())))
    }

    fn decaps(self: Box<Self>, dk: &[u8]) -> Res<DecapsFn<'a>> {
        let private = self.private_of(dk)?;
        Ok(Box::new(move |c| self.decap(&private, c)))
    }

    /// `MLKEM*_generate_key` into buffers kept between calls.
    fn keygen_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut ek, mut private) = (vec![0u8; self.set.ek], self.new_private());
        Ok(Box::new(move || {
            self.generate_into(&mut ek, &mut private);
            std::hint::black_box(&mut ek);
            Ok(())
        }))
    }

    /// `MLKEM*_generate_key` writing the encoded key and the seed into buffers kept between
    /// calls, its key struct too (none of 8-12 KB allocated, at twice its size, and zeroed per
    /// call).
    fn keygen_encode_timed(self: Box<Self>) -> Res<OpFn<'a>> {
        let (mut ek, mut seed) = (vec![0u8; self.set.ek], vec![0u8; SEED]);
        let mut private = self.new_private();
        Ok(Box::new(move || {
            self.generate_seed_into(&mut ek, &mut seed, &mut private);
            std::hint::black_box((&mut ek, &mut seed));
            Ok(())
        }))
    }

    /// `MLKEM*_encap` to a key parsed before timing.
    fn encaps_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let public = self.parse_public(ek)?;
        let (mut c, mut k) = (vec![0u8; self.set.ct], vec![0u8; 32]);
        Ok(Box::new(move || {
            self.encap_into(&public, &mut c, &mut k);
            std::hint::black_box(&mut k);
            Ok(())
        }))
    }

    /// `MLKEM*_decap` with a key made before timing.
    fn decaps_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (private, c, mut k) = (self.private_of(dk)?, c.to_vec(), vec![0u8; 32]);
        Ok(Box::new(move || {
            self.decap_into(&private, &c, &mut k)?;
            std::hint::black_box(&mut k);
            Ok(())
        }))
    }

    /// `MLKEM*_parse_public_key`, then `MLKEM*_encap` (bssl_bench's ParseEncap), the key
    /// struct kept between calls.
    fn encaps_parse_timed(self: Box<Self>, ek: &[u8]) -> Res<OpFn<'a>> {
        let (ek, mut c, mut k) = (ek.to_vec(), vec![0u8; self.set.ct], vec![0u8; 32]);
        let mut public = self.new_public();
        Ok(Box::new(move || {
            self.parse_public_into(&ek, &mut public)?;
            self.encap_into(&public, &mut c, &mut k);
            std::hint::black_box(&mut k);
            Ok(())
        }))
    }

    /// The private key from its seed (`MLKEM*_private_key_from_seed`), then `MLKEM*_decap`, the
    /// key struct kept between calls.
    fn decaps_parse_timed(self: Box<Self>, dk: &[u8], c: &[u8]) -> Res<OpFn<'a>> {
        let (dk, c, mut k) = (dk.to_vec(), c.to_vec(), vec![0u8; 32]);
        let mut private = self.new_private();
        Ok(Box::new(move || {
            self.private_into(&dk, &mut private)?;
            self.decap_into(&private, &c, &mut k)?;
            std::hint::black_box(&mut k);
            Ok(())
        }))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::evp::pq_suite::PqSuite;
    use cryptospeed_catalog::{unhex, Kat};

    /// BoringSSL from the boring-sys crate's tree, built by the same function
    /// `cryptospeed variant build-library boringssl` calls, into the test suite's cache
    /// ([`cryptospeed_testkit::cache_dir`]) under its content key: the first test (of this binary
    /// or of tests/boringssl_family.rs, whichever runs first) builds it, under the key's lock,
    /// and every other one finds that build. A build that fails fails the test, with its log.
    /// The library stays loaded to the end of the process (leaked): BoringSSL's thread-local
    /// state has a destructor that runs when the test's thread exits, which must not find the
    /// library unmapped (a worker keeps its library for its whole life in the same way).
    pub(in super::super) fn boringssl() -> &'static Api {
        use cryptospeed_variants::{cmake, BuildStatus, Cache};
        static BUILT: std::sync::OnceLock<&'static Api> = std::sync::OnceLock::new();
        BUILT.get_or_init(|| {
            let cache = Cache::open(Some(cryptospeed_testkit::cache_dir()));
            let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
            let cancel = std::sync::atomic::AtomicBool::new(false);
            let entry = cmake::build(&cmake::BORINGSSL, &cache, jobs, &cancel)
                .unwrap_or_else(|e| panic!("cannot build BoringSSL: {e:#}"));
            assert_ne!(
                entry.manifest.status,
                BuildStatus::Failed,
                "building BoringSSL failed: {} (log: {})",
                entry.manifest.detail,
                entry.log_path().display()
            );
            let api = Api::load(&entry.library_path().to_string_lossy())
                .unwrap_or_else(|e| panic!("the BoringSSL build does not load: {e}"));
            Box::leak(Box::new(api))
        })
    }

    pub(in super::super) fn primitive(id: &str) -> &'static Primitive {
        cryptospeed_catalog::lookup(id).unwrap()
    }

    /// The BoringSSL of [`boringssl`], primitive `id` and the post-quantum suite over that
    /// library, once every vector of `id` has passed through the suite.
    pub(in super::super) fn passing(id: &str) -> (&'static Api, &'static Primitive, PqSuite) {
        let api = boringssl();
        let (p, suite) = (
            primitive(id),
            PqSuite::load("boringssl", &api.path, crate::PQ_BACKENDS).unwrap(),
        );
        for kat in p.kats {
            crate::suite::known_answer(&suite, p, kat).unwrap();
        }
        (api, p, suite)
    }

    #[test]
    fn a_wrong_ml_kem_vector_fails_and_a_missing_bcm_entry_point_fails_with_the_reason() {
        let (api, p, suite) = passing("ml-kem-768");
        let Kat::KemEncaps { ek, m, c, .. } = p.kats[1] else {
            panic!("the second ML-KEM vector is encapsulation's");
        };
        let wrong = Kat::KemEncaps {
            ek,
            m,
            c,
            k: "00",
            source: "deliberately wrong",
        };
        let why = crate::suite::known_answer(&suite, p, &wrong).unwrap_err();
        assert!(why.contains("shared secret"), "{why}");
        // A build without BCM's derandomised encapsulation and key import cannot run those
        // vectors: they fail, saying why, rather than pass.
        let without_bcm = || {
            let mut kem = Box::new(Kem::new(api, p).unwrap().expect("a BoringSSL"));
            (kem.f.encap_entropy, kem.f.parse_private) = (None, None);
            kem
        };
        let Kat::KemDecaps { dk, .. } = p.kats[2] else {
            panic!("the third ML-KEM vector is decapsulation's");
        };
        let why = without_bcm().encaps(&unhex(ek), Some(&unhex(m))).unwrap()().unwrap_err();
        assert!(why.contains("BCM_mlkem768_encap_external_entropy"), "{why}");
        let why = without_bcm().decaps(&unhex(dk)).err().unwrap();
        assert!(why.contains("BCM_mlkem768_parse_private_key"), "{why}");
    }

    /// ML-KEM-768 and the hybrid composed from it (crate::hybrid_kem) alike.
    #[test]
    fn encaps_and_decaps_parse_parse_their_key_in_every_timed_call() {
        use crate::suite::Suite;
        for id in ["ml-kem-768", "x25519-mlkem768"] {
            let (_, p, suite) = passing(id);
            let (ek, dk) = suite.kem_keygen(p, None).unwrap()().unwrap();
            let (c, k) = suite.kem_encaps(p, &ek, None).unwrap()().unwrap();
            assert_eq!(suite.kem_decaps(p, &dk).unwrap()(&c).unwrap(), k, "{id}");
            let mut encaps = suite.kem_encaps_parse_timed(p, &ek).unwrap();
            let mut decaps = suite.kem_decaps_parse_timed(p, &dk, &c).unwrap();
            let mut keygen = suite.kem_keygen_encode_timed(p).unwrap();
            for _ in 0..3 {
                encaps().unwrap();
                decaps().unwrap();
                keygen().unwrap();
            }
            // FIPS 203 7.2's modulus check: a first coefficient of 0xfff (not below q = 3329)
            // is refused by the parse, which runs inside the timed call, not before it.
            let mut bad = ek.clone();
            (bad[0], bad[1]) = (0xff, bad[1] | 0x0f);
            let mut encaps = suite.kem_encaps_parse_timed(p, &bad).unwrap();
            let why = encaps().unwrap_err();
            assert!(
                why.contains("parsing the 1184-byte key failed"),
                "{id}: {why}"
            );
        }
    }

    #[test]
    fn the_mangled_names_are_those_the_tree_exports() {
        assert_eq!(
            bcm_names(
                "BCM_mlkem1024_encap_external_entropy",
                &format!("PhS0_PK{}PKh", mangled("MLKEM1024_public_key"))
            )[0],
            "_ZN4bssl36BCM_mlkem1024_encap_external_entropyEPhS0_PK20MLKEM1024_public_keyPKh"
        );
    }
}
