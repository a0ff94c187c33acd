//! Both loops of a Rust column's crosscheck cell in one process, to tell a gap that follows the
//! calls from one that follows the binary (code layout, inlining, the process): the column's own
//! timed loop, prepared by cryptospeed-impls as the worker prepares it, and the oracle bench's
//! loop (the same calls as `benches/*.rs`), timed in alternating blocks of about 5 ms on one
//! thread. Prints, per round, the median ns per call of each and ours/oracle as a rate ratio.
//!
//! ```sh
//! cargo run --release -p cryptospeed-rust-oracles --example gap -- ring aes-128-gcm@16 encrypt
//! taskset -c 1 target/release/examples/gap rustcrypto ml-dsa-65 keygen 5
//! target/release/examples/gap --worker rustcrypto 1   # the worker protocol, pinned to CPU 1
//! ```
//!
//! The same source in another code layout: link it with its functions in a random order (the
//! linker, rust-lld, shuffles the input sections; only this example is relinked), e.g.
//! `cargo rustc --release -p cryptospeed-rust-oracles --example gap -- -C
//! "link-arg=-Wl,--shuffle-sections=.text.*=3"`, and copy the binary aside before the next build.

use cryptospeed_engine::Timed;
use cryptospeed_model::{CellSpec, Op};
use cryptospeed_rust_oracles::{aligned, consume, TLS_AD};
use std::hint::black_box;
use std::time::Instant;

type Loop = Box<dyn FnMut(u64)>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--worker") {
        std::process::exit(worker(args.get(1).map_or("rustcrypto", String::as_str)));
    }
    let [column, cell, op] = [0, 1, 2].map(|i| args.get(i).cloned().unwrap_or_default());
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let variants = oracles(&column, &cell, &op);
    if variants.is_empty() {
        eprintln!("gap: no oracle loop here for {column} {cell} {op}");
        std::process::exit(2);
    }
    let mut timed = ours(&column, &cell, &op);
    let mut loops: Vec<(String, Loop)> =
        vec![("ours".into(), Box::new(move |n| timed.run(n).unwrap()))];
    loops.extend(variants.into_iter().map(|(name, l)| (name.to_string(), l)));
    let iters = calibrate(&mut loops[0].1);
    for round in 1..=rounds {
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); loops.len()];
        for _ in 0..60 {
            for (i, (_, l)) in loops.iter_mut().enumerate() {
                let start = Instant::now();
                l(iters);
                times[i].push(start.elapsed().as_nanos() as f64 / iters as f64);
            }
        }
        let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
        let row: Vec<String> = loops
            .iter()
            .zip(&medians)
            .map(|((name, _), m)| format!("{name} {m:.1} ns (ours/this {:.3})", m / medians[0]))
            .collect();
        println!("round {round}: {}", row.join(", "));
    }
}

/// `gap --worker COLUMN [CPU]`: this binary answers the worker protocol on stdin/stdout as
/// `cryptospeed worker --impl COLUMN --pin CPU` does (the same `worker_server::serve`, sampler
/// and column code), so a worker's figure can be read in this binary's code layout beside the
/// worker binary's.
fn worker(column: &str) -> i32 {
    let cpu = std::env::args().nth(3).and_then(|c| c.parse().ok());
    if let Some(cpu) = cpu {
        cryptospeed_engine::clock::pin_to_cpu(cpu).expect("pinning");
    }
    let imp = cryptospeed_impls::create(column, &Default::default());
    cryptospeed_engine::worker_server::serve(imp).expect("the worker protocol")
}

/// The column's timed loop for the cell, as the worker prepares it (after its known-answer test).
fn ours(column: &str, cell: &str, op: &str) -> Box<dyn Timed> {
    let (id, bytes) = match cell.split_once('@') {
        Some((id, b)) => (id, Some(b.parse().expect("a size after @"))),
        None => (cell, None),
    };
    let p = cryptospeed_catalog::lookup(id).expect("a catalog primitive");
    let op = Op::parse(op).expect("an operation");
    let imp = cryptospeed_impls::create(column, &Default::default()).expect("the column");
    let imp: &'static mut dyn cryptospeed_engine::Implementation = Box::leak(imp);
    imp.known_answer_test(p).expect("its known-answer test");
    let spec = CellSpec {
        primitive: p.id.to_string(),
        op,
        bytes,
        misalign: 0,
    };
    imp.prepare(p, &spec).expect("the cell")
}

