//! Public-key primitives: RSA, DSA, ECDSA, ECDH, X25519/X448, EdDSA and finite-field DH.
//! Vectors: RFC 6979, RFC 7748, RFC 8032 and Project Wycheproof; RSA and FFDH, whose keys are
//! too large to publish per size, are checked against modular arithmetic done outside the library.

use crate::{Algorithm::*, Curve, Kat, Primitive, SpeedRow};

const RSA_CHECK: Kat = Kat::CrossCheck {
    how: "sign: s^e mod n recomputed with num-bigint equals the PKCS#1 v1.5 type-1 encoding; \
          verify: accepts that signature and rejects a corrupted one; encrypt/decrypt: round trip",
};

/// Wycheproof dsa_2048_256_sha256_test.json, test group 1.
const DSA2048_SPKI: &str = "308203463082023906072a8648ce3804013082022c0282010100faa45850a6f185cff01790524f60c6867461578fcb013cf340fe495b43b46acc759c0d2f61bfaef901f510274298876f3048f41d13697ccb77fb540ed0b3fbc7a60a3c97297310fa929d90837eeb6ed0ee82a36c5f4c9dc4e2ea07d20f27675c48152abdf6f6dba66cfd8f58aed85d77ae8bb367b1348a5f46099d511507ad6575bbf8ec6ba48baa620cdcf1bd2ec7aaafeae6d98d235921203af64814163cdd11424968f5ab77fad662306eea7ee69792f2b5d39d658ab9d927f368e68363ac18178e30409633c4d488fb1fb92d22bca9214a4dfb720f28f4511f9be42e53e7f907d2d41f92bac9ca5e87580082390bbd0c229b2dc7e899aed654f7df062cf9022100fefbe4917b5ea7dbb3d5c62dc15bf430d8464813d2431819fe556832c3889d2f0282010038971fbfad52d9e8a84a2c17ed90ccff311648100e962c3269be255cab1471507ba40f457f5fb7990f6591b72b146e65213c619275b9b58d7597f41b42c55535592301e35b3a469dd5b204d70ccdd3cd477f65bd0f52eae53578fee143a43ae68b725c3c324fc91a84ecb7489dc67346ad11f3a0afdea009ce53201fa12207aea5b4461ab0ffaa801beab94f648797aa1192be18345b270435ccb4678ce663c7bf35f7a7a3c98fc4907bd12701230469a18e3ae6327acad29dac259bc5f5e912e64fe7ad0364af74ecace858cbf7a36a1dac9f9ddc7665fb7c639019971cc2691e2b586666691914b4f3785ef0d1a83f34a8130ed29724ce443493fceee25aa7038201050002820100669300e7128ef31a126fb015c525596a21bbd43082f8ca6d6f7a9974e4825085d1a50092956cd02016206c572d43eb90146f384454ac7f185f85af8855efcd3b9116c14e4ff859e07b2dad84f91fe23d7c09945368db0ab30fff942741fcfa40f39ea82596370149bf168b79ef3067ba883ee3af6025465a79e96de11bd2f7f6eda740398ef4347ee4551b8571281272f5cb83b0356f37e3ed5a19b084dff5156a3c78f8fdc3ccb5b3db431aa08a280c4a9da780aa4eeca8fb74ed7135b1370121c15328f17e0504ea2e2c68e2e53268f875f17ce3cabd34e77866711c68c711a8ea4fa136a685cd07f5fff584d6c813cf3bffd0d705795998562b9235e61430";
const DSA2048_KAT: Kat = Kat::SignatureVerify {
    spki: DSA2048_SPKI,
    digest: Some("SHA256"),
    msg: "313233343030",
    sig: "3045022100abd2a785a219e884fd96d92b8b29ba2b68e4a693ab9c4a55d98ca24addb271ad02205bf17d17a8d9172cab83df9e56cccce8f282e35bbdbe99eadf8bc20ae9722c6f",
    source: "Wycheproof dsa_2048_256_sha256_test tcId 2",
};
const DSA_ROUNDTRIP: Kat = Kat::CrossCheck {
    how: "sign then verify with the same key; a corrupted signature must be rejected",
};

const fn rsa(
    id: &'static str,
    aliases: &'static [&'static str],
    index: u32,
    bits: u32,
) -> Primitive {
    Primitive {
        id,
        aliases,
        algorithm: Rsa { bits },
        speed: SpeedRow::Rsa { index, bits },
        kats: &[RSA_CHECK],
        groups: &["rsa", "pkey"],
    }
}

