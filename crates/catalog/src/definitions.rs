//! The definition table: one entry per (kind, operation), as definition.rs describes. The
//! post-quantum entries come first, then the classic families. Change an entry's words only with
//! its version raised.

use cryptospeed_model::Op;
use serde::Serialize;
use Randomness::*;

/// How a timed operation uses randomness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Randomness {
    /// None: the same inputs give the same outputs.
    None,
    /// Derived from the key and the message (RFC 8032's EdDSA nonce).
    Deterministic,
    /// Fresh random bytes mixed with key-derived ones (ML-DSA's rnd, SLH-DSA's opt_rand).
    Hedged,
    /// Fresh random bytes per operation (key seeds, ML-KEM's m, ECDSA's k).
    Fresh,
}

/// One entry of the definition table.
pub(crate) struct Entry {
    pub kinds: &'static [&'static str],
    pub op: Op,
    pub version: u32,
    pub prepared: &'static str,
    pub timed: &'static str,
    pub randomness: Randomness,
}

const KEM: &[&str] = &["ml-kem"];
const HYBRID: &[&str] = &["hybrid-kem"];
const SEEDED: &[&str] = &["ml-dsa", "slh-dsa"];
const HANDSHAKE: &[&str] = &["tls13-handshake"];
const HANDSHAKE_PREPARED: &str = "a client and a server configuration of one library: the \
    server's self-signed certificate and private key (made at set-up) parsed, the client trusting \
    that certificate, one key exchange group and one cipher suite (TLS_AES_128_GCM_SHA256) offered";

