//! Message authentication codes: HMAC, CMAC and GHASH (as GMAC).

use crate::{Algorithm::*, Kat, Primitive, SpeedRow::Symmetric};

pub(crate) const PRIMITIVES: &[Primitive] = &[
    Primitive {
        id: "hmac-md5",
        aliases: &["hmac(md5)", "hmac"],
        algorithm: Hmac { digest: "MD5" },
        speed: Symmetric {
            index: 9,
            name: "hmac(md5)",
        },
        kats: &[Kat::Mac {
            key: "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            iv: "",
            msg: "4869205468657265",
            out: "9294727a3638bb1c13f48ef8158bfc9d",
            source: "RFC 2202 test case 1",
        }],
        groups: &["macs", "hmac"],
    },
    Primitive {
        id: "hmac-sha256",
        aliases: &["hmac(sha256)"],
        algorithm: Hmac { digest: "SHA256" },
        speed: Symmetric {
            index: 25,
            name: "hmac(sha256)",
        },
        kats: &[Kat::Mac {
            key: "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            iv: "",
            msg: "4869205468657265",
            out: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            source: "RFC 4231 test case 1",
        }],
        groups: &["macs", "hmac"],
    },
    Primitive {
        id: "cmac",
        aliases: &["cmac-aes-128", "cmac(aes-128-cbc)"],
        algorithm: Cmac {
            cipher: "AES-128-CBC",
        },
        speed: Symmetric {
            index: 28,
            name: "cmac(aes-128-cbc)",
        },
        kats: &[
            Kat::Mac {
                key: "2b7e151628aed2a6abf7158809cf4f3c",
                iv: "",
                msg: "6bc1bee22e409f96e93d7e117393172a",
                out: "070a16b46b4d4144f79bdd9dd04a287c",
                source: "RFC 4493 example 2",
            },
            Kat::Mac {
                key: "2b7e151628aed2a6abf7158809cf4f3c",
                iv: "",
                msg: "",
                out: "bb1d6929e95937287fa37d129b756746",
                source: "RFC 4493 example 1",
            },
        ],
        groups: &["macs"],
    },
    Primitive {
        id: "ghash",
        aliases: &["gmac", "gmac-aes-128"],
        algorithm: Gmac {
            cipher: "AES-128-GCM",
        },
        speed: Symmetric {
            index: 26,
            name: "ghash",
        },
        kats: &[Kat::Mac {
            key: "77be63708971c4e240d1cb79e8d77feb",
            iv: "e0e00f19fed7ba0136a797f3",
            msg: "7a43ec1d9c0a5a78a0b16533a6213cab",
            out: "209fcc8d3675ed938e9c7166709dd946",
            source: "NIST CAVP gcmEncryptExtIV128 (PTlen=0, AADlen=128, Count=0)",
        }],
        groups: &["macs"],
    },
];
