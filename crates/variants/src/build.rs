//! Building a variant: OpenSSL's own Configure and make produce a static libcrypto (the only
//! kind the `openssl-src` trees can build: they lack `util/mkdef.pl`), which is then linked
//! whole into a shared object with `-Bsymbolic` and its own SONAME. The worker loads that object
//! by path with dlopen, so any version (1.1.1 … 4.0) sits in its own process beside the system
//! libcrypto without a loader-path or SONAME clash.
//!
//! Every program runs from an argument vector, never through a shell. OpenSSL's Makefile does
//! hand its recipes to /bin/sh, so flags that reach the Makefile are restricted to characters
//! the shell takes literally, and the build happens in a directory whose path has none of the
//! others (a source path with spaces is copied, never built in place).
//!
//! A 32-bit (i386) build stops at libcrypto.a: no 64-bit process could load it, so the C worker
//! (crate::c_worker) is compiled with the same compiler and flags and linked statically against
//! it, and that executable is what the variant keeps and what times it.

use crate::arch::{self, Arch};
use crate::c_worker;
use crate::cache::{save_manifest, BuildStatus, Cache, Entry, Manifest};
use crate::compiler::{self, CompilerInfo};
use crate::cross;
use crate::source::{self, ResolvedSource, SourceSpec};
use crate::steps::check_make_safe;
pub(crate) use crate::steps::{build_root, lock_key, step, tail};
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildRequest {
    pub source: SourceSpec,
    /// Compiler name on PATH or path (`gcc-12`, `clang-19`).
    pub cc: String,
    /// Extra compiler flags, one per element (appended after OpenSSL's defaults, so `-O2`
    /// overrides its `-O3`).
    pub cflags: Vec<String>,
    pub no_asm: bool,
    /// Extra Configure options (`no-sse2`, `enable-ec_nistp_64_gcc_128`, `-DPEDANTIC`).
    pub configure_args: Vec<String>,
    /// Configure target; default from `arch`, else the machine's (`linux-x86_64`).
    pub target: Option<String>,
    /// Architecture (`i386`, `x86_64`): `i386` builds 32-bit code with the 32-bit worker.
    pub arch: Option<String>,
    /// Time this variant with the C worker (workers/c) linked against it, as a 32-bit variant
    /// always is: a 64-bit build so timed is compared with a 32-bit one through the same harness.
    pub c_worker: bool,
    pub label: Option<String>,
    /// Parallel make jobs (0: one per CPU).
    pub jobs: usize,
    /// Build again even if the cache holds this variant.
    pub rebuild: bool,
}

/// What `build` did.
#[derive(Debug, Clone)]
pub struct BuildOutcome {
    pub entry: Entry,
    /// True when the cache already held the variant and nothing was built.
    pub cached: bool,
}

/// The build stopped; the cache holds the failure record and log where one was made.
#[derive(Debug)]
pub struct BuildFailure {
    pub message: String,
    pub log: Option<PathBuf>,
    pub log_tail: String,
}

