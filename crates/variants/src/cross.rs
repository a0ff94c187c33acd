//! Cross builds: a variant for an instruction set this machine does not run (ppc64le, riscv64,
//! aarch64 on x86-64) is compiled by Debian's cross compiler (`powerpc64le-linux-gnu-gcc`) with
//! the cross archiver, and its C worker runs under qemu-user. What is missing is said before
//! anything is unpacked, with the Debian package that provides it (scripts/setup installs them).

use crate::arch::Arch;
use crate::compiler;
use anyhow::{bail, Result};
use std::path::Path;

/// The architecture of a Configure target when this machine cannot run its code itself.
pub fn foreign(target: &str) -> Option<Arch> {
    Arch::of_target(target).filter(|a| !a.runs_natively())
}

/// The compiler a cross build uses for `--cc NAME`: the default `gcc` (or `cc`, or `gcc-12`)
/// becomes the cross compiler of that name (`powerpc64le-linux-gnu-gcc`); a path or any other
/// name is taken as given.
pub fn compiler_name(cc: &str, arch: Arch) -> String {
    let gcc = cc == "cc" || cc == "gcc" || cc.strip_prefix("gcc-").is_some_and(is_version);
    match gcc {
        true if cc == "cc" => format!("{}-gcc", arch.triple()),
        true => format!("{}-{cc}", arch.triple()),
        false => cc.to_string(),
    }
}

fn is_version(v: &str) -> bool {
    !v.is_empty() && v.chars().all(|c| c.is_ascii_digit())
}

/// Configure's `AR=` and `RANLIB=` for a cross build: the host's archiver cannot index another
/// architecture's objects.
pub fn configure_tools(target: &str) -> Vec<String> {
    match foreign(target) {
        Some(a) => vec![
            format!("AR={}-ar", a.triple()),
            format!("RANLIB={}-ranlib", a.triple()),
        ],
        None => Vec::new(),
    }
}

/// Checks that the cross compiler, the cross C library and qemu-user are installed.
pub fn check_toolchain(arch: Arch, cc: &str) -> Result<()> {
    let triple = arch.triple();
    if compiler::locate(cc).is_err() {
        bail!(
            "cannot build for {}: the cross compiler {cc} is not on PATH; Debian's package gcc-{triple} provides it: apt-get install gcc-{triple} (scripts/setup does)",
            arch.as_str()
        );
    }
    let sysroot = format!("/usr/{triple}");
    if !Path::new(&sysroot).join("include/stdio.h").is_file() {
        bail!(
            "cannot build for {}: the {triple} C library is not installed under {sysroot}; apt-get install gcc-{triple} (which brings its libc6-dev cross package)",
            arch.as_str()
        );
    }
    if compiler::locate(arch.qemu()).is_err() {
        bail!(
            "cannot build for {}: its known-answer tests run under {}, which is not on PATH; apt-get install qemu-user",
            arch.as_str(),
            arch.qemu()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_compiler_becomes_the_cross_compiler() {
        assert_eq!(
            compiler_name("gcc", Arch::Ppc64le),
            "powerpc64le-linux-gnu-gcc"
        );
        assert_eq!(
            compiler_name("gcc-12", Arch::Riscv64),
            "riscv64-linux-gnu-gcc-12"
        );
        assert_eq!(compiler_name("/opt/x/cc", Arch::Ppc64le), "/opt/x/cc");
        assert_eq!(
            configure_tools("linux-ppc64le"),
            [
                "AR=powerpc64le-linux-gnu-ar",
                "RANLIB=powerpc64le-linux-gnu-ranlib"
            ]
        );
        assert!(configure_tools("linux-x86").is_empty());
    }
}
