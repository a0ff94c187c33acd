//! cryptospeed: a crypto performance lab. This binary is a thin command layer over the library
//! crates (catalog, engine, impls, store, report); `cryptospeed worker` is the same binary acting
//! as a worker process that hosts one implementation.

mod args;
mod list;
mod run;
mod session;
mod worker;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cryptospeed",
    version,
    about = "Precise, verified, stored crypto speed measurements (openssl speed, done properly)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure primitives (default: every primitive in the catalog) and store the run.
    Run(run::RunArgs),
    /// List every primitive with its aliases and whether the implementation offers it.
    List(list::ListArgs),
    /// Run the known-answer tests alone.
    Verify(list::VerifyArgs),
    /// List stored runs.
    Runs(run::StoreArgs),
    /// Print a stored run in any output format.
    Show(run::ShowArgs),
    /// Serve the worker protocol on stdin/stdout (started by the orchestrator).
    #[command(hide = true)]
    Worker(worker::WorkerArgs),
}

fn main() {
    let cli = Cli::parse();
    let result: Result<i32> = match cli.command {
        Command::Run(a) => run::run(a),
        Command::List(a) => list::list(a),
        Command::Verify(a) => list::verify(a),
        Command::Runs(a) => run::runs(a),
        Command::Show(a) => run::show(a),
        Command::Worker(a) => worker::serve(a),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("cryptospeed: error: {e:#}");
            std::process::exit(2);
        }
    }
}
