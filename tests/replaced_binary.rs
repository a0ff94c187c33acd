//! A run whose executable is replaced while it runs (another `cargo build` of the same target in
//! a shared tree, the everyday case on a team's machine) keeps starting its workers from the
//! build it began with: before, every later worker failed to start ("… (deleted)") and a gate's
//! later passes silently got no bouts, leaving cells undecided.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn workers_start_from_the_running_build_after_the_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("cryptospeed");
    std::fs::copy(env!("CARGO_BIN_EXE_cryptospeed"), &exe).unwrap();
    let child = Command::new(&exe)
        .env("CRYPTOSPEED_CACHE", common::test_cache())
        .args([
            "run",
            "--impl",
            "openssl,openssl#b",
            "--cells",
            "md5@16,sha256@16",
        ])
        .args(["--max-time", "0.5", "--db"])
        .arg(dir.path().join("r.db"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Replaced as cargo does it: a new file renamed over the old, which is unlinked.
    std::thread::sleep(Duration::from_millis(700));
    let new = dir.path().join("cryptospeed.new");
    std::fs::copy(&exe, &new).unwrap();
    std::fs::rename(&new, &exe).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("could not be restarted"), "{err}");
    assert!(err.contains("(4 cells, 0 failed)"), "{err}");
}
