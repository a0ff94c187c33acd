//! Libraries of the BoringSSL family (AWS-LC, BoringSSL) built with cmake from the source tree a
//! crates.io package carries (`aws-lc-sys`, `boring-sys`), into the variant cache. They exist
//! because neither library ships in Debian and neither builds with OpenSSL's Configure: each is
//! built once as a shared libcrypto without a symbol prefix (so the `openssl` implementation's
//! EVP calls reach it by dlopen) and kept beside the OpenSSL variants, keyed by the crate's
//! SHA-256, the cmake arguments and the toolchain. BoringSSL's build also makes `bssl_bench`
//! (Google Benchmark, vendored in the tree), the oracle its figures are checked against.
//!
//! The source comes only from cargo's registry: the `.crate` in cargo's cache, or fetched with
//! `cargo info NAME@VERSION` from crates.io. Every program runs from an argument vector. Like an
//! OpenSSL variant, a build's files are hashed when it is cached and checked when it is found.

use crate::build::{build_root, lock_key, step, tail};
use crate::cache::{load_manifest, save_manifest, BuildStatus, Cache, Entry, Manifest};
use crate::compiler::{self, CompilerInfo};
use crate::source::{cargo_home, sha256_file, SourceInfo};
use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// One library of the family: where its tree is and how it is built.
#[derive(Debug)]
pub struct CmakeLibrary {
    /// The label in the cache and the implementation's name: `aws-lc`, `boringssl`.
    pub label: &'static str,
    /// What the library is called in messages.
    pub title: &'static str,
    pub crate_name: &'static str,
    pub crate_version: &'static str,
    /// The cmake source directory inside the unpacked crate.
    pub tree: &'static str,
    /// cmake options beyond the common ones (Release, shared, `-Bsymbolic`, `$ORIGIN` run path).
    pub cmake_args: &'static [&'static str],
    /// Build targets.
    pub targets: &'static [&'static str],
    /// The library a worker loads: libcrypto, or one that depends on it and adds to it
    /// (BoringSSL's libdecrepit: Blowfish, CAST, RIPEMD-160), whose symbols dlsym finds along
    /// with libcrypto's.
    pub load: &'static str,
    /// Other shared libraries the build must make (AWS-LC's `libssl.so`, which its TLS
    /// handshake cells load): a build without one is failed, a cached one is not found.
    pub libraries: &'static [&'static str],
    /// Executables kept beside the libraries (`bssl_bench`).
    pub programs: &'static [&'static str],
    /// Needs a C++ compiler (BoringSSL is C++ now).
    pub cxx: bool,
}

pub const AWS_LC: CmakeLibrary = CmakeLibrary {
    label: "aws-lc",
    title: "AWS-LC",
    crate_name: "aws-lc-sys",
    crate_version: "0.47.0",
    tree: "aws-lc",
    // The crate carries pre-generated assembly and sources: neither Go nor Perl is needed.
    // libssl (C++) is built beside libcrypto for the TLS handshake cells.
    cmake_args: &[
        "-DBUILD_TESTING=OFF",
        "-DBUILD_LIBSSL=ON",
        "-DBUILD_TOOL=OFF",
        "-DDISABLE_GO=ON",
        "-DDISABLE_PERL=ON",
        "-DENABLE_SOURCE_MODIFICATION=OFF",
    ],
    targets: &["crypto", "ssl"],
    load: "libcrypto.so",
    libraries: &["libssl.so"],
    programs: &[],
    cxx: true,
};

pub const BORINGSSL: CmakeLibrary = CmakeLibrary {
    label: "boringssl",
    title: "BoringSSL",
    crate_name: "boring-sys",
    crate_version: "5.4.0",
    tree: "deps/boringssl",
    // BUILD_TESTING declares bssl_bench (and its vendored Google Benchmark); only the targets
    // below are built.
    cmake_args: &["-DBUILD_TESTING=ON"],
    targets: &["crypto", "decrepit", "bssl_bench"],
    load: "libdecrepit.so",
    libraries: &[],
    programs: &["bssl_bench"],
    cxx: true,
};

/// The libraries this module builds, by label.
pub const LIBRARIES: &[&CmakeLibrary] = &[&AWS_LC, &BORINGSSL];

