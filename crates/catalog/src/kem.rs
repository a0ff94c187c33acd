//! Key encapsulation: ML-KEM (FIPS 203) at its three parameter sets. What each operation times
//! (`keygen`, `encaps`, `decaps` as `openssl speed` 3.5 times them, and the from-bytes
//! `keygen+encode`, `encaps+parse`, `decaps+parse`) is the `ml-kem` entries of definitions.rs;
//! the columns that differ say so in their own declarations (crates/impls). Vectors: NIST ACVP
//! (`kem_vectors.rs`, made by scripts/pq-vectors).

use crate::kem_vectors::*;
use crate::{Algorithm, Kat, Primitive, SpeedRow};

macro_rules! ml_kem {
    ($id:expr, $aliases:expr, $level:expr, $name:expr, $d:ident, $z:ident, $kek:ident, $eek:ident,
     $m:ident, $ec:ident, $ek_:ident, $dk:ident, $dc:ident, $dkk:ident,
     $kg:literal, $en:literal, $de:literal) => {
        Primitive {
            id: $id,
            aliases: $aliases,
            algorithm: Algorithm::MlKem { level: $level },
            speed: SpeedRow::Kem { name: $name },
            kats: &[
                Kat::KemKeygen {
                    d: $d,
                    z: $z,
                    ek: $kek,
                    source: concat!("NIST ACVP ML-KEM-keyGen-FIPS203 tcId ", $kg),
                },
                Kat::KemEncaps {
                    ek: $eek,
                    m: $m,
                    c: $ec,
                    k: $ek_,
                    source: concat!("NIST ACVP ML-KEM-encapDecap-FIPS203 encapsulation tcId ", $en),
                },
                Kat::KemDecaps {
                    dk: $dk,
                    c: $dc,
                    k: $dkk,
                    source: concat!(
                        "NIST ACVP ML-KEM-encapDecap-FIPS203 decapsulation (modified ciphertext) tcId ",
                        $de
                    ),
                },
            ],
            groups: &["kem", "pq", "ml-kem", "pkey"],
        }
    };
}

pub(crate) const PRIMITIVES: &[Primitive] = &[
    ml_kem!(
        "ml-kem-512",
        &["mlkem512", "ML-KEM-512", "MLKEM512"],
        512,
        "ML-KEM-512",
        K512_KEYGEN_D,
        K512_KEYGEN_Z,
        K512_KEYGEN_EK,
        K512_ENCAPS_EK,
        K512_ENCAPS_M,
        K512_ENCAPS_C,
        K512_ENCAPS_K,
        K512_DECAPS_DK,
        K512_DECAPS_C,
        K512_DECAPS_K,
        "1",
        "1",
        "77"
    ),
    ml_kem!(
        "ml-kem-768",
        &["mlkem768", "ML-KEM-768", "MLKEM768"],
        768,
        "ML-KEM-768",
        K768_KEYGEN_D,
        K768_KEYGEN_Z,
        K768_KEYGEN_EK,
        K768_ENCAPS_EK,
        K768_ENCAPS_M,
        K768_ENCAPS_C,
        K768_ENCAPS_K,
        K768_DECAPS_DK,
        K768_DECAPS_C,
        K768_DECAPS_K,
        "26",
        "26",
        "86"
    ),
    ml_kem!(
        "ml-kem-1024",
        &["mlkem1024", "ML-KEM-1024", "MLKEM1024"],
        1024,
        "ML-KEM-1024",
        K1024_KEYGEN_D,
        K1024_KEYGEN_Z,
        K1024_KEYGEN_EK,
        K1024_ENCAPS_EK,
        K1024_ENCAPS_M,
        K1024_ENCAPS_C,
        K1024_ENCAPS_K,
        K1024_DECAPS_DK,
        K1024_DECAPS_C,
        K1024_DECAPS_K,
        "51",
        "51",
        "97"
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unhex;

    /// FIPS 203 table 3: encapsulation key, decapsulation key and ciphertext sizes.
    #[test]
    fn vectors_have_fips_203_sizes() {
        for (p, ek, dk, c) in [
            (&PRIMITIVES[0], 800, 1632, 768),
            (&PRIMITIVES[1], 1184, 2400, 1088),
            (&PRIMITIVES[2], 1568, 3168, 1568),
        ] {
            for kat in p.kats {
                match *kat {
                    Kat::KemKeygen { d, z, ek: e, .. } => {
                        assert_eq!(
                            (unhex(d).len(), unhex(z).len(), unhex(e).len()),
                            (32, 32, ek)
                        );
                    }
                    Kat::KemEncaps {
                        ek: e, m, c: ct, k, ..
                    } => {
                        assert_eq!(
                            (
                                unhex(e).len(),
                                unhex(m).len(),
                                unhex(ct).len(),
                                unhex(k).len()
                            ),
                            (ek, 32, c, 32)
                        );
                    }
                    Kat::KemDecaps {
                        dk: d, c: ct, k, ..
                    } => {
                        assert_eq!(
                            (unhex(d).len(), unhex(ct).len(), unhex(k).len()),
                            (dk, c, 32)
                        );
                    }
                    _ => panic!("unexpected vector for {}", p.id),
                }
            }
        }
    }
}
