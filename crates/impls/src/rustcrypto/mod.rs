//! `rustcrypto`: the RustCrypto project's pure-Rust crates (crates.io), legacy ones included:
//! MD2, MD4, MD5, SHA-1/2/3, BLAKE2, RIPEMD-160, Whirlpool; HMAC, CMAC, GMAC (AES-GCM over
//! associated data only); DES, 3DES, IDEA, RC2, RC4, Blowfish, CAST5, AES, Camellia in CBC, AES
//! in CTR, AES in ECB (`ecb`) and XTS (`xts-mode`), SM4 in CBC and ECB (`sm4`), SM3; AES-GCM,
//! AES-CCM (`ccm`), AES-OCB (`ocb3`), AES-GCM-SIV (`aes-gcm-siv`), ChaCha20-Poly1305; RSA, ECDSA P-256/P-384, Ed25519, ECDH P-256/P-384 and
//! X25519; ML-KEM-512/768/1024 (the `ml-kem` crate, kem.rs), ML-DSA (`ml-dsa`,
//! dsa.rs), SLH-DSA (`slh-dsa`, slh.rs) and X25519MLKEM768 composed from
//! `ml-kem` and `x25519-dalek` (hybrid_kem.rs). SEED, RC5, MDC-2, DSA,
//! X448 and Ed448 have no crate here and are listed unavailable.

mod dsa;
mod kem;
mod slh;

use crate::declared::{Conformance::*, Declared, State::*};
use crate::hybrid_kem;
use crate::suite::{
    AeadFn, CipherFn, DecapsFn, DeriveFn, EncapsFn, HashFn, KemKeygenFn, OpFn, Res, Signer, Suite,
    SuiteImplementation,
};
use crate::ImplOptions;
use cipher::block_padding::NoPadding;
use cipher::consts::U16;
use cipher::{
    BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, BlockSizeUser,
    KeyInit, KeyIvInit, StreamCipher,
};
use cryptospeed_catalog::{Algorithm, Curve, Primitive};
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;
use cryptospeed_model::Variant;
use digest::{Digest, ExtendableOutput, Update};

pub struct RustCrypto;

/// Calls `slh::$f::<the parameter set's type>(args)` for an SLH-DSA primitive.
macro_rules! by_slh_set {
    ($p:expr, $f:ident ( $($arg:expr),* )) => {
        match $p.algorithm {
            Algorithm::SlhDsa { name: "SLH-DSA-SHA2-128s" } => slh::$f::<slh_dsa::Sha2_128s>($($arg),*),
            Algorithm::SlhDsa { name: "SLH-DSA-SHA2-128f" } => slh::$f::<slh_dsa::Sha2_128f>($($arg),*),
            Algorithm::SlhDsa { name: "SLH-DSA-SHAKE-128f" } => slh::$f::<slh_dsa::Shake128f>($($arg),*),
            _ => Err(format!("rustcrypto has no crate for {}", $p.id)),
        }
    };
}

/// The generator the timed calls draw from where a crate takes one as an argument: a handle on
/// this thread's ChaCha20 generator, seeded from the system once (one `getrandom` call) when
/// first used, so that neither an operation nor a call set up inside a timed loop (the
/// from-bytes operations) asks the kernel for randomness.
#[derive(Clone, Copy, Default)]
pub(crate) struct TimingRng;

thread_local! {
    static TIMING_RNG: std::cell::RefCell<rand_chacha::ChaCha20Rng> =
        std::cell::RefCell::new(<rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_entropy());
}

impl rand_core::RngCore for TimingRng {
    fn next_u32(&mut self) -> u32 {
        TIMING_RNG.with(|r| r.borrow_mut().next_u32())
    }
    fn next_u64(&mut self) -> u64 {
        TIMING_RNG.with(|r| r.borrow_mut().next_u64())
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        TIMING_RNG.with(|r| r.borrow_mut().fill_bytes(dest))
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        TIMING_RNG.with(|r| r.borrow_mut().try_fill_bytes(dest))
    }
}

impl rand_core::CryptoRng for TimingRng {}

