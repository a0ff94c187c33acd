//! The EVP layer the OpenSSL family shares (OpenSSL, AWS-LC, BoringSSL): a libcrypto loaded at
//! run time, driven through EVP exactly as `openssl speed` drives it, with OpenSSL 3's legacy
//! provider loaded beside the default one where there are providers, so the old algorithms
//! (MD4, Whirlpool, DES, Blowfish, CAST, SEED, RC2, RC4) are reachable. The symmetric and
//! public-key loops, OpenSSL 3.5's post-quantum EVP calls and the post-quantum suite live here;
//! a library's own calls (crate::aws_lc, crate::boringssl) plug in as a [`PqBackend`].

mod ae_modes;
mod agree;
mod built;
mod dsa;
mod fetch;
pub(crate) mod ffi;
mod kem;
mod pkey;
pub(crate) mod pq;
pub(crate) mod pq_calls;
pub(crate) mod pq_suite;
mod symmetric;
pub(crate) mod x25519;

pub(crate) use built::create_built;
pub(crate) use pq_calls::PqBackend;

use crate::suite;
use cryptospeed_catalog::{Algorithm, Family, Primitive};
use cryptospeed_engine::{Implementation, Timed};
use cryptospeed_model::{CellSpec, Variant};
use ffi::Api;
use std::collections::HashMap;
use std::ffi::CString;

/// Algorithms that OpenSSL 3 keeps in its legacy provider.
const LEGACY: &[&str] = &[
    "MD4",
    "MDC2",
    "WHIRLPOOL",
    "RIPEMD160",
    "DES-CBC",
    "BF-CBC",
    "CAST5-CBC",
    "SEED-CBC",
    "RC2-CBC",
    "RC4",
    "RC5-CBC",
    "IDEA-CBC",
];

pub struct Evp {
    /// The implementation's name: `openssl`, or a library of the BoringSSL family driven by
    /// the same calls (`aws-lc`, `boringssl`).
    name: &'static str,
    /// Facts about the build beyond what the library reports (where and how it was built).
    extra_build_info: Vec<String>,
    /// The version to label the variant with when the library states none (BoringSSL).
    version_hint: Option<String>,
    api: Api,
    /// Outcome of loading each provider, for the variant description and unavailability reasons.
    providers: Vec<(String, Result<(), String>)>,
    /// The post-quantum primitives (`Family::Kem`, `Family::SeededSignature`) as a suite.
    pq: pq_suite::PqSuite,
    availability: HashMap<&'static str, Result<(), String>>,
    /// The bytes per flight each handshake cell's check counted (the libssl beside this
    /// libcrypto), carried with that cell's measurements.
    flights: crate::tls::CheckedFlights,
}

/// The implementation `name` over the libcrypto at `path` (OpenSSL 1.1.1 … 4.0, AWS-LC,
/// BoringSSL: where OpenSSL 3's calls are missing, the 1.1.1-style ones all of them have).
pub(crate) fn create_as(
    name: &'static str,
    path: &str,
    extra_build_info: Vec<String>,
    version_hint: Option<String>,
    backends: &'static [&'static dyn PqBackend],
) -> Result<Box<dyn Implementation>, String> {
    let api = Api::load(path)?;
    let mut providers = Vec::new();
    if let Some(load) = api.OSSL_PROVIDER_load {
        for name in ["default", "legacy"] {
            let c = CString::new(name).unwrap();
            // SAFETY: NULL selects the default library context.
            let p = unsafe { load(std::ptr::null_mut(), c.as_ptr()) };
            let outcome = if p.is_null() {
                Err(api.errors())
            } else {
                Ok(())
            };
            providers.push((name.to_string(), outcome));
        }
    }
    Ok(Box::new(Evp {
        name,
        extra_build_info,
        version_hint,
        pq: pq_suite::PqSuite::load(name, path, backends)?,
        api,
        providers,
        availability: HashMap::new(),
        flights: Default::default(),
    }))
}

/// Whether the primitive is one the post-quantum suite (pq_suite.rs) drives.
fn is_pq(p: &Primitive) -> bool {
    matches!(p.family(), Family::Kem | Family::SeededSignature)
}

fn primary_name(algorithm: &Algorithm) -> Option<&'static str> {
    match *algorithm {
        Algorithm::Digest { name }
        | Algorithm::Xof { name, .. }
        | Algorithm::Cipher { name, .. }
        | Algorithm::Aead { name, .. } => Some(name),
        Algorithm::Hmac { digest } => Some(digest),
        Algorithm::Cmac { cipher } | Algorithm::Gmac { cipher } => Some(cipher),
        _ => None,
    }
}

