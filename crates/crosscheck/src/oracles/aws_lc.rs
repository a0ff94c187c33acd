//! AWS-LC's own `bssl speed` (tool/speed.cc) as the oracle of the `aws-lc` column, built the way
//! AWS-LC's tool/CMakeLists.txt builds its stand-alone benchmark (`build_benchmark`: speed.cc,
//! args.cc, const.cc, benchmark.cc) against the very libcrypto.so the column loads: the cmake
//! build of the aws-lc-sys crate's tree in the variant cache (`variant build-library aws-lc`),
//! which has no symbol prefix, with that tree's headers. tool/ is not in the crate: it is copied
//! from a checkout of aws/aws-lc named by `$CRYPTOSPEED_AWS_LC_SRC`, whose commit is recorded.
//! `-filter` picks the benchmark, `-chunks` the size; each loop counts calls for 1 s of
//! CLOCK_MONOTONIC (wall time), `-timeout` seconds where one second left a round's figure to one
//! slowdown of the host (the 16-byte cells and ML-DSA-65 sign and verify: 3 s, 2 s).

use crate::debsrc::run;
use crate::{expand_args, Cell, Difference, Oracle, Provenance};
use anyhow::{bail, Context, Result};
use cryptospeed_model::Op;
use cryptospeed_variants::{cmake, Cache, Entry};
use std::path::{Path, PathBuf};

/// The checkout of aws/aws-lc whose tool/ the benchmark is built from.
pub const SOURCE_ENV: &str = "CRYPTOSPEED_AWS_LC_SRC";
/// The files `build_benchmark` compiles (tool/CMakeLists.txt), in tool/.
const SOURCES: [&str; 4] = ["speed.cc", "args.cc", "const.cc", "benchmark.cc"];

pub struct AwsLc;

const SHA: &str = "SpeedHashChunk: EVP_DigestInit_ex, EVP_DigestUpdate of the chunk, \
    EVP_DigestFinal_ex on one EVP_MD_CTX per call";
const GCM: &str = "SpeedEvpGenericChunk: EVP_EncryptInit_ex with the nonce alone (cipher and key \
    set once), EVP_EncryptUpdate of 13 bytes of AAD, EVP_EncryptUpdate of the chunk (out of \
    place), EVP_EncryptFinal_ex, EVP_CTRL_GCM_GET_TAG";

/// SpeedHashChunk reuses one context; the column calls EVP_Digest, as `openssl speed` does.
const DIGEST_CTX: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "bssl speed reuses one EVP_MD_CTX; the column calls EVP_Digest, as `openssl speed` \
        does, which makes and cleans up a context (its hash state allocated and freed) in every \
        call: a fixed cost per message",
    band: (0.75, 0.83),
    measured: "scripts/aws-lc-loops.c, both call sequences alternating against the same \
        libcrypto.so on the thread's CPU clock (2026-11-28, CPU 1): 16 bytes 67-70 ns against \
        53-54 ns, ours/bssl 0.763-0.769 (12:56 UTC, load 5.3) and 0.788-0.798 (13:10 UTC, load \
        2.4); at 8192 bytes 0.988-0.995; the crosscheck read 0.80 in two runs; read again \
        (2026-11-29 05:30:21-05:30:30 UTC, load 1.2, three processes of `aws-lc-loops sha256 \
        16 3`, each beside a run of bssl speed -filter SHA-256 -chunks 16): 0.788-0.820, the \
        column's calls 67.0-69.0 ns, bssl speed's own figure 288.5-300.2 MB/s (53.3-55.5 ns): \
        the band stands",
};
/// SpeedEvpGenericChunk also reads the tag out, writes to a second buffer, and is called through
/// a std::function.
const GCM_TAG: Difference = Difference {
    kind: crate::Kind::Definition,
    what: "bssl speed also reads the tag out (EVP_CTRL_GCM_GET_TAG) after every message and \
        writes the ciphertext to a second buffer, and TimeFunction calls its lambda through a \
        std::function (an indirect call, the captures read through references); the column \
        encrypts in place with no tag read, as `openssl speed -aead` does, in a plain loop: a \
        fixed cost per message",
    band: (1.07, 1.16),
    measured: "scripts/aws-lc-speed-loops.cc 16, bssl speed's lambda copied and called through \
        std::function as TimeFunction does, beside the column's calls in a plain loop, against \
        the same libcrypto.so on the thread's CPU clock (2026-11-29 02:44 UTC, load 1.8-1.9, CPU \
        1): 74.7-75.8 ns against 64.9-65.5 ns, ours/bssl 1.147-1.157 in 8 rounds, 1.109-1.111 \
        in three fresh processes run beside bssl speed (its own figure 71.9-76.9 ns); of that \
        the std::function 1.003-1.028, the calls 1.088-1.127; at 8192 bytes the calls' \
        1.000-1.012 (scripts/aws-lc-loops.c, 2026-11-28). Six fresh processes of \
        `aws-lc-speed-loops 16 2`, each beside a run of bssl speed (2026-11-29 05:15:37-05:16:16 \
        UTC, load 1.9-2.1): ours/bssl 1.076-1.127 (bssl's lambda 71.7-75.1 ns, the column's \
        calls 64.8-68.8 ns, per process), bssl speed itself 214.7-223.2 MB/s (71.7-74.5 ns): \
        band 1.10-1.16 (2026-11-29 02:44 UTC) lowered to 1.07 by that measurement",
};