/// The timing generator ([`TimingRng`]).
pub(crate) fn timing_rng() -> TimingRng {
    TimingRng
}

/// Calls `kem::$f::<the parameter set's type>(args)` for an ML-KEM primitive.
macro_rules! by_kem_set {
    ($p:expr, $f:ident ( $($arg:expr),* )) => {
        match $p.algorithm {
            Algorithm::MlKem { level: 512 } => kem::$f::<ml_kem::MlKem512>($($arg),*),
            Algorithm::MlKem { level: 768 } => kem::$f::<ml_kem::MlKem768>($($arg),*),
            Algorithm::MlKem { level: 1024 } => kem::$f::<ml_kem::MlKem1024>($($arg),*),
            _ => Err(format!("rustcrypto has no crate for {}", $p.id)),
        }
    };
}

/// n of the SLH-DSA parameter sets in the catalog (all of security category 1).
const SLH_N: usize = 16;

/// x25519-dalek, the X25519 of this column's composed X25519MLKEM768 (crate::hybrid_kem): keys
/// in arrays, fresh ones from the timing generator, nothing allocated.
struct Dalek;

impl hybrid_kem::X25519 for Dalek {
    fn pair(&self, private: Option<&[u8; 32]>) -> ([u8; 32], [u8; 32]) {
        let secret = match private {
            Some(k) => x25519_dalek::StaticSecret::from(*k),
            None => x25519_dalek::StaticSecret::random_from_rng(timing_rng()),
        };
        let public = x25519_dalek::PublicKey::from(&secret);
        (public.to_bytes(), secret.to_bytes())
    }

    fn shared(&self, private: &[u8; 32], peer: &[u8; 32], out: &mut [u8; 32]) -> Res<()> {
        let secret = x25519_dalek::StaticSecret::from(*private);
        let shared = secret.diffie_hellman(&x25519_dalek::PublicKey::from(*peer));
        if !shared.was_contributory() {
            return Err("x25519-dalek: the peer key is of low order".into());
        }
        *out = shared.to_bytes();
        Ok(())
    }
}

impl RustCrypto {
    fn hybrid(&self) -> hybrid_kem::Hybrid<'_> {
        hybrid_of(self)
    }
}

/// X25519MLKEM768 composed from this column's ML-KEM-768 and x25519-dalek.
pub(crate) fn hybrid_of(rc: &RustCrypto) -> hybrid_kem::Hybrid<'_> {
    hybrid_kem::Hybrid {
        half: rc,
        x: &Dalek,
    }
}

/// Verifies a pure ML-DSA signature (empty context) made by another library.
fn dsa_verify_foreign(p: &Primitive, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
    match p.algorithm {
        Algorithm::MlDsa { level: 44 } => dsa::verify_pure::<ml_dsa::MlDsa44>(public, msg, sig),
        Algorithm::MlDsa { level: 65 } => dsa::verify_pure::<ml_dsa::MlDsa65>(public, msg, sig),
        Algorithm::MlDsa { level: 87 } => dsa::verify_pure::<ml_dsa::MlDsa87>(public, msg, sig),
        _ => Err(format!("{} is not ML-DSA", p.id)),
    }
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs); the
/// composed X25519MLKEM768 (crate::hybrid_kem) carries its ML-KEM-768 half's.
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["ecdsa"],
        ops: &[Op::Sign],
        note: Deviates("the crate signs messages: the input is hashed (SHA-256/384) first, and k comes from RFC 6979"),
    },
    crate::declared::HASH_THEN_SIGN[0],
    crate::declared::HASH_THEN_SIGN[1],
    Declared {
        kinds: &["*-cbc"],
        ops: &[],
        note: Deviates("each call restarts from the IV: the chaining state does not carry over"),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Departs(&[PrecomputedInKey], "the key object caches Â and the key's NTT forms (ml-dsa's KeyPair), computed before timing"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Departs(&[ExpandedPerCall], "the ml-kem crate's key keeps ρ and t̂ only: Â is expanded from ρ in every encryption (decaps: its re-encryption)"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::DecapsParse],
        note: Departs(&[NoHashCheck], "the ml-kem crate's DecapsulationKey::from_bytes makes no FIPS 203 7.3 hash check"),
    },
];

