//! `go`: Go's crypto (standard library, golang.org/x/crypto, and Cloudflare's CIRCL for the
//! post-quantum schemes the standard library lacks), measured by the Go worker
//! (workers/go), an executable of its own that speaks the worker protocol. It exists because Go's
//! crypto can be called at full speed only from Go: this module finds (or builds) that executable
//! and makes `cryptospeed worker --impl go` become it.
//!
//! The orchestrator starts every worker as `cryptospeed worker --impl NAME`; for `go`, the
//! constructor replaces that process with the Go worker (execve), which then answers on the same
//! pipes with the same process id, process group, CPU affinity (`--pin` is applied before) and
//! environment (`GODEBUG=cpu.X=off` included). It returns only when that cannot happen, with the
//! reason, which the worker sends in reply to `hello`: no Go toolchain of at least 1.24 on
//! `PATH`, or a build that failed.
//!
//! The executable is built with the Go toolchain on the machine into the cache
//! (`$CRYPTOSPEED_CACHE`, else `~/.cache/cryptospeed`), in `go-worker-KEY/`, KEY hashing the
//! worker's source (embedded in cryptospeed, so a changed source is a new build) and the Go
//! version (and `GOAMD64`, `GOEXPERIMENT`, `GOFLAGS`); scripts/setup fetches its modules from the
//! Go module proxy and fills Go's build cache ahead, so this build only links.
//! `--impl go:PATH` or `CRYPTOSPEED_GO_WORKER=PATH` names an executable to use instead.

use crate::declared::{Conformance::*, Declared, State::*};
use crate::ImplOptions;
use cryptospeed_engine::Implementation;
use cryptospeed_model::Op;
use sha2::{Digest, Sha256};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Go worker's source, embedded so any cryptospeed binary can build the worker it speaks
/// with (test files excluded: they are not part of the executable).
pub const SOURCES: &[(&str, &str)] = &[
    ("go.mod", include_str!("../../../workers/go/go.mod")),
    ("go.sum", include_str!("../../../workers/go/go.sum")),
    ("main.go", include_str!("../../../workers/go/main.go")),
    ("suite.go", include_str!("../../../workers/go/suite.go")),
    ("kat.go", include_str!("../../../workers/go/kat.go")),
    ("cells.go", include_str!("../../../workers/go/cells.go")),
    ("kem.go", include_str!("../../../workers/go/kem.go")),
    ("hybrid.go", include_str!("../../../workers/go/hybrid.go")),
    ("slh.go", include_str!("../../../workers/go/slh.go")),
    ("mldsa.go", include_str!("../../../workers/go/mldsa.go")),
    ("kem512.go", include_str!("../../../workers/go/kem512.go")),
    ("modules.go", include_str!("../../../workers/go/modules.go")),
    (
        "handshake.go",
        include_str!("../../../workers/go/handshake.go"),
    ),
    ("resumed.go", include_str!("../../../workers/go/resumed.go")),
    (
        "handshake_old.go",
        include_str!("../../../workers/go/handshake_old.go"),
    ),
    (
        "kem_derand.go",
        include_str!("../../../workers/go/kem_derand.go"),
    ),
    (
        "kem_derand_old.go",
        include_str!("../../../workers/go/kem_derand_old.go"),
    ),
    (
        "tsc_amd64.go",
        include_str!("../../../workers/go/tsc_amd64.go"),
    ),
    (
        "tsc_amd64.s",
        include_str!("../../../workers/go/tsc_amd64.s"),
    ),
    (
        "tsc_other.go",
        include_str!("../../../workers/go/tsc_other.go"),
    ),
];

/// The oldest Go whose standard library the worker builds with (crypto/sha3 is new in 1.24).
pub const MIN_GO: (u32, u32) = (1, 24);

const EXE: &str = "cryptospeed-go-worker";

