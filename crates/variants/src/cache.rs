//! The variant cache: one directory per built variant under the user's cache directory, named by
//! the hash of source + configuration, holding the library, its build log and a JSON manifest.
//! Entries appear by rename, so a reader never sees half a variant; a lock file per key keeps two
//! builds of the same variant from racing. The manifest also records the hash of every file the
//! build made (crate::files), checked wherever the variant is used.

use crate::compiler::CompilerInfo;
use crate::source::SourceInfo;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a variant stood when last built or verified. `Ready` and `Broken` record the last
/// known-answer tests; they are shown, never trusted: every use of the variant runs them again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildStatus {
    /// Built; its known-answer tests have not run yet.
    Unverified,
    /// Built and every known-answer test it can run passed when they last ran.
    Ready,
    /// Built, but a known-answer test failed when they last ran (a miscompile or a bad patch).
    Broken,
    /// Configure, make or the link failed; see the build log.
    Failed,
}

impl BuildStatus {
    pub fn as_str(&self) -> &'static str {
        match self {
            BuildStatus::Unverified => "unverified",
            BuildStatus::Ready => "ready",
            BuildStatus::Broken => "broken",
            BuildStatus::Failed => "failed",
        }
    }
}

/// One primitive's known-answer-test outcome against a variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KatOutcome {
    pub primitive: String,
    /// `pass`, `fail` or `unavailable`.
    pub result: String,
    pub detail: String,
}

/// Everything known about one variant: how it was built and how it fared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub key: String,
    pub label: String,
    pub status: BuildStatus,
    /// Why it failed or is broken.
    #[serde(default)]
    pub detail: String,
    pub source: SourceInfo,
    pub compiler: CompilerInfo,
    pub cflags: Vec<String>,
    pub no_asm: bool,
    pub configure_args: Vec<String>,
    pub target: String,
    /// The architecture the code is built for (`x86_64`, `i386`); manifests written before it
    /// was recorded are 64-bit builds.
    #[serde(default = "default_arch")]
    pub arch: String,
    /// A worker executable of its own (32-bit builds: the C worker, linked statically against
    /// this libcrypto), started instead of `cryptospeed worker`; then it is also `library`.
    #[serde(default)]
    pub worker: Option<String>,
    /// The exact argument vector Configure ran with.
    pub configure_command: Vec<String>,
    /// File name of the library inside the variant's directory.
    pub library: String,
    pub build_seconds: f64,
    pub built_at: String,
    /// The last known-answer tests run against it, for `variant list` and `show`: a record,
    /// never a reason to time it or not (they run again wherever it is used).
    #[serde(default)]
    pub kats: Vec<KatOutcome>,
    /// SHA-256 of every file the build left in its directory, by name, as it was cached
    /// (crate::files): checked wherever the variant is used. Empty in manifests written before
    /// it was recorded (recorded at their next use) and for failed builds.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

fn default_arch() -> String {
    "x86_64".into()
}

impl Manifest {
    /// The build facts stored with every measurement of this variant.
    pub fn build_info(&self) -> Vec<String> {
        vec![
            format!("variant {} ({})", self.label, self.key),
            match &self.worker {
                Some(_) => format!(
                    "arch: {} (Configure {}; timed by its own C worker, workers/c, linked statically against this libcrypto)",
                    self.arch, self.target
                ),
                None => format!("arch: {} (Configure {})", self.arch, self.target),
            },
            format!(
                "source: {}{} from {} {} (sha256 {})",
                // Libraries built with cmake (crate::cmake) name themselves in their version.
                if self.source.kind.ends_with("-sys crate") {
                    ""
                } else {
                    "OpenSSL "
                },
                self.source.version,
                self.source.kind,
                self.source.location,
                self.source.sha256
            ),
            format!(
                "compiler: {} ({})",
                self.compiler.path, self.compiler.version
            ),
            format!("cflags: {}", self.cflags.join(" ")),
            format!("configure: {}", display_command(&self.configure_command)),
            format!("built: {} in {:.0} s", self.built_at, self.build_seconds),
        ]
    }

