//! `cryptospeed sweep`: the command layer over `cryptospeed_sweep` (plan, run, status, slurm).
//! A shard runs as an ordinary `run` or `profile` command line (the sweep file's `options` are
//! command-line options), parsed here by the same parser as the commands themselves.

use crate::session::db_location;
use anyhow::{anyhow, Result};
use clap::{Args, Parser, Subcommand};
use cryptospeed_store::redact;
use cryptospeed_sweep::{slurm, ShardRunner};
use std::path::PathBuf;

#[derive(Args)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: SweepCommand,
}

#[derive(Subcommand)]
pub enum SweepCommand {
    /// Expand a sweep file into numbered shards and store the plan (again: no change).
    Plan(PlanArgs),
    /// Run one shard (`--shard K/N`, K from 0) or every shard not done (`--all`).
    Run(ShardArgs),
    /// What is done: every sweep, or one sweep shard by shard.
    Status(StatusArgs),
    /// Plan a sweep and write an sbatch script that runs its shards as a Slurm job array.
    Slurm(SlurmArgs),
}

#[derive(Args)]
pub struct PlanArgs {
    /// The sweep file (TOML; docs/scale.md describes it).
    pub spec: PathBuf,
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

#[derive(Args)]
pub struct ShardArgs {
    /// The sweep's name.
    pub name: String,
    /// The shard to run, K/N with K from 0 to N-1 (Slurm: `$SLURM_ARRAY_TASK_ID/N`).
    #[arg(long, required_unless_present = "all", conflicts_with = "all")]
    pub shard: Option<String>,
    /// Run every shard that is not done, one after another.
    #[arg(long)]
    pub all: bool,
    /// Run the shard again even when it is done (its earlier run stays stored).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

#[derive(Args)]
pub struct StatusArgs {
    /// A sweep's name; without it, every sweep.
    pub name: Option<String>,
    /// JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

#[derive(Args)]
pub struct SlurmArgs {
    /// The sweep file (TOML).
    pub spec: PathBuf,
    /// Where to write the sbatch script.
    #[arg(short, long, default_value = "sweep.sbatch")]
    pub output: PathBuf,
    /// Slurm partition (overrides the file's [slurm] partition).
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit per shard, in sbatch's form (e.g. 00:30:00; overrides the file).
    #[arg(long)]
    pub time: Option<String>,
    /// Submit the script with sbatch and print the job id.
    #[arg(long)]
    pub submit: bool,
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

#[derive(Parser)]
#[command(name = "cryptospeed")]
enum ShardCli {
    Run(crate::run::RunArgs),
    Profile(crate::profile::ProfileArgs),
}

/// Shards run as this binary's `run` and `profile`, in this process.
struct Commands;

impl ShardRunner for Commands {
    fn check(&self, argv: &[String]) -> Result<()> {
        ShardCli::try_parse_from(argv)
            .map(|_| ())
            .map_err(|e| anyhow!("{}", e.to_string().trim_end()))
    }

