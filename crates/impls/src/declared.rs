//! Each implementation's declared deviations from the catalog's definitions (catalog
//! definition.rs), as its registry entry carries them, and the wrapper that makes a worker honour
//! them: an operation declared not offered is reported unavailable before any call is made.
//! The declarations themselves live beside each implementation's code (`DECLARED` in its module).

use cryptospeed_catalog::agreement::AgreementCase;
use cryptospeed_catalog::definition::{conformance, refusal};
pub use cryptospeed_catalog::definition::{Conformance, Declared, State};
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::{AgreementOutput, Implementation, Timed};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Op, Variant};

/// The declarations of a column that follows every definition.
pub const NONE: &[Declared] = &[];

/// The from-bytes operations (catalog definitions.rs), for columns that declare them not offered.
pub const FROM_BYTES: &[Op] = &[
    Op::KeygenEncode,
    Op::EncapsParse,
    Op::DecapsParse,
    Op::VerifyParse,
];

/// Classic signatures through an API that signs messages: what ring, aws-lc-rs, RustCrypto,
/// wolfSSL and Mbed TLS do with the 36- and 20-byte inputs, said per family (RSA also wraps the
/// digest in DigestInfo; ECDSA does not).
pub const HASH_THEN_SIGN: [Declared; 2] = [
    Declared {
        kinds: &["rsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Conformance::Deviates(
            "the API signs messages: the input is hashed (SHA-256/384/512) first and the digest wrapped in DigestInfo",
        ),
    },
    Declared {
        kinds: &["ecdsa"],
        ops: &[Op::Sign, Op::Verify],
        note: Conformance::Deviates(
            "the API signs messages: the input is hashed (SHA-256/384/512) first and the digest signed",
        ),
    },
];

/// A hosted implementation whose declared not-offered operations are refused up front.
pub(crate) struct Declaring {
    pub(crate) inner: Box<dyn Implementation>,
    pub(crate) declared: &'static [Declared],
}

impl Implementation for Declaring {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn describe(&self) -> Variant {
        self.inner.describe()
    }
    fn availability(&mut self, p: &Primitive) -> Result<(), String> {
        self.inner.availability(p)
    }
    fn offers(&self, p: &Primitive, op: Op) -> Result<(), String> {
        match refusal(self.name(), self.declared, p, op) {
            Some(why) => Err(why),
            None => self.inner.offers(p, op),
        }
    }
    fn known_answer_test(&mut self, p: &Primitive) -> Result<(), String> {
        self.inner.known_answer_test(p)
    }
    fn checked_flights(&self, p: &Primitive) -> Vec<u64> {
        self.inner.checked_flights(p)
    }
    fn prepare(&mut self, p: &Primitive, cell: &CellSpec) -> Result<Box<dyn Timed + '_>, String> {
        self.offers(p, cell.op)?;
        self.inner.prepare(p, cell)
    }
    fn agree(&mut self, p: &Primitive, case: &AgreementCase) -> Result<AgreementOutput, String> {
        self.inner.agree(p, case)
    }
    fn check_signature(
        &mut self,
        p: &Primitive,
        public: &[u8],
        msg: &[u8],
        signature: &[u8],
    ) -> Result<bool, String> {
        self.inner.check_signature(p, public, msg, signature)
    }
    fn measure_whole(
        &mut self,
        p: &Primitive,
        cell: &CellSpec,
        config: &MeasureConfig,
    ) -> Option<Measurement> {
        self.inner.measure_whole(p, cell, config)
    }
}

/// The conformance of implementation `name` for operation `op` of `p`; `None` for a name the
/// registry does not know.
pub fn of(name: &str, p: &Primitive, op: Op) -> Option<Conformance> {
    let r = crate::registered(name)?;
    Some(conformance(r.declared, p, op))
}

