//! A run whose executable is replaced while it runs (another `cargo build` of the same target in
//! a shared tree, the everyday case on a team's machine) keeps starting its workers from the
//! build it began with: before, every later worker failed to start ("… (deleted)") and a gate's
//! later passes silently got no bouts, leaving cells undecided.

mod common;

use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `cryptospeed worker` processes `parent` has now (its children whose argv says `worker`).
fn workers_of(parent: u32) -> HashSet<u32> {
    let mut found = HashSet::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Field 4 (after the parenthesised name, which may hold spaces) is the parent's pid.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.split_whitespace().nth(1));
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let worker = cmdline.split(|&b| b == 0).any(|a| a == b"worker");
        if ppid == Some(&parent.to_string()) && worker {
            found.insert(pid);
        }
    }
    found
}

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
    // Wait until a worker has started and ended (a round done), noting every worker seen.
    let (parent, mut before, deadline) = (child.id(), HashSet::new(), Instant::now());
    loop {
        let now = workers_of(parent);
        if before.iter().any(|p| !now.contains(p)) {
            break;
        }
        before.extend(now);
        assert!(
            deadline.elapsed() < Duration::from_secs(60),
            "no worker ever ended"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // Replaced as cargo does it: a new file renamed over the old, which is unlinked.
    let new = dir.path().join("cryptospeed.new");
    std::fs::copy(&exe, &new).unwrap();
    before.extend(workers_of(parent));
    std::fs::rename(&new, &exe).unwrap();
    // The proof the fix is exercised: a worker the run started after the rename.
    let mut after = false;
    while !after && deadline.elapsed() < Duration::from_secs(120) {
        // From the build the run began with (now unlinked), not from the file now at the path,
        // which a worker whose path was resolved before the rename would run.
        after = workers_of(parent).iter().any(|p| {
            let exe = std::fs::read_link(format!("/proc/{p}/exe")).unwrap_or_default();
            !before.contains(p) && exe.to_string_lossy().ends_with(" (deleted)")
        });
        if !after
            && std::fs::read_to_string(format!("/proc/{parent}/stat"))
                .map_or(true, |s| s.contains(") Z "))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        after,
        "no worker was started after the binary was replaced: {err}"
    );
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("could not be restarted"), "{err}");
    assert!(err.contains("(4 cells, 0 failed)"), "{err}");
}