macro_rules! speed {
    ($p:expr, $op:expr, $bytes:expr, $args:expr, $row:expr, $loop:expr) => {
        speed!($p, $op, $bytes, $args, $row, $loop, None)
    };
    ($p:expr, $op:expr, $bytes:expr, $args:expr, $row:expr, $loop:expr, $diff:expr) => {
        Cell {
            primitive: $p,
            op: $op,
            bytes: $bytes,
            args: $args,
            row: $row,
            oracle_loop: $loop,
            difference: $diff,
        }
    };
}

static CELLS: &[Cell] = &[
    speed!(
        "sha256",
        Op::Hash,
        Some(16),
        &["-filter", "SHA-256", "-chunks", "{bytes}", "-timeout", "3"],
        "SHA-256 (16 bytes)",
        SHA,
        Some(DIGEST_CTX)
    ),
    speed!(
        "sha256",
        Op::Hash,
        Some(8192),
        &["-filter", "SHA-256", "-chunks", "{bytes}"],
        "SHA-256 (8192 bytes)",
        SHA
    ),
    speed!(
        "aes-128-gcm",
        Op::Encrypt,
        Some(16),
        &[
            "-filter",
            "EVP-AES-128-GCM",
            "-chunks",
            "{bytes}",
            "-timeout",
            "3"
        ],
        "EVP-AES-128-GCM encrypt (16 bytes)",
        GCM,
        Some(GCM_TAG)
    ),
    speed!(
        "aes-128-gcm",
        Op::Encrypt,
        Some(8192),
        &["-filter", "EVP-AES-128-GCM", "-chunks", "{bytes}"],
        "EVP-AES-128-GCM encrypt (8192 bytes)",
        GCM
    ),
    speed!(
        "rsa-2048",
        Op::Sign,
        None,
        &["-filter", "RSA 2048"],
        "RSA 2048 signing",
        "SpeedRSA: RSA_sign(NID_sha256) of a zero 32-byte digest (DigestInfo, PKCS#1 v1.5 \
        padding, the blinded CRT private operation) with the key kDERRSAPrivate2048 parsed once"
    ),
    speed!(
        "ecdsa-p256",
        Op::Sign,
        None,
        &["-filter", "ECDSA P-256"],
        "ECDSA P-256 signing",
        "SpeedECDSACurve: ECDSA_sign of a 20-byte digest with one EC_KEY generated once, a \
        fresh random k, DER signature"
    ),
    speed!(
        "ml-kem-768",
        Op::Keygen,
        None,
        &["-filter", "ML-KEM-768"],
        "ML-KEM-768 keygen",
        "SpeedSingleKEM: EVP_PKEY_keygen on one context into the same EVP_PKEY every call (the \
        previous key freed inside)"
    ),
    speed!(
        "ml-kem-768",
        Op::Encaps,
        None,
        &["-filter", "ML-KEM-768"],
        "ML-KEM-768 encaps",
        "SpeedSingleKEM: EVP_PKEY_encapsulate on one EVP_PKEY_CTX of the generated key, \
        ciphertext and secret written"
    ),
    speed!(
        "ml-kem-768",
        Op::Decaps,
        None,
        &["-filter", "ML-KEM-768"],
        "ML-KEM-768 decaps",
        "SpeedSingleKEM: EVP_PKEY_decapsulate of one valid ciphertext on one EVP_PKEY_CTX of \
        the generated key"
    ),
    speed!(
        "ml-dsa-65",
        Op::Keygen,
        None,
        &["-filter", "MLDSA65"],
        "MLDSA65 keygen",
        "SpeedDigestSignNID: EVP_PKEY_keygen on one context into the same EVP_PKEY every call"
    ),
    speed!(
        "ml-dsa-65",
        Op::Sign,
        None,
        &["-filter", "MLDSA65", "-timeout", "2"],
        "MLDSA65 signing",
        "SpeedDigestSignNID: EVP_DigestSign of a zero 32-byte message on one EVP_MD_CTX set up \
        once by EVP_DigestSignInit with no digest (pure ML-DSA, empty context, hedged)"
    ),
    speed!(
        "ml-dsa-65",
        Op::Verify,
        None,
        &["-filter", "MLDSA65", "-timeout", "2"],
        "MLDSA65 verify",
        "SpeedDigestSignNID: EVP_DigestVerify of that signature on the same EVP_MD_CTX"
    ),
];

