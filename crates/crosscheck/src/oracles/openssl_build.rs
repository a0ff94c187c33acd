//! `openssl speed` of a built OpenSSL variant as the oracle of `--impl openssl:PATH`, PATH the
//! variant's library in the cache (`variant build`; its variant.json beside it). A variant keeps
//! only its libcrypto, so the `openssl` app is built here from the variant's recorded source
//! (checked against the recorded SHA-256) with its recorded Configure line: the same sources,
//! compiler and flags, hence the same libcrypto code, linked statically into the app. Its cells
//! are the post-quantum ones OpenSSL 3.5's `speed` times: ML-KEM-768, ML-DSA-65, the
//! X25519MLKEM768 hybrid (the provider's own KEM) and SLH-DSA-SHA2-128f.

use super::openssl::{speed_command, speed_figure};
use crate::{Cell, Clock, Oracle, Provenance};
use anyhow::{bail, Context, Result};
use cryptospeed_model::Op;
use cryptospeed_variants::source::{resolve, tree_hash};
use cryptospeed_variants::{Manifest, SourceSpec};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The oracle of one variant library.
pub struct OpenSslBuild {
    column: &'static str,
    library: &'static str,
}

/// The registry's entry: `--list` shows it; a run names the library (`openssl:PATH`).
pub static ANY: OpenSslBuild = OpenSslBuild {
    column: "openssl:PATH",
    library: "",
};

/// The oracle for a column spelled `openssl:PATH` (the registry entry's [`Oracle::bind`]).
pub fn for_column(column: &str) -> Option<&'static dyn Oracle> {
    column.strip_prefix("openssl:")?;
    let column: &'static str = Box::leak(column.to_string().into_boxed_str());
    let oracle = OpenSslBuild {
        column,
        library: &column["openssl:".len()..],
    };
    Some(Box::leak(Box::new(oracle)))
}

const SPEED: &[&str] = &["openssl", "speed", "-mr", "-seconds", "1"];
const KEM: &str = "openssl speed (3.5): EVP_PKEY_keygen on a context made once, the key freed; \
    EVP_PKEY_encapsulate on a context made once; EVP_PKEY_decapsulate with its keygen's key; \
    each counted for 1 s over user CPU time";
const SIG: &str = "openssl speed (3.5): EVP_PKEY_keygen; EVP_PKEY_sign of 32 zero bytes on an \
    EVP_PKEY_sign_message_init context (hedged); EVP_PKEY_verify of that signature; each \
    counted for 1 s over user CPU time";

macro_rules! pq {
    ($p:expr, $op:expr, $name:expr, $row:expr, $loop:expr) => {
        Cell {
            primitive: $p,
            op: $op,
            bytes: None,
            args: &[$name],
            row: $row,
            oracle_loop: $loop,
            difference: None,
        }
    };
}

static CELLS: &[Cell] = &[
    pq!("ml-kem-768", Op::Keygen, "ML-KEM-768", "+F9:", KEM),
    pq!("ml-kem-768", Op::Encaps, "ML-KEM-768", "+F9:", KEM),
    pq!("ml-kem-768", Op::Decaps, "ML-KEM-768", "+F9:", KEM),
    pq!("ml-dsa-65", Op::Keygen, "ML-DSA-65", "+F10:", SIG),
    pq!("ml-dsa-65", Op::Sign, "ML-DSA-65", "+F10:", SIG),
    pq!("ml-dsa-65", Op::Verify, "ML-DSA-65", "+F10:", SIG),
    pq!("x25519-mlkem768", Op::Keygen, "X25519MLKEM768", "+F9:", KEM),
    pq!("x25519-mlkem768", Op::Encaps, "X25519MLKEM768", "+F9:", KEM),
    pq!("x25519-mlkem768", Op::Decaps, "X25519MLKEM768", "+F9:", KEM),
    pq!(
        "slh-dsa-sha2-128f",
        Op::Keygen,
        "SLH-DSA-SHA2-128f",
        "+F10:",
        SIG
    ),
    pq!(
        "slh-dsa-sha2-128f",
        Op::Sign,
        "SLH-DSA-SHA2-128f",
        "+F10:",
        SIG
    ),
    pq!(
        "slh-dsa-sha2-128f",
        Op::Verify,
        "SLH-DSA-SHA2-128f",
        "+F10:",
        SIG
    ),
];

