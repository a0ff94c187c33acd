//! Finding the C compiler a variant is built with: on PATH or by path, its version line for the
//! build record, and, when it is missing, which Debian package provides it.

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler a variant was built with, as recorded in its manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompilerInfo {
    /// What the user asked for (`gcc-12`, `clang-19`, `/opt/cc/bin/clang`).
    pub name: String,
    /// The executable that ran.
    pub path: String,
    /// First line of `CC --version`.
    pub version: String,
}

/// The Debian package that installs a compiler of this name, when Debian has one.
pub fn debian_package(name: &str) -> Option<String> {
    let base = Path::new(name)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    let versioned = |prefix: &str| {
        base.strip_prefix(prefix)
            .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
            .is_some()
    };
    match base.as_str() {
        "cc" | "gcc" => Some("gcc".into()),
        "clang" => Some("clang".into()),
        "tcc" => Some("tcc".into()),
        _ if versioned("gcc-") || versioned("clang-") => Some(base),
        _ => None,
    }
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.is_file()
        && path
            .metadata()
            .map(|m| m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
}

/// Resolves `name` the way a shell would find it, without running a shell.
pub fn locate(name: &str) -> Result<PathBuf> {
    if name.is_empty() {
        bail!("--cc is empty");
    }
    let found = if name.contains('/') {
        let p = PathBuf::from(name);
        executable(&p).then_some(p)
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| executable(p))
        })
    };
    match found {
        Some(p) => Ok(p),
        None => {
            let hint = match debian_package(name) {
                Some(pkg) => format!("Debian's package {pkg} provides it: apt-get install {pkg}"),
                None => {
                    "Debian does not package a compiler of that name; give its full path with --cc"
                        .into()
                }
            };
            if name.contains('/') {
                bail!("compiler {name} does not exist or is not executable; {hint}")
            }
            bail!("compiler '{name}' is not on PATH; {hint}")
        }
    }
}

/// Locates the compiler and reads its version line.
pub fn probe(name: &str) -> Result<CompilerInfo> {
    let path = locate(name)?;
    let out = Command::new(&path).arg("--version").output();
    let version = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string(),
        Ok(o) => bail!(
            "{} --version failed ({}): {}",
            path.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => bail!("cannot run {} --version: {e}", path.display()),
    };
    Ok(CompilerInfo {
        name: name.to_string(),
        path: path.to_string_lossy().into_owned(),
        version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_names_compilers() {
        assert_eq!(debian_package("clang-19").as_deref(), Some("clang-19"));
        assert_eq!(debian_package("/usr/bin/gcc-11").as_deref(), Some("gcc-11"));
        assert_eq!(debian_package("cc").as_deref(), Some("gcc"));
        assert_eq!(debian_package("icx"), None);
        assert_eq!(debian_package("gcc-x"), None);
    }

    #[test]
    fn a_missing_compiler_names_its_package() {
        let e = locate("clang-97").unwrap_err().to_string();
        assert!(
            e.contains("not on PATH") && e.contains("apt-get install clang-97"),
            "{e}"
        );
        let e = locate("/nonexistent/icx").unwrap_err().to_string();
        assert!(e.contains("does not package"), "{e}");
    }
}
