//! The C worker (workers/c) as a variant builds it: its source, embedded so any cryptospeed
//! binary can build the worker it speaks with, the check that the compiler can make 32-bit
//! programs at all, and the compile-and-link command. It exists because a 32-bit libcrypto cannot
//! be loaded by the 64-bit `cryptospeed worker` and Rust's i686 standard library cannot be had
//! here: a 32-bit variant is timed by this worker, linked statically against the variant's own
//! libcrypto.a with the variant's compiler and flags.

use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

/// The worker's source files.
pub const SOURCES: &[(&str, &str)] = &[
    ("worker.c", include_str!("../../../workers/c/worker.c")),
    ("json.h", include_str!("../../../workers/c/json.h")),
    ("pkey.h", include_str!("../../../workers/c/pkey.h")),
];

/// A hash of the worker's source: part of a 32-bit variant's cache key, so a changed worker is a
/// new build.
pub fn source_hash() -> String {
    let mut h = Sha256::new();
    for (name, text) in SOURCES {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(text.as_bytes());
        h.update([0]);
    }
    hex::encode(&h.finalize()[..8])
}

/// The include flag a 32-bit build needs on a Debian amd64 host without `/usr/include/asm`:
/// Debian's gcc-multilib package only adds that link (to the amd64 kernel headers, which serve
/// both ABIs), and it conflicts with the cross compilers `variant build --arch` uses, so a machine
/// with those has libc6-dev-i386 and lib32gcc but no `asm/errno.h` for `-m32`. Pointing the
/// compiler at the multiarch directory is the same thing the link does. Empty when not needed.
pub fn multiarch_include() -> Vec<String> {
    let multiarch = Path::new("/usr/include/x86_64-linux-gnu");
    if Path::new("/usr/include/asm").exists() || !multiarch.join("asm").is_dir() {
        return Vec::new();
    }
    vec![format!("-isystem{}", multiarch.display())]
}

/// Checks that `compiler -m32` compiles, links and runs a C program that uses the C library:
/// without Debian's gcc-multilib it stops at `bits/libc-header-start.h`, which is said here in
/// plain words before any of OpenSSL's build runs.
pub fn check_toolchain(compiler: &str, work: &Path) -> Result<(), String> {
    let _ = std::fs::create_dir_all(work);
    let src = work.join("probe32.c");
    let exe = work.join("probe32");
    // errno.h reaches the kernel's asm headers, as OpenSSL's sources do.
    let program = "#include <errno.h>\n#include <stdio.h>\n#include <stdint.h>\nint main(void) { return sizeof(void *) == 4 && puts(\"32\") >= 0 && EINVAL > 0 ? 0 : 1; }\n";
    std::fs::write(&src, program).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let fix = "install the 32-bit C library and its compiler support: apt-get install gcc-12-multilib (gcc-N-multilib for gcc N; scripts/setup does; the gcc-multilib metapackage would remove the cross compilers)";
    let out = Command::new(compiler)
        .arg("-m32")
        .args(multiarch_include())
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("cannot run {compiler}: {e}"))?;
    let result = if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("error") || l.contains("cannot find"))
            .unwrap_or_else(|| stderr.lines().next().unwrap_or(""))
            .trim()
            .to_string();
        Err(format!(
            "no 32-bit toolchain: `{compiler} -m32` cannot build a C program ({first}); {fix}"
        ))
    } else {
        match Command::new(&exe).output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(format!(
                "a 32-bit test program built but did not run ({}); this kernel may lack 32-bit support (CONFIG_IA32_EMULATION)",
                o.status
            )),
            Err(e) => Err(format!(
                "a 32-bit test program built but cannot start ({e}); this kernel may lack 32-bit support (CONFIG_IA32_EMULATION)"
            )),
        }
    };
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&exe);
    result
}

/// Writes the worker's sources into `dir`, where [`compile_argv`]'s command compiles them.
pub fn write_sources(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in SOURCES {
        std::fs::write(dir.join(name), text)
            .map_err(|e| format!("cannot write the C worker's {name}: {e}"))?;
    }
    Ok(())
}

/// The command that compiles the worker's sources in `dir` (written by [`write_sources`]) into
/// `output`, linked against `tree`'s libcrypto.a (`-m32` and `multiarch`, [`multiarch_include`]'s
/// flags, for a 32-bit build; the variant's flags after `-O2`). It only renders the command:
/// the variant's cache key hashes it (crate::build).
pub fn compile_argv(
    compiler: &str,
    m32: bool,
    multiarch: &[String],
    cflags: &[String],
    tree: &Path,
    dir: &Path,
    output: &Path,
) -> Vec<String> {
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let mut argv = vec![compiler.to_string()];
    if m32 {
        argv.push("-m32".into());
        argv.extend(multiarch.iter().cloned());
    }
    argv.extend(["-O2".to_string(), "-std=gnu99".to_string()]);
    argv.extend(cflags.iter().cloned());
    argv.extend([
        format!("-I{}", path(&tree.join("include"))),
        "-o".into(),
        path(output),
        path(&dir.join("worker.c")),
        path(&tree.join("libcrypto.a")),
        "-pthread".into(),
        "-ldl".into(),
        "-latomic".into(),
    ]);
    argv
}