impl std::fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(log) = &self.log {
            write!(f, "\nbuild log: {}", log.display())?;
        }
        if !self.log_tail.is_empty() {
            write!(f, "\nlast lines of the log:\n{}", self.log_tail)?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildFailure {}

/// Splits `--cflags "-O2 -march=native"` into flags.
pub fn split_flags(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn label_token(s: &str) -> String {
    s.trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._=+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `openssl-3.5.5-clang-19-O3-noasm`: version, compiler, optimisation level, then whatever else
/// differs from a default build; a tree given by path adds its hash (it may be patched).
pub fn default_label(
    source: &source::SourceInfo,
    compiler: &CompilerInfo,
    req: &BuildRequest,
) -> String {
    let cc = Path::new(&compiler.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| compiler.name.clone());
    let cross = arch::resolve(req.arch.as_deref(), req.target.as_deref())
        .ok()
        .and_then(|(t, _)| cross::foreign(&t));
    let cc = match cross {
        Some(a) => cc
            .strip_prefix(&format!("{}-", a.triple()))
            .map_or(cc.clone(), str::to_string),
        None => cc,
    };
    let opt = req
        .cflags
        .iter()
        .rev()
        .find(|f| f.starts_with("-O"))
        .map(|f| f.trim_start_matches('-').to_string())
        .unwrap_or_else(|| "O3".into());
    let mut parts = vec![format!("openssl-{}", source.version)];
    if source.kind != "openssl-src crate" {
        parts.push(format!("src{}", &source.sha256[..8]));
    }
    parts.push(label_token(&cc));
    parts.push(opt);
    if req.no_asm {
        parts.push("noasm".into());
    }
    for f in req.cflags.iter().filter(|f| !f.starts_with("-O")) {
        parts.push(label_token(f));
    }
    for a in &req.configure_args {
        parts.push(label_token(a));
    }
    if req.c_worker {
        parts.push("cworker".into());
    }
    match arch::resolve(req.arch.as_deref(), req.target.as_deref()) {
        // Both spellings of the 32-bit target, and --arch i386, make one variant: `…-i386`.
        Ok((_, Some(Arch::I386))) if Arch::host() != Some(Arch::I386) => parts.push("i386".into()),
        // A cross build says its architecture (its compiler is named for it: `gcc` above).
        Ok((t, Some(a))) if cross::foreign(&t).is_some() => parts.push(a.as_str().into()),
        _ => {
            if let Some(t) = &req.target {
                parts.push(label_token(t));
            }
        }
    }
    parts.join("-")
}

/// The cache key: a hash of everything that can change the library. How it is built is hashed as
/// the build's own commands ([`key_steps`]), not as a version number kept by hand: a changed
/// Configure option, make target, link flag or C-worker compile line is another key, so a warm
/// cache builds the variant again.
fn variant_key(
    source: &source::SourceInfo,
    compiler: &CompilerInfo,
    req: &BuildRequest,
    target: &str,
) -> String {
    key_of(
        source,
        compiler,
        req,
        target,
        &key_steps(compiler, req, target),
    )
}

/// [`variant_key`] with the steps given.
fn key_of(
    source: &source::SourceInfo,
    compiler: &CompilerInfo,
    req: &BuildRequest,
    target: &str,
    steps: &[Vec<String>],
) -> String {
    let mut h = Sha256::new();
    let mut field = |name: &str, value: &str| {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(value.as_bytes());
        h.update([0]);
    };
    for argv in steps {
        field("step", &argv.join("\u{1}"));
    }
    field("source", &source.sha256);
    field("cc", &compiler.path);
    field("cc-version", &compiler.version);
    field("cflags", &req.cflags.join("\u{1}"));
    field("no-asm", if req.no_asm { "1" } else { "0" });
    field("configure", &req.configure_args.join("\u{1}"));
    field("target", target);
    if needs_own_worker(target) || req.c_worker {
        // The worker is part of what a 32-bit variant is (64-bit keys stay as they were).
        field("c-worker", &c_worker::source_hash());
    }
    hex::encode(&h.finalize()[..8])
}

/// The commands a build of this request runs, as [`Recipe::steps`] renders them for [`Job::run`],
/// with what differs between two builds of one variant but not what they make put in place of
/// it: the build directory ([`KEY_WORK`]), the file made (whose name holds the key:
/// [`KEY_LIBRARY`]), the make jobs ([`KEY_JOBS`]) and the include flag that stands in for
/// gcc-multilib on this machine (none). Rendered for both kinds of tree (with and without
/// `providers/`, which decides `no-module`): the source's hash decides which one runs.
fn key_steps(compiler: &CompilerInfo, req: &BuildRequest, target: &str) -> Vec<Vec<String>> {
    let recipe = Recipe {
        req,
        compiler,
        target,
        library: KEY_LIBRARY.to_string(),
        own_worker: needs_own_worker(target) || req.c_worker,
        work: PathBuf::from(KEY_WORK),
    };
    [false, true]
        .into_iter()
        .flat_map(|providers| recipe.steps(providers, KEY_JOBS, &[]))
        .map(|s| s.argv)
        .collect()
}

/// The build directory in the steps the key hashes.
const KEY_WORK: &str = "/@work";
/// The file the build makes, in the steps the key hashes.
const KEY_LIBRARY: &str = "@library";
/// make's jobs in the steps the key hashes (they change how fast, not what is built).
const KEY_JOBS: usize = 1;

/// A build no process of this program could load: a 32-bit one on a 64-bit machine. It is timed
/// by the C worker built with it.
fn needs_own_worker(target: &str) -> bool {
    matches!(Arch::of_target(target), Some(a) if !a.loadable_here())
}

/// Resolves the request's source and compiler and checks its arguments: everything that can be
/// wrong before anything runs.
pub fn plan(req: &BuildRequest) -> Result<(ResolvedSource, CompilerInfo, String, String)> {
    let (target, _) = arch::resolve(req.arch.as_deref(), req.target.as_deref())?;
    let cc = match cross::foreign(&target) {
        Some(a) => {
            let cc = cross::compiler_name(&req.cc, a);
            cross::check_toolchain(a, &cc)?;
            cc
        }
        None => req.cc.clone(),
    };
    let compiler = compiler::probe(&cc)?;
    check_make_safe("the compiler path", &compiler.path)?;
    for f in &req.cflags {
        check_make_safe("--cflags flag", f)?;
    }
    for a in &req.configure_args {
        check_make_safe("--configure-arg", a)?;
    }
    check_make_safe("--target", &target)?;
    for tool in cross::configure_tools(&target) {
        check_make_safe("a cross tool", &tool)?;
    }
    if needs_own_worker(&target) && cross::foreign(&target).is_none() {
        // Said before anything is unpacked: without the 32-bit C library the build would
        // stop minutes later in OpenSSL's first compile.
        let probe_dir =
            std::env::temp_dir().join(format!("cryptospeed-probe32-{}", std::process::id()));
        let checked = c_worker::check_toolchain(&compiler.path, &probe_dir);
        let _ = std::fs::remove_dir_all(&probe_dir);
        checked.map_err(|why| anyhow::anyhow!("cannot build for i386 ({target}): {why}"))?;
    }
    let source = source::resolve(&req.source)?;
    let key = variant_key(&source.info, &compiler, req, &target);
    Ok((source, compiler, target, key))
}

/// Builds the variant, or finds it in the cache.
pub fn build(
    cache: &Cache,
    req: &BuildRequest,
    progress: &dyn Fn(&str),
    cancel: &AtomicBool,
) -> Result<BuildOutcome> {
    let (source, compiler, target, key) = plan(req)?;
    let label = match &req.label {
        // `{key}` in a chosen label is the content key: the label changes with the build.
        Some(chosen) => chosen.replace("{key}", &key),
        None => {
            let label = default_label(&source.info, &compiler, req);
            retire_default_label(cache, &label, &key, progress)?;
            label
        }
    };
    check_label(cache, &label, &key)?;
    let _lock = lock_key(cache, &key)?;
    let final_dir = cache.dir_for(&key);
    if !req.rebuild {
        if let Some(entry) = cached(&final_dir, &label, progress)? {
            return Ok(BuildOutcome {
                entry,
                cached: true,
            });
        }
    }
    let staging = cache.variants_dir().join(format!("{key}.partial"));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    let work = build_root(&key)?;
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let own_worker = needs_own_worker(&target) || req.c_worker;
    let job = Job {
        recipe: Recipe {
            req,
            compiler: &compiler,
            target: &target,
            library: match own_worker {
                true => format!("cryptospeed-worker-{key}"),
                false => format!("libcrypto-cryptospeed-{key}.so"),
            },
            own_worker,
            work: work.clone(),
        },
        source: &source,
        staging: &staging,
        log_path: staging.join("build.log"),
    };
    let started = Instant::now();
    let mut configure = Vec::new();
    let result = job.run(&label, &key, &mut configure, progress, cancel);
    let _ = std::fs::remove_dir_all(&work);
    if cancel.load(Ordering::SeqCst) {
        let _ = std::fs::remove_dir_all(&staging);
        bail!("interrupted: the build of {label} was stopped and nothing was kept");
    }
    let mut manifest = job.manifest(&key, &label, &result, configure, started);
    if result.is_ok() {
        manifest.files = crate::files::record(&staging)?;
    }
    save_manifest(&staging, &manifest)?;
    let _ = std::fs::remove_dir_all(&final_dir);
    std::fs::rename(&staging, &final_dir)
        .with_context(|| format!("cannot move the build into {}", final_dir.display()))?;
    let entry = Entry {
        dir: final_dir,
        manifest,
    };
    match result {
        Ok(()) => Ok(BuildOutcome {
            entry,
            cached: false,
        }),
        Err(why) => Err(BuildFailure {
            message: format!("the build of variant {label} failed: {why}"),
            log: Some(entry.log_path()),
            log_tail: tail(&entry.log_path(), 25),
        }
        .into()),
    }
}

/// A default label that names a build of another key (made by an earlier cryptospeed's C worker,
/// or an earlier version of the same compiler: what the label does not spell) passes to the new
/// build; the older one keeps its place in the cache under its label with its key's first eight
/// digits added, and the user is told. A label the user chose never moves (check_label refuses).
fn retire_default_label(
    cache: &Cache,
    label: &str,
    key: &str,
    progress: &dyn Fn(&str),
) -> Result<()> {
    for mut older in cache.list()? {
        if older.manifest.label != label || older.manifest.key == key {
            continue;
        }
        let kept = format!(
            "{label}-{}",
            &older.manifest.key[..older.manifest.key.len().min(8)]
        );
        older.manifest.label = kept.clone();
        save_manifest(&older.dir, &older.manifest)?;
        progress(&format!(
            "the label {label} named an older build of this variant ({}); it is now {kept}",
            older.manifest.key
        ));
    }
    Ok(())
}

/// A label has no spaces, commas or slashes, and names no other variant.
fn check_label(cache: &Cache, label: &str, key: &str) -> Result<()> {
    let bad = |c: char| c.is_whitespace() || c == ',' || c == '/';
    if label.is_empty() || label.chars().any(bad) {
        bail!("--label '{label}': a label has no spaces, commas or slashes");
    }
    let list = cache.list()?;
    let same_label = |e: &&Entry| e.manifest.label == label && e.manifest.key != key;
    if let Some(other) = list.iter().find(same_label) {
        bail!(
            "the label '{label}' already names variant {} (a different source or configuration); choose another --label or `cryptospeed variant rm {label}`",
            other.manifest.key
        );
    }
    Ok(())
}

/// The cached build in `dir`, unless it failed (then it is built again), relabelled if asked;
/// refused when its files are not the bytes it was cached with (crate::files).
fn cached(dir: &Path, label: &str, progress: &dyn Fn(&str)) -> Result<Option<Entry>> {
    let Ok(manifest) = crate::cache::load_manifest(dir) else {
        return Ok(None);
    };
    if manifest.status == BuildStatus::Failed {
        return Ok(None);
    }
    let mut entry = Entry {
        dir: dir.to_path_buf(),
        manifest,
    };
    if crate::files::check_or_record(&mut entry)? {
        progress(&format!(
            "variant {} was cached before its files' hashes were kept; they are recorded now",
            entry.manifest.label
        ));
    }
    if entry.manifest.label != label {
        entry.manifest.label = label.to_string();
        save_manifest(dir, &entry.manifest)?;
    }
    Ok(Some(entry))
}

/// How a variant is built, as the commands a build runs: what [`Job::run`] runs and what the
/// cache key hashes ([`key_steps`]).
struct Recipe<'a> {
    req: &'a BuildRequest,
    compiler: &'a CompilerInfo,
    target: &'a str,
    /// The file the build leaves in the cache: the shared libcrypto, or the C worker.
    library: String,
    own_worker: bool,
    /// The directory the build happens in; the source tree is its `src`.
    work: PathBuf,
}

/// One command of a build: what progress calls it, and its argument vector (run in the tree).
struct Step {
    what: String,
    argv: Vec<String>,
}

impl Recipe<'_> {
    fn tree(&self) -> PathBuf {
        self.work.join("src")
    }

    /// Where the C worker's sources are written and compiled.
    fn c_worker_dir(&self) -> PathBuf {
        self.work.join("c-worker")
    }

    /// Configure, make build_generated, make libcrypto.a (and libssl.a: [`Self::with_ssl`]),
    /// then link the shared library (or
    /// compile the C worker against libcrypto.a), in that order: `providers` when the tree has a
    /// `providers/` directory (3.x), `jobs` parallel make jobs, `multiarch` the include flags a
    /// 32-bit build needs here ([`c_worker::multiarch_include`]).
    fn steps(&self, providers: bool, jobs: usize, multiarch: &[String]) -> Vec<Step> {
        let step = |what: String, argv: Vec<String>| Step { what, argv };
        let make = |target: &str| vec!["make".to_string(), format!("-j{jobs}"), target.to_string()];
        let mut steps = vec![
            step(
                "configure".into(),
                self.configure_command(providers, multiarch),
            ),
            step(
                format!("make build_generated (-j{jobs})"),
                make("build_generated"),
            ),
            step(format!("make libcrypto.a (-j{jobs})"), make("libcrypto.a")),
        ];
        if self.with_ssl() {
            steps.push(step(format!("make libssl.a (-j{jobs})"), make("libssl.a")));
        }
        steps.push(match self.own_worker {
            // The C worker, linked statically against this libcrypto.a.
            true => step(
                "compile the C worker against libcrypto.a".into(),
                self.worker_command(multiarch),
            ),
            false => step("link the shared library".into(), self.link_command()),
        });
        steps
    }
}

/// One build in progress: what is built, from what, where.
struct Job<'a> {
    recipe: Recipe<'a>,
    source: &'a ResolvedSource,
    staging: &'a Path,
    log_path: PathBuf,
}

