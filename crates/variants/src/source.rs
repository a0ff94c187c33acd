//! Where a variant's source comes from and what it is: a named OpenSSL release carried by the
//! `openssl-src` crate (fetched with cargo, no other download), a directory (a patched tree), or
//! a release `.tar.gz`. Each is identified by a SHA-256 of its content, never of its path, so a
//! copy of the same tree elsewhere hits the same cache entry.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the user asked to build from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSpec {
    /// `--openssl 3.5`: an OpenSSL release from the `openssl-src` crate (`1.1.1`, `3.0` … `3.6`,
    /// `4.0`, or an exact crate version such as `300.5.5+3.5.5`).
    Release(String),
    /// `--source DIR` or `--source FILE.tar.gz`.
    Path(PathBuf),
}

/// The source a variant was built from, as recorded in its manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// `openssl-src crate`, `directory` or `archive`.
    pub kind: String,
    /// What was given: the version asked for, or the path.
    pub given: String,
    /// The archive or directory that was read.
    pub location: String,
    /// OpenSSL's version as the tree states it (`3.5.5`, `1.1.1w`).
    pub version: String,
    /// SHA-256 of the archive, or of the tree (every file's path and content, sorted).
    pub sha256: String,
}

/// A source resolved to something readable, with its identity.
#[derive(Debug, Clone)]
pub struct ResolvedSource {
    pub info: SourceInfo,
    /// Inside an archive: the directory that holds `Configure`, relative to the archive root.
    tree_in_archive: Option<PathBuf>,
}

/// The crate version requirement for an OpenSSL release name: `3.5` → `300.5`, `1.1.1` → `111`,
/// `4.0` → `400.0`; exact crate versions pass through.
pub fn crate_requirement(release: &str) -> Result<String> {
    let r = release.trim().trim_start_matches("openssl-");
    if r.starts_with("111") || r.starts_with("300.") || r.starts_with("400.") {
        return Ok(r.to_string());
    }
    let parts: Vec<&str> = r.split('.').collect();
    match parts.as_slice() {
        ["1", "1", "1"] | ["1", "1", "1", ..] => Ok("111".into()),
        ["3", minor] | ["3", minor, _] if minor.parse::<u32>().is_ok() => {
            Ok(format!("300.{minor}"))
        }
        ["4", minor] | ["4", minor, _] if minor.parse::<u32>().is_ok() => {
            Ok(format!("400.{minor}"))
        }
        _ => bail!(
            "--openssl {release}: name an OpenSSL release the openssl-src crate carries: 1.1.1, 3.0 … 3.6, 4.0 (or an exact crate version such as 300.5.5+3.5.5)"
        ),
    }
}

pub(crate) fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// Orders crate versions such as `300.5.5+3.5.5` numerically.
fn version_key(v: &str) -> Vec<u64> {
    v.split(['.', '+'])
        .map(|p| {
            p.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .unwrap_or(0)
        })
        .collect()
}

/// `openssl-src-<version>.crate` files in cargo's download cache whose version matches.
fn cached_crates(requirement: &str) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let Ok(registries) = std::fs::read_dir(cargo_home().join("registry").join("cache")) else {
        return found;
    };
    for reg in registries.flatten() {
        let Ok(files) = std::fs::read_dir(reg.path()) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            let Some(version) = name
                .strip_prefix("openssl-src-")
                .and_then(|n| n.strip_suffix(".crate"))
            else {
                continue;
            };
            let matches = if requirement.contains('+') {
                version == requirement
            } else {
                version == requirement
                    || version.starts_with(&format!("{requirement}."))
                    || version.starts_with(&format!("{requirement}+"))
            };
            if matches {
                found.push((version.to_string(), f.path()));
            }
        }
    }
    found.sort_by_key(|(v, _)| version_key(v));
    found
}