impl Evp {
    fn legacy_failure(&self) -> Option<&str> {
        self.providers
            .iter()
            .find(|(n, _)| n == "legacy")
            .and_then(|(_, r)| r.as_ref().err().map(String::as_str))
    }

    fn check(&mut self, primitive: &Primitive) -> Result<(), String> {
        let api = &self.api;
        let probe = match primitive.algorithm {
            // TLS handshakes: the libssl that goes with this libcrypto (crate::tls::libssl).
            Algorithm::Tls13Handshake { .. } => {
                crate::tls::libssl::availability(&api.path, primitive)
            }
            _ if primitive.has_bytes() => symmetric::probe(api, &primitive.algorithm),
            _ if is_pq(primitive) => suite::probe(&self.pq, primitive),
            // A library may read a key it cannot sign with (BoringSSL parses DSA keys but has
            // no DSA in EVP_PKEY): the signing context is part of the probe.
            Algorithm::Rsa { .. } | Algorithm::Dsa { .. } | Algorithm::Ecdsa { .. } => {
                pkey::timing_key(api, &primitive.algorithm)
                    .and_then(|k| pkey::init_ctx(api, &k, cryptospeed_model::Op::Sign).map(|_| ()))
            }
            _ => pkey::timing_key(api, &primitive.algorithm).map(|_| ()),
        };
        // SAFETY: clears errors a failed probe leaves behind.
        unsafe { (api.ERR_clear_error)() };
        probe.map_err(|detail| {
            let name = primary_name(&primitive.algorithm).unwrap_or(primitive.id);
            // Only OpenSSL 3 has providers; AWS-LC, BoringSSL and 1.1.1 simply lack the algorithm.
            if LEGACY.contains(&name) && !self.providers.is_empty() {
                if let Some(why) = self.legacy_failure() {
                    return format!("needs OpenSSL's legacy provider, which did not load ({why})");
                }
                return format!("not in this libcrypto build, even with the legacy provider loaded (Debian builds OpenSSL with no-md2, no-mdc2, no-idea, no-rc5): {detail}");
            }
            format!("not available in this libcrypto: {detail}")
        })
    }
}