impl Oracle for OpenSslBuild {
    fn column(&self) -> &'static str {
        self.column
    }
    fn name(&self) -> &'static str {
        "openssl speed of the variant's own source and Configure line"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        if self.library.is_empty() {
            bail!("name the variant's library: --impl openssl:PATH (`variant list` shows them)");
        }
        let manifest = manifest_of(Path::new(self.library))?;
        let tree = dir.join(format!("openssl-{}", manifest.key));
        let configure = manifest.configure_command.clone();
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let make = |target: &str| vec!["make".to_string(), format!("-j{jobs}"), target.into()];
        let steps = [configure, make("build_generated"), make("apps/openssl")];
        let app = tree.join("apps").join("openssl");
        if !app.is_file() {
            unpack_checked(&manifest, &tree, log)?;
            for argv in &steps {
                log(&format!("(cd {} && {})", tree.display(), argv.join(" ")));
                run(argv, &tree)?;
            }
        }
        let s = &manifest.source;
        Ok(Provenance {
            source: format!(
                "OpenSSL {} from {} {} (sha256 {})",
                s.version, s.kind, s.location, s.sha256
            ),
            library: format!(
                "{} (variant {}); the app built from the same source with the variant's \
                 Configure line ({}, {}), libcrypto linked into it statically",
                self.library,
                manifest.label,
                manifest.compiler.version,
                manifest.cflags.join(" ")
            ),
            programs: vec![app],
            build: steps.iter().map(|a| a.join(" ")).collect(),
        })
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        speed_command(built, SPEED, cell)
    }
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
        speed_figure(cell, output)
    }
    fn clock(&self) -> Clock {
        Clock::Undisturbed // without -elapsed: the process's user time (times())
    }
    fn bind(&self, column: &str) -> Option<&'static dyn Oracle> {
        for_column(column)
    }
}

/// The build record beside a variant's library.
pub(super) fn manifest_of(library: &Path) -> Result<Manifest> {
    let path = library.with_file_name("variant.json");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{} is not a variant's library (no {}): the oracle rebuilds the openssl app from \
             a variant's recorded source and Configure line",
            library.display(),
            path.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))
}

/// The variant's source placed at `tree`, refused unless its hash is the one recorded.
pub(super) fn unpack_checked(m: &Manifest, tree: &Path, log: &mut dyn FnMut(&str)) -> Result<()> {
    let location = PathBuf::from(&m.source.location);
    log(&format!(
        "unpacking {} into {}",
        location.display(),
        tree.display()
    ));
    let resolved = resolve(&SourceSpec::Path(location.clone()))
        .with_context(|| format!("the variant's source {} is gone", location.display()))?;
    if resolved.info.sha256 != m.source.sha256 {
        bail!(
            "{} has changed since the variant was built (sha256 {} now, {} recorded)",
            location.display(),
            resolved.info.sha256,
            m.source.sha256
        );
    }
    let _ = std::fs::remove_dir_all(tree);
    std::fs::create_dir_all(tree.parent().context("no parent")?)?;
    resolved.materialise(tree)?;
    if location.is_dir() && tree_hash(tree)? != m.source.sha256 {
        bail!("the copy of {} differs from it", location.display());
    }
    Ok(())
}

/// Runs a build step in `cwd`; the tail of its standard error when it fails.
pub(super) fn run(argv: &[String], cwd: &Path) -> Result<()> {
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .output()
        .with_context(|| format!("starting {}", argv[0]))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(15).collect();
        bail!(
            "{} failed:\n{}",
            argv.join(" "),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(())
}
