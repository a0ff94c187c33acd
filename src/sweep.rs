//! `cryptospeed sweep`: a matrix of measurements (implementations/variants × masks × primitives ×
//! sizes, or a `profile` grid) cut into numbered shards that any machine or cluster node can run
//! against one shared store. The plan lives in the store; each shard claims itself, runs as one
//! ordinary `run` (or `profile`) and records the run holding its results, so re-running a shard
//! that is done does nothing and `sweep status` always knows what is left. Slurm runs the shards
//! as a job array (`sweep slurm`); cryptospeed schedules nothing itself.
//!
//! Every shard runs *all* implementations, variants and masks of the sweep, interleaved cell by
//! cell, over its own slice of the cells: any two variants are compared inside one run on one
//! machine, never across shards.

use crate::session::db_location;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use cryptospeed_store::{redact, ShardClaim, Store};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    pub store: crate::run::StoreArgs,
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
    pub store: crate::run::StoreArgs,
}

#[derive(Args)]
pub struct StatusArgs {
    /// A sweep's name; without it, every sweep.
    pub name: Option<String>,
    /// JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::run::StoreArgs,
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
    pub store: crate::run::StoreArgs,
}

/// A sweep file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The sweep's name in the store.
    pub name: String,
    /// `run` (timing) or `profile` (valgrind analysis of each cell).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// `--impl` values (run: any number; profile: at most one).
    #[serde(default)]
    pub implementations: Vec<String>,
    /// Built variants (`--variant`).
    #[serde(default)]
    pub variants: Vec<String>,
    /// CPU-feature masks (run only), each its own variant.
    #[serde(default)]
    pub masks: Vec<String>,
    /// Primitives or groups.
    pub primitives: Vec<String>,
    /// Message sizes (numbers or `16k`-style text); default: openssl speed's sizes (run) or 256k
    /// (profile).
    #[serde(default)]
    pub sizes: Vec<SizeSpec>,
    /// How many shards at most (default: one per cell).
    #[serde(default)]
    pub shards: Option<usize>,
    /// More `run`/`profile` options for every shard, e.g. ["--max-time", "0.5"].
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub slurm: SlurmSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SizeSpec {
    Bytes(u64),
    Text(String),
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmSpec {
    pub partition: Option<String>,
    pub time: Option<String>,
    /// Whole nodes per shard; default: yes for timing sweeps, no for profiles.
    pub exclusive: Option<bool>,
    /// The cryptospeed binary on the nodes (default: this one's absolute path).
    pub cryptospeed: Option<String>,
    /// More `#SBATCH` options, e.g. ["--constraint=zen4"].
    #[serde(default)]
    pub options: Vec<String>,
}

fn default_kind() -> String {
    "run".into()
}

impl SweepSpec {
    pub fn read(path: &Path) -> Result<SweepSpec> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read sweep file {}", path.display()))?;
        let spec: SweepSpec = toml::from_str(&text)
            .map_err(|e| anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
        if spec.name.trim().is_empty() {
            bail!("{}: the sweep needs a name", path.display());
        }
        if !["run", "profile"].contains(&spec.kind.as_str()) {
            bail!(
                "{}: kind '{}' is neither run nor profile",
                path.display(),
                spec.kind
            );
        }
        if spec.kind == "profile" && !spec.masks.is_empty() {
            bail!(
                "{}: masks apply to timing sweeps (kind = \"run\") only",
                path.display()
            );
        }
        if spec.options.iter().any(|o| {
            ["--multi", "--db", "--label", "--cells", "-o", "--output"]
                .contains(&o.split('=').next().unwrap_or(""))
        }) {
            bail!("{}: options may not set --multi, --db, --label, --cells or --output: the sweep sets them", path.display());
        }
        Ok(spec)
    }

    /// Every cell of the matrix, as `PRIMITIVE@SIZE` (or `PRIMITIVE` for public-key ones).
    pub fn cells(&self) -> Result<Vec<String>> {
        let primitives = crate::args::select(&self.primitives)?;
        let sizes: Vec<String> = self
            .sizes
            .iter()
            .map(|s| match s {
                SizeSpec::Bytes(b) => b.to_string(),
                SizeSpec::Text(t) => t.clone(),
            })
            .collect();
        let sizes = if sizes.is_empty() && self.kind == "profile" {
            vec![262144]
        } else {
            crate::args::parse_sizes(&sizes)?
        };
        let mut out = Vec::new();
        for p in primitives {
            if p.has_bytes() {
                out.extend(sizes.iter().map(|b| format!("{}@{b}", p.id)));
            } else if self.kind == "run" {
                out.push(p.id.to_string());
            } else {
                bail!(
                    "profile sweeps take bulk primitives only; {} has no message size",
                    p.id
                );
            }
        }
        Ok(out)
    }

    /// The cells cut into shards: contiguous, as even as can be.
    pub fn shards(&self) -> Result<Vec<Vec<String>>> {
        let cells = self.cells()?;
        if cells.is_empty() {
            bail!("the sweep has no cells");
        }
        let n = self.shards.unwrap_or(cells.len()).clamp(1, cells.len());
        Ok((0..n)
            .map(|k| cells[k * cells.len() / n..(k + 1) * cells.len() / n].to_vec())
            .collect())
    }

    /// The `cryptospeed` arguments that run one shard.
    fn command(&self, cells: &[String], k: usize, label: &str, db: &str) -> Vec<String> {
        let mut argv = vec!["cryptospeed".to_string(), self.kind.clone()];
        if self.kind == "run" {
            argv.extend(["--cells".into(), cells.join(",")]);
        } else {
            argv.extend(cells.iter().cloned());
        }
        if !self.implementations.is_empty() {
            argv.extend(["--impl".into(), self.implementations.join(",")]);
        }
        if !self.variants.is_empty() {
            argv.extend(["--variant".into(), self.variants.join(",")]);
        }
        for m in &self.masks {
            argv.extend(["--mask".into(), m.clone()]);
        }
        argv.extend(self.options.iter().cloned());
        argv.extend(["--label".into(), label.into(), "--db".into(), db.into()]);
        argv.extend(["--sweep-shard".into(), format!("{k}:{}", self.name)]);
        argv
    }
}

#[derive(Parser)]
#[command(name = "cryptospeed")]
enum ShardCli {
    Run(crate::run::RunArgs),
    Profile(crate::profile::ProfileArgs),
}

pub fn sweep(a: SweepArgs) -> Result<i32> {
    match a.command {
        SweepCommand::Plan(p) => plan(p),
        SweepCommand::Run(r) => run(r),
        SweepCommand::Status(s) => status(s),
        SweepCommand::Slurm(s) => slurm(s),
    }
}

/// Stores the plan (a no-op when the same plan is stored) and returns the spec and its shards.
fn store_plan(
    spec_path: &Path,
    store: &mut dyn Store,
) -> Result<(SweepSpec, Vec<Vec<String>>, bool)> {
    let spec = SweepSpec::read(spec_path)?;
    let shards = spec.shards()?;
    // The shards' commands must parse before anything is stored.
    for cells in &shards {
        ShardCli::try_parse_from(spec.command(cells, 0, "check", "check.db")).map_err(|e| {
            anyhow!(
                "{}: the shard options are not valid: {}",
                spec_path.display(),
                e.to_string().trim_end()
            )
        })?;
    }
    let jobs: Vec<String> = shards
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<_, _>>()?;
    let new = store.save_sweep(&spec.name, &serde_json::to_string(&spec)?, &jobs)?;
    Ok((spec, shards, new))
}

fn plan(a: PlanArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    let mut store = cryptospeed_store::open(&db)?;
    let (spec, shards, new) = store_plan(&a.spec, store.as_mut())?;
    let mut table = crate::session::table(&["shard", "cells", "first", "last"]);
    for (k, cells) in shards.iter().enumerate() {
        table.add_row(vec![
            k.to_string(),
            cells.len().to_string(),
            cells[0].clone(),
            cells[cells.len() - 1].clone(),
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

fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let parsed = text
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if k < n => Ok((k, n)),
        _ => bail!("--shard wants K/N with 0 ≤ K < N, e.g. 3/20; got '{text}'"),
    }
}

fn run(a: ShardArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    let mut store = cryptospeed_store::open(&db)?;
    let sweep = store
        .sweeps()?
        .into_iter()
        .find(|s| s.name == a.name)
        .ok_or_else(|| {
            anyhow!(
                "no sweep named '{}' in {} (`cryptospeed sweep plan FILE` stores one)",
                a.name,
                redact(&db)
            )
        })?;
    let spec: SweepSpec = serde_json::from_str(&sweep.spec)
        .with_context(|| format!("the stored plan of sweep '{}' cannot be read", a.name))?;
    let todo: Vec<usize> = match &a.shard {
        Some(text) => {
            let (k, n) = parse_shard(text)?;
            if n != sweep.shards {
                bail!(
                    "sweep '{}' has {} shards, not {n}; use --shard K/{}",
                    a.name,
                    sweep.shards,
                    sweep.shards
                );
            }
            vec![k]
        }
        None => (0..sweep.shards).collect(),
    };
    let mut worst = 0;
    let several = todo.len() > 1;
    for k in todo {
        let code = match run_shard(&mut store, &spec, k, sweep.shards, &db, a.force) {
            Ok(code) => code,
            // With --all, one shard's failure (recorded as such) does not stop the others.
            Err(e) if several => {
                eprintln!("cryptospeed: {e:#}");
                1
            }
            Err(e) => return Err(e),
        };
        if code == 130 {
            return Ok(130);
        }
        worst = worst.max(code);
    }
    Ok(worst)
}

fn run_shard(
    store: &mut Box<dyn Store>,
    spec: &SweepSpec,
    k: usize,
    n: usize,
    db: &str,
    force: bool,
) -> Result<i32> {
    let name = &spec.name;
    let cells: Vec<String> = match store.claim_shard(
        name,
        k,
        &cryptospeed_engine::machine::hostname(),
    )? {
        ShardClaim::AlreadyDone(run) if !force => {
            eprintln!(
                "cryptospeed: sweep '{name}' shard {k}/{n} is done (run {run}); nothing to do"
            );
            return Ok(0);
        }
        ShardClaim::Busy { host, run } if !force => {
            eprintln!(
                    "cryptospeed: sweep '{name}' shard {k}/{n} is running on {}{}; left to it (--force runs it here as well)",
                    host.as_deref().unwrap_or("another host"),
                    run.map(|r| format!(" as run {r}")).unwrap_or_default()
                );
            return Ok(0);
        }
        ShardClaim::AlreadyDone(_) | ShardClaim::Busy { .. } => {
            // --force: take it again.
            store.finish_shard(name, k, None, "pending")?;
            match store.claim_shard(name, k, &cryptospeed_engine::machine::hostname())? {
                ShardClaim::Claimed(jobs) => serde_json::from_str(&jobs)?,
                _ => bail!("shard {k} could not be reopened"),
            }
        }
        ShardClaim::Claimed(jobs) => serde_json::from_str(&jobs)
            .with_context(|| format!("the stored jobs of shard {k} cannot be read"))?,
    };
    let label = format!("{name} shard {k}/{n}");
    eprintln!(
        "cryptospeed: sweep '{name}' shard {k}/{n}: {} cell(s) on {}",
        cells.len(),
        cryptospeed_engine::machine::hostname()
    );
    let argv = spec.command(&cells, k, &label, db);
    let parsed = ShardCli::try_parse_from(&argv).map_err(|e| {
        anyhow!(
            "shard {k}: the stored plan no longer parses: {}",
            e.to_string().trim_end()
        )
    });
    let result = parsed.and_then(|cli| match cli {
        ShardCli::Run(r) => crate::run::run_stored(r),
        ShardCli::Profile(p) => crate::profile::profile_stored(p),
    });
    match result {
        Ok((code, run)) => {
            let status = match code {
                0 => "done",
                130 => "interrupted",
                _ => "failed",
            };
            finish_shard(store, db, name, k, run, status)?;
            eprintln!(
                "cryptospeed: sweep '{name}' shard {k}/{n} {status}{}",
                run.map(|r| format!(" (run {r})")).unwrap_or_default()
            );
            Ok(code)
        }
        Err(e) => {
            finish_shard(store, db, name, k, None, "failed")?;
            Err(e.context(format!("sweep '{name}' shard {k}/{n} failed")))
        }
    }
}

/// Records how a shard ended; the shard's run may have outlived a store restart that broke this
/// connection, so a failed write is tried once more on a fresh one.
fn finish_shard(
    store: &mut Box<dyn Store>,
    db: &str,
    name: &str,
    k: usize,
    run: Option<i64>,
    status: &str,
) -> Result<()> {
    if store.finish_shard(name, k, run, status).is_ok() {
        return Ok(());
    }
    *store = cryptospeed_store::open(db)?;
    store.finish_shard(name, k, run, status)
}

fn status(a: StatusArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    let store = cryptospeed_store::open(&db)?;
    let Some(name) = &a.name else {
        let sweeps = store.sweeps()?;
        if a.json {
            println!("{}", serde_json::to_string_pretty(&sweeps)?);
            return Ok(0);
        }
        let mut table = crate::session::table(&["sweep", "shards", "done", "created"]);
        for s in &sweeps {
            table.add_row(vec![
                s.name.clone(),
                s.shards.to_string(),
                s.done.to_string(),
                s.created_at.clone(),
            ]);
        }
        println!("{table}");
        return Ok(0);
    };
    let shards = store.sweep_shards(name)?;
    let cells_stored: std::collections::HashMap<i64, i64> = store
        .runs()?
        .into_iter()
        .map(|r| (r.id, r.measurements))
        .collect();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&shards)?);
    } else {
        let mut table = crate::session::table(&[
            "shard", "status", "cells", "run", "stored", "attempts", "host", "updated",
        ]);
        for s in &shards {
            let cells: Vec<String> = serde_json::from_str(&s.jobs).unwrap_or_default();
            table.add_row(vec![
                s.shard.to_string(),
                s.status.clone(),
                cells.len().to_string(),
                s.run_id.map(|r| r.to_string()).unwrap_or_default(),
                s.run_id
                    .and_then(|r| cells_stored.get(&r))
                    .map(|m| format!("{m} measurements"))
                    .unwrap_or_default(),
                s.attempts.to_string(),
                s.host.clone().unwrap_or_default(),
                s.updated_at.clone(),
            ]);
        }
        println!("{table}");
    }
    let count = |st: &str| shards.iter().filter(|s| s.status == st).count();
    eprintln!(
        "cryptospeed: sweep '{name}': {}/{} shards done, {} running, {} abandoned, {} failed or interrupted, {} pending",
        count("done"),
        shards.len(),
        count("running"),
        count("abandoned"),
        count("failed") + count("interrupted"),
        count("pending")
    );
    Ok(0)
}