pub(crate) const ENTRIES: &[Entry] = &[
    // ML-KEM (FIPS 203). Version 2 states the key's state: what the prepared key object may
    // hold, what keygen writes, which private form decaps+parse reads, and the input checks.
    Entry {
        kinds: KEM,
        op: Op::Keygen,
        version: 2,
        prepared: "nothing",
        timed: "a key pair from 64 fresh random bytes (d ‖ z) into the library's key object; the \
                object may hold precomputations made by this call (the matrix Â, t̂ and ŝ in NTT \
                form, H(ek)); nothing is encoded",
        randomness: Fresh,
    },
    Entry {
        kinds: KEM,
        op: Op::KeygenEncode,
        version: 2,
        prepared: "nothing",
        timed: "keygen, then the encapsulation key ek and the expanded decapsulation key \
                (dk_PKE ‖ ek ‖ H(ek) ‖ z) written in FIPS 203's byte encodings, not the 64-byte seed",
        randomness: Fresh,
    },
    Entry {
        kinds: KEM,
        op: Op::Encaps,
        version: 2,
        prepared: "the library's encapsulation key object made before timing (parsed from ek, \
                   FIPS 203 7.2's check passed); it may hold Â expanded, t̂ unpacked and H(ek)",
        timed: "32 fresh random bytes m, encapsulation on that object (no parse or check of ek, \
                no context made); ciphertext and shared secret written",
        randomness: Fresh,
    },
    Entry {
        kinds: KEM,
        op: Op::EncapsParse,
        version: 2,
        prepared: "the encoded encapsulation key ek (bytes)",
        timed: "ek parsed with FIPS 203 7.2's modulus check (each coefficient below q), H(ek) \
                and Â computed as the library's parse does, then encaps",
        randomness: Fresh,
    },
    Entry {
        kinds: KEM,
        op: Op::Decaps,
        version: 2,
        prepared: "the library's decapsulation key object made before timing (from keygen, the \
                   expanded key or the seed: the object is the same); it may hold Â, ŝ and t̂ \
                   in NTT form and H(ek); one ciphertext made by encaps",
        timed: "decapsulation with its implicit-rejection re-encryption on that object; shared \
                secret written",
        randomness: None,
    },
    Entry {
        kinds: KEM,
        op: Op::DecapsParse,
        version: 2,
        prepared: "the expanded decapsulation key (FIPS 203 encoding, not the seed) as bytes; \
                   one ciphertext made by encaps",
        timed: "the expanded key parsed with FIPS 203 7.3's check (H of the embedded ek equals \
                the embedded H(ek)), then decaps",
        randomness: None,
    },
    // X25519MLKEM768 (draft-ietf-tls-ecdhe-mlkem), as TLS 1.3 uses it. Its ML-KEM-768 half is
    // held to the ML-KEM entries' key state and checks (version 2).
    Entry {
        kinds: HYBRID,
        op: Op::Keygen,
        version: 2,
        prepared: "nothing",
        timed: "the client's share: a fresh ML-KEM-768 key pair (as ml-kem keygen: the key \
                object may hold its precomputations) and a fresh X25519 key pair, the share \
                (ek ‖ X25519 public key) encoded; the private part is not encoded",
        randomness: Fresh,
    },
    Entry {
        kinds: HYBRID,
        op: Op::KeygenEncode,
        version: 2,
        prepared: "nothing",
        timed: "keygen, and the private part (expanded ML-KEM decapsulation key, not the seed, \
                ‖ X25519 private key) encoded",
        randomness: Fresh,
    },
    Entry {
        kinds: HYBRID,
        op: Op::Encaps,
        version: 2,
        prepared: "the client's share parsed before timing into key objects (the ML-KEM key as \
                   ml-kem encaps's: FIPS 203 7.2 checked, it may hold Â, t̂ and H(ek); the X25519 \
                   peer point)",
        timed: "the server's reply: ML-KEM encapsulation, a fresh X25519 key pair and its \
                agreement with the share's X25519 key; ciphertext (ML-KEM ‖ X25519) and secret \
                (ML-KEM ‖ X25519) written",
        randomness: Fresh,
    },
    Entry {
        kinds: HYBRID,
        op: Op::EncapsParse,
        version: 2,
        prepared: "the client's share (bytes)",
        timed: "the share parsed (both parts; ek with FIPS 203 7.2's modulus check), then encaps",
        randomness: Fresh,
    },
    Entry {
        kinds: HYBRID,
        op: Op::Decaps,
        version: 2,
        prepared: "the client's keys as key objects (the ML-KEM key as ml-kem decaps's: it may \
                   hold Â, ŝ, t̂ and H(ek)); one reply made by encaps (bytes)",
        timed: "the client's finish: the reply split and its X25519 part read, ML-KEM \
                decapsulation, X25519 agreement; secret written",
        randomness: None,
    },
    Entry {
        kinds: HYBRID,
        op: Op::DecapsParse,
        version: 2,
        prepared: "the client's private part (expanded ML-KEM key ‖ X25519 private key, bytes); \
                   one reply made by encaps",
        timed: "the private part parsed into key objects (FIPS 203 7.3's hash check on the \
                ML-KEM key), then decaps",
        randomness: None,
    },
    // ML-DSA (FIPS 204) and SLH-DSA (FIPS 205). Version 2 states the key's state: sign and
    // verify do FIPS 204 Algorithms 7 and 8's work from the key (Â expanded, NTT forms
    // computed) in the timed call; a key object holding those precomputed departs.
    Entry {
        kinds: SEEDED,
        op: Op::Keygen,
        version: 2,
        prepared: "nothing",
        timed: "a key pair from a fresh random seed (ML-DSA: xi expanded; SLH-DSA: the \
                hypertree's top layer computed) into the library's key object, with whatever \
                precomputation that object holds; neither key encoded",
        randomness: Fresh,
    },
    Entry {
        kinds: SEEDED,
        op: Op::KeygenEncode,
        version: 2,
        prepared: "nothing",
        timed: "keygen, then the public and the full private key written in the standard's \
                encodings (FIPS 204 pkEncode/skEncode, FIPS 205 PK ‖ SK), not a seed",
        randomness: Fresh,
    },
    Entry {
        kinds: SEEDED,
        op: Op::Sign,
        version: 2,
        prepared: "the library's signing key object, from its keygen: the key's values (ML-DSA \
                   ρ, K, tr, s1, s2, t0; SLH-DSA's seeds and root, a hash state keyed by \
                   PK.seed allowed), not Â nor NTT forms",
        timed: "pure signing of a 32-byte message with an empty context, hedged (ML-DSA's rnd, \
                SLH-DSA's opt_rand fresh); ML-DSA's Â expanded from ρ and ŝ1, ŝ2, t̂0 computed \
                in the call (FIPS 204 Algorithm 7); signature written",
        randomness: Hedged,
    },
    Entry {
        kinds: SEEDED,
        op: Op::Verify,
        version: 2,
        prepared: "the library's verifying key object (ρ and t1; tr allowed), not Â nor t̂1; \
                   one signature made by sign",
        timed: "pure verification of that signature over the 32-byte message, empty context; \
                ML-DSA's Â expanded and t1 put in NTT form in the call (FIPS 204 Algorithm 8)",
        randomness: None,
    },
    Entry {
        kinds: SEEDED,
        op: Op::VerifyParse,
        version: 2,
        prepared: "the encoded public key (bytes); one signature made by sign",
        timed: "the encoded key parsed (pkDecode: length checked) into the library's key object, \
                then verify",
        randomness: None,
    },
    // Classic signatures, as openssl speed times them.
    Entry {
        kinds: &["rsa"],
        op: Op::Sign,
        version: 1,
        prepared: "the shipped private key (CRT form) as the library's key object",
        timed: "the 36-byte input signed as it is, PKCS#1 v1.5 type-1 padding, no hash and no \
                DigestInfo (openssl speed's EVP_PKEY_sign)",
        randomness: None,
    },
    Entry {
        kinds: &["rsa"],
        op: Op::Verify,
        version: 1,
        prepared: "the shipped key as the library's key object; one signature made by sign",
        timed: "that signature checked against the 36-byte input (no hash, no DigestInfo)",
        randomness: None,
    },
    Entry {
        kinds: &["rsa"],
        op: Op::Encrypt,
        version: 1,
        prepared: "the shipped key's public half as the library's key object",
        timed: "PKCS#1 v1.5 type-2 encryption of a 36-byte plaintext (fresh random padding)",
        randomness: Fresh,
    },
    Entry {
        kinds: &["rsa"],
        op: Op::Decrypt,
        version: 1,
        prepared: "the shipped private key as the library's key object; one ciphertext",
        timed: "PKCS#1 v1.5 decryption, the padding checked",
        randomness: None,
    },
    Entry {
        kinds: &["dsa", "ecdsa"],
        op: Op::Sign,
        version: 1,
        prepared: "a key pair as the library's key object (shipped for DSA, fresh for ECDSA)",
        timed: "a 20-byte input signed as a digest (not hashed again), a fresh random nonce k; \
                DER signature written",
        randomness: Fresh,
    },
    Entry {
        kinds: &["dsa", "ecdsa"],
        op: Op::Verify,
        version: 1,
        prepared: "the key object; one signature made by sign",
        timed: "that signature checked against the 20-byte digest",
        randomness: None,
    },
    Entry {
        kinds: &["eddsa"],
        op: Op::Sign,
        version: 1,
        prepared: "the key pair of a fixed seed as the library's key object",
        timed: "RFC 8032 signing of a 20-byte message (the message hashed inside, as EdDSA \
                defines); signature written",
        randomness: Deterministic,
    },
    Entry {
        kinds: &["eddsa"],
        op: Op::Verify,
        version: 1,
        prepared: "the key object; one signature made by sign",
        timed: "RFC 8032 verification of that signature",
        randomness: None,
    },
    // TLS 1.3 handshakes (tls.rs).
    Entry {
        kinds: HANDSHAKE,
        op: Op::Handshake,
        version: 1,
        prepared: HANDSHAKE_PREPARED,
        timed: "a fresh client and server made from those configurations, then a full handshake \
                between them through in-memory buffers (no sockets), both sides' steps, until \
                each end holds the application traffic keys; no resumption, no client \
                certificate, no application data",
        randomness: Fresh,
    },
    Entry {
        kinds: HANDSHAKE,
        op: Op::HandshakeClient,
        version: 1,
        prepared: HANDSHAKE_PREPARED,
        timed: "the client's steps of that handshake only (made, ClientHello written, the \
                server's flight read and the certificate verified, Finished written), each \
                step clocked; the server's steps run between them, untimed",
        randomness: Fresh,
    },
    Entry {
        kinds: HANDSHAKE,
        op: Op::HandshakeServer,
        version: 1,
        prepared: HANDSHAKE_PREPARED,
        timed: "the server's steps of that handshake only (made, ClientHello read, its flight \
                through Finished written, the client's Finished read), each step clocked; the \
                client's steps run between them, untimed",
        randomness: Fresh,
    },
    Entry {
        kinds: HANDSHAKE,
        op: Op::HandshakeResumed,
        version: 1,
        prepared: "those configurations, the server's issuing session tickets; one full \
                   handshake made and the client's session (its ticket) kept",
        timed: "a fresh client offering that session and a fresh server, then a resumed \
                handshake (PSK with (EC)DHE: the group's key exchange, no certificate, no \
                CertificateVerify) through in-memory buffers, both sides' steps; the server \
                issues no new ticket",
        randomness: Fresh,
    },
    // Key agreement.
    Entry {
        kinds: &["ecdh", "ffdh"],
        op: Op::Derive,
        version: 1,
        prepared: "one private key and one peer public key, each as the library's key object",
        timed: "the shared secret computed and written (the peer's point or value already \
                parsed and checked)",
        randomness: None,
    },
    // Symmetric.
    Entry {
        kinds: &["digest", "xof"],
        op: Op::Hash,
        version: 1,
        prepared: "a message of the cell's size",
        timed: "a one-shot hash of the whole message (init, update, final); output written",
        randomness: None,
    },
    Entry {
        kinds: &["hmac", "cmac"],
        op: Op::Mac,
        version: 1,
        prepared: "the key set once into the library's MAC object",
        timed: "init with the key already set, update over the message, final; tag written",
        randomness: None,
    },
    Entry {
        kinds: &["gmac"],
        op: Op::Mac,
        version: 1,
        prepared: "the key and IV set once into one GMAC context",
        timed: "GHASH update over the message only, streaming on one context (openssl speed's \
                ghash)",
        randomness: None,
    },
    Entry {
        kinds: &["cipher"],
        op: Op::Encrypt,
        version: 1,
        prepared: "one context with the key and IV set once",
        timed: "the message encrypted in place; chaining state (CBC IV, CTR counter) carries \
                over to the next call",
        randomness: None,
    },
    Entry {
        kinds: &["cipher"],
        op: Op::Decrypt,
        version: 1,
        prepared: "one context with the key and IV set once",
        timed: "the message decrypted in place; chaining state carries over",
        randomness: None,
    },
    Entry {
        kinds: &["xts"],
        op: Op::Encrypt,
        version: 1,
        prepared: "one context with both keys set once",
        timed: "the message as one XTS data unit under the same tweak (the IV), ciphertext \
                stealing when not a multiple of 16",
        randomness: None,
    },
    Entry {
        kinds: &["xts"],
        op: Op::Decrypt,
        version: 1,
        prepared: "one context with both keys set once",
        timed: "the message decrypted as one XTS data unit under the same tweak",
        randomness: None,
    },
    Entry {
        kinds: &["aead"],
        op: Op::Encrypt,
        version: 1,
        prepared: "one context with the key set once",
        timed: "per message: the nonce set, 13 bytes of AAD, the message encrypted in place, the \
                tag written (openssl speed -aead)",
        randomness: None,
    },
    Entry {
        kinds: &["aead"],
        op: Op::Decrypt,
        version: 1,
        prepared: "one context with the key set once; one sealed message",
        timed: "per message: the nonce set, the AAD, the message decrypted and the tag checked",
        randomness: None,
    },
];
