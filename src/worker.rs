//! `cryptospeed worker`: the same binary acting as a worker process. It sets the process up (dies
//! with its parent, pinning, memory layout), loads the implementation by registry name and hands
//! it to the protocol server in `cryptospeed_engine::worker_server`.
//!
//! `CRYPTOSPEED_LAYOUT=SEED` (set by the runner for each worker process of a run) chooses the
//! process's memory layout: see `cryptospeed_impls::buffer::vary_layout`.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct WorkerArgs {
    /// Implementation to host (registry name).
    #[arg(long = "impl", default_value = "openssl")]
    implementation: String,
    /// Shared library to load instead of the system one.
    #[arg(long)]
    lib: Option<String>,
    /// Pin the worker to this CPU.
    #[arg(long)]
    pin: Option<usize>,
}

pub fn serve(args: WorkerArgs) -> Result<i32> {
    // Die with the orchestrator: a killed run must not leave workers spinning.
    // SAFETY: prctl with PR_SET_PDEATHSIG only sets a flag on this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    if let Some(cpu) = args.pin {
        cryptospeed_engine::clock::pin_to_cpu(cpu).map_err(anyhow::Error::msg)?;
    }
    if let Ok(layout) = std::env::var("CRYPTOSPEED_LAYOUT") {
        let (seed, buffers) = match layout.strip_suffix(":buffers") {
            Some(seed) => (seed, true),
            None => (layout.as_str(), false),
        };
        if let Ok(seed) = seed.parse() {
            cryptospeed_impls::buffer::vary_layout(seed, buffers);
        }
    }
    let options = cryptospeed_impls::ImplOptions { library: args.lib };
    let implementation = cryptospeed_impls::create(&args.implementation, &options);
    Ok(cryptospeed_engine::worker_server::serve(implementation)?)
}
