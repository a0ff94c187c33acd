//! The crosscheck's JSON file (`--out FILE`), kept as the run goes, so that nothing measured is
//! lost when a run is stopped: after every cell the whole file is written again to `FILE.tmp`,
//! synced, and renamed over `FILE` (the directory synced too), so a reader, or a run killed at
//! any moment, finds either the file before that cell or the one after it, never half of one.
//! Its shape is `--json`'s: the list of columns' reports, the column being measured holding the
//! cells finished so far.

use crate::report::Report;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `reports` to `path` atomically (temporary file, fsync, rename, fsync of the directory).
pub fn write(path: &Path, reports: &[&Report]) -> Result<()> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    let text = serde_json::to_string_pretty(reports)?;
    let mut f =
        std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()
        .with_context(|| format!("syncing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing {}", dir.display()))
}