pub fn create(_: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    Ok(Box::new(SuiteImplementation::new(RustCrypto)))
}

fn hash_of<D: Digest + 'static>() -> HashFn {
    Box::new(|msg, out| {
        out.copy_from_slice(&D::digest(msg));
        Ok(())
    })
}

/// Any RustCrypto MAC (HMAC, CMAC): keyed once, cloned per message.
fn mac_of<M>(key: &[u8]) -> Res<HashFn>
where
    M: digest::Mac + KeyInit + Clone + 'static,
{
    let mac = <M as KeyInit>::new_from_slice(key).map_err(|e| e.to_string())?;
    Ok(Box::new(move |msg, out| {
        let mut m = mac.clone();
        digest::Mac::update(&mut m, msg);
        out.copy_from_slice(&m.finalize().into_bytes());
        Ok(())
    }))
}

/// CBC without padding. Each call starts from the IV (the mode object is cloned), which costs a
/// copy of the key schedule and lets decryption use the parallel multi-block path.
fn cbc_of<C>(key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn>
where
    C: BlockCipher + BlockEncryptMut + BlockDecryptMut + KeyInit + Clone + 'static,
{
    let bs = C::block_size();
    let whole = move |buf: &mut [u8]| buf.len() / bs * bs;
    if encrypt {
        let e = cbc::Encryptor::<C>::new_from_slices(key, iv).map_err(|e| e.to_string())?;
        Ok(Box::new(move |buf| {
            let n = whole(buf);
            e.clone()
                .encrypt_padded_mut::<NoPadding>(&mut buf[..n], n)
                .map_err(|e| e.to_string())?;
            Ok(())
        }))
    } else {
        let d = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(|e| e.to_string())?;
        Ok(Box::new(move |buf| {
            let n = whole(buf);
            d.clone()
                .decrypt_padded_mut::<NoPadding>(&mut buf[..n])
                .map_err(|e| e.to_string())?;
            Ok(())
        }))
    }
}

/// ECB without padding (the `ecb` crate): whole blocks only, no state between calls.
fn ecb_of<C>(key: &[u8], encrypt: bool) -> Res<CipherFn>
where
    C: BlockCipher + BlockEncryptMut + BlockDecryptMut + KeyInit + Clone + 'static,
{
    let bs = C::block_size();
    let whole = move |buf: &mut [u8]| buf.len() / bs * bs;
    if encrypt {
        let e = ecb::Encryptor::<C>::new_from_slice(key).map_err(|e| e.to_string())?;
        Ok(Box::new(move |buf| {
            let n = whole(buf);
            e.clone()
                .encrypt_padded_mut::<NoPadding>(&mut buf[..n], n)
                .map_err(|e| e.to_string())?;
            Ok(())
        }))
    } else {
        let d = ecb::Decryptor::<C>::new_from_slice(key).map_err(|e| e.to_string())?;
        Ok(Box::new(move |buf| {
            let n = whole(buf);
            d.clone()
                .decrypt_padded_mut::<NoPadding>(&mut buf[..n])
                .map_err(|e| e.to_string())?;
            Ok(())
        }))
    }
}

/// XTS (the `xts-mode` crate): the key is two cipher keys, each call one data unit under the
/// tweak `iv`, with ciphertext stealing for a partial last block.
fn xts_of<C>(key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn>
where
    C: BlockCipher + BlockEncrypt + BlockDecrypt + KeyInit + 'static,
{
    let (k1, k2) = key.split_at(key.len() / 2);
    let new = |k: &[u8]| C::new_from_slice(k).map_err(|e| e.to_string());
    let xts = xts_mode::Xts128::new(new(k1)?, new(k2)?);
    let tweak: [u8; 16] = iv.try_into().map_err(|_| "the XTS tweak is 16 bytes")?;
    Ok(Box::new(move |buf| {
        if buf.len() < 16 {
            return Err("an XTS data unit is at least 16 bytes".into());
        }
        if encrypt {
            xts.encrypt_sector(buf, tweak);
        } else {
            xts.decrypt_sector(buf, tweak);
        }
        Ok(())
    }))
}

/// CCM for the nonce and tag lengths a call brings: 12/16 (timed, as openssl speed 3.5 does),
/// and the published vectors' 12/8 (SP 800-38C C.3) and 13/16 (CAVP).
fn ccm_of<C>(key: &[u8], encrypt: bool) -> Res<AeadFn>
where
    C: BlockCipher + BlockSizeUser<BlockSize = U16> + BlockEncrypt + KeyInit + 'static,
{
    use cipher::consts::{U12, U13, U8};
    let mut timed = aead_of::<ccm::Ccm<C, U16, U12>>(key, encrypt)?;
    let mut short_tag = aead_of::<ccm::Ccm<C, U8, U12>>(key, encrypt)?;
    let mut long_nonce = aead_of::<ccm::Ccm<C, U16, U13>>(key, encrypt)?;
    Ok(Box::new(move |nonce, aad, data, tag| {
        match (nonce.len(), tag.len()) {
            (12, 16) => timed(nonce, aad, data, tag),
            (12, 8) => short_tag(nonce, aad, data, tag),
            (13, 16) => long_nonce(nonce, aad, data, tag),
            (n, t) => Err(format!(
                "rustcrypto's CCM is instantiated here for 12/16, 12/8 and 13/16-byte \
                 nonces/tags, not {n}/{t}"
            )),
        }
    }))
}

fn stream_of<S: StreamCipher + 'static>(mut s: S) -> CipherFn {
    Box::new(move |buf| {
        s.apply_keystream(buf);
        Ok(())
    })
}

fn aead_of<A>(key: &[u8], encrypt: bool) -> Res<AeadFn>
where
    A: aes_gcm::aead::AeadInPlace + KeyInit + 'static,
{
    use aes_gcm::aead::generic_array::GenericArray;
    let a = A::new_from_slice(key).map_err(|e| e.to_string())?;
    Ok(if encrypt {
        Box::new(move |nonce, aad, data, tag| {
            let t = a
                .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, data)
                .map_err(|e| e.to_string())?;
            tag.copy_from_slice(&t);
            Ok(true)
        })
    } else {
        Box::new(move |nonce, aad, data, tag| {
            Ok(a.decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                aad,
                data,
                GenericArray::from_slice(tag),
            )
            .is_ok())
        })
    })
}