/// Finds the crate in cargo's cache, asking cargo to download it (from the configured crates.io
/// registry) when it is not there yet.
fn release_crate(release: &str) -> Result<(String, PathBuf)> {
    let requirement = crate_requirement(release)?;
    if let Some(found) = cached_crates(&requirement).pop() {
        return Ok(found);
    }
    let spec = format!(
        "openssl-src@{}",
        requirement.split('+').next().unwrap_or("")
    );
    let out = Command::new("cargo")
        .args(["info", &spec])
        .current_dir(std::env::temp_dir())
        .output()
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot fetch the openssl-src crate for OpenSSL {release}: cargo did not start ({e}); install Rust (rustup) or give --source DIR|FILE.tar.gz"
            )
        })?;
    if !out.status.success() {
        bail!(
            "cargo could not fetch {spec} for OpenSSL {release}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    match cached_crates(&requirement).pop() {
        Some(found) => Ok(found),
        None => bail!(
            "cargo info {spec} succeeded but no openssl-src-{requirement}*.crate appeared in {}",
            cargo_home().join("registry/cache").display()
        ),
    }
}

pub(crate) fn sha256_file(path: &Path) -> Result<String> {
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// Entries of a tree in a fixed order, without version-control metadata.
fn tree_entries(root: &Path) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
}

/// SHA-256 over every file's relative path, kind and content (symlinks by target), in sorted
/// order: the same tree anywhere gives the same hash; any edit gives another.
pub fn tree_hash(root: &Path) -> Result<String> {
    let mut h = Sha256::new();
    for entry in tree_entries(root) {
        let entry = entry.with_context(|| format!("cannot read the tree {}", root.display()))?;
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let ft = entry.file_type();
        if ft.is_file() {
            h.update(b"F");
            h.update(rel.to_string_lossy().as_bytes());
            h.update([0]);
            h.update(sha256_file(entry.path())?.as_bytes());
        } else if ft.is_symlink() {
            h.update(b"L");
            h.update(rel.to_string_lossy().as_bytes());
            h.update([0]);
            h.update(
                std::fs::read_link(entry.path())?
                    .to_string_lossy()
                    .as_bytes(),
            );
        }
        h.update([0]);
    }
    Ok(hex::encode(h.finalize()))
}

fn looks_like_openssl(dir: &Path) -> bool {
    dir.join("Configure").is_file() && dir.join("crypto").is_dir()
}

/// OpenSSL's version as the tree states it: `VERSION.dat` (3.0 on) or `opensslv.h` (before).
pub fn tree_version(dir: &Path) -> String {
    if let Ok(text) = std::fs::read_to_string(dir.join("VERSION.dat")) {
        let field = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .map(|v| v.trim().trim_matches('"').to_string())
                .unwrap_or_default()
        };
        let mut v = format!("{}.{}.{}", field("MAJOR"), field("MINOR"), field("PATCH"));
        let pre = field("PRE_RELEASE_TAG");
        if !pre.is_empty() {
            v = format!("{v}-{pre}");
        }
        return v;
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("include/openssl/opensslv.h")) {
        for line in text.lines() {
            if let Some(rest) = line.split("OPENSSL_VERSION_TEXT").nth(1) {
                if let Some(v) = rest
                    .split('"')
                    .nth(1)
                    .and_then(|t| t.split_whitespace().nth(1))
                {
                    return v.to_string();
                }
            }
        }
    }
    "unknown".into()
}

/// Reads the version file out of an archive without unpacking it all.
fn archive_version(archive: &Path, tree: &Path) -> Result<String> {
    let tmp = std::env::temp_dir().join(format!(
        "cryptospeed-version-{}-{}",
        std::process::id(),
        chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
    ));
    std::fs::create_dir_all(tmp.join("include/openssl"))?;
    let wanted = [
        (tree.join("VERSION.dat"), tmp.join("VERSION.dat")),
        (
            tree.join("include/openssl/opensslv.h"),
            tmp.join("include/openssl/opensslv.h"),
        ),
    ];
    let mut a = tar::Archive::new(flate2::read::GzDecoder::new(std::fs::File::open(archive)?));
    for entry in a.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.into_owned();
        if let Some((_, to)) = wanted.iter().find(|(from, _)| *from == path) {
            entry.unpack(to)?;
        }
    }
    let v = tree_version(&tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(v)
}

