//! Loading a library of the OpenSSL family that cryptospeed builds itself with cmake (AWS-LC,
//! BoringSSL from their crates.io packages' trees), or the build given as `NAME:PATH`.

use super::{create_as, PqBackend};
use crate::ImplOptions;
use cryptospeed_engine::Implementation;

/// A library of the BoringSSL family (crate::aws_lc, crate::boringssl) as implementation `name`:
/// `NAME:PATH` loads that build; otherwise the one cryptospeed built with cmake from the
/// library's crates.io package into the variant cache. Not built yet: the column is unavailable,
/// its reason the command that builds it (`cryptospeed variant build-library LABEL`); nothing is
/// built from here, so a measuring command never has a cmake build running beside it. The same
/// holds when the build failed or cannot run (no cmake, no C++ compiler).
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
            "building {what} failed: {} (log: {}; `cryptospeed variant rm {}`, then `cryptospeed variant build-library {}`, builds it again)",
            e.manifest.detail.lines().next().unwrap_or(""),
            e.log_path().display(),
            e.manifest.key,
            library.label
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
            "{what} is not built yet; `cryptospeed variant build-library {}` builds it (cmake, a few minutes)",
            library.label
        )),
    }
}