impl Oracle for AwsLc {
    fn column(&self) -> &'static str {
        "aws-lc"
    }
    fn name(&self) -> &'static str {
        "bssl speed (tool/speed.cc)"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        setup(dir, log)
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let mut argv = vec![built.programs[0].display().to_string()];
        argv.extend(expand_args(cell));
        argv
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        let (calls, us) = did(output, cell.row)
            .with_context(|| format!("no `Did N {} operations in Tus` line", cell.row))?;
        Ok(cell.bytes.map_or(1.0, |b| b as f64) * calls * 1e6 / us)
    }
}

/// The library the column loads (built first when the cache lacks it), the crate tree's headers,
/// tool/ from the aws/aws-lc checkout, and `bssl-speed` built against that library, once per
/// library build.
fn setup(dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
    let entry = library(dir, log)?;
    let library = cmake::ready_library(&entry).context("the AWS-LC build failed")?;
    let (tree, crate_commit) = crate_tree(dir, &entry, log)?;
    let tool = tool_sources(dir, &tree, &crate_commit, log)?;
    let program = dir.join(&entry.manifest.key).join("bssl-speed");
    let argv = compile_argv(&program, &library);
    if !program.exists() {
        std::fs::create_dir_all(program.parent().context("no program directory")?)?;
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run(&argv, &tree.join("tool"), log).context("building bssl speed")?;
    }
    let m = &entry.manifest;
    Ok(Provenance {
        source: format!(
            "bssl speed from tool/ of {tool}; headers and library from {} (aws/aws-lc commit \
             {crate_commit}, crate sha256 {})",
            m.source.version, m.source.sha256
        ),
        library: format!(
            "{} (variant {}: the libcrypto.so the aws-lc column loads, no symbol prefix)",
            library.display(),
            m.key
        ),
        programs: vec![program],
        build: vec![
            m.configure_command.join(" "),
            format!("(cd {} && {})", tree.join("tool").display(), argv.join(" ")),
        ],
    })
}

