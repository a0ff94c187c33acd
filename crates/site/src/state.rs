//! What the site remembers between builds, in `manifest.json` in its folder: the content hash of
//! every page it wrote, the key of every run it read (status, measurement count, label…), the
//! figures the primitive pages are drawn from, and what each comparison page was computed from.
//! A rebuild reads only the runs whose key changed and writes only the pages whose hash changed;
//! a missing, unreadable or older manifest means a full build.

use crate::figures::Figures;
use crate::histories::Histories;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name in the site's folder.
pub const MANIFEST: &str = "manifest.json";

/// Bumped whenever the pages' layout changes, so an older site is rebuilt whole.
const LAYOUT: u32 = 3;

/// Hex SHA-256 of `text`.
pub fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What a comparison page was computed from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ComparisonState {
    /// Its arguments and the keys of the runs they name.
    pub inputs: String,
    /// Whether any of its cells used the machine's run-to-run noise (then the runs that noise is
    /// learnt from are part of its inputs, as in `cryptospeed compare`).
    pub uses_history: bool,
    /// Those runs, when it does.
    pub history: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct State {
    /// The layout and the tool version that wrote the site.
    pub format: String,
    /// Page path (relative, `/`-separated) → digest of its content.
    pub pages: BTreeMap<String, String>,
    /// Run id → the key of the run as it was read.
    pub runs: BTreeMap<i64, String>,
    /// Comparison page path → what it was computed from.
    pub comparisons: BTreeMap<String, ComparisonState>,
    /// The best figures and the variants seen, merged run by run.
    pub figures: Figures,
    /// The history pages' series, merged run by run.
    #[serde(default)]
    pub histories: Histories,
}

/// The manifest's `format` for this build.
pub fn format_tag(tool: &str) -> String {
    format!("layout {LAYOUT}, {tool}")
}

impl State {
    /// The state of the site in `dir`, or an empty one (a full build) when there is none, it
    /// cannot be read, or an older layout or tool wrote it. An older manifest's pages are kept
    /// (only their list and hashes) so that pages this build no longer writes are removed.
    pub fn load(dir: &Path, tool: &str) -> State {
        let fresh = State {
            format: format_tag(tool),
            ..State::default()
        };
        let Ok(text) = std::fs::read_to_string(dir.join(MANIFEST)) else {
            return fresh;
        };
        match serde_json::from_str::<State>(&text) {
            Ok(s) if s.format == fresh.format => s,
            _ => State {
                pages: serde_json::from_str::<PageList>(&text)
                    .map(|l| l.pages)
                    .unwrap_or_default(),
                ..fresh
            },
        }
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string(self)?;
        write_atomically(&dir.join(MANIFEST), text.as_bytes())
    }
}

/// The one part of a manifest of any layout that a build needs: which pages it wrote.
#[derive(Deserialize)]
struct PageList {
    #[serde(default)]
    pages: BTreeMap<String, String>,
}

/// Whether a manifest's page path stays inside the site's folder (relative, no `..`).
fn inside_site(path: &str) -> bool {
    let p = Path::new(path);
    p.is_relative()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Writes `bytes` through a temporary file and a rename, so no reader sees half a page.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let tmp = path.with_extension("tmp-cryptospeed");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The pages of one build: each page put is written only when its content differs from what the
/// manifest says the file holds (and the file is there).
pub struct Pages {
    dir: PathBuf,
    old: BTreeMap<String, String>,
    pub now: BTreeMap<String, String>,
    pub written: usize,
}

impl Pages {
    pub fn new(dir: &Path, old: BTreeMap<String, String>) -> Pages {
        Pages {
            dir: dir.to_path_buf(),
            old,
            now: BTreeMap::new(),
            written: 0,
        }
    }

    /// Puts a page at `path` (relative, `/`-separated).
    pub fn put(&mut self, path: &str, html: &str) -> Result<()> {
        let (hash, written) = self.write(path, html)?;
        self.record(path, hash, written);
        Ok(())
    }

    /// Writes the page unless the file holds it already; returns its hash and whether it was
    /// written. Any thread may write; [`record`](Self::record) then notes it.
    pub fn write(&self, path: &str, html: &str) -> Result<(String, bool)> {
        let hash = digest(html);
        let file = self.dir.join(path);
        if self.old.get(path) == Some(&hash) && file.is_file() {
            return Ok((hash, false));
        }
        write_atomically(&file, html.as_bytes())?;
        Ok((hash, true))
    }

    /// Notes a page [`write`](Self::write) put.
    pub fn record(&mut self, path: &str, hash: String, written: bool) {
        self.written += usize::from(written);
        self.now.insert(path.to_string(), hash);
    }

    /// Keeps a page whose inputs did not change, unread and unwritten; false when the manifest
    /// does not know it or its file is gone (then it must be drawn).
    pub fn keep(&mut self, path: &str) -> bool {
        match self.old.get(path) {
            Some(hash) if self.dir.join(path).is_file() => {
                self.now.insert(path.to_string(), hash.clone());
                true
            }
            _ => false,
        }
    }

    /// Removes the pages an earlier build wrote that this one did not put or keep.
    pub fn remove_stale(&self) -> Result<usize> {
        let mut removed = 0;
        let gone = self.old.keys().filter(|p| !self.now.contains_key(*p));
        for path in gone.filter(|p| inside_site(p)) {
            let file = self.dir.join(path);
            if file.is_file() {
                std::fs::remove_file(&file)
                    .with_context(|| format!("cannot remove {}", file.display()))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_written_only_when_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let mut pages = Pages::new(dir.path(), BTreeMap::new());
        pages.put("runs/1.html", "one").unwrap();
        assert_eq!(pages.written, 1);
        let mut again = Pages::new(dir.path(), pages.now.clone());
        again.put("runs/1.html", "one").unwrap();
        assert_eq!(again.written, 0, "same content, not written again");
        again.put("runs/1.html", "two").unwrap();
        assert_eq!(again.written, 1);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("runs/1.html")).unwrap(),
            "two"
        );
        let mut third = Pages::new(dir.path(), again.now.clone());
        std::fs::remove_file(dir.path().join("runs/1.html")).unwrap();
        assert!(!third.keep("runs/1.html"), "a missing file is drawn again");
        assert_eq!(third.remove_stale().unwrap(), 0);
    }

    #[test]
    fn a_manifest_of_another_tool_means_a_full_build() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = State::load(dir.path(), "cryptospeed 1");
        s.runs.insert(1, "k".into());
        s.save(dir.path()).unwrap();
        assert_eq!(State::load(dir.path(), "cryptospeed 1").runs.len(), 1);
        assert!(State::load(dir.path(), "cryptospeed 2").runs.is_empty());
        std::fs::write(dir.path().join(MANIFEST), "{not json").unwrap();
        assert!(State::load(dir.path(), "cryptospeed 1").runs.is_empty());
    }

    #[test]
    fn pages_an_older_layout_wrote_are_removed_by_the_full_build() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.html");
        std::fs::write(&outside, "not the site's").unwrap();
        let site = dir.path().join("site");
        let mut old = Pages::new(&site, BTreeMap::new());
        old.put("index.html", "index").unwrap();
        old.put("old-layout/page.html", "gone next build").unwrap();
        old.now
            .insert("../outside.html".into(), digest("not the site's"));
        let older = State {
            format: "layout 1, cryptospeed 0".into(),
            pages: old.now.clone(),
            ..State::default()
        };
        older.save(&site).unwrap();
        let state = State::load(&site, "cryptospeed 1");
        assert!(state.runs.is_empty(), "an older layout means a full build");
        let mut pages = Pages::new(&site, state.pages);
        pages.put("index.html", "index").unwrap();
        assert_eq!(pages.written, 0, "the same page is not written again");
        assert_eq!(pages.remove_stale().unwrap(), 1);
        assert!(!site.join("old-layout/page.html").exists());
        assert!(outside.exists(), "a path outside the site is never removed");
    }
}
