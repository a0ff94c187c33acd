//! Built variants as a run sees them: the worker that hosts each (its libcrypto, or a 32-bit
//! variant's own C worker), the checks every use of a cached variant passes first (its files as
//! they were cached, its known-answer tests run again: a cache hit saves the build, never the
//! verification), and `run --variant A,B` resolved to worker choices.

use crate::{BuiltVariant, ImplChoice};
use anyhow::{bail, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::protocol::{Request, Response};
use cryptospeed_variants::{BuildStatus, Cache, Entry, KatOutcome, Manifest};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The worker that hosts a variant: `cryptospeed worker` loading its libcrypto, or, for a
/// 32-bit variant, its own C worker executable (linked against its libcrypto).
pub fn worker_choice(e: &Entry, built: Option<BuiltVariant>) -> ImplChoice {
    let path = |p: PathBuf| p.to_string_lossy().into_owned();
    let worker = e.worker_path().map(path);
    // A cross build's worker runs under qemu-user: the emulator is the program.
    let mut launcher = e.emulated().map(|a| a.launcher()).unwrap_or_default();
    let (program, program_args) = match (launcher.is_empty(), worker.clone()) {
        (false, Some(w)) => {
            let qemu = launcher.remove(0);
            launcher.push(w);
            (Some(qemu), launcher)
        }
        _ => (worker.clone(), Vec::new()),
    };
    ImplChoice {
        name: "openssl".into(),
        library: worker.is_none().then(|| path(e.library_path())),
        mask: FeatureMask::default(),
        built,
        replica: None,
        program,
        program_args,
    }
}

/// Runs every catalog primitive's known-answer tests against the variant's library in a worker
/// and records the verdict in its manifest (for `variant list` and `show`; nothing reads it back
/// to decide whether to time the variant).
pub fn verify(cache: &Cache, entry: &Entry, cancel: &AtomicBool) -> Result<Manifest> {
    let choice = worker_choice(entry, None);
    let mut manifest = entry.manifest.clone();
    manifest.kats.clear();
    let mut first = match choice.start(None, cancel) {
        Ok(w) => w,
        Err(e) => {
            manifest.status = BuildStatus::Broken;
            manifest.detail = format!("the library does not load in a worker: {e:#}");
            cache.save(&entry.dir, &manifest)?;
            return Ok(manifest);
        }
    };
    let primitives: Vec<_> = cryptospeed_catalog::all().iter().collect();
    let entries = crate::verify::availability(&mut first, &primitives, cancel)?;
    let mut worker = Some(first);
    for e in entries {
        if !e.available {
            manifest.kats.push(KatOutcome {
                primitive: e.primitive,
                result: "unavailable".into(),
                detail: e.reason.unwrap_or_default(),
            });
            continue;
        }
        if worker.is_none() {
            worker = Some(choice.start(None, cancel)?);
        }
        let w = worker.as_mut().expect("started above");
        let reply = w.request(
            &Request::Verify {
                primitive: e.primitive.clone(),
            },
            Duration::from_secs(600),
            cancel,
        );
        let (result, detail) = match reply {
            Ok(Response::Verify {
                ok: true, detail, ..
            }) => ("pass", detail),
            Ok(Response::Verify { detail, .. }) => ("fail", detail),
            Ok(other) => ("fail", format!("unexpected reply {other:?}")),
            Err(cryptospeed_engine::worker_client::WorkerError::Interrupted) => {
                bail!("interrupted: the variant stays unverified; build it again to verify it")
            }
            Err(err) => {
                // The library crashed in its own test: a fresh worker takes the rest.
                worker = None;
                ("fail", format!("the worker died: {err}"))
            }
        };
        manifest.kats.push(KatOutcome {
            primitive: e.primitive,
            result: result.into(),
            detail,
        });
    }
    if let Some(w) = worker {
        w.quit();
    }
    let failures: Vec<String> = manifest
        .kats
        .iter()
        .filter(|k| k.result == "fail")
        .map(|k| format!("{}: {}", k.primitive, k.detail))
        .collect();
    if failures.is_empty() {
        manifest.status = BuildStatus::Ready;
        manifest.detail.clear();
    } else {
        manifest.status = BuildStatus::Broken;
        manifest.detail = format!(
            "{} known-answer test(s) failed: {}",
            failures.len(),
            failures.join("; ")
        );
    }
    cache.save(&entry.dir, &manifest)?;
    Ok(manifest)
}

/// `profile --variant NAME` resolved to its worker: as [`choices`] does for `run`, except that a
/// cross-built variant is taken too (it is traced under qemu-user, never timed). Its build must
/// have succeeded and verified, and its files be the bytes it was cached with; the worker runs
/// the profiled cell's known-answer tests again before it traces the cell.
pub fn profile_choices(name: &str) -> Result<Vec<ImplChoice>> {
    let cache = Cache::open(None);
    let Some(mut e) = cache.find(name).ok().filter(|e| e.emulated().is_some()) else {
        return choices(name);
    };
    let label = e.manifest.label.clone();
    if e.manifest.status != BuildStatus::Ready {
        bail!(
            "variant {label} is {} and is never profiled: {} (log: {})",
            e.manifest.status.as_str(),
            e.manifest.detail,
            e.log_path().display()
        );
    }
    cryptospeed_variants::files::check_or_record(&mut e)?;
    let built = BuiltVariant {
        label,
        build_info: e.manifest.build_info(),
    };
    Ok(vec![worker_choice(&e, Some(built))])
}

/// Resolves `run --variant A,B,C` to worker choices: each built variant loads its own library;
/// `system` is the system libcrypto. Each variant is checked as [`usable`] says first.
pub fn choices(list: &str) -> Result<Vec<ImplChoice>> {
    let cache = Cache::open(None);
    let cancel = AtomicBool::new(false);
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "system" {
            out.push(ImplChoice::parse("openssl"));
            continue;
        }
        let e = usable(&cache, name, &cancel)?;
        let built = BuiltVariant {
            label: e.manifest.label.clone(),
            build_info: e.manifest.build_info(),
        };
        out.push(worker_choice(&e, Some(built)));
    }
    if out.is_empty() {
        bail!("--variant names no variant");
    }
    Ok(out)
}