    pub fn kat_counts(&self) -> (usize, usize, usize) {
        let count = |r: &str| self.kats.iter().filter(|k| k.result == r).count();
        (count("pass"), count("fail"), count("unavailable"))
    }
}

/// A command as a user could paste it into a shell (for logs and records only: nothing here is
/// ever run through a shell).
pub fn display_command(argv: &[String]) -> String {
    shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_else(|_| argv.join(" "))
}

/// The cache root: `$CRYPTOSPEED_CACHE`, else the user's cache directory.
pub struct Cache {
    root: PathBuf,
}

/// A variant found in the cache.
#[derive(Debug, Clone)]
pub struct Entry {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

impl Manifest {
    /// The columns of [`Manifest::row`], as `variant list` prints them.
    pub const COLUMNS: &'static [&'static str] = &[
        "label", "status", "openssl", "arch", "compiler", "asm", "flags", "KATs", "built", "key",
    ];

    /// This variant as one row of `variant list`.
    pub fn row(&self) -> Vec<String> {
        let mut flags = self.cflags.clone();
        flags.extend(self.configure_args.iter().cloned());
        let (pass, fail, _) = self.kat_counts();
        let kats = match self.kats.is_empty() {
            true => "-".into(),
            false => format!("{pass} ok / {fail} fail"),
        };
        vec![
            self.label.clone(),
            self.status.as_str().into(),
            self.source.version.clone(),
            self.arch.clone(),
            self.compiler.name.clone(),
            if self.no_asm { "no" } else { "yes" }.into(),
            flags.join(" "),
            kats,
            self.built_at.clone(),
            self.key.clone(),
        ]
    }
}

impl Entry {
    /// What `variant build` prints: label, status, arch, key, library or worker, KATs.
    pub fn summary(&self) -> String {
        let m = &self.manifest;
        let kats = match m.kats.is_empty() {
            true => "not run".to_string(),
            false => {
                let (pass, fail, na) = m.kat_counts();
                format!("{pass} passed, {fail} failed, {na} unavailable")
            }
        };
        let what = if m.worker.is_some() {
            "worker "
        } else {
            "library"
        };
        let mut out = format!(
            "variant   {}\nstatus    {}\narch      {}\nkey       {}\n{what}   {}\nKATs      {kats}\n",
            m.label,
            m.status.as_str(),
            m.arch,
            m.key,
            self.library_path().display(),
        );
        if !m.detail.is_empty() {
            out.push_str(&format!("detail    {}\n", m.detail));
        }
        out
    }

    /// What `variant show` prints: the summary, the build's provenance, and every known-answer
    /// test that did not pass.
    pub fn details(&self) -> String {
        let m = &self.manifest;
        let cflags = match m.cflags.is_empty() {
            true => "(OpenSSL's defaults)".to_string(),
            false => m.cflags.join(" "),
        };
        let mut out = self.summary();
        out.push_str(&format!(
            "source    OpenSSL {} ({} {}, sha256 {})\ncompiler  {} ({})\ncflags    {cflags}\nno-asm    {}\nconfigure {}\nbuilt     {} in {:.0} s\nlog       {}\n",
            m.source.version,
            m.source.kind,
            m.source.location,
            m.source.sha256,
            m.compiler.path,
            m.compiler.version,
            m.no_asm,
            display_command(&m.configure_command),
            m.built_at,
            m.build_seconds,
            self.log_path().display()
        ));
        for (name, sha256) in &m.files {
            out.push_str(&format!("file      {name} (sha256 {sha256})\n"));
        }
        for k in m.kats.iter().filter(|k| k.result != "pass") {
            out.push_str(&format!(
                "  {:<18} {:<11} {}\n",
                k.primitive, k.result, k.detail
            ));
        }
        out
    }

