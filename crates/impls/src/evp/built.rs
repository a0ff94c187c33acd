//! Loading a library of the OpenSSL family that cryptospeed builds itself with cmake (AWS-LC,
//! BoringSSL from their crates.io packages' trees), or the build given as `NAME:PATH`.

use super::{create_as, PqBackend};
use crate::ImplOptions;
use cryptospeed_engine::Implementation;

/// A library of the BoringSSL family (crate::aws_lc, crate::boringssl) as implementation `name`:
/// `NAME:PATH` loads that build; otherwise the one cryptospeed built with cmake from the
/// library's crates.io package into the variant cache. Not built yet: a build starts in the
/// background (one at a time, under the cache key's lock), and until it is there the column is
/// unavailable with the reason, as it is when the build failed or cannot run (no cmake, no C++
/// compiler).
pub(crate) fn create_built(
    name: &'static str,
    library: &'static cryptospeed_variants::cmake::CmakeLibrary,
    options: &ImplOptions,
    backends: &'static [&'static dyn PqBackend],
) -> Result<Box<dyn Implementation>, String> {
    use cryptospeed_variants::{cmake, BuildStatus, Cache};
    if let Some(path) = &options.library {
        return create_as(name, path, Vec::new(), None, backends);
    }
    let what = format!(
        "{} from the {} {} crate",
        library.title, library.crate_name, library.crate_version
    );
    let cache = Cache::open(None);
    let entry = cmake::cached(library, &cache)
        .map_err(|e| format!("{what} cannot be built here: {e:#}"))?;
    match entry {
        Some(e) if e.manifest.status == BuildStatus::Failed => Err(format!(
            "building {what} failed: {} (log: {}; it is built again when the toolchain changes, or after `cryptospeed variant rm {}`)",
            e.manifest.detail.lines().next().unwrap_or(""),
            e.log_path().display(),
            e.manifest.key
        )),
        Some(e) => create_as(
            name,
            &e.library_path().to_string_lossy(),
            e.manifest.build_info(),
            Some(format!("{}-{}", library.crate_name, library.crate_version)),
            backends,
        ),
        None if cmake::building(library, &cache) => Err(format!(
            "{what} is being built now (cmake, a few minutes); `cryptospeed variant build-library {}` waits for it",
            library.label
        )),
        None => Err(format!(
            "{what} is not built yet: {}; `cryptospeed variant build-library {}` builds it and waits",
            start_background_build(library, &cache),
            library.label
        )),
    }
}

/// Starts `cryptospeed variant build-library LABEL` detached from this worker (its own process
/// group, outliving it), when this process is the cryptospeed executable.
fn start_background_build(
    library: &cryptospeed_variants::cmake::CmakeLibrary,
    cache: &cryptospeed_variants::Cache,
) -> String {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let exe = match std::env::current_exe() {
        Ok(e) if e.file_name().is_some_and(|n| n == "cryptospeed") => e,
        _ => return "no build started from this process".into(),
    };
    if std::env::var_os("CRYPTOSPEED_NO_AUTO_BUILD").is_some_and(|v| !v.is_empty()) {
        return "CRYPTOSPEED_NO_AUTO_BUILD is set, so no build was started".into();
    }
    let _ = std::fs::create_dir_all(cache.variants_dir());
    let log = cache
        .variants_dir()
        .join(format!("{}.background.log", library.label));
    let Ok(file) = std::fs::File::create(&log) else {
        return format!("cannot write {}", log.display());
    };
    match Command::new(exe)
        .args(["variant", "build-library", library.label])
        .arg("--cache")
        .arg(cache.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(file))
        .process_group(0)
        .spawn()
    {
        Ok(_) => format!(
            "a build started in the background now (log: {})",
            log.display()
        ),
        Err(e) => format!("cannot start a build: {e}"),
    }
}
