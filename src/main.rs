//! cryptospeed: a crypto performance lab. This binary is a thin command layer over the library
//! crates (catalog, engine, impls, store, report); `cryptospeed worker` is the same binary acting
//! as a worker process that hosts one implementation.

mod args;
mod compare;
mod crosscheck;
mod deviations;
mod gate;
mod history;
mod import;
mod list;
mod profile;
mod remeasure;
mod report_cmd;
mod run;
mod session;
mod site;
mod sweep;
mod sync;
mod trace_cmd;
mod variant;
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
    Runs(session::StoreArgs),
    /// List the machines stored runs were recorded on (CPU, cores, TSC frequency, run count).
    Machines(run::MachinesArgs),
    /// Print a stored run in any output format.
    Show(run::ShowArgs),
    /// Store benchmark logs as imported runs: `openssl speed` (any version, human or -mr),
    /// `bssl speed`, Google Benchmark, `go test -bench`, liboqs, mlkem-native/mldsa-native, the
    /// CRYSTALS reference speed test, pqm4, wolfCrypt, SUPERCOP data.
    Import(import::ImportArgs),
    /// Compare runs, run labels, variants or log files: ratio, percent or raw tables with a
    /// Mann-Whitney U test per cell and a geomean.
    Compare(compare::CompareArgs),
    /// A column beside its own library's benchmark program (same build, alternating rounds on
    /// one pinned CPU): both figures, the ratio with its interval, what each loop includes, and
    /// a verdict per cell (agrees within ±3%, explained, at the edge, explained by the host,
    /// unexplained, undecided).
    Crosscheck(crosscheck::CrosscheckArgs),
    /// A regression gate: time two builds paired, fail (exit 1) only for a confirmed slowdown
    /// past --fail-above across all cells; 3 when some cell stayed undecided (docs/gate.md).
    Gate(gate::GateArgs),
    /// One machine's stored figures of a cell over its runs, with the run-to-run noise and the
    /// change points where the series moved.
    History(history::HistoryArgs),
    /// Build, list, show and remove variants: OpenSSL built with other compilers, flags,
    /// without assembly or from a patched tree (`run --variant` times them side by side).
    Variant(variant::VariantArgs),
    /// Explain a primitive's speed from a valgrind trace of the real code: instruction mix,
    /// cache miss rates over a grid of configurations, branch predictors, ILP limits.
    Profile(profile::ProfileArgs),
    /// Write a self-contained HTML report of stored runs and profiles: metadata, tables and
    /// charts (throughput by size, speedup, cycles/byte, instruction mix, predictors, miss rates).
    Report(report_cmd::ReportArgs),
    /// Write a static results site over the store: an index, a page per primitive, machine
    /// and run, and comparison pages; built again, only pages whose data changed are written.
    Site(site::SiteArgs),
    /// Write one chart of a report as SVG or PNG.
    Chart(report_cmd::ChartArgs),
    /// Run any program under valgrind (cstrace) and simulate one cache hierarchy and branch
    /// predictor over its whole execution, printed like cachegrind's summary.
    Trace(trace_cmd::TraceArgs),
    /// Copy runs between stores (SQLite files, PostgreSQL) without duplicates: machine,
    /// variants, measurements with every sample, profiles.
    Sync(sync::SyncArgs),
    /// Sweeps: a matrix of runs or profiles cut into shards that machines or a Slurm job array
    /// run against one shared store (plan, run --shard K/N, status, slurm).
    Sweep(sweep::SweepArgs),
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
        Command::Machines(a) => run::machines(a),
        Command::Show(a) => run::show(a),
        Command::Import(a) => import::import(a),
        Command::Sync(a) => sync::sync(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Compare(a) => compare::compare(a),
        Command::Gate(a) => gate::gate(a),
        Command::History(a) => history::history(a),
        Command::Variant(a) => variant::variant(a),
        Command::Crosscheck(a) => crosscheck::crosscheck(a),
        Command::Profile(a) => profile::profile(a),
        Command::Trace(a) => trace_cmd::trace(a),
        Command::Report(a) => report_cmd::report(a),
        Command::Chart(a) => report_cmd::chart(a),
        Command::Site(a) => site::site(a),
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