impl Job<'_> {
    /// Unpacks, configures, makes libcrypto.a and links the library (or the C worker) into the
    /// staging directory; `configure` receives the Configure command line as it ran.
    fn run(
        &self,
        label: &str,
        key: &str,
        configure: &mut Vec<String>,
        progress: &dyn Fn(&str),
        cancel: &AtomicBool,
    ) -> std::result::Result<(), String> {
        let mut log = File::create(&self.log_path).map_err(|e| format!("cannot log: {e}"))?;
        let info = &self.source.info;
        progress(&format!("unpacking {} {}", info.kind, info.location));
        let recipe = &self.recipe;
        let _ = writeln!(
            log,
            "cryptospeed variant {label} ({key})\nsource: OpenSSL {} from {} {} (sha256 {})\ncompiler: {} ({})",
            info.version, info.kind, info.location, info.sha256, recipe.compiler.path, recipe.compiler.version
        );
        let tree = recipe.tree();
        self.source
            .materialise(&tree)
            .map_err(|e| format!("cannot place the source tree: {e:#}"))?;
        let jobs = match recipe.req.jobs {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        if recipe.own_worker {
            c_worker::write_sources(&recipe.c_worker_dir())?;
        }
        let providers = tree.join("providers").is_dir();
        let steps = recipe.steps(providers, jobs, &c_worker::multiarch_include());
        *configure = steps[0].argv.clone();
        for s in &steps {
            progress(&s.what);
            step(&mut log, &self.log_path, &s.argv, &tree, cancel)?;
        }
        std::fs::copy(
            recipe.work.join(&recipe.library),
            self.staging.join(&recipe.library),
        )
        .map_err(|e| format!("cannot copy {} into the cache: {e}", recipe.library))?;
        Ok(())
    }
}

