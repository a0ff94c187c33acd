//! The architecture a variant is built for. It exists because a 32-bit (i386) build differs from
//! a 64-bit one in more than its Configure target: it needs the 32-bit C library (Debian's
//! gcc-multilib), and a 64-bit worker cannot load its libcrypto, so it is timed by a worker of
//! its own (crate::c_worker). `--arch i386` and the Configure targets `linux-x86` and
//! `linux-elf` name the same build. A build for another instruction set (ppc64le, aarch64 on an
//! x86-64 machine, riscv64) is a cross build: Debian's cross compiler makes it, and its C worker
//! runs under `qemu-user` with the cross C library as its root (`-L /usr/TRIPLE`), which is
//! enough to run its known-answer tests and to trace it, never to time it.

use anyhow::{bail, Result};

/// What `--arch` accepts and what the manifest records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    I386,
    Aarch64,
    Ppc64le,
    Riscv64,
}

impl Arch {
    pub fn as_str(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::I386 => "i386",
            Arch::Aarch64 => "aarch64",
            Arch::Ppc64le => "ppc64le",
            Arch::Riscv64 => "riscv64",
        }
    }

    /// `--arch NAME`, with the other names people give these architectures.
    pub fn parse(name: &str) -> Result<Arch> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "x86_64" | "x86-64" | "amd64" | "x64" => Arch::X86_64,
            "i386" | "i486" | "i586" | "i686" | "x86" | "ia32" | "32" => Arch::I386,
            "aarch64" | "arm64" => Arch::Aarch64,
            "ppc64le" | "ppc64el" | "powerpc64le" => Arch::Ppc64le,
            "riscv64" | "rv64" | "rv64gc" => Arch::Riscv64,
            other => bail!(
                "--arch {other}: known architectures are x86_64 (amd64), i386 (x86, i686), \
                 aarch64 (arm64), ppc64le and riscv64"
            ),
        })
    }

    /// The machine this program runs on.
    pub fn host() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::X86_64),
            "x86" => Some(Arch::I386),
            "aarch64" => Some(Arch::Aarch64),
            _ => None,
        }
    }

    /// OpenSSL's Configure target for a Linux build of this architecture. On a 64-bit x86
    /// machine the 32-bit target is `linux-x86`, which adds `-m32`; `linux-elf` is the same
    /// target for a machine whose compiler is 32-bit already.
    pub fn target(self) -> &'static str {
        match self {
            Arch::X86_64 => "linux-x86_64",
            Arch::I386 => "linux-x86",
            Arch::Aarch64 => "linux-aarch64",
            Arch::Ppc64le => "linux-ppc64le",
            Arch::Riscv64 => "linux64-riscv64",
        }
    }

    /// The architecture a Configure target builds for, when it is one of these.
    pub fn of_target(target: &str) -> Option<Arch> {
        match target {
            "linux-x86" | "linux-elf" | "linux-x86-clang" | "linux-x86-latomic" => Some(Arch::I386),
            "linux-x86_64" | "linux-x86_64-clang" => Some(Arch::X86_64),
            "linux-aarch64" => Some(Arch::Aarch64),
            "linux-ppc64le" => Some(Arch::Ppc64le),
            "linux64-riscv64" => Some(Arch::Riscv64),
            _ => None,
        }
    }

    /// Whether a process of this program can load a library of this architecture.
    pub fn loadable_here(self) -> bool {
        Arch::host() == Some(self)
    }

    /// Whether this machine runs code of this architecture itself (an x86-64 one runs i386
    /// code too); any other runs only under qemu-user, where its timing means nothing.
    pub fn runs_natively(self) -> bool {
        match Arch::host() {
            Some(Arch::X86_64) => matches!(self, Arch::X86_64 | Arch::I386),
            host => host == Some(self),
        }
    }

    /// Debian's GNU triple for this architecture: the prefix of its cross tools
    /// (`powerpc64le-linux-gnu-gcc`) and the directory of its C library (`/usr/TRIPLE`).
    pub fn triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-linux-gnu",
            Arch::I386 => "i686-linux-gnu",
            Arch::Aarch64 => "aarch64-linux-gnu",
            Arch::Ppc64le => "powerpc64le-linux-gnu",
            Arch::Riscv64 => "riscv64-linux-gnu",
        }
    }

    /// The qemu-user emulator of this architecture (Debian's qemu-user package).
    pub fn qemu(self) -> &'static str {
        match self {
            Arch::X86_64 => "qemu-x86_64",
            Arch::I386 => "qemu-i386",
            Arch::Aarch64 => "qemu-aarch64",
            Arch::Ppc64le => "qemu-ppc64le",
            Arch::Riscv64 => "qemu-riscv64",
        }
    }

    /// How to start a program of this architecture here: nothing before it when it runs
    /// natively, else `qemu-ARCH -L /usr/TRIPLE`.
    pub fn launcher(self) -> Vec<String> {
        if self.runs_natively() {
            return Vec::new();
        }
        vec![
            self.qemu().to_string(),
            "-L".to_string(),
            format!("/usr/{}", self.triple()),
        ]
    }
}