/// The AWS-LC build in the cache this oracle directory lives in (CACHE/oracles/aws-lc), the
/// one the column loads; built with cmake (`variant build-library aws-lc`) when it is missing.
fn library(dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Entry> {
    let root = dir
        .parent()
        .and_then(Path::parent)
        .context("no cache root")?;
    let cache = Cache::open(Some(root.to_path_buf()));
    let lib = &cmake::AWS_LC;
    if cmake::cached(lib, &cache)?.is_none() {
        log(&format!(
            "building AWS-LC with cmake from the {} {} crate into {} (`cryptospeed variant \
             build-library aws-lc`; a few minutes)",
            lib.crate_name,
            lib.crate_version,
            cache.variants_dir().display()
        ));
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    cmake::build(
        lib,
        &cache,
        jobs,
        &std::sync::atomic::AtomicBool::new(false),
    )
}

/// The crate's AWS-LC tree (the library's source and headers), unpacked once from the `.crate`
/// the library was built from, and the aws/aws-lc commit the crate names.
fn crate_tree(dir: &Path, entry: &Entry, log: &mut dyn FnMut(&str)) -> Result<(PathBuf, String)> {
    let lib = &cmake::AWS_LC;
    let top = dir.join(format!("{}-{}", lib.crate_name, lib.crate_version));
    if !top.join(lib.tree).join("include").is_dir() {
        let archive = &entry.manifest.source.location;
        std::fs::create_dir_all(dir)?;
        run(
            &["tar", "-xzf", archive, "-C", &dir.to_string_lossy()],
            dir,
            log,
        )
        .with_context(|| format!("unpacking {archive}"))?;
    }
    let manifest = std::fs::read_to_string(top.join("Cargo.toml"))?;
    let commit = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("commit-hash = "))
        .map(|c| c.trim_matches('"').to_string())
        .unwrap_or_else(|| "unnamed".into());
    Ok((top.join(lib.tree), commit))
}

/// tool/ in the crate tree, copied once from `$CRYPTOSPEED_AWS_LC_SRC/tool`; where it came from
/// (repository, commit, path), kept in `dir/TOOL_SOURCE`.
fn tool_sources(
    dir: &Path,
    tree: &Path,
    crate_commit: &str,
    log: &mut dyn FnMut(&str),
) -> Result<String> {
    let stamp = dir.join("TOOL_SOURCE");
    let tool = tree.join("tool");
    if let Ok(s) = std::fs::read_to_string(&stamp) {
        if SOURCES.iter().all(|f| tool.join(f).is_file()) {
            return Ok(s.trim().to_string());
        }
    }
    let Some(src) = std::env::var_os(SOURCE_ENV).map(PathBuf::from) else {
        bail!(
            "bssl speed's sources are not here: AWS-LC's tool/ is not in the aws-lc-sys crate. \
             Get aws/aws-lc (`git clone https://github.com/aws/aws-lc`; the crate's tree is \
             commit {crate_commit}) and run again with {SOURCE_ENV}=/path/to/aws-lc: its tool/ \
             is copied into {}",
            tool.display()
        );
    };
    if !src.join("tool").join("speed.cc").is_file() {
        bail!(
            "{SOURCE_ENV}={} has no tool/speed.cc: it must name an aws/aws-lc checkout",
            src.display()
        );
    }
    std::fs::create_dir_all(&tool)?;
    for e in std::fs::read_dir(src.join("tool"))?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".cc") || name.ends_with(".h") {
            std::fs::copy(e.path(), tool.join(&name))?;
        }
    }
    let source = format!("aws/aws-lc {} ({})", git_commit(&src), src.display());
    log(&format!("copied tool/ of {source} into {}", tool.display()));
    std::fs::write(&stamp, &source)?;
    Ok(source)
}

/// The checkout's commit, or a note saying it is not a git checkout.
fn git_commit(src: &Path) -> String {
    std::process::Command::new("git")
        .arg("-C")
        .arg(src)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| format!("commit {}", String::from_utf8_lossy(&o.stdout).trim()))
        .unwrap_or_else(|| "(not a git checkout: commit unknown)".into())
}

