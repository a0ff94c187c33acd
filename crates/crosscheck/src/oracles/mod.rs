//! The oracles, one file each, and what they share: building a program once from a fetched
//! Debian source tree, and reading a figure off the output row that names a cell.

pub mod aws_lc;
pub mod aws_lc_rs;
pub mod boringssl;
pub mod criterion;
pub mod go;
pub mod libgcrypt;
pub mod libsodium;
pub mod mbedtls;
pub mod nettle;
pub mod openssl;
pub mod openssl_build;
pub mod openssl_cli;
pub mod perftools;
pub mod ring;
pub mod rustcrypto;
pub mod wolfssl;

use crate::debsrc::{self, Source};
use crate::Provenance;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// One program to build: its name and the compiler command (run in `cwd`, a path in the tree).
pub struct Build {
    pub program: &'static str,
    pub cwd: &'static str,
    pub argv: &'static [&'static str],
}

/// Fetches `src` (the source of installed binary package `binary`) into `dir` and builds each
/// program in it unless already built; the provenance names both packages and every command.
pub fn debian_build(
    src: &str,
    binary: &str,
    dir: &Path,
    builds: &[Build],
    log: &mut dyn FnMut(&str),
) -> Result<Provenance> {
    let source: Source = debsrc::fetch(src, binary, dir, log)?;
    let mut programs = Vec::new();
    let mut commands = Vec::new();
    for b in builds {
        let cwd = source.dir.join(b.cwd);
        let out = cwd.join(b.program);
        commands.push(format!("(cd {} && {})", cwd.display(), b.argv.join(" ")));
        if !out.exists() {
            debsrc::run(b.argv, &cwd, log).with_context(|| format!("building {}", b.program))?;
        }
        programs.push(out);
    }
    Ok(Provenance {
        source: format!("Debian source {}", source.source),
        library: format!("installed {}", source.installed),
        programs,
        build: commands,
    })
}

/// The built program called `name`.
pub fn program(built: &Provenance, name: &str) -> String {
    built
        .programs
        .iter()
        .find(|p| p.file_name().is_some_and(|f| f == name))
        .unwrap_or(&PathBuf::from(name))
        .display()
        .to_string()
}

/// The numbers after `row` on the first line that contains it (whitespace collapsed, CSV commas
/// read as spaces).
pub fn row_numbers(output: &str, row: &str) -> Option<Vec<f64>> {
    output.lines().find_map(|line| {
        let flat = line
            .replace(',', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let at = flat.find(row)?;
        let rest = &flat[at + row.len()..];
        let nums: Vec<f64> = rest
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        (!nums.is_empty()).then_some(nums)
    })
}

/// The `index`th number after `row`, scaled.
pub fn figure(output: &str, row: &str, index: usize, scale: f64) -> Result<f64> {
    row_numbers(output, row)
        .and_then(|n| n.get(index).copied())
        .map(|x| x * scale)
        .with_context(|| format!("no row `{row}` with a figure in the output"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_in_text_and_csv() {
        let text = "            aes128  CBC encrypt  800.99\nSHA-256,138.9,18.6,\n";
        assert_eq!(row_numbers(text, "aes128 CBC encrypt"), Some(vec![800.99]));
        assert_eq!(row_numbers(text, "SHA-256"), Some(vec![138.9, 18.6]));
        assert!(row_numbers(text, "sha1").is_none());
    }
}
