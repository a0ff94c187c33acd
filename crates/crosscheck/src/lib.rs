//! Crosscheck (DESIGN.md "crosscheck"): a column's figure beside its own library's benchmark
//! program, built from the library project's sources against the same installed build, run in
//! alternating rounds on one pinned CPU, with a verdict per cell: agrees (its interval within
//! ±3%), explained (a named difference in what is timed, or the worker binary's code layout),
//! at an edge of ±3%, explained by the host (our figure over every bout agrees where the canary
//! set the host's slow bouts aside), unexplained, or undecided (the interval still too wide after
//! the rounds allowed).
//! Each oracle is one file in `oracles/` behind one line of [`ORACLES`].

pub mod debsrc;
pub mod oracles;
pub mod rejudge;
pub mod report;
pub mod rounds;
pub mod rule;
pub mod saved;

use anyhow::{Context, Result};
use cryptospeed_model::Op;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where an oracle's program came from and where it was built: printed and kept in the report.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    /// The source: a Debian source package and version, or a repository and commit.
    pub source: String,
    /// The library build the program links against (package and version, or path).
    pub library: String,
    /// The built program(s), by role.
    pub programs: Vec<PathBuf>,
    /// The build commands, as run.
    pub build: Vec<String>,
}

/// One cell as both sides time it.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// cryptospeed's primitive id.
    pub primitive: &'static str,
    pub op: Op,
    /// Message bytes; `None` for a public-key operation.
    pub bytes: Option<u64>,
    /// The oracle program's arguments (after the program), `{bytes}` replaced by the size.
    pub args: &'static [&'static str],
    /// The oracle's output row that holds the figure (what its parser looks for).
    pub row: &'static str,
    /// What the oracle's timed loop includes, read from its source.
    pub oracle_loop: &'static str,
    /// A named difference in what is timed, when the two loops are known to differ.
    pub difference: Option<Difference>,
}

/// A named difference between the two loops, with the ratio (ours / oracle) a measurement showed
/// it produces: a gap is explained only when it falls inside that band.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Difference {
    /// A difference in what is timed, or the worker binary's code layout.
    pub kind: Kind,
    pub what: &'static str,
    /// The band of ours/oracle the difference accounts for.
    pub band: (f64, f64),
    /// How the band was measured.
    pub measured: &'static str,
}

/// What a named difference is: the loops time different things, or they time the same calls
/// and the worker binary's code layout moves the figure (a layout effect, neither a harness cost
/// nor a definition difference; reported as its own verdict).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Definition,
    Layout,
}

impl Cell {
    /// cryptospeed's `--cells` spelling of this cell.
    pub fn spec(&self) -> String {
        match self.bytes {
            Some(b) => format!("{}@{b}", self.primitive),
            None => self.primitive.to_string(),
        }
    }

    /// The unit both figures are given in.
    pub fn unit(&self) -> &'static str {
        if self.bytes.is_some() {
            "bytes/s"
        } else {
            "ops/s"
        }
    }
}

/// The clock an oracle program divides by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// Wall time (an alarm, gettimeofday): on a shared CPU its figure is scaled down by the share
    /// of the time others had, so the crosscheck divides it by the process's CPU share.
    Wall,
    /// The process's CPU time, or the median of many short timings: either leaves out the time
    /// others had the CPU, so the figure is taken as it is.
    Undisturbed,
}

/// A library's own benchmark program, as an oracle for one cryptospeed column.
pub trait Oracle: Sync {
    /// The cryptospeed column (`--impl` name) it checks.
    fn column(&self) -> &'static str;
    /// The benchmark program's name, as its project calls it.
    fn name(&self) -> &'static str;
    /// The cells it times, with what its loop includes.
    fn cells(&self) -> &'static [Cell];
    /// Fetches and builds the program into `dir` (idempotent), saying what it fetches and builds.
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance>;
    /// The command line that times `cell` (program first).
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String>;
    /// The figure for `cell` in [`Cell::unit`], read from the program's output.
    fn parse(&self, cell: &Cell, output: &str) -> Result<f64>;
    /// The clock the program divides by (read from its source).
    fn clock(&self) -> Clock {
        Clock::Wall
    }
    /// Whether the program starts timing the cell after printing `line`: a wall-clock oracle's
    /// CPU share is taken from the last such line to the figure's. By default every line (each
    /// program starts its next loop right after printing); criterion prints a line when it
    /// starts collecting samples and another when it starts analysing them.
    fn window_starts(&self, line: &str) -> bool {
        let _ = line;
        true
    }
    /// A registry entry that stands for any library (`openssl:PATH`): the oracle of one such
    /// column, or `None` when `column` is not one of its kind.
    fn bind(&self, column: &str) -> Option<&'static dyn Oracle> {
        let _ = column;
        None
    }
}