/// The directory holding `Configure` inside an archive: `openssl-src-X/openssl` for the crate,
/// the single top directory for a release tarball.
fn archive_tree(archive: &Path) -> Result<PathBuf> {
    let file = std::fs::File::open(archive)
        .with_context(|| format!("cannot read {}", archive.display()))?;
    let mut a = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = a
        .entries()
        .with_context(|| format!("{} is not a .tar.gz archive", archive.display()))?;
    for entry in entries {
        let entry =
            entry.with_context(|| format!("{} is not a readable .tar.gz", archive.display()))?;
        let path = entry.path()?.into_owned();
        if path.file_name().map(|n| n == "Configure").unwrap_or(false) {
            let parent = path.parent().unwrap_or(Path::new("")).to_path_buf();
            // The shallowest Configure is the tree's (others sit in test data).
            if parent.components().count() <= 2 {
                return Ok(parent);
            }
        }
    }
    bail!(
        "{} does not hold an OpenSSL source tree (no Configure at its top)",
        archive.display()
    )
}

/// Resolves a source to an identified archive or directory.
pub fn resolve(spec: &SourceSpec) -> Result<ResolvedSource> {
    match spec {
        SourceSpec::Release(release) => {
            let (crate_version, path) = release_crate(release)?;
            let tree = archive_tree(&path)?;
            Ok(ResolvedSource {
                info: SourceInfo {
                    kind: "openssl-src crate".into(),
                    given: release.clone(),
                    location: path.to_string_lossy().into_owned(),
                    version: crate_version
                        .split_once('+')
                        .map(|(_, v)| v.to_string())
                        .unwrap_or_else(|| archive_version(&path, &tree).unwrap_or_default()),
                    sha256: sha256_file(&path)?,
                },
                tree_in_archive: Some(tree),
            })
        }
        SourceSpec::Path(p) => {
            let given = p.to_string_lossy().into_owned();
            if p.is_dir() {
                if !looks_like_openssl(p) {
                    bail!(
                        "{given} is not an OpenSSL source tree (it needs Configure and crypto/ at its top)"
                    );
                }
                // Objects left by an in-place build would be copied with fresh timestamps and
                // could be taken by make as up to date: a variant built with someone else's flags.
                if let Some(mark) = ["configdata.pm", "Makefile"]
                    .iter()
                    .find(|m| p.join(m).exists())
                {
                    bail!(
                        "{given} has been configured or built in place ({mark} is there); give a clean tree (`make distclean`, or `git clean -xdf` in a checkout) so that nothing of another build is reused"
                    );
                }
                Ok(ResolvedSource {
                    info: SourceInfo {
                        kind: "directory".into(),
                        given: given.clone(),
                        location: given,
                        version: tree_version(p),
                        sha256: tree_hash(p)?,
                    },
                    tree_in_archive: None,
                })
            } else if p.is_file() {
                let tree = archive_tree(p)?;
                Ok(ResolvedSource {
                    info: SourceInfo {
                        kind: "archive".into(),
                        given: given.clone(),
                        location: given,
                        version: archive_version(p, &tree)?,
                        sha256: sha256_file(p)?,
                    },
                    tree_in_archive: Some(tree),
                })
            } else {
                bail!("--source {given}: no such directory or file")
            }
        }
    }
}

/// Copies a tree (files, modes, symlinks; no `.git`).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    for entry in tree_entries(from) {
        let entry = entry?;
        let rel = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let dest = to.join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Unpacks a `.tar.gz` (a `.crate`) into `dest`.
pub(crate) fn unpack_tar_gz(archive: &Path, dest: &Path) -> Result<()> {
    std::fs::create_dir_all(dest)?;
    let file = std::fs::File::open(archive)?;
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(dest)
        .with_context(|| format!("cannot unpack {}", archive.display()))
}