/// The compiler command (run in tool/): `build_benchmark`'s four sources, the tree's headers,
/// Release flags as AWS-LC's cmake sets them, linked against the column's libcrypto.so by
/// path, found again at run time through the run path.
fn compile_argv(program: &Path, library: &Path) -> Vec<String> {
    let libdir = library.parent().unwrap_or(Path::new("."));
    let mut argv: Vec<String> = [
        "c++",
        "-O3",
        "-DNDEBUG",
        "-std=c++17",
        "-Wno-deprecated-declarations",
        "-I../include",
        "-o",
    ]
    .map(String::from)
    .to_vec();
    argv.push(program.display().to_string());
    argv.extend(SOURCES.map(String::from));
    argv.push(library.display().to_string());
    argv.push(format!("-Wl,-rpath,{}", libdir.display()));
    argv.push("-lpthread".into());
    argv
}

/// The call count and microseconds of `bssl speed`'s line `Did N ROW operations in Tus (…)`.
fn did(output: &str, row: &str) -> Option<(f64, f64)> {
    output.lines().find_map(|line| {
        let (calls, rest) = line.strip_prefix("Did ")?.split_once(' ')?;
        let rest = rest.strip_prefix(row)?.strip_prefix(" operations in ")?;
        let us = rest.split_once("us")?.0;
        Some((calls.parse().ok()?, us.parse().ok()?)).filter(|&(_, us): &(f64, f64)| us > 0.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_did_lines() {
        let out = "Did 837000 EVP-AES-128-GCM encrypt init operations in 303953us (2753715.2 ops/sec)\n\
            Did 1858500 EVP-AES-128-GCM encrypt (16 bytes) operations in 301883us (6156358.6 ops/sec): 98.5 MB/s\n\
            Did 850 RSA 2048 signing operations in 397672us (2137.4 ops/sec)\n";
        let gcm = &CELLS[2];
        let rate = AwsLc.parse(gcm, out).unwrap();
        assert!(
            (rate - 16.0 * 1858500.0 * 1e6 / 301883.0).abs() < 1e-3,
            "{rate}"
        );
        let rsa = &CELLS[4];
        assert!((AwsLc.parse(rsa, out).unwrap() - 850.0 * 1e6 / 397672.0).abs() < 1e-6);
        assert!(AwsLc.parse(&CELLS[0], out).is_err());
    }

    /// The idle run of 2026-11-29 03:44 UTC read aes-128-gcm@16 at 1.087-1.150: past the band
    /// of 02:44 UTC (1.10-1.16) and undecided; the fresh processes of 05:15 UTC measured the
    /// difference down to 1.076, and that band (1.07-1.16) holds the run's interval.
    #[test]
    fn the_gcm_16_run_of_03_44_is_explained_by_the_band_measured_at_05_15() {
        use crate::rounds::Pairs;
        use crate::rule::{ratio_interval, verdict, Verdict};
        let pairs = Pairs {
            oracle: vec![
                210866237.0,
                211292638.0,
                213232648.0,
                220409706.0,
                220858405.0,
                224292571.0,
            ],
            ours: vec![
                241661464.0,
                240139387.0,
                237954621.0,
                244352128.0,
                245287258.0,
                245099941.0,
            ],
            ..Pairs::default()
        };
        let (_, ci) = ratio_interval(&pairs);
        assert!(
            (ci[0] - 1.0865).abs() < 1e-3 && (ci[1] - 1.1501).abs() < 1e-3,
            "{ci:?}"
        );
        let d = CELLS[2].difference.unwrap();
        assert_eq!(d.band, (1.07, 1.16));
        assert_eq!(verdict(ci, Some(&d)), Verdict::Explained);
        let old = Difference {
            band: (1.10, 1.16),
            ..d
        };
        assert_eq!(verdict(ci, Some(&old)), Verdict::Undecided);
    }
}
