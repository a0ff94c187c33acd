//! What two profiles of the same cells repeat exactly, and so what a reader may compare across
//! runs: the measured instructions, their mix, every branch predictor's counts and the ILP
//! limits. None of these depends on where the data land. They are traced at the same time (as
//! the profiles beside each other that made the cache figures differ, commit 51ab6f2) and with
//! different caller environments (which moved the stack before the pinned environment). Cache
//! misses, and the timing model's cycles that follow from them, can differ between two traced
//! processes; docs/profile.md says which and why they are not tested for equality here.

mod common;

use common::command;
use serde_json::Value;

/// Cells of every kind: an AEAD and a hash at 16 bytes (the removed test's cells), a stream
/// cipher that indexes a table by the data, and an S-box block cipher.
const CELLS: [&str; 4] = ["aes-128-gcm@16", "sha256@16", "rc4@1024", "des-cbc@1024"];

/// `profile CELLS --grid single --no-native` started with `pad` bytes of an extra variable in
/// its environment.
fn start(pad: usize) -> cryptospeed_testkit::KillOnDrop {
    let mut c = command();
    c.args(["profile", "--grid", "single", "--no-native", "--no-store"])
        .args(["--format", "json"])
        .args(CELLS)
        .env("SOME_SHELL_VARIABLE", "x".repeat(pad))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    common::spawn(&mut c)
}

fn finish(p: cryptospeed_testkit::KillOnDrop) -> Vec<Value> {
    let out = p.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn two_profiles_of_the_same_cells_repeat_what_does_not_depend_on_addresses() {
    let (first, second) = (start(0), start(191));
    let (a, b) = (finish(first), finish(second));
    assert_eq!(a.len(), CELLS.len());
    assert_eq!(b.len(), CELLS.len());
    for (x, y) in a.iter().zip(&b) {
        let cell = format!("{}@{}", x["primitive"], x["bytes"]);
        assert_eq!(x["primitive"], y["primitive"]);
        assert!(x["instructions"].as_u64().unwrap() > 0, "{cell}");
        for field in ["instructions", "bytes_processed", "mix"] {
            assert_eq!(x[field], y[field], "{cell}: {field}");
        }
        for part in ["predictors", "ilp", "ilp_instructions"] {
            assert_eq!(x["analysis"][part], y["analysis"][part], "{cell}: {part}");
        }
        // Seven predictors, each with its counts (the whole objects are compared above).
        assert_eq!(x["analysis"]["predictors"].as_array().unwrap().len(), 7);
    }
}
