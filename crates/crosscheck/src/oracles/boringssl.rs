//! BoringSSL's own `bssl_bench` (Google Benchmark; `bench/*.cc` of the tree the boring-sys crate
//! carries) as the oracle of the `boringssl` column: built by `variant build-library boringssl`
//! together with the libcrypto.so the column loads, in the same cache directory (it finds that
//! library beside it through its `$ORIGIN` run path). One benchmark per round, `-t 1`, read from
//! its CSV line as CPU nanoseconds per iteration (the thread's CPU clock: others' time left out).

use crate::{Cell, Clock, Difference, Oracle, Provenance};
use anyhow::{Context, Result};
use cryptospeed_model::Op;
use cryptospeed_variants::{cmake, Cache};
use std::path::Path;

pub struct BoringSsl;

const HASH: &str = "EVP_DigestInit_ex, EVP_DigestUpdate of the buffer, EVP_DigestFinal_ex per \
    iteration (bench/hash.cc)";
const SEAL: &str = "EVP_AEAD_CTX_seal with a 12-byte nonce and 13 bytes of AD, key set once \
    (bench/aead.cc)";
/// bssl_bench's AEAD API against the EVP_CIPHER calls `openssl speed` makes, which the column
/// makes: both reach the same GCM code; the AEAD call costs more per call.
const GCM_API: &str = "bssl_bench times EVP_AEAD_CTX_seal; the column times the EVP_CIPHER \
    sequence (nonce, 13-byte AAD, update, final) `openssl speed` makes on the same library";
const GCM_16: Difference = Difference {
    kind: crate::Kind::Definition,
    what: GCM_API,
    band: (1.06, 1.15),
    measured: "a plain C loop of each API against the same libcrypto.so \
        (scripts/bssl-gcm-apis.c 16, five rounds, 2026-11-28 13:40 UTC): EVP_CIPHER 74-82 ns, \
        EVP_AEAD seal 81-87 ns, rate ratio 1.065-1.112",
};
const GCM_8192: Difference = Difference {
    kind: crate::Kind::Definition,
    what: GCM_API,
    band: (0.99, 1.09),
    measured: "the same C loop at 8192 bytes: rate ratio 0.997-1.093 (13:40 UTC); \
        scripts/bench-vs-bssl read 1.029-1.032 on an idle VM",
};
/// EncapOnly/DecapOnly make a fresh key pair before every timed call between PauseTiming and
/// ResumeTiming; the column calls back to back with one key.
const PAUSED_WHAT: &str = "bssl_bench makes a fresh key pair before each timed call with the \
    timer paused: its figure holds PauseTiming/ResumeTiming's clock reads (clock_gettime system \
    calls) and a call that starts with the key generation's data in the caches; the column calls \
    back to back with one key";
const PAUSED_DECAP: Difference = Difference {
    kind: crate::Kind::Definition,
    what: PAUSED_WHAT,
    band: (1.00, 1.11),
    measured: "bssl_bench's own unpaused benchmarks give the call without the pause \
        (2026-11-28 13:40 UTC, CPU time, three repetitions): decap = KeyGenDecap - KeyGenOnly \
        = 23.9-24.0 µs against DecapOnly 24.2-26.3 µs (1.006-1.10, median 1.038)",
};
const PAUSED_ENCAP: Difference = Difference {
    kind: crate::Kind::Definition,
    what: PAUSED_WHAT,
    band: (1.02, 1.15),
    measured: "bssl_bench's own unpaused benchmarks (2026-11-28 13:40 UTC, CPU time, three \
        repetitions): encap = ParseEncap - ParseOnly = 14.8-15.1 µs against EncapOnly \
        16.4-17.0 µs (1.086-1.149, median 1.10); the crosscheck's own medians read 1.038-1.057 \
        (12:58 and 13:47 UTC), below that estimate: the band's lower end is theirs, not a \
        separate measurement",
};

macro_rules! bench {
    ($p:expr, $op:expr, $bytes:expr, $row:expr, $loop:expr, $diff:expr) => {
        Cell {
            primitive: $p,
            op: $op,
            bytes: $bytes,
            args: &[],
            row: $row,
            oracle_loop: $loop,
            difference: $diff,
        }
    };
}

