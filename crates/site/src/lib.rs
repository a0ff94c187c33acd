//! `cryptospeed site`: a static results site over a store, as eBACS and OpenBenchmarking publish
//! theirs. An index (machines, implementations and variants, primitives, the latest runs), a page
//! per primitive (every implementation × machine, best figure per machine, with its interval and
//! the run it came from), per machine and per run, comparison pages that carry exactly what
//! `cryptospeed compare` prints for the same sides, and per machine and primitive a history page
//! (each run's figure, the noise and the change points `cryptospeed history` finds). Plain files with relative links, no script,
//! the report's Content Security Policy.
//!
//! Addresses are stable (a run's page is `runs/ID.html`, a machine's `machines/KEY.html`, a
//! primitive's `primitives/ID.html`), and a rebuild reads only the runs that changed and writes
//! only the pages whose content changed ([`state`]).

mod build;
mod comparisons;
mod context;
pub mod figures;
pub mod histories;
mod history_page;
mod listing;
pub mod page;
mod primitive;
mod run_page;
pub mod state;

use cryptospeed_compare::Comparison;
use cryptospeed_model::{Op, RunRecord};
use cryptospeed_query::StoredSide;
use cryptospeed_report::Footnotes;
use std::path::PathBuf;

pub use build::build;

/// The declared deviations, handed in by the binary (the site cannot see the implementations,
/// as the report cannot): the same functions `show` and `compare` footnote with.
#[derive(Clone, Copy)]
pub struct Deviations {
    pub of_run: fn(&RunRecord) -> Footnotes,
    pub of_comparison: fn(&Comparison, &[StoredSide]) -> Footnotes,
    /// The one-line deviation an implementation declares for a primitive's operation.
    pub of_cell: fn(&str, &str, Op) -> Option<&'static str>,
}

impl Default for Deviations {
    /// None declared (a site without the implementations' declarations).
    fn default() -> Deviations {
        Deviations {
            of_run: |_| Footnotes::default(),
            of_comparison: |_, _| Footnotes::default(),
            of_cell: |_, _, _| None,
        }
    }
}

/// How to build a site.
#[derive(Clone)]
pub struct Options {
    /// The folder the site is written to (created when missing).
    pub dir: PathBuf,
    /// "cryptospeed 0.1.0": named on the pages; a site written by another version is rebuilt whole.
    pub tool: String,
    pub deviations: Deviations,
}

/// What a build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Pages the site holds.
    pub pages: usize,
    /// Pages written by this build (new or changed).
    pub written: usize,
    /// Pages an earlier build wrote that no longer exist.
    pub removed: usize,
    /// Runs read from the store.
    pub runs_read: usize,
    /// Comparisons computed (not kept from the last build).
    pub comparisons: usize,
}
