//! The Debian source package of an installed library: fetched with `apt-get source` at the
//! installed version (or the suite's, when the archive no longer has it, said in the provenance),
//! so an oracle's benchmark program comes from the same source the installed build came from and
//! is linked against that installed build, never a second copy.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The line to add when the system has no source index.
pub const DEB_SRC_HINT: &str = "add a deb-src line for the installed suite (e.g. \
    /etc/apt/sources.list.d/deb-src.sources with `Types: deb-src`, the same URIs, Suites and \
    Components as the deb entry), then `apt-get update`";

/// An unpacked source package.
#[derive(Debug, Clone)]
pub struct Source {
    pub dir: PathBuf,
    /// `package=version` of the source unpacked.
    pub source: String,
    /// `package=version` of the installed binary package the program links against.
    pub installed: String,
}

/// The installed version of a binary package.
pub fn installed_version(package: &str) -> Result<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", package])
        .output()
        .context("dpkg-query (is this a Debian system?)")?;
    if !out.status.success() || out.stdout.is_empty() {
        bail!("{package} is not installed (apt-get install {package})");
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Fetches and unpacks source package `src` into `dir` (once), the version of installed
/// binary package `binary` when the archive has it.
pub fn fetch(src: &str, binary: &str, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Source> {
    let installed = format!("{binary}={}", installed_version(binary)?);
    std::fs::create_dir_all(dir)?;
    let stamp = dir.join("SOURCE");
    if let (Ok(source), Some(unpacked)) = (std::fs::read_to_string(&stamp), unpacked(dir, src)) {
        return Ok(Source {
            dir: unpacked,
            source: source.trim().to_string(),
            installed,
        });
    }
    let version = installed
        .split_once('=')
        .map(|(_, v)| v)
        .unwrap_or_default();
    let exact = format!("{src}={version}");
    let source = if run(&["apt-get", "source", "-q", &exact], dir, log).is_ok() {
        exact
    } else {
        log(&format!(
            "{exact} is not in the source index; fetching the suite's {src}"
        ));
        run(&["apt-get", "source", "-q", src], dir, log)
            .with_context(|| format!("apt-get source {src}: {DEB_SRC_HINT}"))?;
        format!(
            "{src}={}",
            dsc_version(dir, src).unwrap_or_else(|| "?".into())
        )
    };
    std::fs::write(&stamp, &source)?;
    let dir = unpacked(dir, src).context("apt-get source left no unpacked tree")?;
    Ok(Source {
        dir,
        source,
        installed,
    })
}

/// The unpacked tree `src-VERSION/` in `dir`.
fn unpacked(dir: &Path, src: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir() && name_of(p).starts_with(&format!("{src}-")))
}

/// The version in the `.dsc` file `apt-get source` left in `dir`.
fn dsc_version(dir: &Path, src: &str) -> Option<String> {
    std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
        let name = name_of(&e.path());
        name.strip_prefix(&format!("{src}_"))?
            .strip_suffix(".dsc")
            .map(str::to_string)
    })
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs a build or fetch step in `cwd`, logging it; fails with the step's own error output.
pub fn run(argv: &[&str], cwd: &Path, log: &mut dyn FnMut(&str)) -> Result<String> {
    log(&format!("(cd {} && {})", cwd.display(), argv.join(" ")));
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .output()
        .with_context(|| format!("starting {}", argv[0]))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(8).collect();
        bail!(
            "{} failed: {}",
            argv.join(" "),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(argv.join(" "))
}
