//! Post-quantum signatures: ML-DSA (FIPS 204) at its three parameter sets. What each operation
//! times (`keygen`, `sign`, `verify` as `openssl speed` 3.5 times them: pure ML-DSA of a 32-byte
//! message, empty context, hedged; and the from-bytes `keygen+encode`, `verify+parse`) is the
//! `ml-dsa` entries of definitions.rs; the columns that differ say so in their own declarations
//! (crates/impls). Vectors: NIST ACVP (`dsa_vectors.rs`, made by scripts/pq-vectors).

use crate::dsa_vectors::*;
use crate::{Algorithm, Kat, Primitive, SpeedRow};

macro_rules! ml_dsa {
    ($id:expr, $aliases:expr, $level:expr, $name:expr,
     $seed:ident, $pk:ident, $sk:ident, $msg:ident, $sig:ident,
     $vpk:ident, $vmsg:ident, $vsig:ident, $rmsg:ident, $rsig:ident,
     $kg:literal, $sg:literal, $sv:literal) => {
        Primitive {
            id: $id,
            aliases: $aliases,
            algorithm: Algorithm::MlDsa { level: $level },
            speed: SpeedRow::Signature { name: $name },
            kats: &[
                Kat::SigKeygen {
                    seed: $seed,
                    public: $pk,
                    source: concat!("NIST ACVP ML-DSA-keyGen-FIPS204 tcId ", $kg),
                },
                Kat::SigInternal {
                    private: $sk,
                    msg: $msg,
                    sig: $sig,
                    source: concat!("NIST ACVP ML-DSA-sigGen-FIPS204 (deterministic) tcId ", $sg),
                },
                Kat::SigVerifyInternal {
                    public: $vpk,
                    msg: $vmsg,
                    sig: $vsig,
                    bad_public: $vpk,
                    bad_msg: $rmsg,
                    bad_sig: $rsig,
                    source: concat!("NIST ACVP ML-DSA-sigVer-FIPS204 tcIds ", $sv),
                },
            ],
            groups: &["signature", "pq", "ml-dsa", "pkey"],
        }
    };
}

pub(crate) const PRIMITIVES: &[Primitive] = &[
    ml_dsa!(
        "ml-dsa-44",
        &["mldsa44", "ML-DSA-44", "MLDSA44"],
        44,
        "ML-DSA-44",
        D44_KEYGEN_SEED,
        D44_KEYGEN_PK,
        D44_SIGN_SK,
        D44_SIGN_MSG,
        D44_SIGN_SIG,
        D44_VERIFY_PK,
        D44_VERIFY_MSG,
        D44_VERIFY_SIG,
        D44_REJECT_MSG,
        D44_REJECT_SIG,
        "1",
        "4",
        "1 (valid), 2 (rejected)"
    ),
    ml_dsa!(
        "ml-dsa-65",
        &["mldsa65", "ML-DSA-65", "MLDSA65"],
        65,
        "ML-DSA-65",
        D65_KEYGEN_SEED,
        D65_KEYGEN_PK,
        D65_SIGN_SK,
        D65_SIGN_MSG,
        D65_SIGN_SIG,
        D65_VERIFY_PK,
        D65_VERIFY_MSG,
        D65_VERIFY_SIG,
        D65_REJECT_MSG,
        D65_REJECT_SIG,
        "26",
        "30",
        "20 (valid), 16 (rejected)"
    ),
    ml_dsa!(
        "ml-dsa-87",
        &["mldsa87", "ML-DSA-87", "MLDSA87"],
        87,
        "ML-DSA-87",
        D87_KEYGEN_SEED,
        D87_KEYGEN_PK,
        D87_SIGN_SK,
        D87_SIGN_MSG,
        D87_SIGN_SIG,
        D87_VERIFY_PK,
        D87_VERIFY_MSG,
        D87_VERIFY_SIG,
        D87_REJECT_MSG,
        D87_REJECT_SIG,
        "51",
        "50",
        "31 (valid), 33 (rejected)"
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unhex;

    /// FIPS 204 table 2: public key, private key and signature sizes.
    #[test]
    fn vectors_have_fips_204_sizes() {
        for (p, pk, sk, sig) in [
            (&PRIMITIVES[0], 1312, 2560, 2420),
            (&PRIMITIVES[1], 1952, 4032, 3309),
            (&PRIMITIVES[2], 2592, 4896, 4627),
        ] {
            for kat in p.kats {
                match *kat {
                    Kat::SigKeygen { seed, public, .. } => {
                        assert_eq!((unhex(seed).len(), unhex(public).len()), (32, pk));
                    }
                    Kat::SigInternal {
                        private, sig: s, ..
                    } => {
                        assert_eq!((unhex(private).len(), unhex(s).len()), (sk, sig));
                    }
                    Kat::SigVerifyInternal { public, sig: s, .. } => {
                        assert_eq!((unhex(public).len(), unhex(s).len()), (pk, sig));
                    }
                    _ => panic!("unexpected vector for {}", p.id),
                }
            }
        }
    }
}
