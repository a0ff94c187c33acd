//! The shape of the house, checked like behaviour: no circle between modules
//! (`scripts/module-cycles`), no source file over 800 lines, docs whose links resolve
//! (`scripts/check-doc-links`), a README a newcomer reads and a PERFORMANCE.md of current figures,
//! with no issue numbers or work-log phrases in either.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script(name: &str) -> (bool, String) {
    let out = Command::new(root().join("scripts").join(name))
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("scripts/{name}: {e}"));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn no_module_is_in_a_circle() {
    let (ok, text) = script("module-cycles");
    assert!(ok && text.contains("cycles: 0"), "{text}");
}

#[test]
fn every_doc_link_resolves() {
    let (ok, text) = script("check-doc-links");
    assert!(ok, "{text}");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    rust_files(&root().join("src"), &mut files);
    assert!(files.len() > 100, "{} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 800).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{long:#?}");
}

fn lines(path: &str) -> usize {
    std::fs::read_to_string(root().join(path))
        .unwrap()
        .lines()
        .count()
}

#[test]
fn readme_and_performance_are_short_and_current() {
    assert!(
        lines("README.md") < 160,
        "README.md: {}",
        lines("README.md")
    );
    let perf = lines("docs/PERFORMANCE.md");
    assert!(perf < 350, "docs/PERFORMANCE.md: {perf}");
    let mut pages = vec![root().join("README.md")];
    collect_markdown(&root().join("docs"), &mut pages);
    let worklog = work_log_lines(&pages);
    assert!(worklog.is_empty(), "{worklog:#?}");
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_markdown(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// Lines saying `issue 12` or `this stop` (case-insensitive), as `grep -rniE 'issue [0-9]+|this
/// stop'` finds them.
fn work_log_lines(pages: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for page in pages {
        for (n, line) in std::fs::read_to_string(page).unwrap().lines().enumerate() {
            let lower = line.to_ascii_lowercase();
            let numbered = lower
                .match_indices("issue ")
                .any(|(i, _)| lower[i + 6..].starts_with(|c: char| c.is_ascii_digit()));
            if numbered || lower.contains("this stop") {
                found.push(format!("{}:{}: {line}", page.display(), n + 1));
            }
        }
    }
    found
}
