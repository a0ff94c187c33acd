//! Helpers the end-to-end test files share: the binary under test and the small time budget
//! that keeps every run quick.

use assert_cmd::Command;
use std::path::Path;

pub fn bin() -> Command {
    Command::cargo_bin("cryptospeed").unwrap()
}

/// Store and measuring options for a quick run: 0.3 s per cell, ±5%.
#[allow(dead_code)] // not every test file uses every helper
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

/// Runs the command, asserts it succeeded (showing its stderr if not), returns its stdout.
#[allow(dead_code)] // not every test file uses every helper
pub fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