/// Where this column's timed calls depart from the catalog's definitions (declared.rs), against
/// version 2 of the post-quantum ones (key objects holding Â are ML-KEM's norm, so Go's and
/// CIRCL's ML-KEM encaps and decaps conform; ML-DSA's norm expands Â per call); the first
/// declaration that covers a cell is its conformance. ML-KEM-768 and -1024 are Go's
/// crypto/mlkem; ML-KEM-512 and ML-DSA are CIRCL's (workers/go kem512.go, mldsa.go), whose
/// ML-KEM keys parse and write FIPS 203's expanded decapsulation key.
pub const DECLARED: &[Declared] = &[
    Declared {
        kinds: &["tls13-handshake"],
        ops: &[Op::HandshakeResumed],
        note: Deviates(
            "Go's server issues a new ticket in every resumed handshake (no setting stops it): \
             each call also issues one, which the client reads and offers next call",
        ),
    },
    Declared {
        kinds: &["ml-kem-768", "ml-kem-1024"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Departs(
            &[ContextPerCall],
            "crypto/mlkem's Encapsulate and Decapsulate return new slices: Go's API allocates the outputs in every call",
        ),
    },
    Declared {
        kinds: &["hybrid-kem"],
        ops: &[Op::Encaps, Op::Decaps],
        note: Departs(
            &[ContextPerCall, AllocationPerCall],
            "crypto/mlkem and crypto/ecdh return new slices (and ecdh a new key) per call, and the worker appends the X25519 part to them",
        ),
    },
    Declared {
        kinds: &["ml-kem-768", "ml-kem-1024"],
        ops: &[Op::KeygenEncode],
        note: Departs(
            &[SeedForm, AllocationPerCall],
            "the private key is written as its 64-byte seed (Go's only private encoding), into a new slice per call",
        ),
    },
    Declared {
        kinds: &["ml-kem-768", "ml-kem-1024"],
        ops: &[Op::DecapsParse],
        note: Departs(
            &[SeedForm, ContextPerCall],
            "parses the 64-byte seed: the key pair is re-derived (Go has no expanded-key parser); Decapsulate returns a new slice",
        ),
    },
    Declared {
        kinds: &["hybrid-kem"],
        ops: &[Op::KeygenEncode, Op::DecapsParse],
        note: NotOffered("the Go worker's hybrid key has no byte encoding"),
    },
    Declared {
        kinds: &["ml-kem", "hybrid-kem"],
        ops: &[Op::EncapsParse],
        note: Departs(
            &[AllocationPerCall, ContextPerCall],
            "the worker makes its encapsulation closure per call (kem.go encapsulator; Go allocates it), and Go's API new output slices",
        ),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::KeygenEncode],
        note: Departs(
            &[ContextPerCall],
            "CIRCL's Bytes() returns each key's encoding in a new slice per call",
        ),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Sign],
        note: Departs(
            &[PrecomputedInKey],
            "CIRCL's signing key caches Â and s1, s2, t0 in NTT form, computed by keygen before timing",
        ),
    },
    Declared {
        kinds: &["ml-dsa"],
        ops: &[Op::Verify],
        note: Departs(
            &[PrecomputedInKey],
            "CIRCL's public key caches Â, computed by keygen before timing",
        ),
    },
    Declared {
        kinds: &["slh-dsa"],
        ops: crate::declared::FROM_BYTES,
        note: NotOffered("the Go worker has no from-bytes calls for SLH-DSA"),
    },
];

/// Replaces this process with the Go worker (`go:PATH` names another build of it); returns only
/// with the reason it cannot.
pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let exe = match &options.library {
        Some(path) if Path::new(path).is_file() => PathBuf::from(path),
        Some(path) => return Err(format!("go:{path}: no such Go worker executable")),
        None => worker_executable()?,
    };
    let err = Command::new(&exe).exec();
    Err(format!(
        "cannot start the Go worker {}: {err}",
        exe.display()
    ))
}