    pub fn library_path(&self) -> PathBuf {
        self.dir.join(&self.manifest.library)
    }

    /// The variant's own worker executable, when it has one (32-bit builds).
    pub fn worker_path(&self) -> Option<PathBuf> {
        self.manifest.worker.as_ref().map(|w| self.dir.join(w))
    }

    /// The architecture of a variant this machine runs only under qemu-user (a cross build):
    /// such a variant is profiled, never timed.
    pub fn emulated(&self) -> Option<crate::Arch> {
        crate::cross::foreign(&self.manifest.target)
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.join("build.log")
    }
}

const MANIFEST: &str = "variant.json";

impl Cache {
    pub fn open(explicit: Option<PathBuf>) -> Cache {
        let root = explicit
            .or_else(|| {
                std::env::var_os("CRYPTOSPEED_CACHE")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(|| {
                dirs::cache_dir()
                    .unwrap_or_else(std::env::temp_dir)
                    .join("cryptospeed")
            });
        Cache { root }
    }

    /// The root itself, for other caches that live beside the variants (the valgrind tool).
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    pub fn variants_dir(&self) -> PathBuf {
        self.root.join("variants")
    }

    pub fn dir_for(&self, key: &str) -> PathBuf {
        self.variants_dir().join(key)
    }

    /// Every variant in the cache, oldest first.
    pub fn list(&self) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        let dir = self.variants_dir();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(out);
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if !path.is_dir() || name.contains('.') {
                continue; // staging directories and lock files
            }
            if let Ok(manifest) = load_manifest(&path) {
                out.push(Entry {
                    dir: path,
                    manifest,
                });
            }
        }
        out.sort_by(|a, b| a.manifest.built_at.cmp(&b.manifest.built_at));
        Ok(out)
    }

    /// A variant by label, or by key (or a unique prefix of at least 4 characters).
    pub fn find(&self, name: &str) -> Result<Entry> {
        let all = self.list()?;
        if let Some(e) = all.iter().find(|e| e.manifest.label == name) {
            return Ok(e.clone());
        }
        let by_key: Vec<&Entry> = all
            .iter()
            .filter(|e| name.len() >= 4 && e.manifest.key.starts_with(name))
            .collect();
        match by_key.as_slice() {
            [one] => Ok((*one).clone()),
            [] => {
                let known: Vec<&str> = all.iter().map(|e| e.manifest.label.as_str()).collect();
                if known.is_empty() {
                    bail!(
                        "no variant '{name}': the cache {} holds none yet (build one with `cryptospeed variant build`)",
                        self.variants_dir().display()
                    )
                }
                bail!(
                    "no variant '{name}' in {}; known: {}",
                    self.variants_dir().display(),
                    known.join(", ")
                )
            }
            _ => bail!("'{name}' is the start of several variant keys; give more of it"),
        }
    }

    /// Deletes a variant's directory.
    pub fn remove(&self, name: &str) -> Result<Entry> {
        let e = self.find(name)?;
        std::fs::remove_dir_all(&e.dir)
            .with_context(|| format!("cannot remove {}", e.dir.display()))?;
        Ok(e)
    }

    /// Rewrites a variant's manifest atomically (temporary file + rename).
    pub fn save(&self, dir: &Path, manifest: &Manifest) -> Result<()> {
        save_manifest(dir, manifest)
    }
}

pub(crate) fn save_manifest(dir: &Path, manifest: &Manifest) -> Result<()> {
    // A temporary file of this process's own: two runs that verify one variant at once each
    // replace the manifest whole.
    let tmp = dir.join(format!("{MANIFEST}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_string_pretty(manifest)? + "\n")
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join(MANIFEST))
        .with_context(|| format!("cannot write the manifest in {}", dir.display()))?;
    Ok(())
}

pub(crate) fn load_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a manifest", path.display()))
}