struct RsaSigner {
    key: rsa::pkcs1v15::SigningKey<sha2::Sha256>,
    verifying: rsa::pkcs1v15::VerifyingKey<sha2::Sha256>,
}
impl Signer for RsaSigner {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        use rsa::signature::{SignatureEncoding, Signer as _};
        Ok(self.key.sign(msg).to_vec())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        use rsa::signature::Verifier;
        let Ok(sig) = rsa::pkcs1v15::Signature::try_from(sig) else {
            return Ok(false);
        };
        Ok(self.verifying.verify(msg, &sig).is_ok())
    }
    fn public(&self) -> Vec<u8> {
        Vec::new()
    }
}

struct Ed25519(ed25519_dalek::SigningKey);
impl Signer for Ed25519 {
    fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
        use ed25519_dalek::Signer as _;
        Ok(self.0.sign(msg).to_bytes().to_vec())
    }
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
        let Ok(sig) = ed25519_dalek::Signature::from_slice(sig) else {
            return Ok(false);
        };
        Ok(self.0.verifying_key().verify_strict(msg, &sig).is_ok())
    }
    fn public(&self) -> Vec<u8> {
        self.0.verifying_key().to_bytes().to_vec()
    }
}

/// ECDSA over one of the `p256`/`p384` crates (same API, different types).
macro_rules! ecdsa_signer {
    ($name:ident, $k:ident) => {
        struct $name($k::ecdsa::SigningKey);
        impl Signer for $name {
            fn sign(&mut self, msg: &[u8]) -> Res<Vec<u8>> {
                use $k::ecdsa::signature::Signer as _;
                let sig: $k::ecdsa::Signature = self.0.sign(msg);
                Ok(sig.to_der().as_bytes().to_vec())
            }
            fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Res<bool> {
                verify_sec1_der!($k, &self.public(), msg, sig)
            }
            fn public(&self) -> Vec<u8> {
                self.0
                    .verifying_key()
                    .to_encoded_point(false)
                    .as_bytes()
                    .to_vec()
            }
        }
    };
}

