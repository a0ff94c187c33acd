//! Building and running cstrace_qemu, our qemu-user TCG plugin (`qemu/cstrace_qemu.c`), which
//! writes the same binary trace as the valgrind tool, so a build for another instruction set
//! (ppc64le, aarch64, riscv64) is traced by qemu-user and read by [`crate::trace::read_cstrace`].
//! Like the valgrind tool it is compiled on first use into the cache, keyed by its source and
//! qemu's version; Debian's qemu-user loads plugins (`-plugin FILE.so,ARG,…`) but ships no API
//! header, so the declarations the plugin calls are in `qemu/plugin_api.h`.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const SOURCE: &str = include_str!("../qemu/cstrace_qemu.c");
pub const API_HEADER: &str = include_str!("../qemu/plugin_api.h");
const PLUGIN_FILE: &str = "cstrace_qemu.so";

/// The version line of `EMULATOR --version` (`qemu-ppc64le version 7.2.…`), or why it cannot run.
pub fn qemu_version(emulator: &str) -> Result<String, String> {
    match Command::new(emulator).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()),
        Ok(o) => Err(format!(
            "{emulator} --version failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!(
            "{emulator} is not installed ({e}); Debian's package qemu-user provides it: apt-get install qemu-user"
        )),
    }
}

/// Builds the plugin into `cache_root` if it is not there yet; its path.
pub fn ensure(cache_root: &Path, emulator: &str) -> Result<PathBuf, String> {
    let version = qemu_version(emulator)?;
    let mut h = Sha256::new();
    h.update(SOURCE.as_bytes());
    h.update(API_HEADER.as_bytes());
    h.update(version.trim_start_matches(emulator).as_bytes());
    let key = hex::encode(&h.finalize()[..8]);
    let dir = cache_root.join(format!("cstrace-qemu-{key}"));
    let plugin = dir.join(PLUGIN_FILE);
    if plugin.exists() {
        return Ok(plugin);
    }
    // Private to this call: two threads of one process may build it at once.
    static BUILDS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let staging = cache_root.join(format!(
        "cstrace-qemu-{key}.partial-{}-{}",
        std::process::id(),
        BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    let write = |name: &str, text: &str| {
        std::fs::write(staging.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))
    };
    write("cstrace_qemu.c", SOURCE)?;
    write("plugin_api.h", API_HEADER)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".into());
    let out = Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o"])
        .arg(staging.join(PLUGIN_FILE))
        .arg(staging.join("cstrace_qemu.c"))
        .output()
        .map_err(|e| format!("cannot run {cc} to build the qemu plugin: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building the qemu plugin failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if plugin.exists() {
        // Built meanwhile by another process or thread: that one stays (it may be in use).
        let _ = std::fs::remove_dir_all(&staging);
        return Ok(plugin);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::rename(&staging, &dir) {
        let _ = std::fs::remove_dir_all(&staging);
        if !plugin.exists() {
            return Err(format!(
                "cannot move the plugin into {}: {e}",
                dir.display()
            ));
        }
    }
    Ok(plugin)
}

/// The `-plugin` argument that traces into `out`, writing marker `code` whenever the
/// instruction at `addr` executes (the worker's marker functions).
pub fn plugin_arg(plugin: &Path, out: &Path, marks: &[(u64, u32)]) -> String {
    let mut arg = format!("{},out={}", plugin.display(), out.display());
    for (addr, code) in marks {
        arg.push_str(&format!(",mark={addr:x}:{code}"));
    }
    arg
}

/// The `-plugin` argument that traces into `out` only between markers (1 or 2 to 3), writing
/// marker `code` whenever a function whose symbol is `name` is entered (qemu names each
/// instruction's symbol, so the markers are found wherever a position-independent program was
/// loaded; a mangled symbol that contains `name` matches too).
pub fn plugin_arg_named(plugin: &Path, out: &Path, marks: &[(&str, u32)]) -> String {
    let mut arg = format!("{},out={},window=1", plugin.display(), out.display());
    for (name, code) in marks {
        arg.push_str(&format!(",mark_symbol={name}:{code}"));
    }
    arg
}
