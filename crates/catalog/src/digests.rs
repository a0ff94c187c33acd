//! Hash functions and XOFs. Vectors: the "abc" examples of each algorithm's defining document.

use crate::{Algorithm::*, Kat, Primitive, SpeedRow::Symmetric};

const ABC: &str = "616263";

pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        id: "md2",
        aliases: &[],
        algorithm: Digest { name: "MD2" },
        speed: Symmetric { index: 0, name: "md2" },
        kats: &[Kat::Digest { msg: ABC, out: "da853b0d3f88d99b30283a69e6ded6bb", source: "RFC 1319 A.5" }],
        groups: &["digests", "legacy"],
    },
    Primitive {
        id: "mdc2",
        aliases: &[],
        algorithm: Digest { name: "MDC2" },
        speed: Symmetric { index: 1, name: "mdc2" },
        kats: &[Kat::Digest {
            msg: "4e6f77206973207468652074696d6520666f7220616c6c20",
            out: "42e50cd224baceba760bdd2bd409281a",
            source: "ISO/IEC 10118-2 MDC-2 example (\"Now is the time for all \")",
        }],
        groups: &["digests", "legacy"],
    },
    Primitive {
        id: "md4",
        aliases: &[],
        algorithm: Digest { name: "MD4" },
        speed: Symmetric { index: 2, name: "md4" },
        kats: &[Kat::Digest { msg: ABC, out: "a448017aaf21d8525fc10ae87aa6729d", source: "RFC 1320 A.5" }],
        groups: &["digests", "legacy"],
    },
    Primitive {
        id: "md5",
        aliases: &[],
        algorithm: Digest { name: "MD5" },
        speed: Symmetric { index: 3, name: "md5" },
        kats: &[
            Kat::Digest { msg: ABC, out: "900150983cd24fb0d6963f7d28e17f72", source: "RFC 1321 A.5" },
            Kat::Digest { msg: "", out: "d41d8cd98f00b204e9800998ecf8427e", source: "RFC 1321 A.5" },
        ],
        groups: &["digests"],
    },
    Primitive {
        id: "sha1",
        aliases: &["sha-1"],
        algorithm: Digest { name: "SHA1" },
        speed: Symmetric { index: 4, name: "sha1" },
        kats: &[Kat::Digest { msg: ABC, out: "a9993e364706816aba3e25717850c26c9cd0d89d", source: "FIPS 180-2 appendix A.1" }],
        groups: &["digests", "sha"],
    },
    Primitive {
        id: "ripemd160",
        aliases: &["rmd160", "ripemd"],
        algorithm: Digest { name: "RIPEMD160" },
        speed: Symmetric { index: 5, name: "rmd160" },
        kats: &[Kat::Digest { msg: ABC, out: "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc", source: "RIPEMD-160 reference (Dobbertin, Bosselaers, Preneel)" }],
        groups: &["digests"],
    },
    Primitive {
        id: "sha256",
        aliases: &["sha-256"],
        algorithm: Digest { name: "SHA256" },
        speed: Symmetric { index: 6, name: "sha256" },
        kats: &[
            Kat::Digest { msg: ABC, out: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", source: "FIPS 180-2 appendix B.1" },
            Kat::Digest {
                msg: "6162636462636465636465666465666765666768666768696768696a68696a6b696a6b6c6a6b6c6d6b6c6d6e6c6d6e6f6d6e6f706e6f7071",
                out: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                source: "FIPS 180-2 appendix B.2",
            },
        ],
        groups: &["digests", "sha"],
    },
    Primitive {
        id: "sha512",
        aliases: &["sha-512"],
        algorithm: Digest { name: "SHA512" },
        speed: Symmetric { index: 7, name: "sha512" },
        kats: &[Kat::Digest {
            msg: ABC,
            out: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            source: "FIPS 180-2 appendix C.1",
        }],
        groups: &["digests", "sha"],
    },
    Primitive {
        id: "whirlpool",
        aliases: &[],
        algorithm: Digest { name: "WHIRLPOOL" },
        speed: Symmetric { index: 8, name: "whirlpool" },
        kats: &[Kat::Digest {
            msg: ABC,
            out: "4e2448a4c6f486bb16b6562c73b4020bf3043e3a731bce721ae1b303d97e6d4c7181eebdb6c57e277d0e34957114cbd6c797fc9d95d8b582d225292076d4eef5",
            source: "ISO/IEC 10118-3 Whirlpool test vectors",
        }],
        groups: &["digests", "legacy"],
    },
    Primitive {
        id: "sha3-256",
        aliases: &["sha3256"],
        algorithm: Digest { name: "SHA3-256" },
        speed: Symmetric { index: 25, name: "sha3-256" },
        kats: &[Kat::Digest { msg: ABC, out: "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532", source: "FIPS 202 example (NIST CSRC SHA3-256 abc)" }],
        groups: &["digests", "sha3", "modern"],
    },
    Primitive {
        id: "blake2b-512",
        aliases: &["blake2b512", "blake2b"],
        algorithm: Digest { name: "BLAKE2B-512" },
        speed: Symmetric { index: 25, name: "blake2b512" },
        kats: &[Kat::Digest {
            msg: ABC,
            out: "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
            source: "RFC 7693 appendix A",
        }],
        groups: &["digests", "modern"],
    },
    Primitive {
        id: "sm3",
        aliases: &["sm3-256"],
        algorithm: Digest { name: "SM3" },
        speed: Symmetric { index: 25, name: "sm3" },
        kats: &[Kat::Digest {
            msg: ABC,
            out: "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0",
            source: "GB/T 32905-2016 appendix A example 1 (\"abc\")",
        }],
        groups: &["digests", "sm"],
    },
    Primitive {
        id: "shake128",
        aliases: &["shake-128"],
        algorithm: Xof { name: "SHAKE128", out_len: 32 },
        speed: Symmetric { index: 25, name: "shake128" },
        kats: &[Kat::Digest {
            msg: "",
            out: "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26",
            source: "FIPS 202 example (NIST CSRC SHAKE128 empty message, 256 output bits)",
        }],
        groups: &["digests", "sha3", "modern"],
    },
];