impl ResolvedSource {
    /// Places the tree at `dest` (which must not exist yet).
    pub fn materialise(&self, dest: &Path) -> Result<()> {
        let location = Path::new(&self.info.location);
        match &self.tree_in_archive {
            None => copy_tree(location, dest),
            Some(tree) => {
                let unpack = dest.with_extension("unpack");
                let _ = std::fs::remove_dir_all(&unpack);
                std::fs::create_dir_all(&unpack)?;
                let file = std::fs::File::open(location)?;
                tar::Archive::new(flate2::read::GzDecoder::new(file))
                    .unpack(&unpack)
                    .with_context(|| format!("cannot unpack {}", location.display()))?;
                std::fs::rename(unpack.join(tree), dest)?;
                let _ = std::fs::remove_dir_all(&unpack);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_map_to_crate_versions() {
        assert_eq!(crate_requirement("1.1.1").unwrap(), "111");
        assert_eq!(crate_requirement("3.0").unwrap(), "300.0");
        assert_eq!(crate_requirement("3.5.4").unwrap(), "300.5");
        assert_eq!(crate_requirement("4.0").unwrap(), "400.0");
        assert_eq!(crate_requirement("300.5.5+3.5.5").unwrap(), "300.5.5+3.5.5");
        assert!(crate_requirement("2.0").is_err());
        assert!(crate_requirement("three").is_err());
    }

    #[test]
    fn crate_versions_order_numerically() {
        let mut v = vec!["300.0.9+3.0.7", "300.0.13+3.0.8", "300.0.10+3.0.7"];
        v.sort_by_key(|s| version_key(s));
        assert_eq!(v, ["300.0.9+3.0.7", "300.0.10+3.0.7", "300.0.13+3.0.8"]);
    }

    #[test]
    fn tree_hash_follows_content_not_place() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        for root in [a.path(), b.path()] {
            std::fs::create_dir_all(root.join("crypto")).unwrap();
            std::fs::write(root.join("Configure"), "#!/usr/bin/perl\n").unwrap();
            std::fs::write(root.join("crypto/x.c"), "int x;\n").unwrap();
        }
        assert_eq!(tree_hash(a.path()).unwrap(), tree_hash(b.path()).unwrap());
        std::fs::write(b.path().join("crypto/x.c"), "int y;\n").unwrap();
        assert_ne!(tree_hash(a.path()).unwrap(), tree_hash(b.path()).unwrap());
        std::fs::write(b.path().join("crypto/x.c"), "int x;\n").unwrap();
        std::fs::rename(b.path().join("crypto/x.c"), b.path().join("crypto/z.c")).unwrap();
        assert_ne!(tree_hash(a.path()).unwrap(), tree_hash(b.path()).unwrap());
    }

    #[test]
    fn a_tree_built_in_place_is_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("crypto")).unwrap();
        std::fs::write(d.path().join("Configure"), "#!/usr/bin/perl\n").unwrap();
        resolve(&SourceSpec::Path(d.path().to_path_buf())).unwrap();
        std::fs::write(d.path().join("configdata.pm"), "").unwrap();
        let e = resolve(&SourceSpec::Path(d.path().to_path_buf()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("configured or built in place"), "{e}");
    }

    #[test]
    fn versions_are_read_from_either_era() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("VERSION.dat"),
            "MAJOR=3\nMINOR=5\nPATCH=5\nPRE_RELEASE_TAG=\nBUILD_METADATA=\n",
        )
        .unwrap();
        assert_eq!(tree_version(d.path()), "3.5.5");
        let o = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(o.path().join("include/openssl")).unwrap();
        std::fs::write(
            o.path().join("include/openssl/opensslv.h"),
            "# define OPENSSL_VERSION_TEXT    \"OpenSSL 1.1.1w  11 Sep 2023\"\n",
        )
        .unwrap();
        assert_eq!(tree_version(o.path()), "1.1.1w");
    }
}
