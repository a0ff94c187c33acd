//! `cryptospeed run --resume RUN`: an interrupted or abandoned run goes on where it stopped. Its
//! settings are its own: the stored command line is parsed again (only the store, its retry
//! window and the output options come from this command), and the runner refuses, saying why, unless the machine, the
//! builds (by hash) and the settings are what the run began with.

use super::RunArgs;
use anyhow::{anyhow, bail, Result};
use clap::Parser;
use cryptospeed_model::RunStatus;
use cryptospeed_runner::{argv_of, ResumeFrom};

/// The stored command line, parsed as `run` parses it.
#[derive(Parser)]
#[command(name = "cryptospeed")]
enum Stored {
    Run(RunArgs),
}

/// The run `--resume` names, and the arguments it was started with (with this command's store
/// and output options).
pub fn stored_run(a: RunArgs, selector: &str) -> Result<(RunArgs, ResumeFrom)> {
    let from = resumable(&crate::session::db_location(&a.store.db), selector)?;
    let id = from.record.run.id;
    if from.record.run.command.contains(" sweep run ") {
        bail!("run {id} measures a sweep shard: `cryptospeed sweep run` goes on with it");
    }
    let argv = from.key.as_deref().map(argv_of).unwrap_or_default();
    let words: Vec<String> = match argv.is_empty() {
        true => from
            .record
            .run
            .command
            .split_whitespace()
            .map(String::from)
            .collect(),
        false => argv,
    };
    let Stored::Run(mut stored) = Stored::try_parse_from(words).map_err(|e| {
        let e = e.to_string();
        anyhow!("run {id}'s command line no longer parses: {}", e.trim_end())
    })?;
    stored.store = a.store;
    stored.store_retry = a.store_retry;
    stored.output = a.output;
    stored.resume = None;
    Ok((stored, from))
}

/// The stored run, if it may go on: stopped before it was complete, and measured here.
pub fn resumable(db: &str, selector: &str) -> Result<ResumeFrom> {
    let store = cryptospeed_store::open(db)?;
    let record = store.load_run(selector)?;
    let id = record.run.id;
    match record.run.status {
        RunStatus::Interrupted | RunStatus::Abandoned | RunStatus::Failed => {}
        RunStatus::Complete => bail!("run {id} is complete: there is nothing to resume"),
        RunStatus::Running => {
            bail!("run {id} is still running (its process beats): it cannot be resumed from here")
        }
    }
    if record.run.imported.is_some() {
        bail!("run {id} was imported: only measured runs can be resumed");
    }
    let key = store.resume_key(id)?;
    Ok(ResumeFrom { record, key })
}
