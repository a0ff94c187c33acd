//! Helpers the end-to-end test files share: the binary under test and the small time budget
//! that keeps every run quick.

use assert_cmd::Command;
use std::path::Path;

pub fn bin() -> Command {
    Command::cargo_bin("cryptospeed").unwrap()
}

/// Store and measuring options for a quick run: 0.3 s per cell, ±5%.
pub fn quick(db: &Path) -> Vec<String> {
    [
        "--db",
        db.to_str().unwrap(),
        "--max-time",
        "0.3",
        "--sample-time",
        "0.002",
        "--min-samples",
        "6",
        "--precision",
        "0.05",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}
