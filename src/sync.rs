//! `cryptospeed sync --from A --to B`: copies runs between stores (SQLite files, PostgreSQL) so a
//! laptop that measured offline can publish later. Each run travels whole (machine, variants,
//! measurements with every sample, profiles) in one transaction, and keeps one identity in every
//! store, so syncing again, or syncing two copies of the same file, stores nothing twice.

use crate::session::{db_location, interrupt_flag};
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_model::{RunRecord, RunStatus};
use cryptospeed_store::{redact, SyncOutcome};
use std::sync::atomic::Ordering;

#[derive(Args)]
pub struct SyncArgs {
    /// The store to copy from: a SQLite file or a postgres:// URL.
    #[arg(long)]
    pub from: String,
    /// The store to copy into. Default: $CRYPTOSPEED_DB, else ~/.local/share/cryptospeed/results.db.
    #[arg(long)]
    pub to: Option<String>,
    /// Copy only these runs of the source (ids or labels); default: all.
    #[arg(long = "run", value_name = "RUN")]
    pub runs: Vec<String>,
    /// Also copy runs still running (a run in progress elsewhere); they are skipped by default
    /// because they may still grow. Runs whose process is gone (`abandoned`) are copied.
    #[arg(long)]
    pub include_running: bool,
    /// Say what would be copied without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

/// What a sync did, for its closing line.
#[derive(Default)]
struct Tally {
    copied: usize,
    present: usize,
    skipped: usize,
    cells: usize,
    samples: usize,
}

pub fn sync(a: SyncArgs) -> Result<i32> {
    let to = db_location(&a.to);
    if a.from == to {
        bail!("--from and --to name the same store ({})", redact(&to));
    }
    let from_store = cryptospeed_store::open(&a.from)?;
    let mut to_store = cryptospeed_store::open(&to)?;
    let cancel = interrupt_flag();
    let mut wanted = Vec::new();
    for sel in &a.runs {
        wanted.push(from_store.load_run(sel)?.run.id);
    }
    let mut tally = Tally::default();
    for id in from_store.run_identities()? {
        if !wanted.is_empty() && !wanted.contains(&id.id) {
            continue;
        }
        let name = format!(
            "run {}{}",
            id.id,
            id.label
                .as_deref()
                .map(|l| format!(" '{l}'"))
                .unwrap_or_default()
        );
        if id.status == RunStatus::Running && !a.include_running {
            println!("{name}: skipped, still marked running (--include-running copies it)");
            tally.skipped += 1;
            continue;
        }
        if cancel.load(Ordering::SeqCst) {
            eprintln!(
                "cryptospeed: interrupted; {} run(s) copied before this are kept, the rest were not started",
                tally.copied
            );
            return Ok(130);
        }
        let record = from_store.load_run(&id.id.to_string())?;
        let profiles = from_store.profiles(id.id)?;
        let n_samples: usize = record
            .measurements
            .iter()
            .map(|m| m.measurement.samples.len())
            .sum();
        if a.dry_run {
            println!(
                "{name}: would copy {} cells, {n_samples} samples, {} profiles (unless {} holds it)",
                record.measurements.len(),
                profiles.len(),
                redact(&to)
            );
            continue;
        }
        let outcome = to_store.copy_run(&id.uid, &record, &profiles)?;
        tally.count(&name, outcome, &record, profiles.len(), n_samples);
    }
    let Tally {
        copied,
        present,
        skipped,
        cells,
        samples,
    } = tally;
    eprintln!(
        "cryptospeed: {copied} run(s) copied ({cells} cells, {samples} samples), {present} already there, {skipped} skipped: {} → {}",
        redact(&a.from),
        redact(&to)
    );
    Ok(0)
}

impl Tally {
    /// Says what became of run `name` (`record`, with `profiles` profiles and `n_samples`
    /// samples) and counts it.
    fn count(
        &mut self,
        name: &str,
        outcome: SyncOutcome,
        record: &RunRecord,
        profiles: usize,
        n_samples: usize,
    ) {
        match outcome {
            SyncOutcome::Copied(new) => {
                println!(
                    "{name}: copied as run {new} ({} cells, {n_samples} samples, {profiles} profiles)",
                    record.measurements.len(),
                );
                self.copied += 1;
                self.cells += record.measurements.len();
                self.samples += n_samples;
            }
            SyncOutcome::Completed {
                id: existing,
                added,
            } => {
                println!(
                    "{name}: completed run {existing} there: {added} missing cell(s) added, status {}",
                    record.run.status.as_str()
                );
                self.copied += 1;
                self.cells += added;
            }
            SyncOutcome::AlreadyThere(existing) => {
                println!("{name}: already there as run {existing}");
                self.present += 1;
            }
        }
    }
}