/// Single-quotes a word for bash.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn slurm(a: SlurmArgs) -> Result<i32> {
    let db = db_location(&a.store.db);
    if !cryptospeed_store::is_postgres(&db) {
        eprintln!(
            "cryptospeed: warning: the store is a SQLite file ({db}); shards on other nodes reach it only over a shared filesystem. A PostgreSQL store (--db postgres://…) is the shared one"
        );
    }
    let mut store = cryptospeed_store::open(&db)?;
    let (spec, shards, _) = store_plan(&a.spec, store.as_mut())?;
    let n = shards.len();
    let exe = match &spec.slurm.cryptospeed {
        Some(p) => p.clone(),
        None => std::env::current_exe()?
            .canonicalize()?
            .to_string_lossy()
            .into_owned(),
    };
    let out_dir = match a.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.canonicalize()?,
        None => std::env::current_dir()?,
    };
    let safe_name: String = spec
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let exclusive = spec.slurm.exclusive.unwrap_or(spec.kind == "run");
    let mut script = String::new();
    script.push_str("#!/bin/bash\n");
    script.push_str(&format!(
        "# Written by `cryptospeed sweep slurm {}`: sweep '{}', {} cells in {n} shards, one array task\n",
        a.spec.display(),
        spec.name.replace('\n', " "),
        shards.iter().map(Vec::len).sum::<usize>()
    ));
    script.push_str("# per shard. A shard that is done exits at once, so submitting this again runs only what is\n");
    script.push_str(&format!(
        "# missing. Store: {} — no password in this file: the tasks take $CRYPTOSPEED_DB from\n",
        redact(&db)
    ));
    script.push_str("# the environment sbatch passes on, else the URL below with $PGPASSWORD.\n");
    script.push_str(&format!("#SBATCH --job-name=cryptospeed-{safe_name}\n"));
    script.push_str(&format!("#SBATCH --array=0-{}\n", n - 1));
    if exclusive {
        script.push_str("#SBATCH --exclusive\n");
    }
    if let Some(p) = a.partition.as_ref().or(spec.slurm.partition.as_ref()) {
        script.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = a.time.as_ref().or(spec.slurm.time.as_ref()) {
        script.push_str(&format!("#SBATCH --time={t}\n"));
    }
    for o in &spec.slurm.options {
        script.push_str(&format!("#SBATCH {o}\n"));
    }
    script.push_str(&format!(
        "#SBATCH --output={}/cryptospeed-{safe_name}-%A_%a.out\n",
        out_dir.display()
    ));
    script.push_str("set -euo pipefail\n");
    script.push_str(&format!(
        "export CRYPTOSPEED_DB=\"${{CRYPTOSPEED_DB:-{}}}\"\n",
        cryptospeed_store::without_password(&db)
            .replace('"', "\\\"")
            .replace('$', "\\$")
    ));
    script.push_str(&format!(
        "exec {} sweep run {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\"\n",
        shell_quote(&exe),
        shell_quote(&spec.name)
    ));
    crate::session::write_atomically(&a.output, script.as_bytes())?;
    eprintln!(
        "cryptospeed: wrote {} ({n} array tasks{})",
        a.output.display(),
        if exclusive { ", --exclusive" } else { "" }
    );
    if a.submit {
        let out = std::process::Command::new("sbatch")
            .arg("--parsable")
            .arg(&a.output)
            .output()
            .map_err(|e| anyhow!("cannot run sbatch ({e}); is Slurm installed here?"))?;
        if !out.status.success() {
            bail!(
                "sbatch refused {}: {}",
                a.output.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let job = String::from_utf8_lossy(&out.stdout).trim().to_string();
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

    fn spec(text: &str) -> SweepSpec {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(&path, text).unwrap();
        SweepSpec::read(&path).unwrap()
    }

    #[test]
    fn cells_are_cut_into_even_contiguous_shards() {
        let s = spec(
            "name = \"t\"\nprimitives = [\"md5\", \"sha256\", \"rsa2048\"]\nsizes = [64, \"1k\", 8192]\nshards = 4\n",
        );
        let cells = s.cells().unwrap();
        assert_eq!(
            cells,
            [
                "md5@64",
                "md5@1024",
                "md5@8192",
                "sha256@64",
                "sha256@1024",
                "sha256@8192",
                "rsa-2048"
            ]
        );
        let shards = s.shards().unwrap();
        assert_eq!(shards.len(), 4);
        assert_eq!(shards.concat(), cells, "every cell once, in order");
        assert!(shards.iter().all(|c| (1..=2).contains(&c.len())));
    }

    #[test]
    fn shard_commands_parse_as_the_run_command_line() {
        let s = spec("name = \"t\"\nimplementations = [\"openssl\", \"rustcrypto\"]\nmasks = [\"none\", \"no-aesni\"]\nprimitives = [\"md5\"]\nsizes = [64]\noptions = [\"--max-time\", \"0.2\"]\n");
        let argv = s.command(&["md5@64".into()], 0, "t shard 0/1", "x.db");
        assert!(ShardCli::try_parse_from(&argv).is_ok(), "{argv:?}");
        assert_eq!(parse_shard("3/20").unwrap(), (3, 20));
        assert!(parse_shard("20/20").is_err());
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(&path, "name = \"t\"\nprimitves = [\"md5\"]\n").unwrap();
        let err = format!("{:#}", SweepSpec::read(&path).unwrap_err());
        assert!(err.contains("primitves") && err.contains("s.toml"), "{err}");
        std::fs::write(
            &path,
            "name = \"t\"\nprimitives = [\"md5\"]\noptions = [\"--multi\", \"2\"]\n",
        )
        .unwrap();
        assert!(SweepSpec::read(&path).is_err());
    }
}