pub fn library(label: &str) -> Result<&'static CmakeLibrary> {
    LIBRARIES
        .iter()
        .copied()
        .find(|l| l.label == label)
        .with_context(|| {
            format!(
                "no library '{label}' is built with cmake; known: {}",
                LIBRARIES
                    .iter()
                    .map(|l| l.label)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// `NAME-VERSION.crate` in cargo's download cache, fetched from crates.io by `cargo info` when
/// it is not there yet.
fn crate_file(lib: &CmakeLibrary) -> Result<PathBuf> {
    let file = format!("{}-{}.crate", lib.crate_name, lib.crate_version);
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(cargo_home().join("registry").join("cache"))
            .ok()?
            .flatten()
            .map(|reg| reg.path().join(&file))
            .find(|p| p.is_file())
    };
    if let Some(p) = find() {
        return Ok(p);
    }
    let spec = format!("{}@{}", lib.crate_name, lib.crate_version);
    let out = Command::new("cargo")
        .args(["info", &spec])
        .current_dir(std::env::temp_dir())
        .output()
        .with_context(|| format!("cannot fetch {spec}: cargo did not start"))?;
    if !out.status.success() {
        bail!(
            "cargo could not fetch {spec}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    find().with_context(|| format!("cargo info {spec} succeeded but no {file} appeared"))
}

/// A program's path and first `--version` line; missing, the Debian package that brings it.
fn tool(name: &str) -> Result<CompilerInfo> {
    let package = match name {
        "cmake" => "cmake",
        "cc" => "gcc",
        "c++" => "g++",
        "ninja" => "ninja-build",
        other => other,
    };
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(name).is_file()));
    if !on_path {
        bail!("needs {name}, which is not on PATH (apt-get install {package})");
    }
    compiler::probe(name).with_context(|| format!("needs a working {name}"))
}

/// What a build depends on, resolved: the crate and the tools.
struct Plan {
    crate_path: PathBuf,
    crate_sha256: String,
    cmake: CompilerInfo,
    cc: CompilerInfo,
    cxx: Option<CompilerInfo>,
    ninja: Option<CompilerInfo>,
    key: String,
}

fn plan(lib: &CmakeLibrary) -> Result<Plan> {
    let cmake = tool("cmake")?;
    let cc = tool("cc")?;
    let cxx = match lib.cxx {
        true => Some(tool("c++").map_err(|e| {
            anyhow!(
                "{} is built with a C++ compiler, and finding its cached build needs one too (the \
                 compiler's version is part of the cache key): {e:#}",
                lib.title
            )
        })?),
        false => None,
    };
    let ninja = tool("ninja").ok();
    let crate_path = crate_file(lib)?;
    let crate_sha256 = sha256_file(&crate_path)?;
    let mut plan = Plan {
        crate_path,
        crate_sha256,
        cmake,
        cc,
        cxx,
        ninja,
        key: String::new(),
    };
    plan.key = key(&plan, lib);
    Ok(plan)
}

/// The cache key: the crate's hash, the tools' versions, and how the library is built hashed as
/// the build's own commands ([`configure_command`], [`build_command`]) with placeholders for the
/// build's directories and jobs, and the files it keeps: a changed cmake option, target or
/// linker flag is another key, so a warm cache builds the library again.
fn key(plan: &Plan, lib: &CmakeLibrary) -> String {
    let (tree, bld) = (Path::new("/@work/src"), Path::new("/@work/build"));
    let mut h = Sha256::new();
    let tools = [
        lib.label,
        lib.crate_name,
        lib.crate_version,
        lib.tree,
        &plan.crate_sha256,
        &plan.cmake.version,
        &plan.cc.version,
        plan.cxx.as_ref().map_or("", |c| c.version.as_str()),
    ];
    let commands = [
        configure_command(plan, lib, tree, bld),
        build_command(plan, lib, bld, 1),
    ];
    let kept = std::iter::once(lib.load)
        .chain(lib.programs.iter().copied())
        .map(str::to_string);
    for part in tools
        .map(str::to_string)
        .into_iter()
        .chain(commands.map(|c| c.join("\u{1}")))
        .chain(kept)
    {
        h.update(part.as_bytes());
        h.update([0]);
    }
    format!("{}-{}", lib.label, hex::encode(&h.finalize()[..6]))
}

/// What the cache holds for this library and toolchain, if anything (ready, or a failed build
/// that is not retried until the source or the toolchain changes).
pub fn cached(lib: &CmakeLibrary, cache: &Cache) -> Result<Option<Entry>> {
    let plan = plan(lib)?;
    found(cache.dir_for(&plan.key), lib)
}

/// The entry in `dir`, if there is one, refused when its files are not the bytes it was cached
/// with (crate::files). A built entry that lacks one of the library's files (an AWS-LC build
/// whose `ssl` target made no `libssl.so`) is not found, so the next build replaces it.
fn found(dir: PathBuf, lib: &CmakeLibrary) -> Result<Option<Entry>> {
    let Ok(manifest) = load_manifest(&dir) else {
        return Ok(None);
    };
    if manifest.status != BuildStatus::Failed && missing(lib, &dir).is_some() {
        return Ok(None);
    }
    let mut entry = Entry { dir, manifest };
    crate::files::check_or_record(&mut entry)?;
    Ok(Some(entry))
}

/// Whether another process is building this library now (it holds the key's lock).
pub fn building(lib: &CmakeLibrary, cache: &Cache) -> bool {
    let Ok(plan) = plan(lib) else {
        return false;
    };
    let path = cache.variants_dir().join(format!("{}.lock", plan.key));
    match File::open(&path) {
        Ok(f) => {
            let held = f.try_lock().is_err();
            drop(f);
            held
        }
        Err(_) => false,
    }
}

/// Builds the library unless the cache has it; one builder per key (a lock file), the result
/// moved into place by one rename. A failed build is kept (status `failed`, with its log).
pub fn build(lib: &CmakeLibrary, cache: &Cache, jobs: usize, cancel: &AtomicBool) -> Result<Entry> {
    let plan = plan(lib)?;
    let final_dir = cache.dir_for(&plan.key);
    if let Some(entry) = found(final_dir.clone(), lib)? {
        return Ok(entry);
    }
    let _lock = lock_key(cache, &plan.key)?;
    if let Some(entry) = found(final_dir.clone(), lib)? {
        return Ok(entry); // built by another process while we waited
    }
    let started = Instant::now();
    let work = build_root(&plan.key)?;
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let staging = cache
        .variants_dir()
        .join(format!("{}.staging-{}", plan.key, std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)?;
    let log_path = staging.join("build.log");
    let mut log = File::create(&log_path)?;
    let src = work.join("src");
    let bld = work.join("build");
    let result = (|| -> std::result::Result<Vec<String>, String> {
        crate::source::unpack_tar_gz(&plan.crate_path, &src).map_err(|e| e.to_string())?;
        let tree = src
            .join(format!("{}-{}", lib.crate_name, lib.crate_version))
            .join(lib.tree);
        let configure = configure_command(&plan, lib, &tree, &bld);
        step(&mut log, &log_path, &configure, &work, cancel)?;
        step(
            &mut log,
            &log_path,
            &build_command(&plan, lib, &bld, jobs),
            &work,
            cancel,
        )?;
        collect_outputs(lib, &bld, &staging)?;
        Ok(configure)
    })();
    let _ = std::fs::remove_dir_all(&work);
    let (status, detail, configure) = match result {
        Ok(c) => (BuildStatus::Unverified, String::new(), c),
        Err(e) => (
            BuildStatus::Failed,
            format!("{e}\n{}", tail(&log_path, 15)),
            Vec::new(),
        ),
    };
    let mut manifest = manifest(&plan, lib, (status, detail), configure, started);
    if manifest.status != BuildStatus::Failed {
        manifest.files = crate::files::record(&staging)?;
    }
    save_manifest(&staging, &manifest)?;
    let _ = std::fs::remove_dir_all(&final_dir);
    std::fs::rename(&staging, &final_dir)
        .with_context(|| format!("cannot move the build into {}", final_dir.display()))?;
    Ok(Entry {
        dir: final_dir,
        manifest,
    })
}

/// The cmake configure command: a Release build of shared libraries whose own calls bind inside
/// them, never to another libcrypto in the process; the programs find the libraries beside them.
fn configure_command(plan: &Plan, lib: &CmakeLibrary, tree: &Path, bld: &Path) -> Vec<String> {
    let generator = if plan.ninja.is_some() {
        "Ninja"
    } else {
        "Unix Makefiles"
    };
    let mut configure: Vec<String> = vec![
        plan.cmake.path.clone(),
        "-S".into(),
        tree.to_string_lossy().into_owned(),
        "-B".into(),
        bld.to_string_lossy().into_owned(),
        "-G".into(),
        generator.into(),
        "-DCMAKE_BUILD_TYPE=Release".into(),
        "-DBUILD_SHARED_LIBS=ON".into(),
        format!("-DCMAKE_C_COMPILER={}", plan.cc.path),
        "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-Bsymbolic".into(),
        "-DCMAKE_SKIP_BUILD_RPATH=ON".into(),
        "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON".into(),
        "-DCMAKE_INSTALL_RPATH=$ORIGIN".into(),
    ];
    if let Some(cxx) = &plan.cxx {
        configure.push(format!("-DCMAKE_CXX_COMPILER={}", cxx.path));
    }
    configure.extend(lib.cmake_args.iter().map(|a| a.to_string()));
    configure
}

/// The cmake build command: the library's targets, `jobs` at a time.
fn build_command(plan: &Plan, lib: &CmakeLibrary, bld: &Path, jobs: usize) -> Vec<String> {
    let mut make: Vec<String> = vec![
        plan.cmake.path.clone(),
        "--build".into(),
        bld.to_string_lossy().into_owned(),
        "--parallel".into(),
        jobs.max(1).to_string(),
        "--target".into(),
    ];
    make.extend(lib.targets.iter().map(|t| t.to_string()));
    make
}

/// Copies every shared library and program the build made, flat, into `staging`; the library
/// to load, the other libraries and every program must be among them.
fn collect_outputs(
    lib: &CmakeLibrary,
    bld: &Path,
    staging: &Path,
) -> std::result::Result<(), String> {
    for e in walkdir::WalkDir::new(bld).into_iter().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let keep = (name.ends_with(".so") || name.contains(".so."))
            || lib.programs.contains(&name.as_str());
        // Versioned names (libbenchmark.so.1) are symlinks in the build: copied as files.
        if keep && !e.file_type().is_dir() {
            std::fs::copy(e.path(), staging.join(&name))
                .map_err(|err| format!("cannot copy {name}: {err}"))?;
        }
    }
    match missing(lib, staging) {
        Some(needed) => Err(format!("the build made no {needed}")),
        None => Ok(()),
    }
}

/// The first of the library's files (the library to load, the other libraries, the programs)
/// that `dir` lacks.
fn missing(lib: &CmakeLibrary, dir: &Path) -> Option<&'static str> {
    std::iter::once(lib.load)
        .chain(lib.libraries.iter().copied())
        .chain(lib.programs.iter().copied())
        .find(|f| !dir.join(f).is_file())
}

/// The manifest of a finished (or failed) build.
fn manifest(
    plan: &Plan,
    lib: &CmakeLibrary,
    (status, detail): (BuildStatus, String),
    configure_command: Vec<String>,
    started: Instant,
) -> Manifest {
    Manifest {
        key: plan.key.clone(),
        label: lib.label.to_string(),
        status,
        detail,
        source: SourceInfo {
            kind: format!("{} crate", lib.crate_name),
            given: format!("{}@{}", lib.crate_name, lib.crate_version),
            location: plan.crate_path.to_string_lossy().into_owned(),
            version: format!(
                "{} from {} {}",
                lib.title, lib.crate_name, lib.crate_version
            ),
            sha256: plan.crate_sha256.clone(),
        },
        compiler: plan.cc.clone(),
        cflags: Vec::new(),
        no_asm: false,
        configure_args: lib.cmake_args.iter().map(|a| a.to_string()).collect(),
        target: std::env::consts::ARCH.to_string(),
        arch: std::env::consts::ARCH.to_string(),
        worker: None,
        configure_command,
        library: lib.load.to_string(),
        build_seconds: started.elapsed().as_secs_f64(),
        built_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        kats: Vec::new(),
        files: Default::default(),
    }
}

/// The path of a program kept with a built entry (`bssl_bench`).
pub fn program(entry: &Entry, name: &str) -> PathBuf {
    entry.dir.join(name)
}

/// Whether a path names a usable entry's library.
pub fn ready_library(entry: &Entry) -> Option<PathBuf> {
    let p = entry.library_path();
    (entry.manifest.status != BuildStatus::Failed && Path::new(&p).is_file()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An AWS-LC build that made libcrypto but no libssl is failed, and such a cached entry is
    /// not found (the next build replaces it).
    #[test]
    fn an_aws_lc_build_without_libssl_is_not_ready() {
        let bld = tempfile::tempdir().unwrap();
        let staging = tempfile::tempdir().unwrap();
        std::fs::write(bld.path().join("libcrypto.so"), b"x").unwrap();
        let err = collect_outputs(&AWS_LC, bld.path(), staging.path()).unwrap_err();
        assert!(err.contains("libssl.so"), "{err}");
        assert_eq!(missing(&AWS_LC, staging.path()), Some("libssl.so"));
        std::fs::write(bld.path().join("libssl.so"), b"x").unwrap();
        collect_outputs(&AWS_LC, bld.path(), staging.path()).unwrap();
        assert_eq!(missing(&AWS_LC, staging.path()), None);
        // A cached, built entry as an older build left it: libcrypto.so alone.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("libcrypto.so"), b"x").unwrap();
        let plan = Plan {
            crate_path: PathBuf::from("/x/aws-lc-sys-0.47.0.crate"),
            crate_sha256: "cd".repeat(32),
            cmake: tool_info("cmake"),
            cc: tool_info("cc"),
            cxx: Some(tool_info("c++")),
            ninja: None,
            key: "aws-lc-0123".into(),
        };
        let built = (BuildStatus::Unverified, String::new());
        let m = manifest(&plan, &AWS_LC, built, Vec::new(), Instant::now());
        save_manifest(dir.path(), &m).unwrap();
        assert!(found(dir.path().to_path_buf(), &AWS_LC).unwrap().is_none());
        std::fs::write(dir.path().join("libssl.so"), b"x").unwrap();
        assert!(found(dir.path().to_path_buf(), &AWS_LC).unwrap().is_some());
    }

    fn tool_info(name: &str) -> CompilerInfo {
        CompilerInfo {
            name: name.into(),
            path: format!("/usr/bin/{name}"),
            version: format!("{name} 1.0"),
        }
    }

    #[test]
    fn every_library_is_found_by_its_label() {
        assert_eq!(library("aws-lc").unwrap().crate_name, "aws-lc-sys");
        assert_eq!(library("boringssl").unwrap().programs, ["bssl_bench"]);
        let err = library("libressl").unwrap_err().to_string();
        assert!(err.contains("aws-lc, boringssl"), "{err}");
    }

    /// The key hashes the build's commands (issue 52): another cmake option, another target or
    /// another program kept is another key; the build's directories and jobs are not in it.
    #[test]
    fn a_changed_build_step_is_another_key() {
        let tool = |name: &str| CompilerInfo {
            name: name.into(),
            path: format!("/usr/bin/{name}"),
            version: format!("{name} 1.0"),
        };
        let plan = Plan {
            crate_path: PathBuf::from("/x/boring-sys-5.4.0.crate"),
            crate_sha256: "cd".repeat(32),
            cmake: tool("cmake"),
            cc: tool("cc"),
            cxx: Some(tool("c++")),
            ninja: Some(tool("ninja")),
            key: String::new(),
        };
        let base = key(&plan, &BORINGSSL);
        assert!(base.starts_with("boringssl-"), "{base}");
        assert_eq!(base, key(&plan, &BORINGSSL));
        let changed = [
            CmakeLibrary {
                cmake_args: &["-DBUILD_TESTING=ON", "-DOPENSSL_NO_ASM=1"],
                ..BORINGSSL
            },
            CmakeLibrary {
                targets: &["crypto", "decrepit"],
                ..BORINGSSL
            },
            CmakeLibrary {
                programs: &[],
                ..BORINGSSL
            },
        ];
        for lib in &changed {
            assert_ne!(key(&plan, lib), base, "{:?}", lib.cmake_args);
        }
        // make instead of ninja changes the configure command's generator, so the key.
        let make = Plan {
            ninja: None,
            ..plan
        };
        assert_ne!(key(&make, &BORINGSSL), base);
        let rendered = configure_command(&make, &BORINGSSL, Path::new("/s"), Path::new("/b"));
        assert!(rendered.contains(&"Unix Makefiles".to_string()));
    }
}