    fn run(&mut self, argv: &[String]) -> Result<(i32, Option<i64>)> {
        let cli = ShardCli::try_parse_from(argv).map_err(|e| {
            anyhow!(
                "the stored plan no longer parses: {}",
                e.to_string().trim_end()
            )
        })?;
        match cli {
            ShardCli::Run(r) => crate::run::run_stored(r),
            ShardCli::Profile(p) => crate::profile::profile_stored(p),
        }
    }
}

pub fn sweep(a: SweepArgs) -> Result<i32> {
    match a.command {
        SweepCommand::Plan(p) => plan(p),
        SweepCommand::Run(r) => {
            let db = db_location(&r.store.db);
            let mut store = cryptospeed_store::open(&db)?;
            let shard = r.shard.as_deref();
            cryptospeed_sweep::run_shards(&mut store, &db, &r.name, shard, r.force, &mut Commands)
        }
        SweepCommand::Status(s) => status(s),
        SweepCommand::Slurm(s) => write_slurm(s),
    }
}

fn plan(a: PlanArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    let mut store = cryptospeed_store::open(&db)?;
    let (spec, shards, new) = cryptospeed_sweep::store_plan(&a.spec, store.as_mut(), &Commands)?;
    let mut table = cryptospeed_query::listing::table(&["shard", "cells", "first", "last"]);
    for (k, cells) in shards.iter().enumerate() {
        let (first, last) = (&cells[0], &cells[cells.len() - 1]);
        table.add_row(vec![
            k.to_string(),
            cells.len().to_string(),
            first.to_string(),
            last.to_string(),
        ]);
    }
    println!("{table}");
    let n = shards.len();
    eprintln!(
        "cryptospeed: sweep '{}' {} in {}: {} cells in {n} shards; run one with `cryptospeed sweep run {} --shard K/{n}` (K = 0…{}), or all with --all",
        spec.name,
        if new { "stored" } else { "already stored, unchanged," },
        redact(&db),
        shards.iter().map(Vec::len).sum::<usize>(),
        spec.name,
        n - 1
    );
    Ok(0)
}

fn status(a: StatusArgs) -> Result<i32> {
    use cryptospeed_query::listing;
    let store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let Some(name) = &a.name else {
        let sweeps = store.sweeps()?;
        match a.json {
            true => println!("{}", serde_json::to_string_pretty(&sweeps)?),
            false => println!("{}", listing::sweeps_table(&sweeps)),
        }
        return Ok(0);
    };
    let shards = store.sweep_shards(name)?;
    let runs = store.runs()?;
    let stored = runs.iter().map(|r| (r.id, r.measurements)).collect();
    match a.json {
        true => println!("{}", serde_json::to_string_pretty(&shards)?),
        false => println!("{}", listing::shards_table(&shards, &stored)),
    }
    eprintln!("cryptospeed: {}", listing::shards_summary(name, &shards));
    Ok(0)
}

fn write_slurm(a: SlurmArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    if !cryptospeed_store::is_postgres(&db) {
        eprintln!(
            "cryptospeed: warning: the store is a SQLite file ({db}); shards on other nodes reach it only over a shared filesystem. A PostgreSQL store (--db postgres://…) is the shared one"
        );
    }
    let mut store = cryptospeed_store::open(&db)?;
    let (spec, shards, _) = cryptospeed_sweep::store_plan(&a.spec, store.as_mut(), &Commands)?;
    let exe = slurm::program(&spec)?;
    let out_dir = match a.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.canonicalize()?,
        None => std::env::current_dir()?,
    };
    let options = slurm::ScriptOptions {
        spec_path: &a.spec,
        db: &db,
        exe: &exe,
        out_dir: &out_dir,
        partition: a.partition.as_deref(),
        time: a.time.as_deref(),
    };
    let (n, cells) = (shards.len(), shards.iter().map(Vec::len).sum());
    let script = slurm::script(&spec, n, cells, &options);
    crate::session::write_atomically(&a.output, script.as_bytes())?;
    let exclusive = if slurm::exclusive(&spec) {
        ", --exclusive"
    } else {
        ""
    };
    eprintln!(
        "cryptospeed: wrote {} ({n} array tasks{exclusive})",
        a.output.display()
    );
    if a.submit {
        let job = slurm::submit(&a.output)?;
        println!("{job}");
        eprintln!(
            "cryptospeed: submitted job {job}; `cryptospeed sweep status {}` shows progress",
            spec.name
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_commands_parse_as_the_run_command_line() {
        let s = cryptospeed_sweep::SweepSpec::parse("name = \"t\"\nimplementations = [\"openssl\", \"rustcrypto\"]\nmasks = [\"none\", \"no-aesni\"]\nprimitives = [\"md5\"]\nsizes = [64]\noptions = [\"--max-time\", \"0.2\"]\n").unwrap();
        let argv = s.command(&s.cells().unwrap(), 0, "t shard 0/1", "x.db");
        assert!(Commands.check(&argv).is_ok(), "{argv:?}");
        let bad = cryptospeed_sweep::SweepSpec::parse(
            "name = \"t\"\nprimitives = [\"md5\"]\noptions = [\"--max-tim\", \"1\"]\n",
        )
        .unwrap();
        assert!(Commands
            .check(&bad.command(&bad.cells().unwrap(), 0, "t", "x.db"))
            .is_err());
    }
}
