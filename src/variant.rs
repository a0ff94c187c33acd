//! `cryptospeed variant build|list|show|rm|fetch`: OpenSSL builds with another compiler, other
//! flags, without assembly or from a patched tree, kept in the variant cache. After a build, and
//! again on every cache hit, the variant's known-answer tests run in a worker; the manifest keeps
//! the last outcome for `list` and `show`. `run --variant` checks the files and runs the tests
//! again itself (crates/runner/src/variant.rs) and refuses a variant that fails either.

use crate::session::interrupt_flag;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use cryptospeed_variants::{BuildRequest, BuildStatus, Cache, Manifest, SourceSpec};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct VariantArgs {
    #[command(subcommand)]
    command: VariantCommand,
}

#[derive(Args, Clone)]
pub struct CacheArgs {
    /// Variant cache directory. Default: $CRYPTOSPEED_CACHE, else ~/.cache/cryptospeed.
    #[arg(long, global = true)]
    cache: Option<PathBuf>,
}

#[derive(Subcommand)]
enum VariantCommand {
    /// Build libcrypto from an OpenSSL tree with a compiler and configuration, verify it with
    /// the known-answer tests, and keep it in the cache (a second build of the same is free).
    Build(BuildArgs),
    /// List the cached variants.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Show one variant: source, compiler, flags, Configure line, known-answer tests, paths.
    Show {
        /// Label or key.
        name: String,
        /// Print the build log instead.
        #[arg(long)]
        log: bool,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Delete variants from the cache.
    Rm {
        /// Labels or keys.
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Build AWS-LC (`aws-lc`) or BoringSSL (`boringssl`, with its bssl_bench) with cmake from
    /// the tree its crates.io package carries (aws-lc-sys, boring-sys), into the cache the
    /// `aws-lc` and `boringssl` implementations load it from; waits for a build already running.
    /// Nothing else builds them: until then those columns are unavailable, saying this command.
    BuildLibrary {
        /// aws-lc or boringssl.
        name: String,
        /// Parallel build jobs (default: one per CPU).
        #[arg(long, short, default_value_t = 0)]
        jobs: usize,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Unpack an OpenSSL release from the openssl-src crate into a directory, to patch it and
    /// build it with `variant build --source DIR`.
    Fetch {
        /// Release: 1.1.1, 3.0 … 3.6, 4.0, or an exact crate version (300.5.5+3.5.5).
        #[arg(long)]
        openssl: String,
        /// Directory to create.
        dir: PathBuf,
    },
}

#[derive(Args)]
pub struct BuildArgs {
    /// OpenSSL release from the openssl-src crate: 1.1.1, 3.0 … 3.6, 4.0, or an exact crate
    /// version such as 300.5.5+3.5.5 (fetched by cargo; no other download).
    #[arg(long, conflicts_with = "source", required_unless_present = "source")]
    openssl: Option<String>,
    /// An OpenSSL source directory (a patched tree) or a release .tar.gz.
    #[arg(long)]
    source: Option<PathBuf>,
    /// C compiler, on PATH or by path: gcc-11, gcc-12, clang-14, clang-15, clang-16, clang-19 …
    #[arg(long, default_value = "gcc")]
    cc: String,
    /// Extra compiler flags, appended after OpenSSL's own (-O2 overrides its -O3); repeatable.
    #[arg(long, allow_hyphen_values = true, value_name = "FLAGS")]
    cflags: Vec<String>,
    /// Build without assembly (Configure no-asm): the C code paths only.
    #[arg(long)]
    no_asm: bool,
    /// Extra Configure option (no-sse2, enable-ec_nistp_64_gcc_128, …); repeatable.
    #[arg(long, allow_hyphen_values = true, value_name = "ARG")]
    configure_arg: Vec<String>,
    /// Configure target (default: this machine's, e.g. linux-x86_64); linux-x86 and linux-elf
    /// are the 32-bit build (as --arch i386).
    #[arg(long)]
    target: Option<String>,
    /// Architecture: i386 builds 32-bit code (needs gcc-multilib), timed by a 32-bit C worker
    /// linked against it; x86_64 is the default on this machine.
    #[arg(long, value_name = "ARCH")]
    arch: Option<String>,
    /// Time the variant with the C worker (workers/c) linked against it, as a 32-bit variant
    /// always is, so a 64-bit build compares with a 32-bit one through the same harness.
    #[arg(long)]
    c_worker: bool,
    /// Name for the variant (default from the configuration, e.g. openssl-3.5.5-clang-19-O3-noasm);
    /// `{key}` in it stands for the build's content key (a label that changes with the build).
    #[arg(long)]
    label: Option<String>,
    /// Parallel make jobs (default: one per CPU).
    #[arg(long, short, default_value_t = 0)]
    jobs: usize,
    /// Build again even when the cache holds this variant.
    #[arg(long)]
    rebuild: bool,
    #[command(flatten)]
    cache: CacheArgs,
}

pub fn variant(a: VariantArgs) -> Result<i32> {
    match a.command {
        VariantCommand::Build(b) => build(b),
        VariantCommand::List { json, cache } => list(json, &cache),
        VariantCommand::Show { name, log, cache } => show(&name, log, &cache),
        VariantCommand::Rm { names, cache } => rm(&names, &cache),
        VariantCommand::Fetch { openssl, dir } => fetch(&openssl, &dir),
        VariantCommand::BuildLibrary { name, jobs, cache } => build_library(&name, jobs, &cache),
    }
}

fn build_library(name: &str, jobs: usize, c: &CacheArgs) -> Result<i32> {
    use cryptospeed_variants::cmake;
    let library = cmake::library(name)?;
    let cache = open_cache(c);
    let jobs = if jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        jobs
    };
    if cmake::cached(library, &cache)?.is_none() {
        eprintln!(
            "building {} from the {} {} crate with cmake ({jobs} jobs; a few minutes)",
            library.title, library.crate_name, library.crate_version
        );
    }
    let entry = cmake::build(library, &cache, jobs, &interrupt_flag())?;
    if entry.manifest.status == BuildStatus::Failed {
        eprintln!(
            "{} did not build: {}\nlog: {}",
            library.title,
            entry.manifest.detail,
            entry.log_path().display()
        );
        return Ok(1);
    }
    println!("{}", entry.library_path().display());
    for p in library.programs {
        println!("{}", cmake::program(&entry, p).display());
    }
    Ok(0)
}

fn open_cache(c: &CacheArgs) -> Cache {
    Cache::open(c.cache.clone())
}

fn build(a: BuildArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let cache = open_cache(&a.cache);
    let source = match (&a.openssl, &a.source) {
        (Some(v), None) => SourceSpec::Release(v.clone()),
        (None, Some(p)) => SourceSpec::Path(p.clone()),
        _ => bail!("give exactly one of --openssl VERSION and --source DIR|FILE.tar.gz"),
    };
    let req = BuildRequest {
        source,
        cc: a.cc.clone(),
        cflags: a
            .cflags
            .iter()
            .flat_map(|f| cryptospeed_variants::split_flags(f))
            .collect(),
        no_asm: a.no_asm,
        configure_args: a.configure_arg.clone(),
        target: a.target.clone(),
        arch: a.arch.clone(),
        c_worker: a.c_worker,
        label: a.label.clone(),
        jobs: a.jobs,
        rebuild: a.rebuild,
    };
    let started = Instant::now();
    let progress = |what: &str| {
        eprintln!(
            "cryptospeed: [{:>4.0} s] {what}",
            started.elapsed().as_secs_f64()
        )
    };
    let outcome = cryptospeed_variants::build(&cache, &req, &progress, &cancel)?;
    let mut entry = outcome.entry;
    if outcome.cached {
        // A cache hit saves the build, never the verification.
        eprintln!(
            "cryptospeed: variant {} is in the cache ({}); nothing to build; running its known-answer tests",
            entry.manifest.label,
            entry.dir.display()
        );
    } else {
        eprintln!(
            "cryptospeed: built {} in {:.0} s; running its known-answer tests",
            entry.manifest.label, entry.manifest.build_seconds
        );
    }
    entry.manifest = cryptospeed_runner::variant::verify(&cache, &entry, &cancel)?;
    print!("{}", entry.summary());
    Ok(match entry.manifest.status {
        BuildStatus::Ready => 0,
        _ => 1,
    })
}

fn list(json: bool, c: &CacheArgs) -> Result<i32> {
    let cache = open_cache(c);
    let entries = cache.list()?;
    if json {
        let all: Vec<&Manifest> = entries.iter().map(|e| &e.manifest).collect();
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(0);
    }
    if entries.is_empty() {
        eprintln!(
            "cryptospeed: no variants in {} (build one with `cryptospeed variant build --openssl 3.5`)",
            cache.variants_dir().display()
        );
        return Ok(0);
    }
    let mut table = cryptospeed_query::listing::table(Manifest::COLUMNS);
    for e in &entries {
        table.add_row(e.manifest.row());
    }
    println!("{table}");
    Ok(0)
}

fn show(name: &str, log: bool, c: &CacheArgs) -> Result<i32> {
    let cache = open_cache(c);
    let e = cache.find(name)?;
    if log {
        print!("{}", std::fs::read_to_string(e.log_path())?);
        return Ok(0);
    }
    let out = e.details();
    print!("{out}");
    if !e.manifest.files.is_empty() {
        match cryptospeed_variants::files::check(&e) {
            Ok(()) => println!("files     as they were cached"),
            Err(why) => println!("files     CHANGED: {why:#}"),
        }
    }
    Ok(0)
}

fn rm(names: &[String], c: &CacheArgs) -> Result<i32> {
    let cache = open_cache(c);
    for n in names {
        let e = cache.remove(n)?;
        eprintln!(
            "cryptospeed: removed variant {} ({})",
            e.manifest.label,
            e.dir.display()
        );
    }
    Ok(0)
}

fn fetch(release: &str, dir: &std::path::Path) -> Result<i32> {
    if dir.exists() {
        bail!("{} already exists; name a new directory", dir.display());
    }
    let source = cryptospeed_variants::source::resolve(&SourceSpec::Release(release.into()))?;
    source.materialise(dir)?;
    eprintln!(
        "cryptospeed: OpenSSL {} ({}) unpacked into {}; patch it, then `cryptospeed variant build --source {}`",
        source.info.version,
        source.info.location,
        dir.display(),
        dir.display()
    );
    Ok(0)
}
