//! Post-quantum hash-based signatures: SLH-DSA (FIPS 205) at the three parameter sets issue 20
//! asks for. What each operation times (as ML-DSA: pure, empty context, hedged, a 32-byte
//! message; and the from-bytes operations) is the `slh-dsa` entries of definitions.rs; the
//! columns that differ say so in their own declarations (crates/impls). Vectors: NIST ACVP
//! (`slh_vectors.rs`, made by scripts/pq-vectors).

use crate::slh_vectors::*;
use crate::{Algorithm, Kat, Primitive, SpeedRow};

macro_rules! slh_dsa {
    ($id:expr, $aliases:expr, $name:expr,
     $seed:ident, $pk:ident, $sk:ident, $msg:ident, $sig:ident,
     $vpk:ident, $vmsg:ident, $vsig:ident, $rpk:ident, $rmsg:ident, $rsig:ident,
     $kg:literal, $sg:literal, $sv:literal) => {
        Primitive {
            id: $id,
            aliases: $aliases,
            algorithm: Algorithm::SlhDsa { name: $name },
            speed: SpeedRow::Signature { name: $name },
            kats: &[
                Kat::SigKeygen {
                    seed: $seed,
                    public: $pk,
                    source: concat!("NIST ACVP SLH-DSA-keyGen-FIPS205 tcId ", $kg),
                },
                Kat::SigInternal {
                    private: $sk,
                    msg: $msg,
                    sig: $sig,
                    source: concat!(
                        "NIST ACVP SLH-DSA-sigGen-FIPS205 (deterministic, internal) tcId ",
                        $sg
                    ),
                },
                Kat::SigVerifyInternal {
                    public: $vpk,
                    msg: $vmsg,
                    sig: $vsig,
                    bad_public: $rpk,
                    bad_msg: $rmsg,
                    bad_sig: $rsig,
                    source: concat!("NIST ACVP SLH-DSA-sigVer-FIPS205 (internal) tcIds ", $sv),
                },
            ],
            groups: &["signature", "pq", "slh-dsa", "pkey"],
        }
    };
}

pub(crate) const PRIMITIVES: &[Primitive] = &[
    slh_dsa!(
        "slh-dsa-sha2-128s",
        &["SLH-DSA-SHA2-128s", "slhdsasha2128s"],
        "SLH-DSA-SHA2-128s",
        SHA2_128S_KEYGEN_SEED,
        SHA2_128S_KEYGEN_PK,
        SHA2_128S_SIGN_SK,
        SHA2_128S_SIGN_MSG,
        SHA2_128S_SIGN_SIG,
        SHA2_128S_VERIFY_PK,
        SHA2_128S_VERIFY_MSG,
        SHA2_128S_VERIFY_SIG,
        SHA2_128S_REJECT_PK,
        SHA2_128S_REJECT_MSG,
        SHA2_128S_REJECT_SIG,
        "1",
        "274",
        "432 (valid), 428 (rejected)"
    ),
    slh_dsa!(
        "slh-dsa-sha2-128f",
        &["SLH-DSA-SHA2-128f", "slhdsasha2128f"],
        "SLH-DSA-SHA2-128f",
        SHA2_128F_KEYGEN_SEED,
        SHA2_128F_KEYGEN_PK,
        SHA2_128F_SIGN_SK,
        SHA2_128F_SIGN_MSG,
        SHA2_128F_SIGN_SIG,
        SHA2_128F_VERIFY_PK,
        SHA2_128F_VERIFY_MSG,
        SHA2_128F_VERIFY_SIG,
        SHA2_128F_REJECT_PK,
        SHA2_128F_REJECT_MSG,
        SHA2_128F_REJECT_SIG,
        "21",
        "121",
        "177 (valid), 170 (rejected)"
    ),
    slh_dsa!(
        "slh-dsa-shake-128f",
        &["SLH-DSA-SHAKE-128f", "slhdsashake128f"],
        "SLH-DSA-SHAKE-128f",
        SHAKE_128F_KEYGEN_SEED,
        SHAKE_128F_KEYGEN_PK,
        SHAKE_128F_SIGN_SK,
        SHAKE_128F_SIGN_MSG,
        SHAKE_128F_SIGN_SIG,
        SHAKE_128F_VERIFY_PK,
        SHAKE_128F_VERIFY_MSG,
        SHAKE_128F_VERIFY_SIG,
        SHAKE_128F_REJECT_PK,
        SHAKE_128F_REJECT_MSG,
        SHAKE_128F_REJECT_SIG,
        "31",
        "136",
        "211 (valid), 212 (rejected)"
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unhex;

    /// FIPS 205 table 2: n = 16 for all three (public key 2n, private key 4n), and signature
    /// sizes 7856 (128s) and 17088 (128f).
    #[test]
    fn vectors_have_fips_205_sizes() {
        for (p, sig_len) in [
            (&PRIMITIVES[0], 7856),
            (&PRIMITIVES[1], 17088),
            (&PRIMITIVES[2], 17088),
        ] {
            for kat in p.kats {
                match *kat {
                    Kat::SigKeygen { seed, public, .. } => {
                        assert_eq!((unhex(seed).len(), unhex(public).len()), (48, 32));
                    }
                    Kat::SigInternal {
                        private, sig: s, ..
                    } => {
                        assert_eq!((unhex(private).len(), unhex(s).len()), (64, sig_len));
                    }
                    Kat::SigVerifyInternal {
                        public,
                        sig: s,
                        bad_public,
                        ..
                    } => {
                        assert_eq!((unhex(public).len(), unhex(s).len()), (32, sig_len));
                        assert_eq!(unhex(bad_public).len(), 32);
                    }
                    _ => panic!("unexpected vector for {}", p.id),
                }
            }
        }
    }
}
