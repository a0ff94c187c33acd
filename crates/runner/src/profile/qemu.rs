//! The qemu tracer: a worker run under qemu-user with our TCG plugin (`cryptospeed_sim::qemu`)
//! writing the cstrace trace into the FIFO `profile` reads. It exists because a cross-built
//! variant (ppc64le, aarch64, riscv64) runs here only under qemu-user, and valgrind cannot run
//! it; on x86-64 it runs the native worker under qemu-x86_64, which checks the tracer against
//! valgrind's. The plugin finds the worker's marker functions by their symbol names (the C
//! worker's `cryptospeed_marker_*`, the Rust worker's `marker::mark_*`), so a position-independent
//! worker is marked wherever qemu loads it.

use anyhow::{bail, Result};
use cryptospeed_engine::worker_client::WorkerSpec;
use cryptospeed_sim::isa::Isa;
use cryptospeed_variants::{Arch, Cache};
use std::path::{Path, PathBuf};

/// What runs a worker under qemu with the plugin.
#[derive(Debug, Clone)]
pub struct QemuTracer {
    /// `qemu-ppc64le`, `qemu-x86_64` …
    pub emulator: String,
    /// The plugin, built for that emulator's qemu version.
    pub plugin: PathBuf,
    /// The instruction set the trace is decoded as.
    pub isa: Isa,
    /// The variant's architecture when this machine cannot run it natively (a cross build):
    /// then there is no native run to time.
    pub foreign: Option<Arch>,
}

/// The marker functions' symbols and the marker each writes: the C worker's (workers/c), then the
/// Rust worker's (crates/engine/src/marker.rs, whose mangled names contain these).
pub const MARKER_SYMBOLS: [(&str, u32); 6] = [
    ("cryptospeed_marker_warmup", 1),
    ("cryptospeed_marker_measure", 2),
    ("cryptospeed_marker_end", 3),
    ("6marker11mark_warmup17h", 1),
    ("6marker12mark_measure17h", 2),
    ("6marker8mark_end17h", 3),
];

/// Where the plugin is built: beside the variants, in the cache root they use.
pub fn tool_cache() -> PathBuf {
    Cache::open(None).root().join("qemu-tool")
}

/// The architecture of `variant` when it is a cross build this machine only emulates; None for
/// no variant, a native one, or a name the cache does not know (the variant's own checks say
/// what is wrong with it).
pub fn emulated_arch(variant: Option<&str>) -> Option<Arch> {
    let name = variant?;
    Cache::open(None).find(name).ok()?.emulated()
}

/// Whether the variant runs its own C worker (workers/c), whose markers are plain functions
/// that make no valgrind client request: cstrace cannot see them, qemu and lackey can.
/// Its architecture when it does (i386 for a 32-bit build, which no tracer here reads).
pub fn c_worker_arch(variant: Option<&str>) -> Option<Arch> {
    let v = Cache::open(None).find(variant?).ok()?;
    v.worker_path()?;
    Arch::of_target(&v.manifest.target).or_else(Arch::host)
}

/// The qemu tracer for a variant of architecture `foreign` (a cross build), or for this
/// machine's own code under its own qemu-user emulator.
pub fn tracer(foreign: Option<Arch>) -> Result<QemuTracer> {
    let arch = match foreign.or_else(Arch::host) {
        Some(a) => a,
        None => bail!("no qemu-user emulator is known for this machine's architecture"),
    };
    let Some(isa) = Isa::from_name(arch.as_str()) else {
        bail!(
            "profile traces x86_64, ppc64le, aarch64 and riscv64 code, not {}",
            arch.as_str()
        );
    };
    let emulator = arch.qemu().to_string();
    let plugin = cryptospeed_sim::qemu::ensure(&tool_cache(), &emulator)
        .map_err(|e| anyhow::anyhow!("the qemu tracer: {e}"))?;
    Ok(QemuTracer {
        emulator,
        plugin,
        isa,
        foreign,
    })
}

/// qemu's arguments that load the plugin tracing into `out`, marking the workers' markers.
pub fn plugin_args(t: &QemuTracer, out: &Path) -> Vec<String> {
    let plugin = cryptospeed_sim::qemu::plugin_arg_named(&t.plugin, out, &MARKER_SYMBOLS);
    vec!["-plugin".to_string(), plugin]
}

/// The worker's command line under qemu with the plugin writing to `out`. A cross variant's
/// worker already runs under its emulator (`qemu-ARCH -L /usr/TRIPLE WORKER`): the plugin joins
/// its arguments; any other worker is started by the emulator.
pub fn worker_spec(t: &QemuTracer, native: WorkerSpec, out: &Path) -> WorkerSpec {
    let mut args = plugin_args(t, out);
    let emulated = native
        .program
        .file_name()
        .is_some_and(|n| n.to_string_lossy() == t.emulator);
    if !emulated {
        args.push(native.program.to_string_lossy().into_owned());
    }
    args.extend(native.args);
    WorkerSpec {
        program: PathBuf::from(&t.emulator),
        args,
        env: native.env,
        env_clear: native.env_clear,
    }
}

/// Why a profile of a cross variant has no native run.
pub fn no_native_reason(arch: Arch) -> String {
    format!(
        "no native run: the variant is built for {} and runs here only under {}, whose timing means nothing; its figures come from the trace",
        arch.as_str(),
        arch.qemu()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cross_worker_keeps_its_emulator_and_gets_the_plugin() {
        let t = QemuTracer {
            emulator: "qemu-ppc64le".into(),
            plugin: "/c/cstrace_qemu.so".into(),
            isa: Isa::Ppc64le,
            foreign: Some(Arch::Ppc64le),
        };
        let native = WorkerSpec {
            program: "qemu-ppc64le".into(),
            args: vec![
                "-L".into(),
                "/usr/powerpc64le-linux-gnu".into(),
                "/w".into(),
            ],
            ..WorkerSpec::default()
        };
        let s = worker_spec(&t, native, Path::new("/t/fifo"));
        assert_eq!(s.program, PathBuf::from("qemu-ppc64le"));
        assert_eq!(s.args[0], "-plugin");
        assert!(s.args[1].starts_with(
            "/c/cstrace_qemu.so,out=/t/fifo,window=1,mark_symbol=cryptospeed_marker_warmup:1"
        ));
        assert_eq!(&s.args[2..], ["-L", "/usr/powerpc64le-linux-gnu", "/w"]);
        let x86 = QemuTracer {
            emulator: "qemu-x86_64".into(),
            isa: Isa::X86_64,
            foreign: None,
            ..t
        };
        let native = WorkerSpec {
            program: "/bin/cryptospeed".into(),
            args: vec!["worker".into()],
            ..WorkerSpec::default()
        };
        let s = worker_spec(&x86, native, Path::new("/t/fifo"));
        assert_eq!(&s.args[2..], ["/bin/cryptospeed", "worker"]);
    }
}