macro_rules! verify_sec1_der {
    ($k:ident, $public:expr, $msg:expr, $sig:expr) => {{
        use $k::ecdsa::signature::Verifier;
        let vk = $k::ecdsa::VerifyingKey::from_sec1_bytes($public).map_err(|e| e.to_string())?;
        match $k::ecdsa::Signature::from_der($sig) {
            Ok(sig) => Ok(vk.verify($msg, &sig).is_ok()),
            Err(_) => Ok(false),
        }
    }};
}

ecdsa_signer!(EcdsaP256, p256);
ecdsa_signer!(EcdsaP384, p384);

macro_rules! nist_derive {
    ($k:ident, $private:expr, $peer:expr) => {{
        let sk = $k::SecretKey::from_slice($private).map_err(|e| e.to_string())?;
        let pk = $k::PublicKey::from_sec1_bytes($peer).map_err(|e| e.to_string())?;
        Ok(Box::new(move || {
            let shared = $k::ecdh::diffie_hellman(sk.to_nonzero_scalar(), pk.as_affine());
            Ok(shared.raw_secret_bytes().to_vec())
        }))
    }};
}

impl Suite for RustCrypto {
    fn name(&self) -> &'static str {
        "rustcrypto"
    }
    fn describe(&self) -> Variant {
        Variant {
            label: "rustcrypto".into(),
            implementation: "rustcrypto".into(),
            version:
                "RustCrypto crates (digest 0.10, cipher 0.4, rsa 0.9, p256/p384 0.13, dalek 2)"
                    .into(),
            library: "statically linked into cryptospeed".into(),
            ..Default::default()
        }
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "signatures: the crates sign messages, so ECDSA and RSA hash the 20/36-byte message \
             with SHA-256/384 before signing (openssl speed signs it as a digest)"
                .into(),
            "cbc: each call restarts from the IV (openssl speed chains across calls)".into(),
        ]
    }
    fn hash(&self, p: &Primitive) -> Res<HashFn> {
        Ok(match p.id {
            "md2" => hash_of::<md2::Md2>(),
            "md4" => hash_of::<md4::Md4>(),
            "md5" => hash_of::<md5::Md5>(),
            "sha1" => hash_of::<sha1::Sha1>(),
            "sha256" => hash_of::<sha2::Sha256>(),
            "sha512" => hash_of::<sha2::Sha512>(),
            "sha3-256" => hash_of::<sha3::Sha3_256>(),
            "blake2b-512" => hash_of::<blake2::Blake2b512>(),
            "ripemd160" => hash_of::<ripemd::Ripemd160>(),
            "whirlpool" => hash_of::<whirlpool::Whirlpool>(),
            "sm3" => hash_of::<sm3::Sm3>(),
            "shake128" => Box::new(|msg, out| {
                let mut h = sha3::Shake128::default();
                h.update(msg);
                h.finalize_xof_into(out);
                Ok(())
            }),
            _ => return Err(format!("rustcrypto has no crate for {}", p.id)),
        })
    }
    fn mac(&self, p: &Primitive, key: &[u8], iv: &[u8]) -> Res<HashFn> {
        match p.id {
            "hmac-md5" => mac_of::<hmac::Hmac<md5::Md5>>(key),
            "hmac-sha256" => mac_of::<hmac::Hmac<sha2::Sha256>>(key),
            "cmac" => mac_of::<cmac::Cmac<aes::Aes128>>(key),
            "ghash" => {
                // GMAC is GCM with the message as associated data and nothing to encrypt.
                let mut gcm = aead_of::<aes_gcm::Aes128Gcm>(key, true)?;
                let nonce = iv.to_vec();
                Ok(Box::new(move |msg, out| {
                    gcm(&nonce, msg, &mut [], out)?;
                    Ok(())
                }))
            }
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }
    fn cipher(&self, p: &Primitive, key: &[u8], iv: &[u8], encrypt: bool) -> Res<CipherFn> {
        match p.id {
            "des-cbc" => cbc_of::<des::Des>(key, iv, encrypt),
            "des-ede3-cbc" => cbc_of::<des::TdesEde3>(key, iv, encrypt),
            "idea-cbc" => cbc_of::<idea::Idea>(key, iv, encrypt),
            "rc2-cbc" => cbc_of::<rc2::Rc2>(key, iv, encrypt),
            "bf-cbc" => cbc_of::<blowfish::Blowfish>(key, iv, encrypt),
            "cast-cbc" => cbc_of::<cast5::Cast5>(key, iv, encrypt),
            "aes-128-cbc" => cbc_of::<aes::Aes128>(key, iv, encrypt),
            "aes-192-cbc" => cbc_of::<aes::Aes192>(key, iv, encrypt),
            "aes-256-cbc" => cbc_of::<aes::Aes256>(key, iv, encrypt),
            "camellia-128-cbc" => cbc_of::<camellia::Camellia128>(key, iv, encrypt),
            "camellia-192-cbc" => cbc_of::<camellia::Camellia192>(key, iv, encrypt),
            "camellia-256-cbc" => cbc_of::<camellia::Camellia256>(key, iv, encrypt),
            "aes-128-ecb" => ecb_of::<aes::Aes128>(key, encrypt),
            "aes-256-ecb" => ecb_of::<aes::Aes256>(key, encrypt),
            "aes-128-xts" => xts_of::<aes::Aes128>(key, iv, encrypt),
            "aes-256-xts" => xts_of::<aes::Aes256>(key, iv, encrypt),
            "sm4-cbc" => cbc_of::<sm4::Sm4>(key, iv, encrypt),
            "sm4-ecb" => ecb_of::<sm4::Sm4>(key, encrypt),
            "aes-128-ctr" => Ok(stream_of(
                ctr::Ctr128BE::<aes::Aes128>::new_from_slices(key, iv)
                    .map_err(|e| e.to_string())?,
            )),
            "rc4" => Ok(stream_of(
                rc4::Rc4::<rc4::consts::U16>::new_from_slice(key).map_err(|e| e.to_string())?,
            )),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }
    fn aead(&self, p: &Primitive, key: &[u8], encrypt: bool) -> Res<AeadFn> {
        match p.id {
            "aes-128-gcm" => aead_of::<aes_gcm::Aes128Gcm>(key, encrypt),
            "aes-256-gcm" => aead_of::<aes_gcm::Aes256Gcm>(key, encrypt),
            "chacha20-poly1305" => aead_of::<chacha20poly1305::ChaCha20Poly1305>(key, encrypt),
            "aes-128-ccm" => ccm_of::<aes::Aes128>(key, encrypt),
            "aes-256-ccm" => ccm_of::<aes::Aes256>(key, encrypt),
            "aes-128-ocb" => aead_of::<ocb3::Ocb3<aes::Aes128>>(key, encrypt),
            "aes-256-ocb" => aead_of::<ocb3::Ocb3<aes::Aes256>>(key, encrypt),
            "aes-128-gcm-siv" => aead_of::<aes_gcm_siv::Aes128GcmSiv>(key, encrypt),
            "aes-256-gcm-siv" => aead_of::<aes_gcm_siv::Aes256GcmSiv>(key, encrypt),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }
    fn signer(&self, p: &Primitive, key: Option<&[u8]>) -> Res<Box<dyn Signer>> {
        let mut rng = rand_core::OsRng;
        match (p.algorithm, key) {
            (Algorithm::Rsa { .. }, Some(der)) => {
                use rsa::pkcs8::DecodePrivateKey;
                let k = rsa::RsaPrivateKey::from_pkcs8_der(der).map_err(|e| e.to_string())?;
                let key = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(k);
                let verifying = rsa::signature::Keypair::verifying_key(&key);
                Ok(Box::new(RsaSigner { key, verifying }))
            }
            (
                Algorithm::Eddsa {
                    curve: Curve::Ed25519,
                },
                Some(seed),
            ) => {
                let seed: [u8; 32] = seed.try_into().map_err(|_| "Ed25519 seed is 32 bytes")?;
                Ok(Box::new(Ed25519(ed25519_dalek::SigningKey::from_bytes(
                    &seed,
                ))))
            }
            (Algorithm::Ecdsa { curve: Curve::P256 }, None) => Ok(Box::new(EcdsaP256(
                p256::ecdsa::SigningKey::random(&mut rng),
            ))),
            (Algorithm::Ecdsa { curve: Curve::P384 }, None) => Ok(Box::new(EcdsaP384(
                p384::ecdsa::SigningKey::random(&mut rng),
            ))),
            (Algorithm::MlDsa { level: 44 }, seed) => dsa::signer::<ml_dsa::MlDsa44>(seed),
            (Algorithm::MlDsa { level: 65 }, seed) => dsa::signer::<ml_dsa::MlDsa65>(seed),
            (Algorithm::MlDsa { level: 87 }, seed) => dsa::signer::<ml_dsa::MlDsa87>(seed),
            (Algorithm::SlhDsa { .. }, seed) => by_slh_set!(p, signer(seed, SLH_N)),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }
    fn verify_foreign(
        &self,
        p: &Primitive,
        public: &[u8],
        digest: &str,
        msg: &[u8],
        sig: &[u8],
    ) -> Res<bool> {
        match (p.algorithm, digest) {
            (Algorithm::Ecdsa { curve: Curve::P256 }, "SHA256") => {
                verify_sec1_der!(p256, public, msg, sig)
            }
            (Algorithm::Ecdsa { curve: Curve::P384 }, "SHA384") => {
                verify_sec1_der!(p384, public, msg, sig)
            }
            // Pure ML-DSA with an empty context.
            (Algorithm::MlDsa { .. }, "") => dsa_verify_foreign(p, public, msg, sig),
            (Algorithm::SlhDsa { .. }, "") => by_slh_set!(p, verify(public, msg, sig)),
            _ => Err(format!(
                "rustcrypto cannot verify {} signatures over {digest}",
                p.id
            )),
        }
    }
    fn sig_keygen(&self, p: &Primitive) -> Res<KemKeygenFn<'_>> {
        match p.algorithm {
            Algorithm::MlDsa { level: 44 } => dsa::keygen::<ml_dsa::MlDsa44>(),
            Algorithm::MlDsa { level: 65 } => dsa::keygen::<ml_dsa::MlDsa65>(),
            Algorithm::MlDsa { level: 87 } => dsa::keygen::<ml_dsa::MlDsa87>(),
            Algorithm::SlhDsa { .. } => by_slh_set!(p, keygen(SLH_N)),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }

    /// The key objects only: nothing encoded or allocated per call (dsa.rs, slh.rs).
    fn sig_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::MlDsa { level: 44 } => dsa::keygen_timed::<ml_dsa::MlDsa44>(),
            Algorithm::MlDsa { level: 65 } => dsa::keygen_timed::<ml_dsa::MlDsa65>(),
            Algorithm::MlDsa { level: 87 } => dsa::keygen_timed::<ml_dsa::MlDsa87>(),
            Algorithm::SlhDsa { .. } => by_slh_set!(p, keygen_timed(SLH_N)),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }

    fn sign_internal(&self, p: &Primitive, private: &[u8], msg: &[u8]) -> Res<Vec<u8>> {
        match p.algorithm {
            Algorithm::MlDsa { level: 44 } => dsa::sign_internal::<ml_dsa::MlDsa44>(private, msg),
            Algorithm::MlDsa { level: 65 } => dsa::sign_internal::<ml_dsa::MlDsa65>(private, msg),
            Algorithm::MlDsa { level: 87 } => dsa::sign_internal::<ml_dsa::MlDsa87>(private, msg),
            Algorithm::SlhDsa { .. } => by_slh_set!(p, sign_internal(private, msg)),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }

    fn verify_internal(&self, p: &Primitive, public: &[u8], msg: &[u8], sig: &[u8]) -> Res<bool> {
        match p.algorithm {
            Algorithm::MlDsa { level: 44 } => {
                dsa::verify_internal::<ml_dsa::MlDsa44>(public, msg, sig)
            }
            Algorithm::MlDsa { level: 65 } => {
                dsa::verify_internal::<ml_dsa::MlDsa65>(public, msg, sig)
            }
            Algorithm::MlDsa { level: 87 } => {
                dsa::verify_internal::<ml_dsa::MlDsa87>(public, msg, sig)
            }
            Algorithm::SlhDsa { .. } => by_slh_set!(p, verify_internal(public, msg, sig)),
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }

    fn kem_keygen(&self, p: &Primitive, seed: Option<&[u8]>) -> Res<KemKeygenFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().keygen(seed),
            _ => by_kem_set!(p, keygen(seed)),
        }
    }

    fn kem_encaps(&self, p: &Primitive, ek: &[u8], m: Option<&[u8]>) -> Res<EncapsFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().encaps(ek, m),
            _ => by_kem_set!(p, encaps(ek, m)),
        }
    }

    fn kem_decaps(&self, p: &Primitive, dk: &[u8]) -> Res<DecapsFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().decaps(dk),
            _ => by_kem_set!(p, decaps(dk)),
        }
    }

    fn kem_keygen_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().keygen_timed(),
            _ => by_kem_set!(p, keygen_timed()),
        }
    }

    fn kem_keygen_share_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        by_kem_set!(p, keygen_share_timed())
    }

    fn kem_keygen_encode_timed(&self, p: &Primitive) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().keygen_encode_timed(),
            _ => by_kem_set!(p, keygen_encode_timed()),
        }
    }

    fn kem_encaps_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().encaps_timed(ek),
            _ => by_kem_set!(p, encaps_timed(ek)),
        }
    }

    /// Parse and FIPS 203's modulus check, nothing boxed per call (kem.rs).
    fn kem_encaps_parse_timed(&self, p: &Primitive, ek: &[u8]) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().encaps_parse_timed(ek),
            _ => by_kem_set!(p, encaps_parse_timed(ek)),
        }
    }

    fn kem_decaps_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().decaps_timed(dk, c),
            _ => by_kem_set!(p, decaps_timed(dk, c)),
        }
    }

    fn kem_decaps_parse_timed(&self, p: &Primitive, dk: &[u8], c: &[u8]) -> Res<OpFn<'_>> {
        match p.algorithm {
            Algorithm::HybridKem { .. } => self.hybrid().decaps_parse_timed(dk, c),
            _ => by_kem_set!(p, decaps_parse_timed(dk, c)),
        }
    }

    fn derive(&self, p: &Primitive, private: &[u8], peer: &[u8]) -> Res<DeriveFn> {
        match p.algorithm {
            Algorithm::Ecdh { curve: Curve::P256 } => nist_derive!(p256, private, peer),
            Algorithm::Ecdh { curve: Curve::P384 } => nist_derive!(p384, private, peer),
            Algorithm::Ecdh {
                curve: Curve::X25519,
            } => {
                let sk: [u8; 32] = private.try_into().map_err(|_| "X25519 keys are 32 bytes")?;
                let pk: [u8; 32] = peer.try_into().map_err(|_| "X25519 keys are 32 bytes")?;
                let secret = x25519_dalek::StaticSecret::from(sk);
                let public = x25519_dalek::PublicKey::from(pk);
                Ok(Box::new(move || {
                    Ok(secret.diffie_hellman(&public).as_bytes().to_vec())
                }))
            }
            _ => Err(format!("rustcrypto has no crate for {}", p.id)),
        }
    }
}