/// Calls per block: about 5 ms of the column's loop.
fn calibrate(l: &mut Loop) -> u64 {
    let mut n = 1;
    loop {
        let start = Instant::now();
        l(n);
        if start.elapsed().as_secs_f64() > 0.005 {
            return n;
        }
        n *= 2;
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The oracle bench's loop for the cell, and variants of it that each take one difference out.
fn oracles(column: &str, cell: &str, op: &str) -> Vec<(&'static str, Loop)> {
    match (column, cell, op) {
        ("ring", "aes-128-gcm@16", "encrypt") => ring_gcm(16),
        ("aws-lc-rs", "aes-128-gcm@16", "encrypt") => aws_lc_rs_gcm(16),
        ("rustcrypto", "aes-128-gcm@16", "encrypt") => rustcrypto_gcm(16),
        ("rustcrypto", "sha256@16", "hash") => rustcrypto_sha256(16),
        ("rustcrypto", "ml-kem-768", "keygen+encode") => {
            use ml_kem::{EncodedSizeUser, KemCore};
            let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_entropy();
            vec![(
                "oracle",
                Box::new(move |n| {
                    for _ in 0..n {
                        let (dk, ek) = ml_kem::MlKem768::generate(&mut rng);
                        consume((dk.as_bytes(), ek.as_bytes()))
                    }
                }),
            )]
        }
        ("rustcrypto", "ml-dsa-65", "keygen") => {
            use ml_dsa::KeyGen;
            let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_entropy();
            vec![(
                "oracle",
                Box::new(move |n| {
                    for _ in 0..n {
                        consume(ml_dsa::MlDsa65::key_gen(&mut rng))
                    }
                }),
            )]
        }
        ("rustcrypto", "ml-dsa-65", "keygen+encode") => {
            use ml_dsa::KeyGen;
            let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_entropy();
            vec![(
                "oracle",
                Box::new(move |n| {
                    for _ in 0..n {
                        let kp = ml_dsa::MlDsa65::key_gen(&mut rng);
                        consume((kp.signing_key().encode(), kp.verifying_key().encode()))
                    }
                }),
            )]
        }
        ("rustcrypto", "ml-dsa-65", "verify+parse") => rustcrypto_ml_dsa_verify_parse(),
        _ => Vec::new(),
    }
}

/// ml-dsa's verify bench with the key decoded per call (benches/rustcrypto.rs), and the column's
/// former call inlined: the key and the signature copied from byte slices into the crate's
/// arrays in every call before decoding (`verify_pure` in crates/impls/src/rustcrypto/dsa.rs).
fn rustcrypto_ml_dsa_verify_parse() -> Vec<(&'static str, Loop)> {
    use cryptospeed_rust_oracles::MSG_32;
    use ml_dsa::{EncodedSignature, EncodedVerifyingKey, KeyGen, MlDsa65, Signature, VerifyingKey};
    let mut rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_entropy();
    let kp = MlDsa65::key_gen(&mut rng);
    let sig = kp.signing_key().sign_randomized(&MSG_32, &[], &mut rng);
    let sig = sig.unwrap().encode();
    let vk_bytes = kp.verifying_key().encode();
    let (sig_v, vk_v) = (sig.to_vec(), vk_bytes.to_vec());
    vec![
        (
            "oracle",
            Box::new(move |n| {
                for _ in 0..n {
                    let vk = VerifyingKey::<MlDsa65>::decode(black_box(&vk_bytes));
                    let sig = Signature::<MlDsa65>::decode(&sig).unwrap();
                    assert!(vk.verify_with_context(&MSG_32, &[], &sig));
                }
            }),
        ),
        (
            "from slices, copied per call",
            Box::new(move |n| {
                for _ in 0..n {
                    let enc = EncodedVerifyingKey::<MlDsa65>::try_from(&vk_v[..]).unwrap();
                    let vk = VerifyingKey::<MlDsa65>::decode(&enc);
                    let enc = EncodedSignature::<MlDsa65>::try_from(&sig_v[..]).unwrap();
                    let sig = Signature::<MlDsa65>::decode(&enc);
                    assert!(sig.is_some_and(|s| vk.verify_with_context(&MSG_32, &[], &s)));
                }
            }),
        ),
    ]
}

/// The AEAD bench's loop of ring or aws-lc-rs (the same API) and variants of it: the AAD by
/// value (ring's bench/aead.rs, kept in the aws-lc-rs bench), a fixed nonce on a `LessSafeKey`,
/// and the column's closure body (crates/impls/src/ring_like.rs `aead`) inlined.
macro_rules! gcm_loops {
    ($k:ident, $len:expr) => {{
        use $k::aead::{self, BoundKey};
        struct Seq(u64);
        impl aead::NonceSequence for Seq {
            fn advance(&mut self) -> Result<aead::Nonce, $k::error::Unspecified> {
                let mut result = [0u8; aead::NONCE_LEN];
                result[4..].copy_from_slice(&u64::to_be_bytes(self.0));
                self.0 = self.0.checked_add(1).ok_or($k::error::Unspecified)?;
                Ok(aead::Nonce::assume_unique_for_key(result))
            }
        }
        let unbound = || aead::UnboundKey::new(&aead::AES_128_GCM, &[3; 16]).unwrap();
        let mut sealing = aead::SealingKey::new(unbound(), Seq(0));
        let mut sealing2 = aead::SealingKey::new(unbound(), Seq(0));
        let less_safe = aead::LessSafeKey::new(unbound());
        let column = aead::LessSafeKey::new(unbound());
        let [mut buf, mut buf2, mut buf3, mut buf4] = [0; 4].map(|_| aligned($len));
        let (nonce_v, aad_v, mut tag_v) = (vec![0u8; 12], vec![0xccu8; 13], vec![0u8; 16]);
        let loops: Vec<(&'static str, Loop)> = vec![
            (
                "SealingKey, AAD by reference (ring's bench)",
                Box::new(move |n| {
                    for _ in 0..n {
                        let aad = aead::Aad::from(black_box(&TLS_AD));
                        let tag = sealing.seal_in_place_separate_tag(aad, buf.as_mut_slice());
                        consume(tag.unwrap());
                    }
                }),
            ),
            (
                "SealingKey, AAD by value (the aws-lc-rs bench)",
                Box::new(move |n| {
                    for _ in 0..n {
                        let aad = aead::Aad::from(black_box(TLS_AD));
                        let tag = sealing2.seal_in_place_separate_tag(aad, buf2.as_mut_slice());
                        consume(tag.unwrap());
                    }
                }),
            ),
            (
                "LessSafeKey, fixed nonce",
                Box::new(move |n| {
                    for _ in 0..n {
                        let nonce = aead::Nonce::assume_unique_for_key([0; 12]);
                        let aad = aead::Aad::from(black_box(&TLS_AD));
                        let tag =
                            less_safe.seal_in_place_separate_tag(nonce, aad, buf3.as_mut_slice());
                        consume(tag.unwrap());
                    }
                }),
            ),
            (
                "the column's closure body, inlined",
                Box::new(move |n| {
                    for _ in 0..n {
                        let nonce = aead::Nonce::try_assume_unique_for_key(&nonce_v).unwrap();
                        let aad = aead::Aad::from(aad_v.as_slice());
                        let t = column
                            .seal_in_place_separate_tag(nonce, aad, buf4.as_mut_slice())
                            .unwrap();
                        tag_v.copy_from_slice(t.as_ref());
                    }
                }),
            ),
        ];
        loops
    }};
}

fn ring_gcm(len: usize) -> Vec<(&'static str, Loop)> {
    gcm_loops!(ring, len)
}

fn aws_lc_rs_gcm(len: usize) -> Vec<(&'static str, Loop)> {
    gcm_loops!(aws_lc_rs, len)
}

fn rustcrypto_gcm(len: usize) -> Vec<(&'static str, Loop)> {
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let cipher = aes_gcm::Aes128Gcm::new(&Default::default());
    let nonce = Default::default();
    let cipher2 = cipher.clone();
    let [mut buf, mut buf2] = [0; 2].map(|_| aligned(len));
    let (nonce_v, aad_v, mut tag_v) = (vec![0u8; 12], vec![0xccu8; 13], vec![0u8; 16]);
    vec![
        (
            "oracle",
            Box::new(move |n| {
                for _ in 0..n {
                    let tag = cipher.encrypt_in_place_detached(&nonce, &TLS_AD, buf.as_mut_slice());
                    consume(tag.unwrap())
                }
            }),
        ),
        (
            "the column's closure body, inlined",
            Box::new(move |n| {
                use aes_gcm::aead::generic_array::GenericArray;
                for _ in 0..n {
                    let t = cipher2
                        .encrypt_in_place_detached(
                            GenericArray::from_slice(&nonce_v),
                            &aad_v,
                            buf2.as_mut_slice(),
                        )
                        .unwrap();
                    tag_v.copy_from_slice(&t);
                }
            }),
        ),
    ]
}

/// The bench's loop (`Sha256::digest` inlined) and the column's closure body (crates/impls/src/
/// rustcrypto/mod.rs `hash_of`: the digest copied to the caller's buffer) inlined, so the box's
/// share of a gap shows apart from the copy's.
fn rustcrypto_sha256(len: usize) -> Vec<(&'static str, Loop)> {
    use sha2::Digest;
    let [input, input2] = [0; 2].map(|_| aligned(len));
    let mut out = vec![0u8; 32];
    vec![
        (
            "oracle",
            Box::new(move |n| {
                for _ in 0..n {
                    consume(sha2::Sha256::digest(black_box(input.as_slice())));
                }
            }),
        ),
        (
            "the column's closure body, inlined",
            Box::new(move |n| {
                for _ in 0..n {
                    out.copy_from_slice(&sha2::Sha256::digest(black_box(input2.as_slice())));
                    consume(&out);
                }
            }),
        ),
    ]
}
