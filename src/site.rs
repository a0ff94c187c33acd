//! `cryptospeed site --db STORE -o DIR`: the static results site over a store (crates/site),
//! with the implementations' declared deviations passed in as the report's are.

use crate::session::{db_location, StoreArgs};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct SiteArgs {
    /// The folder to write the site to (created when missing). Built again in the same folder,
    /// only the pages whose data changed are written.
    #[arg(long, short)]
    pub output: PathBuf,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn site(a: SiteArgs) -> Result<i32> {
    let mut store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let options = cryptospeed_site::Options {
        dir: a.output.clone(),
        tool: format!("cryptospeed {}", env!("CARGO_PKG_VERSION")),
        deviations: cryptospeed_site::Deviations {
            of_run: crate::deviations::of_run,
            of_comparison: crate::deviations::of_comparison,
            of_cell: crate::deviations::declared,
        },
    };
    let started = std::time::Instant::now();
    let o = cryptospeed_site::build(store.as_mut(), &options)?;
    eprintln!(
        "cryptospeed: site {}: {} page(s), {} written, {} removed; {} run(s) read, {} comparison(s) computed, in {:.1} s",
        a.output.display(),
        o.pages,
        o.written,
        o.removed,
        o.runs_read,
        o.comparisons,
        started.elapsed().as_secs_f64()
    );
    Ok(0)
}