impl Recipe<'_> {
    /// Static libcrypto built position-independent, without tests, compression or (3.x)
    /// loadable modules: the legacy provider is then built in.
    fn configure_command(&self, providers: bool, multiarch: &[String]) -> Vec<String> {
        let req = self.req;
        let mut c = vec![
            "perl".to_string(),
            "Configure".to_string(),
            self.target.to_string(),
        ];
        c.extend(["no-shared", "no-tests", "no-comp", "no-zlib"].map(String::from));
        if providers {
            c.push("no-module".into());
        }
        if req.no_asm {
            c.push("no-asm".into());
        }
        c.extend(req.configure_args.iter().cloned());
        c.extend(cross::configure_tools(self.target));
        if Arch::of_target(self.target) == Some(Arch::I386) {
            // Not part of the variant's key: it only stands in for gcc-multilib's link.
            c.extend(multiarch.iter().cloned());
        }
        c.push("-fPIC".into());
        c.extend(req.cflags.iter().cloned());
        c.push("--prefix=/nonexistent/cryptospeed-variant".into());
        c.push("--openssldir=/nonexistent/cryptospeed-variant/ssl".into());
        c.push(format!("CC={}", self.compiler.path));
        c
    }

    fn worker_command(&self, multiarch: &[String]) -> Vec<String> {
        c_worker::compile_argv(
            &self.compiler.path,
            Arch::of_target(self.target) == Some(Arch::I386),
            multiarch,
            &self.req.cflags,
            &self.tree(),
            &self.c_worker_dir(),
            &self.work.join(&self.library),
        )
    }

    fn link_command(&self) -> Vec<String> {
        let mut link = vec![self.compiler.path.clone(), "-shared".into()];
        link.extend(self.req.cflags.iter().cloned());
        link.extend([
            "-o".to_string(),
            self.work.join(&self.library).to_string_lossy().into_owned(),
            format!("-Wl,-soname,{}", self.library),
            "-Wl,--whole-archive".into(),
        ]);
        if self.with_ssl() {
            link.push("libssl.a".into());
        }
        link.extend([
            "libcrypto.a".to_string(),
            "-Wl,--no-whole-archive".into(),
            "-Wl,-Bsymbolic".into(),
            "-pthread".into(),
            "-ldl".into(),
        ]);
        link
    }

    /// Whether the shared library holds libssl too (linked whole into the same object, so its
    /// calls bind to this libcrypto): when the Configure line keeps TLS, for the TLS handshake
    /// cells. A build with `no-tls`, and a C worker, run exactly the steps they ran before
    /// libssl was kept, so their cache keys did not change.
    fn with_ssl(&self) -> bool {
        !self.own_worker && !self.req.configure_args.iter().any(|a| a == "no-tls")
    }
}

impl Job<'_> {
    /// The manifest of the finished (or failed) build.
    fn manifest(
        &self,
        key: &str,
        label: &str,
        result: &std::result::Result<(), String>,
        configure_command: Vec<String>,
        started: Instant,
    ) -> Manifest {
        let Recipe {
            req,
            compiler,
            target,
            library,
            own_worker,
            ..
        } = &self.recipe;
        Manifest {
            key: key.to_string(),
            label: label.to_string(),
            status: match result {
                Ok(()) => BuildStatus::Unverified,
                Err(_) => BuildStatus::Failed,
            },
            detail: result.clone().err().unwrap_or_default(),
            source: self.source.info.clone(),
            compiler: (*compiler).clone(),
            cflags: req.cflags.clone(),
            no_asm: req.no_asm,
            configure_args: req.configure_args.clone(),
            arch: Arch::of_target(target)
                .map(|a| a.as_str().to_string())
                .unwrap_or_else(|| target.to_string()),
            worker: own_worker.then(|| library.clone()),
            target: target.to_string(),
            configure_command,
            library: library.clone(),
            build_seconds: started.elapsed().as_secs_f64(),
            built_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            kats: Vec::new(),
            files: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests;
