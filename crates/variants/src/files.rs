//! The bytes a cached variant runs, as they were cached: a SHA-256 of every file its build left
//! in its cache directory (the libcrypto, a 32-bit variant's own C worker, a cmake build's
//! libraries and programs), recorded in the manifest when the build is cached and checked every
//! time the variant is used. A file that changed since (a bad disk, a hand edit, another tool
//! writing into the cache) refuses the variant with its name and the file's: what is timed is
//! what was built. A cache hit saves the build, never the verification: the known-answer tests
//! still run in every worker that times the variant. The hashes guard against accidents, not
//! against someone who can also rewrite the manifest.

use crate::cache::{save_manifest, Entry};
use crate::source::sha256_file;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// Files in a variant's directory that are records, not what the build made.
fn is_record(name: &str) -> bool {
    name == "build.log" || name.starts_with("variant.json")
}

/// The hash of every file the build left in `dir`, by file name.
pub fn record(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    for e in entries {
        let e = e.with_context(|| format!("cannot list {}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type()?.is_file() && !is_record(&name) {
            out.insert(name, sha256_file(&e.path())?);
        }
    }
    Ok(out)
}

/// Refuses the variant when a file it was cached with is missing or differs from its recorded
/// hash; the error names the variant and the file.
pub fn check(entry: &Entry) -> Result<()> {
    let m = &entry.manifest;
    for (name, recorded) in &m.files {
        let path = entry.dir.join(name);
        if !path.is_file() {
            bail!(
                "variant {} is refused: its file {} is missing (it was cached with it); {}",
                m.label,
                path.display(),
                remedy(&m.label)
            );
        }
        let now = sha256_file(&path)?;
        if &now != recorded {
            bail!(
                "variant {} is refused: its file {} changed since it was cached (sha256 {}, recorded {}); {}",
                m.label,
                path.display(),
                &now[..16],
                &recorded[..recorded.len().min(16)],
                remedy(&m.label)
            );
        }
    }
    Ok(())
}

fn remedy(label: &str) -> String {
    format!(
        "build it again (`cryptospeed variant build` with --rebuild) or remove it (`cryptospeed variant rm {label}`)"
    )
}

/// [`check`], for a variant cached before its files' hashes were recorded: their hashes are
/// recorded now (and `true` returned, so the caller can say so). Its known-answer tests, which
/// run wherever it is timed, are then what vouches for those bytes.
pub fn check_or_record(entry: &mut Entry) -> Result<bool> {
    if !entry.manifest.files.is_empty() {
        check(entry)?;
        return Ok(false);
    }
    entry.manifest.files = record(&entry.dir)?;
    if entry.manifest.files.is_empty() {
        return Ok(false); // a failed build: nothing to run, nothing to record
    }
    save_manifest(&entry.dir, &entry.manifest)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Manifest;

    /// A cached variant with one library file, as a build leaves it (its files not yet recorded).
    fn entry(dir: &Path) -> Entry {
        std::fs::write(
            dir.join("libcrypto-x.so"),
            b"\x7fELF code and GCC: (Debian) 12",
        )
        .unwrap();
        std::fs::write(dir.join("build.log"), b"make: ok").unwrap();
        let manifest: Manifest = serde_json::from_value(serde_json::json!({
            "key": "0123456789abcdef", "label": "cs-unit", "status": "ready",
            "source": {"kind": "directory", "given": "x", "location": "x", "version": "3.5.5",
                       "sha256": "ab"},
            "compiler": {"name": "gcc", "path": "/usr/bin/gcc", "version": "12"},
            "cflags": [], "no_asm": true, "configure_args": [], "target": "linux-x86_64",
            "configure_command": [], "library": "libcrypto-x.so", "build_seconds": 1.0,
            "built_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap();
        save_manifest(dir, &manifest).unwrap();
        Entry {
            dir: dir.to_path_buf(),
            manifest,
        }
    }

    #[test]
    fn a_changed_or_missing_file_refuses_the_variant_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let mut e = entry(tmp.path());
        e.manifest.files = record(tmp.path()).unwrap();
        // The build's file, not its records.
        assert_eq!(
            e.manifest.files.keys().collect::<Vec<_>>(),
            ["libcrypto-x.so"]
        );
        check(&e).unwrap();
        // The log and the manifest may change (relabelling, a new verdict): not the build.
        std::fs::write(tmp.path().join("build.log"), b"other").unwrap();
        check(&e).unwrap();

        let lib = tmp.path().join("libcrypto-x.so");
        let mut bytes = std::fs::read(&lib).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&lib, &bytes).unwrap();
        let why = check(&e).unwrap_err().to_string();
        assert!(why.contains("variant cs-unit is refused"), "{why}");
        assert!(why.contains(&format!("{} changed", lib.display())), "{why}");

        std::fs::remove_file(&lib).unwrap();
        let why = check(&e).unwrap_err().to_string();
        assert!(
            why.contains("cs-unit") && why.contains("is missing"),
            "{why}"
        );
    }

    #[test]
    fn a_variant_cached_before_hashes_were_kept_has_them_recorded_at_its_next_use() {
        let tmp = tempfile::tempdir().unwrap();
        let mut e = entry(tmp.path());
        assert!(check_or_record(&mut e).unwrap());
        let saved = crate::cache::load_manifest(tmp.path()).unwrap();
        assert_eq!(saved.files, e.manifest.files);
        assert_eq!(saved.files.len(), 1);
        // From then on it is checked.
        assert!(!check_or_record(&mut e).unwrap());
        std::fs::write(tmp.path().join("libcrypto-x.so"), b"other bytes").unwrap();
        assert!(check_or_record(&mut e).is_err());
    }
}