/// The `go` command on `PATH` and its version (`go1.26.8`), if it is at least [`MIN_GO`].
pub fn toolchain() -> Result<(PathBuf, String), String> {
    let needs = format!("needs Go ≥ {}.{}", MIN_GO.0, MIN_GO.1);
    let go = std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join("go"))
                .find(|p| p.is_file())
        })
        .ok_or_else(|| format!("{needs}: no `go` command on PATH (https://go.dev/dl/)"))?;
    let out = Command::new(&go)
        .args(["env", "GOVERSION"])
        .env("GOTOOLCHAIN", "local")
        .output()
        .map_err(|e| format!("{needs}: cannot run {}: {e}", go.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match parse_version(&version) {
        Some(v) if v >= MIN_GO => Ok((go, version)),
        Some(_) => Err(format!("{needs}: {} is {version}", go.display())),
        None => Err(format!(
            "{needs}: {} reports no version ({version:?})",
            go.display()
        )),
    }
}

/// `go1.24.3` → (1, 24); release candidates (`go1.25rc1`) count as their release.
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("go")?;
    let mut parts = rest.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    Some((major, minor.parse().ok()?))
}

/// The cache the Go worker is built into (the variants' cache root).
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("CRYPTOSPEED_CACHE").filter(|v| !v.is_empty()) {
        return dir.into();
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("cryptospeed")
}

/// Environment variables that change what `go build` makes, and so are part of the key.
const BUILD_ENV: &[&str] = &["GOAMD64", "GOEXPERIMENT", "GOFLAGS"];

/// The build's cache key: the embedded source, the Go version and the build environment.
pub fn key(go_version: &str) -> String {
    let mut h = Sha256::new();
    for (name, text) in SOURCES {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    h.update(go_version.as_bytes());
    for var in BUILD_ENV {
        h.update([0]);
        h.update(std::env::var(var).unwrap_or_default().as_bytes());
    }
    hex::encode(&h.finalize()[..8])
}

/// The Go worker executable: `CRYPTOSPEED_GO_WORKER`, or the cached build for this source and
/// toolchain, built now if it is not there yet.
pub fn worker_executable() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CRYPTOSPEED_GO_WORKER").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "CRYPTOSPEED_GO_WORKER names {}, which is not a file",
                path.display()
            ))
        };
    }
    let (go, version) = toolchain()?;
    build(&go, &version, &cache_root())
}

/// Builds the worker into `root/go-worker-KEY/` unless it is there: from the embedded source in
/// a staging directory, renamed into place, one builder at a time (a lock file beside it).
pub fn build(go: &Path, version: &str, root: &Path) -> Result<PathBuf, String> {
    let dir = root.join(format!("go-worker-{}", key(version)));
    let exe = dir.join(EXE);
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let lock_path = root.join("go-worker.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    // SAFETY: flock on a descriptor we own; released when `lock` is closed.
    if unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) } != 0 {
        return Err(format!("cannot lock {}", lock_path.display()));
    }
    if exe.is_file() {
        return Ok(exe); // another process built it while we waited
    }
    let staging = root.join(format!("go-worker-build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    for (name, text) in SOURCES {
        std::fs::write(staging.join(name), text)
            .map_err(|e| format!("cannot write the Go worker's {name}: {e}"))?;
    }
    let out = Command::new(go)
        .args(["build", "-trimpath", "-o", EXE, "."])
        .current_dir(&staging)
        .env("GOTOOLCHAIN", "local")
        .env(
            "GOFLAGS",
            format!(
                "-mod=readonly {}",
                std::env::var("GOFLAGS").unwrap_or_default()
            ),
        )
        .env("CGO_ENABLED", "0")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", go.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "building the Go worker with {version} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&staging, &dir)
        .map_err(|e| format!("cannot move the Go worker into {}: {e}", dir.display()))?;
    Ok(exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        assert_eq!(parse_version("go1.24.0"), Some((1, 24)));
        assert_eq!(parse_version("go1.26.8"), Some((1, 26)));
        assert_eq!(parse_version("go1.25rc1"), Some((1, 25)));
        assert!(parse_version("go1.19.8").unwrap() < MIN_GO);
        assert_eq!(parse_version("devel"), None);
    }

    #[test]
    fn every_source_file_of_the_worker_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workers/go");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| {
                (n.ends_with(".go") || n.ends_with(".s") || n == "go.mod" || n == "go.sum")
                    && !n.ends_with("_test.go")
            })
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = SOURCES.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "SOURCES must list the Go worker's files");
        // The key changes with the toolchain.
        assert_ne!(key("go1.24.0"), key("go1.26.8"));
    }
}