pub(crate) const PRIMITIVES: &[Primitive] = &[
    rsa("rsa-512", &["rsa512"], 0, 512),
    rsa("rsa-1024", &["rsa1024"], 1, 1024),
    rsa("rsa-2048", &["rsa2048"], 2, 2048),
    rsa("rsa-3072", &["rsa3072"], 3, 3072),
    rsa("rsa-4096", &["rsa4096"], 4, 4096),
    rsa("rsa-7680", &["rsa7680"], 5, 7680),
    rsa("rsa-15360", &["rsa15360"], 6, 15360),
    Primitive {
        id: "dsa-1024",
        aliases: &["dsa1024"],
        algorithm: Dsa { bits: 1024 },
        speed: SpeedRow::Dsa { index: 1, bits: 1024 },
        kats: &[DSA2048_KAT, DSA_ROUNDTRIP],
        groups: &["dsa", "pkey"],
    },
    Primitive {
        id: "dsa-2048",
        aliases: &["dsa2048"],
        algorithm: Dsa { bits: 2048 },
        speed: SpeedRow::Dsa { index: 2, bits: 2048 },
        kats: &[DSA2048_KAT, DSA_ROUNDTRIP],
        groups: &["dsa", "pkey"],
    },
    Primitive {
        id: "ecdsa-p256",
        aliases: &["ecdsap256", "ecdsa-nistp256", "256 bits ecdsa (nistp256)"],
        algorithm: Ecdsa { curve: Curve::P256 },
        speed: SpeedRow::Ecdsa { index: 3, bits: 256, name: "nistp256" },
        kats: &[
            Kat::SignatureVerify {
                spki: "3059301306072a8648ce3d020106082a8648ce3d0301070342000460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
                digest: Some("SHA256"),
                msg: "73616d706c65",
                sig: "3046022100efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716022100f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8",
                source: "RFC 6979 A.2.5 (P-256, SHA-256, message \"sample\")",
            },
            DSA_ROUNDTRIP,
        ],
        groups: &["ecdsa", "pkey"],
    },
    Primitive {
        id: "ecdsa-p384",
        aliases: &["ecdsap384", "ecdsa-nistp384", "384 bits ecdsa (nistp384)"],
        algorithm: Ecdsa { curve: Curve::P384 },
        speed: SpeedRow::Ecdsa { index: 4, bits: 384, name: "nistp384" },
        kats: &[
            Kat::SignatureVerify {
                spki: "3076301006072a8648ce3d020106052b81040022036200042da57dda1089276a543f9ffdac0bff0d976cad71eb7280e7d9bfd9fee4bdb2f20f47ff888274389772d98cc5752138aa4b6d054d69dcf3e25ec49df870715e34883b1836197d76f8ad962e78f6571bbc7407b0d6091f9e4d88f014274406174f",
                digest: Some("SHA384"),
                msg: "313233343030",
                sig: "3065023012b30abef6b5476fe6b612ae557c0425661e26b44b1bfe19daf2ca28e3113083ba8e4ae4cc45a0320abd3394f1c548d7023100e7bf25603e2d07076ff30b7a2abec473da8b11c572b35fc631991d5de62ddca7525aaba89325dfd04fecc47bff426f82",
                source: "Wycheproof ecdsa_secp384r1_sha384_test tcId 7",
            },
            DSA_ROUNDTRIP,
        ],
        groups: &["ecdsa", "pkey"],
    },
    Primitive {
        id: "ecdsa-p521",
        aliases: &["ecdsap521", "ecdsa-nistp521", "521 bits ecdsa (nistp521)"],
        algorithm: Ecdsa { curve: Curve::P521 },
        speed: SpeedRow::Ecdsa { index: 5, bits: 521, name: "nistp521" },
        kats: &[DSA_ROUNDTRIP],
        groups: &["ecdsa", "pkey"],
    },
    Primitive {
        id: "ecdh-p256",
        aliases: &["ecdhp256", "ecdh-nistp256", "256 bits ecdh (nistp256)"],
        algorithm: Ecdh { curve: Curve::P256 },
        speed: SpeedRow::Ecdh { index: 3, bits: 256, name: "nistp256" },
        kats: &[Kat::Agreement {
            private: "0612465c89a023ab17855b0a6bcebfd3febb53aef84138647b5352e02c10c346",
            peer_public: "0462d5bd3372af75fe85a040715d0f502428e07046868b0bfdfa61d731afe44f26ac333a93a9e70a81cd5a95b5bf8d13990eb741c8c38872b4a07d275a014e30cf",
            shared: "53020d908b0219328b658b525f26780e3ae12bcd952bb25a93bc0895e1714285",
            source: "Wycheproof ecdh_secp256r1_ecpoint_test tcId 1",
        }],
        groups: &["ecdh", "pkey"],
    },
    Primitive {
        id: "ecdh-p384",
        aliases: &["ecdhp384", "ecdh-nistp384", "384 bits ecdh (nistp384)"],
        algorithm: Ecdh { curve: Curve::P384 },
        speed: SpeedRow::Ecdh { index: 4, bits: 384, name: "nistp384" },
        kats: &[Kat::Agreement {
            private: "766e61425b2da9f846c09fc3564b93a6f8603b7392c785165bf20da948c49fd1fb1dee4edd64356b9f21c588b75dfd81",
            peer_public: "04790a6e059ef9a5940163183d4a7809135d29791643fc43a2f17ee8bf677ab84f791b64a6be15969ffa012dd9185d8796d9b954baa8a75e82df711b3b56eadff6b0f668c3b26b4b1aeb308a1fcc1c680d329a6705025f1c98a0b5e5bfcb163caa",
            shared: "6461defb95d996b24296f5a1832b34db05ed031114fbe7d98d098f93859866e4de1e229da71fef0c77fe49b249190135",
            source: "Wycheproof ecdh_secp384r1_ecpoint_test tcId 1",
        }],
        groups: &["ecdh", "pkey"],
    },
    Primitive {
        id: "x25519",
        aliases: &["ecdhx25519", "ecdh-x25519", "253 bits ecdh (x25519)"],
        algorithm: Ecdh { curve: Curve::X25519 },
        speed: SpeedRow::Ecdh { index: 22, bits: 253, name: "X25519" },
        kats: &[Kat::Agreement {
            private: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
            peer_public: "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
            shared: "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742",
            source: "RFC 7748 section 6.1",
        }],
        groups: &["ecdh", "pkey", "modern"],
    },
    Primitive {
        id: "x448",
        aliases: &["ecdhx448", "ecdh-x448", "448 bits ecdh (x448)"],
        algorithm: Ecdh { curve: Curve::X448 },
        speed: SpeedRow::Ecdh { index: 23, bits: 448, name: "X448" },
        kats: &[Kat::Agreement {
            private: "e41c63d5159c89de12163fde9d04cf1f430f346b8b2c1f2a4b1f5aee63d17aec29d4b1debf8b6457e7809d2b15ff9779c97becb04b824efa",
            peer_public: "f8073fc01c8358362c08740c914b419847ef1e409f4e40d9440febc26f00551adb1c37c6c2a87d8283b8cb453e928a0d42793f72894e0f81",
            shared: "acd496ceb5f68bf9c267196b405f59701a40ec88744b7e5e60bf8f81e8b13df448efe402001750edb0b695a0512f08c572a2e356493d170b",
            source: "Wycheproof x448_test tcId 1",
        }],
        groups: &["ecdh", "pkey", "modern"],
    },
    Primitive {
        id: "ed25519",
        aliases: &["253 bits eddsa (ed25519)"],
        algorithm: Eddsa { curve: Curve::Ed25519 },
        speed: SpeedRow::Eddsa { index: 0, bits: 253, name: "Ed25519" },
        kats: &[Kat::EddsaSign {
            private: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            public: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            msg: "",
            sig: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
            source: "RFC 8032 section 7.1 test 1",
        }],
        groups: &["eddsa", "pkey", "modern"],
    },
    Primitive {
        id: "ed448",
        aliases: &["456 bits eddsa (ed448)"],
        algorithm: Eddsa { curve: Curve::Ed448 },
        speed: SpeedRow::Eddsa { index: 1, bits: 456, name: "Ed448" },
        kats: &[
            Kat::SignatureVerify {
                spki: "3043300506032b6571033a00419610a534af127f583b04818cdb7f0ff300b025f2e01682bcae33fd691cee039511df0cddc690ee978426e8b38e50ce5af7dcfba50f704c00",
                digest: None,
                msg: "",
                sig: "cf7953007666e12f73af9ec92e3e018da5ee5a8d5b17f5100a354c58f1d5f4bb37ab835c52f72374c72d612689149cf6d36a70db6dc5a6c400b597348e0e31e51e65bb144e63c892a367b4c055c036aa6cd7e728cdd2a098963bda863903e6dd025b5a5d891209f4e28537694804e50b0800",
                source: "Wycheproof ed448_test tcId 1",
            },
            DSA_ROUNDTRIP,
        ],
        groups: &["eddsa", "pkey", "modern"],
    },
    Primitive {
        id: "ffdh-2048",
        aliases: &["ffdh2048", "2048 bits ffdh"],
        algorithm: Ffdh { group: "ffdhe2048", bits: 2048 },
        speed: SpeedRow::Ffdh { index: 0, bits: 2048 },
        kats: &[Kat::CrossCheck {
            how: "shared secret equals peer_pub^priv mod p recomputed with num-bigint, and both directions agree",
        }],
        groups: &["ffdh", "pkey"],
    },
];