/// `--arch` and `--target` together: the Configure target to build and its architecture.
/// `linux-elf` on a 64-bit machine becomes `linux-x86` (the same build, with `-m32`), so both
/// spellings make one variant; a target that contradicts `--arch` is refused.
pub fn resolve(arch: Option<&str>, target: Option<&str>) -> Result<(String, Option<Arch>)> {
    let arch = arch.map(Arch::parse).transpose()?;
    let target = match (arch, target) {
        (_, Some("linux-elf")) if Arch::host() != Some(Arch::I386) => "linux-x86".to_string(),
        (_, Some(t)) => t.to_string(),
        (Some(a), None) => a.target().to_string(),
        (None, None) => return Ok((default_target()?, Arch::host())),
    };
    let of_target = Arch::of_target(&target);
    if let (Some(a), Some(t)) = (arch, of_target) {
        if a != t {
            bail!(
                "--arch {} and --target {target} disagree ({target} builds for {})",
                a.as_str(),
                t.as_str()
            );
        }
    }
    Ok((target, arch.or(of_target)))
}

fn default_target() -> Result<String> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Ok("linux-x86_64".into()),
        ("linux", "aarch64") => Ok("linux-aarch64".into()),
        ("linux", "x86") => Ok("linux-elf".into()),
        (os, arch) => bail!("no default OpenSSL Configure target for {os}/{arch}; pass --target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_disagreements_resolve_the_same_on_every_host() {
        assert_eq!(
            resolve(Some("i386"), None).unwrap(),
            ("linux-x86".to_string(), Some(Arch::I386))
        );
        assert_eq!(
            resolve(Some("amd64"), None).unwrap(),
            ("linux-x86_64".to_string(), Some(Arch::X86_64))
        );
        let e = resolve(Some("i386"), Some("linux-x86_64"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("disagree"), "{e}");
        assert!(Arch::parse("sparc").is_err());
        assert_eq!(Arch::parse("i686").unwrap(), Arch::I386);
        assert_eq!(
            resolve(Some("ppc64le"), None).unwrap(),
            ("linux-ppc64le".to_string(), Some(Arch::Ppc64le))
        );
        assert_eq!(
            resolve(None, Some("linux64-riscv64")).unwrap(),
            ("linux64-riscv64".to_string(), Some(Arch::Riscv64))
        );
        // Only a process of the host's own architecture loads a library: the other is never.
        let other = if Arch::host() == Some(Arch::I386) {
            Arch::X86_64
        } else {
            Arch::I386
        };
        assert!(!other.loadable_here());
    }

    #[test]
    #[cfg_attr(
        not(target_arch = "x86_64"),
        ignore = "needs an x86_64 host: linux-elf is a build of its own on a 32-bit one"
    )]
    fn both_spellings_of_the_32_bit_target_are_one_build() {
        let by_arch = resolve(Some("i386"), None).unwrap();
        assert_eq!(by_arch, ("linux-x86".to_string(), Some(Arch::I386)));
        assert_eq!(resolve(None, Some("linux-elf")).unwrap(), by_arch);
        assert_eq!(resolve(None, Some("linux-x86")).unwrap(), by_arch);
        assert_eq!(resolve(Some("i686"), Some("linux-elf")).unwrap(), by_arch);
        assert_eq!(
            resolve(None, None).unwrap(),
            ("linux-x86_64".to_string(), Some(Arch::X86_64))
        );
        assert!(Arch::X86_64.loadable_here());
        assert!(!Arch::I386.loadable_here());
    }
}