/// Every oracle, one line each.
pub static ORACLES: &[&dyn Oracle] = &[
    &oracles::nettle::Nettle,
    &oracles::mbedtls::MbedTls,
    &oracles::wolfssl::WolfSsl,
    &oracles::libgcrypt::Libgcrypt,
    &oracles::aws_lc::AwsLc,
    &oracles::libsodium::Libsodium,
    &oracles::openssl::OpenSsl,
    &oracles::openssl_cli::OpenSslCli,
    &oracles::openssl_build::ANY,
    &oracles::perftools::ANY,
    &oracles::boringssl::BoringSsl,
    &oracles::go::Go,
    &oracles::ring::Ring,
    &oracles::rustcrypto::RustCrypto,
    &oracles::aws_lc_rs::AwsLcRs,
];

/// The first oracle for a column, by its `--impl` name (`openssl:PATH`: a variant's library).
pub fn oracle_for(column: &str) -> Option<&'static dyn Oracle> {
    oracles_for(column).into_iter().next()
}

/// Every oracle for a column, in registry order (`openssl:PATH` has `openssl speed` of the
/// variant's source and perftools' `handshake`).
pub fn oracles_for(column: &str) -> Vec<&'static dyn Oracle> {
    ORACLES
        .iter()
        .filter_map(|o| match o.column() == column {
            true => Some(*o),
            false => o.bind(column),
        })
        .collect()
}

/// Whether `cell` is among `only` (`--cells`: PRIMITIVE@SIZE or PRIMITIVE, `:OP` for one
/// operation); an empty `only` takes every cell.
pub fn wanted(cell: &Cell, only: &[String]) -> bool {
    let with_op = format!("{}:{}", cell.spec(), cell.op);
    only.is_empty() || only.iter().any(|o| *o == cell.spec() || *o == with_op)
}

/// Expands `{bytes}` in a cell's oracle arguments.
pub fn expand_args(cell: &Cell) -> Vec<String> {
    let bytes = cell.bytes.map(|b| b.to_string()).unwrap_or_default();
    cell.args
        .iter()
        .map(|a| a.replace("{bytes}", &bytes))
        .collect()
}

/// Where an oracle's sources and programs are kept in the cache.
pub fn oracle_dir(cache: &Path, oracle: &dyn Oracle) -> PathBuf {
    cache
        .join("oracles")
        .join(oracle.column().replace(['/', ':'], "_"))
}

/// Measures and judges one cell: `opts.rounds` rounds, then more at each of
/// [`report::looks`] while the verdict is undecided, up to `opts.max_rounds`.
fn judged(
    oracle: &dyn Oracle,
    built: &Provenance,
    cell: &Cell,
    opts: &rounds::Options,
) -> Result<report::CellResult> {
    let mut pairs = rounds::Pairs::default();
    let mut result = None;
    for n in report::looks(opts.rounds, opts.max_rounds) {
        rounds::measure(oracle, built, cell, opts, &mut pairs, n)?;
        let r = report::judge(oracle, cell, &pairs);
        let done = r.verdict.decided();
        result = Some(r);
        if done {
            break;
        }
    }
    result.context("no rounds to judge")
}

/// Crosschecks `cells` (default: all the oracle's) of a built oracle, each cell's rounds
/// alternating, handing the report so far to `progress` after every cell (measured or failed),
/// so that a caller can keep it (`--out`) before the next cell starts.
pub fn crosscheck(
    oracle: &dyn Oracle,
    built: Provenance,
    only: &[String],
    opts: &rounds::Options,
    progress: &mut dyn FnMut(&report::Report),
) -> Result<report::Report> {
    let mut report = report::Report {
        column: oracle.column().to_string(),
        oracle: oracle.name().to_string(),
        provenance: built,
        cpu: opts.cpu,
        started: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        cells: Vec::new(),
        failed: Vec::new(),
    };
    for cell in oracle.cells().iter().filter(|c| wanted(c, only)) {
        match judged(oracle, &report.provenance, cell, opts) {
            Ok(result) => report.cells.push(result),
            Err(e) => report.failed.push((cell.spec(), format!("{e:#}"))),
        }
        progress(&report);
    }
    Ok(report)
}