/// A cached variant that may be timed: its build succeeded, its files are the bytes it was
/// cached with, and its known-answer tests pass now, run in a worker of its own. The verdict
/// its manifest records from an earlier run decides nothing (and each worker that times it runs
/// the tests of what it times again). A variant that fails any check is refused: never timed.
pub fn usable(cache: &Cache, name: &str, cancel: &AtomicBool) -> Result<Entry> {
    let mut e = cache.find(name)?;
    let label = e.manifest.label.clone();
    if let Some(arch) = e.emulated() {
        bail!(
            "variant {label} is built for {} and runs here only under {}, whose timing means nothing: it is never timed; use `cryptospeed profile --variant {label}` for its instruction mix, caches, predictors and modelled cycles",
            arch.as_str(),
            arch.qemu()
        );
    }
    if e.manifest.status == BuildStatus::Failed && !e.library_path().is_file() {
        bail!(
            "variant {label} failed to build ({}); it cannot be timed (log: {})",
            e.manifest.detail,
            e.log_path().display()
        );
    }
    if cryptospeed_variants::files::check_or_record(&mut e)? {
        eprintln!(
            "cryptospeed: variant {label} was cached before its files' hashes were kept; they are recorded now"
        );
    }
    e.manifest = verify(cache, &e, cancel)?;
    match e.manifest.status {
        BuildStatus::Ready => Ok(e),
        _ => bail!(
            "variant {label} is broken and is never timed: {}",
            e.manifest.detail
        ),
    }
}
