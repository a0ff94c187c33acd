//! The AES modes `openssl speed -evp` reaches beyond CBC, CTR and GCM (ECB, CCM, OCB, XTS,
//! GCM-SIV) and the Chinese national standard's SM4, kept apart from `ciphers.rs` because each
//! mode brings its own vector family and timing conventions. Vectors: NIST SP 800-38A (ECB),
//! SP 800-38C and the CAVP CCM files, RFC 7253 (OCB), IEEE 1619 and the CAVP XTSGenAES files,
//! RFC 8452 (GCM-SIV), GB/T 32907 (SM4).
//!
//! The AEADs are timed as `openssl speed` 3.5 times every AE mode (`EVP_Update_loop_aead_enc`):
//! a 12-byte nonce and a 16-byte tag for all of them, 13 bytes of AAD, one message per
//! nonce. Known-answer vectors may use other nonce and tag lengths (CCM's published examples
//! do); implementations take both from the vector.

use crate::{Algorithm::*, Kat, Primitive, SpeedRow::Symmetric};

const SP800_38A_KEY128: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const SP800_38A_KEY256: &str = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
const SP800_38A_PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51";
const RFC7253_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const GBT32907: &str = "0123456789abcdeffedcba9876543210";

pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        id: "aes-128-ecb",
        aliases: &["aes-128 ecb", "aes128-ecb"],
        algorithm: Cipher {
            name: "AES-128-ECB",
            key_len: 16,
            iv_len: 0,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-128-ecb",
        },
        kats: &[Kat::Cipher {
            key: SP800_38A_KEY128,
            iv: "",
            pt: SP800_38A_PT,
            ct: "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf",
            source: "NIST SP 800-38A F.1.1 (ECB-AES128.Encrypt, blocks 1-2)",
        }],
        groups: &["ciphers", "aes"],
    },
    Primitive {
        id: "aes-256-ecb",
        aliases: &["aes-256 ecb", "aes256-ecb"],
        algorithm: Cipher {
            name: "AES-256-ECB",
            key_len: 32,
            iv_len: 0,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-256-ecb",
        },
        kats: &[Kat::Cipher {
            key: SP800_38A_KEY256,
            iv: "",
            pt: SP800_38A_PT,
            ct: "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870",
            source: "NIST SP 800-38A F.1.5 (ECB-AES256.Encrypt, blocks 1-2)",
        }],
        groups: &["ciphers", "aes"],
    },
    Primitive {
        id: "aes-128-ccm",
        aliases: &["aes128-ccm", "id-aes128-ccm"],
        algorithm: Aead {
            name: "AES-128-CCM",
            key_len: 16,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-128-ccm",
        },
        kats: &[
            Kat::Aead {
                key: "404142434445464748494a4b4c4d4e4f",
                nonce: "101112131415161718191a1b",
                aad: "000102030405060708090a0b0c0d0e0f10111213",
                pt: "202122232425262728292a2b2c2d2e2f3031323334353637",
                ct: "e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5",
                tag: "484392fbc1b09951",
                source: "NIST SP 800-38C appendix C.3 (12-byte nonce, 8-byte tag)",
            },
            Kat::Aead {
                key: "19ebfde2d5468ba0a3031bde629b11fd",
                nonce: "5a8aa485c316e9403aff859fbb",
                aad: "",
                pt: "",
                ct: "",
                tag: "fb04dc5a44c6bb000f2440f5154364b4",
                source: "NIST CAVP CCM DVPT128.rsp (13-byte nonce, 16-byte tag, empty \
                         message), as in OpenSSL's evpciph_aes_ccm_cavs.txt",
            },
        ],
        groups: &["ciphers", "aes", "aead"],
    },
    Primitive {
        id: "aes-256-ccm",
        aliases: &["aes256-ccm", "id-aes256-ccm"],
        algorithm: Aead {
            name: "AES-256-CCM",
            key_len: 32,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-256-ccm",
        },
        kats: &[Kat::Aead {
            key: "493e14623cd250058a7fc66a3fee0c24b6e363b966c2314aff53b276b6c2ea7b",
            nonce: "fe2d8ae8da94a6df563f89ce00",
            aad: "579a637e37a0974cd2fc3b735d9ed088e8e488ffe210f043e0f9d2079a015ad6",
            pt: "e5653e512d8b0b70",
            ct: "75d31f8d47bee5c4",
            tag: "e2ba537355ae8ab25cc9ed3511ff5053",
            source: "NIST CAVP CCM VPT256.rsp (Plen 8, 13-byte nonce, 16-byte tag), as in \
                     OpenSSL's evpciph_aes_ccm_cavs.txt",
        }],
        groups: &["ciphers", "aes", "aead"],
    },
    Primitive {
        id: "aes-128-ocb",
        aliases: &["aes128-ocb"],
        algorithm: Aead {
            name: "AES-128-OCB",
            key_len: 16,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-128-ocb",
        },
        kats: &[
            Kat::Aead {
                key: RFC7253_KEY,
                nonce: "bbaa99887766554433221104",
                aad: "000102030405060708090a0b0c0d0e0f",
                pt: "000102030405060708090a0b0c0d0e0f",
                ct: "571d535b60b277188be5147170a9a22c",
                tag: "3ad7a4ff3835b8c5701c1ccec8fc3358",
                source: "RFC 7253 appendix A (nonce BBAA99887766554433221104)",
            },
            Kat::OcbIterated {
                out: "67e944d23256c5e0b6c61fa22fdf1ea2",
                source: "RFC 7253 appendix A, iterated test, AEAD_AES_128_OCB_TAGLEN128",
            },
        ],
        groups: &["ciphers", "aes", "aead"],
    },
    Primitive {
        id: "aes-256-ocb",
        aliases: &["aes256-ocb"],
        algorithm: Aead {
            name: "AES-256-OCB",
            key_len: 32,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-256-ocb",
        },
        kats: &[Kat::OcbIterated {
            out: "d90eb8e9c977c88b79dd793d7ffa161c",
            source: "RFC 7253 appendix A, iterated test, AEAD_AES_256_OCB_TAGLEN128",
        }],
        groups: &["ciphers", "aes", "aead"],
    },
    Primitive {
        id: "aes-128-xts",
        aliases: &["aes128-xts"],
        algorithm: Cipher {
            name: "AES-128-XTS",
            key_len: 32,
            iv_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-128-xts",
        },
        kats: &[
            Kat::Cipher {
                key: "1111111111111111111111111111111122222222222222222222222222222222",
                iv: "33333333330000000000000000000000",
                pt: "4444444444444444444444444444444444444444444444444444444444444444",
                ct: "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0",
                source: "IEEE 1619-2007 annex B, vector 2",
            },
            Kat::Cipher {
                key: "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
                iv: "9a785634120000000000000000000000",
                pt: "000102030405060708090a0b0c0d0e0f10",
                ct: "6c1625db4671522d3d7599601de7ca09ed",
                source: "IEEE 1619-2007 annex B, vector 15 (17 bytes: ciphertext stealing)",
            },
        ],
        groups: &["ciphers", "aes"],
    },
    Primitive {
        id: "aes-256-xts",
        aliases: &["aes256-xts"],
        algorithm: Cipher {
            name: "AES-256-XTS",
            key_len: 64,
            iv_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "aes-256-xts",
        },
        kats: &[Kat::Cipher {
            key: "1ea661c58d943a0e4801e42f4b0947149e7f9f8e3e68d0c7505210bd311a0e7c\
                  d6e13ffdf2418d8d1911c004cda58da3d619b7e2b9141e58318eea392cf41b08",
            iv: "adf8d92627464ad2f0428e84a9f87564",
            pt: "2eedea52cd8215e1acc647e810bbc3642e87287f8d2e57e36c0a24fbc12a202e",
            ct: "cbaad0e2f6cea3f50b37f934d46a9b130b9d54f07e34f36af793e86f73c6d7db",
            source: "NIST CAVP XTSGenAES256.rsp, COUNT = 1 (DataUnitLen 256)",
        }],
        groups: &["ciphers", "aes"],
    },
    Primitive {
        id: "aes-128-gcm-siv",
        aliases: &["aes128-gcm-siv"],
        algorithm: Aead {
            name: "AES-128-GCM-SIV",
            key_len: 16,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "AES-128-GCM-SIV",
        },
        kats: &[
            Kat::Aead {
                key: "01000000000000000000000000000000",
                nonce: "030000000000000000000000",
                aad: "01",
                pt: "0200000000000000",
                ct: "1e6daba35669f427",
                tag: "3b0a1a2560969cdf790d99759abd1508",
                source: "RFC 8452 appendix C.1 (8-byte plaintext, 1-byte AAD)",
            },
            Kat::Aead {
                key: "01000000000000000000000000000000",
                nonce: "030000000000000000000000",
                aad: "",
                pt: "0100000000000000",
                ct: "b5d839330ac7b786",
                tag: "578782fff6013b815b287c22493a364c",
                source: "RFC 8452 appendix C.1 (8-byte plaintext, no AAD)",
            },
        ],
        groups: &["ciphers", "aes", "aead", "modern"],
    },
    Primitive {
        id: "aes-256-gcm-siv",
        aliases: &["aes256-gcm-siv"],
        algorithm: Aead {
            name: "AES-256-GCM-SIV",
            key_len: 32,
            nonce_len: 12,
            tag_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "AES-256-GCM-SIV",
        },
        kats: &[
            Kat::Aead {
                key: "0100000000000000000000000000000000000000000000000000000000000000",
                nonce: "030000000000000000000000",
                aad: "",
                pt: "0100000000000000",
                ct: "c2ef328e5c71c83b",
                tag: "843122130f7364b761e0b97427e3df28",
                source: "RFC 8452 appendix C.2 (8-byte plaintext, no AAD)",
            },
            Kat::Aead {
                key: "0100000000000000000000000000000000000000000000000000000000000000",
                nonce: "030000000000000000000000",
                aad: "",
                pt: "01000000000000000000000000000000",
                ct: "85a01b63025ba19b7fd3ddfc033b3e76",
                tag: "c9eac6fa700942702e90862383c6c366",
                source: "RFC 8452 appendix C.2 (16-byte plaintext, no AAD)",
            },
        ],
        groups: &["ciphers", "aes", "aead", "modern"],
    },
    Primitive {
        id: "sm4-cbc",
        aliases: &["sm4", "sm4 cbc"],
        algorithm: Cipher {
            name: "SM4-CBC",
            key_len: 16,
            iv_len: 16,
        },
        speed: Symmetric {
            index: 25,
            name: "sm4-cbc",
        },
        kats: &[Kat::Cipher {
            key: GBT32907,
            iv: "00000000000000000000000000000000",
            pt: GBT32907,
            ct: "681edf34d206965e86b3e94f536e4246",
            source: "GB/T 32907-2016 appendix A example 1 (one block, zero IV = ECB)",
        }],
        groups: &["ciphers", "sm"],
    },
    Primitive {
        id: "sm4-ecb",
        aliases: &["sm4 ecb"],
        algorithm: Cipher {
            name: "SM4-ECB",
            key_len: 16,
            iv_len: 0,
        },
        speed: Symmetric {
            index: 25,
            name: "sm4-ecb",
        },
        kats: &[Kat::Cipher {
            key: GBT32907,
            iv: "",
            pt: GBT32907,
            ct: "681edf34d206965e86b3e94f536e4246",
            source: "GB/T 32907-2016 appendix A example 1",
        }],
        groups: &["ciphers", "sm"],
    },
];