impl Implementation for Evp {
    fn name(&self) -> &'static str {
        self.name
    }

    fn describe(&self) -> Variant {
        let a = &self.api;
        let version = a.version_text(ffi::OPENSSL_VERSION);
        let short = match version.split_whitespace().nth(1) {
            Some(v) if v.starts_with(|c: char| c.is_ascii_digit()) => v.to_string(),
            _ => self
                .version_hint
                .clone()
                .unwrap_or_else(|| "unknown".to_string()),
        };
        let cpuinfo = a.version_text(ffi::OPENSSL_CPU_INFO);
        let mut build_info = vec![
            version.clone(),
            a.version_text(ffi::OPENSSL_BUILT_ON),
            a.version_text(ffi::OPENSSL_PLATFORM),
            a.version_text(ffi::OPENSSL_CFLAGS),
        ];
        build_info.extend(self.extra_build_info.iter().cloned());
        for (name, outcome) in &self.providers {
            build_info.push(match outcome {
                Ok(()) => format!("provider {name}: loaded"),
                Err(e) => format!("provider {name}: failed ({e})"),
            });
        }
        Variant {
            label: format!("{}-{short}", self.name),
            implementation: self.name.into(),
            version: short,
            library: a.path.clone(),
            build_info,
            capabilities: cpuinfo
                .strip_prefix("CPUINFO: ")
                .unwrap_or(&cpuinfo)
                .to_string(),
            feature_mask: std::env::var("OPENSSL_ia32cap")
                .map(|v| format!("OPENSSL_ia32cap={v}"))
                .unwrap_or_default(),
        }
    }

    fn availability(&mut self, primitive: &Primitive) -> Result<(), String> {
        if let Some(r) = self.availability.get(primitive.id) {
            return r.clone();
        }
        let r = self.check(primitive);
        self.availability.insert(primitive.id, r.clone());
        r
    }

    fn known_answer_test(&mut self, primitive: &Primitive) -> Result<(), String> {
        self.availability(primitive)?;
        if primitive.family() == Family::Handshake {
            let checked = crate::tls::libssl::checked_flights(&self.api.path, primitive);
            return self.flights.keep(primitive, checked);
        }
        for kat in primitive.kats {
            let r = match primitive.family() {
                _ if is_pq(primitive) => suite::known_answer(&self.pq, primitive, kat),
                f if f.has_bytes() => symmetric::known_answer(&self.api, &primitive.algorithm, kat),
                _ => pkey::known_answer(&self.api, &primitive.algorithm, kat),
            };
            r.map_err(|e| format!("{} ({})", e, kat.source()))?;
        }
        Ok(())
    }

    fn checked_flights(&self, primitive: &Primitive) -> Vec<u64> {
        self.flights.of(primitive)
    }

    fn agree(
        &mut self,
        primitive: &Primitive,
        case: &cryptospeed_catalog::agreement::AgreementCase,
    ) -> Result<cryptospeed_engine::AgreementOutput, String> {
        self.availability(primitive)?;
        match is_pq(primitive) {
            true => suite::agree(&self.pq, primitive, case),
            false => agree::agree(&self.api, primitive, case),
        }
    }

    fn check_signature(
        &mut self,
        primitive: &Primitive,
        public: &[u8],
        msg: &[u8],
        signature: &[u8],
    ) -> Result<bool, String> {
        self.availability(primitive)?;
        match is_pq(primitive) {
            true => suite::check_signature(&self.pq, primitive, public, msg, signature),
            false => agree::check_signature(&self.api, primitive, public, msg, signature),
        }
    }

    fn prepare(
        &mut self,
        primitive: &Primitive,
        cell: &CellSpec,
    ) -> Result<Box<dyn Timed + '_>, String> {
        if is_pq(primitive) {
            return suite::prepare(&self.pq, primitive, cell);
        }
        if primitive.family() == Family::Handshake {
            return crate::tls::libssl::prepare(&self.api.path, primitive, cell);
        }
        if primitive.has_bytes() {
            let bytes = cell.bytes.ok_or("symmetric cells need a message size")? as usize;
            symmetric::prepare(
                &self.api,
                &primitive.algorithm,
                cell.op,
                bytes,
                cell.misalign as usize,
            )
        } else {
            pkey::prepare(&self.api, &primitive.algorithm, cell.op)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ImplOptions;

    fn openssl() -> Box<dyn Implementation> {
        crate::openssl::create(&ImplOptions::default())
            .expect("system libcrypto.so.3 (Debian libssl3) loads")
    }

    #[test]
    fn every_available_primitive_passes_its_published_vectors() {
        let mut o = openssl();
        let mut failures = Vec::new();
        let mut passed = 0;
        for p in cryptospeed_catalog::all() {
            if o.availability(p).is_err() {
                continue;
            }
            match o.known_answer_test(p) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(format!("{}: {e}", p.id)),
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
        assert!(passed >= 40, "only {passed} primitives available");
    }

    #[test]
    fn debian_leaves_out_md2_mdc2_idea_rc5_with_a_reason() {
        let mut o = openssl();
        for id in ["md2", "mdc2", "idea-cbc", "rc5-cbc"] {
            let p = cryptospeed_catalog::lookup(id).unwrap();
            let why = o.availability(p).unwrap_err();
            assert!(
                why.contains("legacy provider") || why.contains("not available"),
                "{id}: {why}"
            );
        }
        for id in [
            "md4",
            "whirlpool",
            "des-cbc",
            "bf-cbc",
            "cast-cbc",
            "seed-cbc",
            "rc2-cbc",
            "rc4",
            "ripemd160",
        ] {
            let p = cryptospeed_catalog::lookup(id).unwrap();
            assert!(
                o.availability(p).is_ok(),
                "{id} should be reachable through the legacy provider"
            );
        }
    }

    #[test]
    fn a_wrong_vector_is_caught() {
        let mut o = openssl();
        let bad = Primitive {
            kats: &[cryptospeed_catalog::Kat::Digest {
                msg: "616263",
                out: "00000000000000000000000000000000",
                source: "deliberately wrong",
            }],
            ..*cryptospeed_catalog::lookup("md5").unwrap()
        };
        let err = o.known_answer_test(&bad).unwrap_err();
        assert!(err.contains("900150983cd24fb0d6963f7d28e17f72"), "{err}");
    }

    #[test]
    fn describe_names_the_library() {
        let v = openssl().describe();
        assert!(v.version.starts_with('3'), "{v:?}");
        assert!(v.capabilities.contains("OPENSSL_ia32cap"), "{v:?}");
    }
}