/// The registry name whose declarations hold for variant `v`: its implementation's, except that a
/// column of the OpenSSL family (`openssl:PATH`, `aws-lc:PATH`, `boringssl:PATH`) whose loaded
/// libcrypto says it is AWS-LC or BoringSSL (OpenSSL_version's "(compatible; AWS-LC …)", the
/// variant's first build line) runs that library's code (the family's PQ backends), so takes
/// that library's declarations.
pub fn declaring_name(v: &Variant) -> &str {
    let family = ["openssl", "aws-lc", "boringssl"];
    if !family.contains(&v.implementation.as_str()) {
        return &v.implementation;
    }
    let says = v.build_info.first().map_or("", String::as_str);
    if says.contains("AWS-LC") {
        "aws-lc"
    } else if says.contains("BoringSSL") {
        "boringssl"
    } else {
        &v.implementation
    }
}

/// The conformance of variant `v` (by the library it loaded, [`declaring_name`]) for `op` of `p`.
pub fn of_variant(v: &Variant, p: &Primitive, op: Op) -> Option<Conformance> {
    of(declaring_name(v), p, op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::REGISTRY;
    use cryptospeed_catalog::definition::kind;
    use std::collections::HashMap;

    const PQ: &[&str] = &["ml-kem", "hybrid-kem", "ml-dsa", "slh-dsa"];

    /// Every post-quantum deviation is named by states, none of them the definition's norm, and
    /// no two columns declare opposite states of one thing for one (kind, operation): the
    /// version-2 definition holds one side, so the other is the only one a column may declare.
    #[test]
    fn no_two_columns_declare_opposite_states_and_none_declares_the_norm() {
        let mut seen: HashMap<(&str, Op, State), &str> = HashMap::new();
        for r in REGISTRY {
            for p in cryptospeed_catalog::all()
                .iter()
                .filter(|p| PQ.contains(&kind(p)))
            {
                for &op in p.ops() {
                    let c = conformance(r.declared, p, op);
                    if let Conformance::Deviates(why) = c {
                        panic!(
                            "{} {} {op}: a post-quantum deviation without states: {why}",
                            r.name, p.id
                        );
                    }
                    let norms = cryptospeed_catalog::definition::norms(kind(p), op);
                    for &s in c.states() {
                        assert!(
                            !norms.contains(&s),
                            "{} {} {op} declares the norm {s:?}",
                            r.name,
                            p.id
                        );
                        seen.insert((kind(p), op, s), r.name);
                    }
                }
            }
        }
        for (&(k, op, s), name) in &seen {
            if let Some(o) = s.opposite() {
                if let Some(other) = seen.get(&(k, op, o)) {
                    panic!("{k} {op}: {name} declares {s:?}, {other} declares {o:?}");
                }
            }
        }
        assert!(seen.contains_key(&("ml-kem", Op::Encaps, State::ExpandedPerCall)));
        assert!(seen.contains_key(&("ml-dsa", Op::Sign, State::PrecomputedInKey)));
    }

    /// X25519MLKEM768's declarations include its ML-KEM-768 half's in every column that times
    /// the operation: each state the half declares, less those the hybrid's definition makes its
    /// norm (the share is the encoded encapsulation key).
    #[test]
    fn the_hybrid_carries_its_ml_kem_half() {
        let hybrid = cryptospeed_catalog::lookup("x25519-mlkem768").unwrap();
        let half = cryptospeed_catalog::lookup("ml-kem-768").unwrap();
        for r in REGISTRY {
            for &op in hybrid.ops() {
                let h = conformance(r.declared, hybrid, op);
                if matches!(h, Conformance::NotOffered(_)) {
                    continue;
                }
                let norms = cryptospeed_catalog::definition::norms("hybrid-kem", op);
                for s in conformance(r.declared, half, op).states() {
                    assert!(
                        norms.contains(s) || h.states().contains(s),
                        "{} x25519-mlkem768 {op}: {h:?} lacks ML-KEM-768's {s:?}",
                        r.name
                    );
                }
            }
        }
        let aws = of("aws-lc", hybrid, Op::Encaps).unwrap();
        assert!(aws.states().contains(&State::ParsedPerCall), "{aws:?}");
    }

    /// A libcrypto of the OpenSSL family is declared by what it says it is, not by the column
    /// name it was loaded under.
    #[test]
    fn an_openssl_path_that_is_aws_lc_or_boringssl_gets_its_declarations() {
        let kem = cryptospeed_catalog::lookup("ml-kem-768").unwrap();
        let v = |implementation: &str, line: &str| Variant {
            implementation: implementation.into(),
            build_info: vec![line.into()],
            ..Default::default()
        };
        let aws = v("openssl", "OpenSSL 1.1.1 (compatible; AWS-LC 1.66.2)");
        assert_eq!(declaring_name(&aws), "aws-lc");
        assert_eq!(
            of_variant(&aws, kem, Op::Decaps),
            of("aws-lc", kem, Op::Decaps)
        );
        assert!(matches!(
            of_variant(&aws, kem, Op::Decaps),
            Some(Conformance::Departs(..))
        ));
        let boring = v("openssl", "OpenSSL 1.1.1 (compatible; BoringSSL)");
        assert_eq!(declaring_name(&boring), "boringssl");
        let system = v("openssl", "OpenSSL 3.5.0 8 Apr 2025");
        assert_eq!(declaring_name(&system), "openssl");
        assert_eq!(declaring_name(&v("go", "AWS-LC")), "go");
    }

    /// Every declaration names a kind or primitive and an operation that exist together, and
    /// says why in one line: a stale declaration fails here.
    #[test]
    fn every_declaration_reaches_a_defined_operation() {
        for r in REGISTRY {
            for d in r.declared {
                let hit = cryptospeed_catalog::all().iter().any(|p| {
                    p.ops()
                        .iter()
                        .any(|&op| d.covers(p, op) && p.definition(op).is_some())
                });
                assert!(hit, "{}: {:?} reaches nothing", r.name, d);
                let why = match d.note {
                    Conformance::Deviates(w)
                    | Conformance::Departs(_, w)
                    | Conformance::NotOffered(w) => w,
                    Conformance::Conforms => panic!("{}: a declaration of conformance", r.name),
                };
                assert!(
                    !why.is_empty() && !why.contains('\n') && why.len() < 200,
                    "{}: {why}",
                    r.name
                );
                for k in d.kinds {
                    let one = Declared {
                        kinds: std::slice::from_ref(k),
                        ops: &[],
                        note: d.note,
                    };
                    let known = cryptospeed_catalog::all()
                        .iter()
                        .any(|p| one.covers(p, p.ops()[0]));
                    assert!(known, "{}: {k} names no primitive", r.name);
                }
            }
        }
    }

    /// Every (implementation, primitive, operation) has a definition and a conformance.
    #[test]
    fn every_cell_of_every_column_is_defined_and_declared() {
        let mut deviations = 0;
        for r in REGISTRY {
            for p in cryptospeed_catalog::all() {
                for &op in p.ops() {
                    assert!(p.definition(op).is_some(), "{} {op}", p.id);
                    if let Some(Conformance::Deviates(_) | Conformance::Departs(..)) =
                        of(r.name, p, op)
                    {
                        deviations += 1;
                    }
                }
            }
        }
        assert!(deviations > 0, "no column declares a deviation");
        let ml_kem = cryptospeed_catalog::lookup("ml-kem-768").unwrap();
        assert!(matches!(
            of("aws-lc", ml_kem, Op::Decaps),
            Some(Conformance::Departs(..))
        ));
        assert!(of("no-such-column", ml_kem, Op::Decaps).is_none());
    }

    /// The hashing deviations name DigestInfo on RSA rows only (ECDSA signs the bare digest).
    #[test]
    fn digest_info_is_said_of_rsa_rows_only() {
        let (rsa, ecdsa) = ("rsa-2048", "ecdsa-p256");
        let text = |name, id| match of(name, cryptospeed_catalog::lookup(id).unwrap(), Op::Verify) {
            Some(Conformance::Deviates(t)) => t,
            other => panic!("{name} {id}: {other:?}"),
        };
        for name in [
            "ring",
            "aws-lc-rs",
            "rustcrypto",
            "wolfssl",
            "mbedtls",
            "nettle",
        ] {
            assert!(text(name, rsa).contains("DigestInfo"), "{name}");
            assert!(!text(name, ecdsa).contains("DigestInfo"), "{name}");
        }
    }
}