static CELLS: &[Cell] = &[
    bench!(
        "sha256",
        Op::Hash,
        Some(16),
        "BM_SpeedHash/sha256/InputSize:16/threads:1",
        HASH,
        None
    ),
    bench!(
        "sha256",
        Op::Hash,
        Some(8192),
        "BM_SpeedHash/sha256/InputSize:8192/threads:1",
        HASH,
        None
    ),
    bench!(
        "aes-128-gcm",
        Op::Encrypt,
        Some(16),
        "BM_SpeedAEAD/seal_aes_128_gcm/InputSize:16",
        SEAL,
        Some(GCM_16)
    ),
    bench!(
        "aes-128-gcm",
        Op::Encrypt,
        Some(8192),
        "BM_SpeedAEAD/seal_aes_128_gcm/InputSize:8192",
        SEAL,
        Some(GCM_8192)
    ),
    bench!(
        "ecdsa-p256",
        Op::Sign,
        None,
        "BM_SpeedECDSASign/p256/threads:1",
        "ECDSA_sign of a 32-byte digest with one EC_KEY (bench/ecdsa.cc)",
        None
    ),
    bench!(
        "ml-kem-768",
        Op::Keygen,
        None,
        "BM_SpeedMLKEM768KeyGenOnly/threads:1",
        "MLKEM768_generate_key, the encoded public key written (bench/mlkem.cc)",
        None
    ),
    bench!(
        "ml-kem-768",
        Op::Encaps,
        None,
        "BM_SpeedMLKEM768EncapOnly/threads:1",
        "MLKEM768_encap with a parsed public key; a fresh key pair made before each call with \
        the timer paused",
        Some(PAUSED_ENCAP)
    ),
    bench!(
        "ml-kem-768",
        Op::Decaps,
        None,
        "BM_SpeedMLKEM768DecapOnly/threads:1",
        "MLKEM768_decap of a constant ciphertext (implicit rejection, same cost); a fresh key \
        made before each call with the timer paused",
        Some(PAUSED_DECAP)
    ),
    bench!(
        "ml-kem-768",
        Op::EncapsParse,
        None,
        "BM_SpeedMLKEM768ParseEncap/threads:1",
        "MLKEM768_parse_public_key of the encoded key, then MLKEM768_encap; a fresh key pair \
        made before each call with the timer paused",
        Some(PAUSED_ENCAP)
    ),
    bench!(
        "ml-dsa-65",
        Op::Keygen,
        None,
        "BM_SpeedMLDSAKeyGen/ml_dsa_65/threads:1",
        "EVP_PKEY_generate_from_alg(ML-DSA-65) (bench/mldsa.cc)",
        None
    ),
    bench!(
        "ml-dsa-65",
        Op::Sign,
        None,
        "BM_SpeedMLDSASign/ml_dsa_65/threads:1",
        "EVP_DigestSignInit + EVP_DigestSign of 11 bytes, a new context per call",
        None
    ),
    bench!(
        "ml-dsa-65",
        Op::Verify,
        None,
        "BM_SpeedMLDSAVerify/ml_dsa_65/threads:1",
        "EVP_DigestVerifyInit + EVP_DigestVerify, a new context per call",
        None
    ),
];

impl Oracle for BoringSsl {
    fn column(&self) -> &'static str {
        "boringssl"
    }
    fn name(&self) -> &'static str {
        "bssl_bench"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        // dir is CACHE/oracles/boringssl: the library is built in CACHE's variants.
        let root = dir
            .parent()
            .and_then(Path::parent)
            .context("no cache root")?;
        let cache = Cache::open(Some(root.to_path_buf()));
        let lib = &cmake::BORINGSSL;
        if cmake::cached(lib, &cache)?.is_none() {
            log(&format!(
                "building BoringSSL and bssl_bench with cmake from the {} {} crate into {} \
                 (`cryptospeed variant build-library boringssl`; several minutes)",
                lib.crate_name,
                lib.crate_version,
                cache.variants_dir().display()
            ));
        }
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let entry = cmake::build(
            lib,
            &cache,
            jobs,
            &std::sync::atomic::AtomicBool::new(false),
        )?;
        let library = cmake::ready_library(&entry).context("the BoringSSL build failed")?;
        let m = &entry.manifest;
        Ok(Provenance {
            source: format!("{} (sha256 {})", m.source.version, m.source.sha256),
            library: format!(
                "{}: the libcrypto.so bssl_bench links, which the column loads (through {})",
                entry.dir.display(),
                library.display()
            ),
            programs: vec![cmake::program(&entry, "bssl_bench")],
            build: vec![
                m.configure_command.join(" "),
                format!("cmake --build --target {}", lib.targets.join(" ")),
            ],
        })
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let size = cell.bytes.map_or("16".to_string(), |b| b.to_string());
        vec![
            built.programs[0].display().to_string(),
            "-t".into(),
            "1".into(),
            "-i".into(),
            size,
            format!("--benchmark_filter=^{}$", cell.row),
            "--benchmark_format=csv".into(),
            "--benchmark_time_unit=ns".into(),
            "--benchmark_min_time=1s".into(),
        ]
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        let quoted = format!("\"{}\",", cell.row);
        let line = output
            .lines()
            .find(|l| l.starts_with(&quoted))
            .with_context(|| format!("no {} line", cell.row))?;
        // name,iterations,real_time,cpu_time,time_unit,...
        let ns: f64 = line[quoted.len()..]
            .split(',')
            .nth(2)
            .and_then(|x| x.parse().ok())
            .with_context(|| format!("no cpu_time in `{line}`"))?;
        Ok(cell.bytes.map_or(1.0, |b| b as f64) * 1e9 / ns)
    }
    fn clock(&self) -> Clock {
        Clock::Undisturbed // cpu_time: the benchmark thread's CPU clock
    }
}
