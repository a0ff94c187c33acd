//! Running a build's programs: each step from an argument vector with its output in the build
//! log, in its own process group so Ctrl-C stops it and nothing else; the temporary directory a
//! build happens in; the per-key lock that keeps two builds of one variant apart; and the check
//! that keeps shell characters away from OpenSSL's Makefile, which hands recipes to /bin/sh.

use crate::cache::{display_command, Cache};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Characters that /bin/sh takes literally in a word: the only ones allowed in anything that
/// reaches OpenSSL's Makefile.
pub(crate) fn shell_literal(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_=+.,/:@%".contains(c)
}

pub(crate) fn check_make_safe(what: &str, value: &str) -> Result<()> {
    if value.is_empty() {
        bail!("{what}: an empty argument");
    }
    if let Some(bad) = value.chars().find(|c| !shell_literal(*c)) {
        bail!(
            "{what} '{value}' contains {bad:?}: OpenSSL's Makefile runs its recipes through /bin/sh, \
             which would interpret it, and cryptospeed never lets a shell see its arguments; use only \
             letters, digits and - _ = + . , / : @ % (for a compiler in such a path, make a symlink \
             to it)"
        );
    }
    Ok(())
}

/// A directory to build in whose path make and the shell take literally.
pub(crate) fn build_root(key: &str) -> Result<PathBuf> {
    let name = format!("cryptospeed-build-{key}-{}", std::process::id());
    for base in [
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ] {
        let candidate = base.join(&name);
        if candidate.to_string_lossy().chars().all(shell_literal) {
            return Ok(candidate);
        }
    }
    bail!("no temporary directory whose path is free of spaces and shell characters (set TMPDIR)")
}

/// Runs one build step with its output appended to the log.
pub(crate) fn step(
    log: &mut File,
    log_path: &Path,
    argv: &[String],
    cwd: &Path,
    cancel: &AtomicBool,
) -> std::result::Result<(), String> {
    let _ = writeln!(log, "\n$ {}", display_command(argv));
    let out = log.try_clone().map_err(|e| e.to_string())?;
    let err = log.try_clone().map_err(|e| e.to_string())?;
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        // A build started from `make` or `cargo` must not join their job servers.
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .env_remove("CARGO_MAKEFLAGS")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        // Its own process group, so that Ctrl-C here can stop make and every compiler it
        // started, and nothing else.
        .process_group(0)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Err(format!("cannot start {}: {e}", argv[0])),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if cancel.load(Ordering::SeqCst) => {
                // SAFETY: signals the child's own process group, created above.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
                let _ = child.wait();
                return Err("interrupted".into());
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(e) => break Err(e),
        }
    };
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!(
            "`{}` failed ({s}); see {}",
            display_command(&argv[..argv.len().min(3)]),
            log_path.display()
        )),
        Err(e) => Err(format!("cannot start {}: {e}", argv[0])),
    }
}

pub(crate) fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Holds the per-key lock for as long as it lives.
pub(crate) struct KeyLock(#[allow(dead_code)] File);

pub(crate) fn lock_key(cache: &Cache, key: &str) -> Result<KeyLock> {
    let dir = cache.variants_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let f = File::create(dir.join(format!("{key}.lock")))?;
    f.lock()
        .with_context(|| format!("cannot lock the cache entry {key}"))?;
    Ok(KeyLock(f))
}