/// The key of RFC 7253 appendix A's iterated test: zeros, then the tag length in bits.
pub fn ocb_iterated_key(key_len: usize, tag_len: usize) -> Vec<u8> {
    let mut key = vec![0u8; key_len];
    key[key_len - 1] = (tag_len * 8) as u8;
    key
}

/// RFC 7253 appendix A's iterated test for OCB under [`ocb_iterated_key`]: for i = 0 … 127 and
/// S = i zero bytes, append OCB-ENCRYPT(K, N, A, P) for (A, P) = (S, S), (∅, S), (S, ∅) with
/// nonces 3i+1, 3i+2, 3i+3 (96-bit big-endian); the answer is OCB-ENCRYPT(K, 385, all of that,
/// ∅). `seal(nonce, aad, pt)` returns ciphertext ‖ tag under that key.
pub fn ocb_iterated<F>(mut seal: F) -> Result<Vec<u8>, String>
where
    F: FnMut(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
{
    let nonce = |n: u32| {
        let mut v = vec![0u8; 12];
        v[8..].copy_from_slice(&n.to_be_bytes());
        v
    };
    let mut c = Vec::new();
    for i in 0..128u32 {
        let s = vec![0u8; i as usize];
        c.extend(seal(&nonce(3 * i + 1), &s, &s)?);
        c.extend(seal(&nonce(3 * i + 2), &[], &s)?);
        c.extend(seal(&nonce(3 * i + 3), &s, &[])?);
    }
    seal(&nonce(385), &c, &[])
}
