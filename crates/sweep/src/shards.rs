//! Storing a sweep's plan and running its shards: claim a shard in the store, run its command
//! line through the front end's [`ShardRunner`], record how it ended. A shard that is done (or
//! running elsewhere) is left alone unless forced. A `run` shard whose run was interrupted (a
//! scheduler's SIGTERM) or abandoned (a kill, a reboot) goes on with that run (`--continue-run`),
//! measuring only what it lacks.

use crate::SweepSpec;
use anyhow::{anyhow, bail, Context, Result};
use cryptospeed_catalog::plan::CellRef;
use cryptospeed_store::{redact, ShardClaim, Store};
use std::path::Path;

/// What runs a shard's command line: the binary's `run`/`profile`, or a test's stand-in.
pub trait ShardRunner {
    /// Says why a shard's command line would not run, before anything is stored.
    fn check(&self, argv: &[String]) -> Result<()>;
    /// Runs a shard's command line: its exit status and the run it stored, if any.
    fn run(&mut self, argv: &[String]) -> Result<(i32, Option<i64>)>;
}

/// How a shard ended, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardOutcome {
    Done,
    Interrupted,
    Failed,
}

impl ShardOutcome {
    /// From the command's exit status: 0 done, 130 (Ctrl-C) or 143 (SIGTERM, a pre-empted job)
    /// interrupted, anything else failed.
    pub fn from_exit(code: i32) -> ShardOutcome {
        match code {
            0 => ShardOutcome::Done,
            130 | 143 => ShardOutcome::Interrupted,
            _ => ShardOutcome::Failed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ShardOutcome::Done => "done",
            ShardOutcome::Interrupted => "interrupted",
            ShardOutcome::Failed => "failed",
        }
    }
}

/// Reads a sweep file and stores its plan (a no-op when the same plan is stored): the spec, its
/// shards, and whether it was new. Every shard's command line is checked first.
pub fn store_plan(
    spec_path: &Path,
    store: &mut dyn Store,
    runner: &dyn ShardRunner,
) -> Result<(SweepSpec, Vec<Vec<CellRef>>, bool)> {
    let spec = SweepSpec::read(spec_path)?;
    let shards = spec.shards()?;
    for cells in &shards {
        runner
            .check(&spec.command(cells, 0, "check", "check.db"))
            .map_err(|e| {
                let shown = spec_path.display();
                anyhow!("{shown}: the shard options are not valid: {e:#}")
            })?;
    }
    let jobs: Vec<String> = shards
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<_, _>>()?;
    let new = store.save_sweep(&spec.name, &serde_json::to_string(&spec)?, &jobs)?;
    Ok((spec, shards, new))
}

/// `--shard K/N`.
pub fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let parsed = text
        .split_once('/')
        .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
    match parsed {
        Some((k, n)) if k < n => Ok((k, n)),
        _ => bail!("--shard wants K/N with 0 ≤ K < N, e.g. 3/20; got '{text}'"),
    }
}

/// Runs shard `K/N` of the stored sweep `name` (`shard`), or every shard not done (`None`), one
/// after another; with several, one shard's failure (recorded as such) does not stop the
/// others, Ctrl-C does. Returns the worst exit status.
pub fn run_shards(
    store: &mut Box<dyn Store>,
    db: &str,
    name: &str,
    shard: Option<&str>,
    force: bool,
    runner: &mut dyn ShardRunner,
) -> Result<i32> {
    let sweep = store
        .sweeps()?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| {
            let db = redact(db);
            anyhow!("no sweep named '{name}' in {db} (`cryptospeed sweep plan FILE` stores one)")
        })?;
    let spec: SweepSpec = serde_json::from_str(&sweep.spec)
        .with_context(|| format!("the stored plan of sweep '{name}' cannot be read"))?;
    let n = sweep.shards;
    let todo: Vec<usize> = match shard {
        Some(text) => match parse_shard(text)? {
            (k, m) if m == n => vec![k],
            (_, m) => bail!("sweep '{name}' has {n} shards, not {m}; use --shard K/{n}"),
        },
        None => (0..n).collect(),
    };
    let several = todo.len() > 1;
    let mut worst = 0;
    for k in todo {
        let shard = Shard { spec: &spec, k, n };
        let code = match shard.run(store, db, force, runner) {
            Ok(code) => code,
            Err(e) if several => {
                eprintln!("cryptospeed: {e:#}");
                1
            }
            Err(e) => return Err(e),
        };
        if ShardOutcome::from_exit(code) == ShardOutcome::Interrupted {
            return Ok(code);
        }
        worst = worst.max(code);
    }
    Ok(worst)
}

/// Shard `k` of `n` of a sweep.
struct Shard<'a> {
    spec: &'a SweepSpec,
    k: usize,
    n: usize,
}

impl Shard<'_> {
    fn run(
        &self,
        store: &mut Box<dyn Store>,
        db: &str,
        force: bool,
        runner: &mut dyn ShardRunner,
    ) -> Result<i32> {
        let (name, k, n) = (&self.spec.name, self.k, self.n);
        let Some(cells) = self.claim(store.as_mut(), force)? else {
            return Ok(0);
        };
        let host = cryptospeed_engine::machine::hostname();
        eprintln!(
            "cryptospeed: sweep '{name}' shard {k}/{n}: {} cell(s) on {host}",
            cells.len()
        );
        let label = format!("{name} shard {k}/{n}");
        let mut argv = self.spec.command(&cells, k, &label, db);
        if let Some(run) = self.resumable_run(store.as_ref())? {
            eprintln!("cryptospeed: sweep '{name}' shard {k}/{n} goes on with its run {run}");
            argv.extend(["--continue-run".to_string(), run.to_string()]);
        }
        match runner.run(&argv) {
            Ok((code, run)) => {
                let outcome = ShardOutcome::from_exit(code);
                finish(store, db, name, k, run, outcome)?;
                let run = run.map(|r| format!(" (run {r})")).unwrap_or_default();
                eprintln!(
                    "cryptospeed: sweep '{name}' shard {k}/{n} {}{run}",
                    outcome.as_str()
                );
                Ok(code)
            }
            Err(e) => {
                finish(store, db, name, k, None, ShardOutcome::Failed)?;
                Err(e.context(format!("sweep '{name}' shard {k}/{n} failed")))
            }
        }
    }

    /// The shard's earlier run, when it is a measuring run that stopped before it was complete
    /// and can be resumed.
    fn resumable_run(&self, store: &dyn Store) -> Result<Option<i64>> {
        if self.spec.kind != "run" {
            return Ok(None);
        }
        let shards = store.sweep_shards(&self.spec.name)?;
        let Some(run) = shards
            .iter()
            .find(|s| s.shard == self.k)
            .and_then(|s| s.run_id)
        else {
            return Ok(None);
        };
        let status = store.load_run(&run.to_string())?.run.status;
        let stopped = matches!(status.as_str(), "interrupted" | "abandoned");
        Ok((stopped && store.resume_key(run)?.is_some()).then_some(run))
    }

    /// Claims the shard: its cells, or `None` when it is done or running elsewhere (and not
    /// forced; forcing takes it again).
    fn claim(&self, store: &mut dyn Store, force: bool) -> Result<Option<Vec<CellRef>>> {
        let (name, k, n) = (&self.spec.name, self.k, self.n);
        let host = cryptospeed_engine::machine::hostname();
        let jobs = match store.claim_shard(name, k, &host)? {
            ShardClaim::AlreadyDone(run) if !force => {
                eprintln!(
                    "cryptospeed: sweep '{name}' shard {k}/{n} is done (run {run}); nothing to do"
                );
                return Ok(None);
            }
            ShardClaim::Busy { host, run } if !force => {
                eprintln!(
                    "cryptospeed: sweep '{name}' shard {k}/{n} is running on {}{}; left to it (--force runs it here as well)",
                    host.as_deref().unwrap_or("another host"),
                    run.map(|r| format!(" as run {r}")).unwrap_or_default()
                );
                return Ok(None);
            }
            ShardClaim::AlreadyDone(_) | ShardClaim::Busy { .. } => {
                store.finish_shard(name, k, None, "pending")?;
                match store.claim_shard(name, k, &host)? {
                    ShardClaim::Claimed(jobs) => jobs,
                    _ => bail!("shard {k} could not be reopened"),
                }
            }
            ShardClaim::Claimed(jobs) => jobs,
        };
        match serde_json::from_str(&jobs) {
            Ok(cells) => Ok(Some(cells)),
            Err(e) => {
                // Claimed but unreadable (a primitive renamed since the plan was stored): marked
                // failed, so the shard is not left running for ever.
                store.finish_shard(name, k, None, ShardOutcome::Failed.as_str())?;
                Err(anyhow!("the stored jobs of shard {k} cannot be read: {e}"))
            }
        }
    }
}

/// Records how a shard ended; the shard's run may have outlived a store restart that broke this
/// connection, so a failed write is tried once more on a fresh one.
fn finish(
    store: &mut Box<dyn Store>,
    db: &str,
    name: &str,
    k: usize,
    run: Option<i64>,
    outcome: ShardOutcome,
) -> Result<()> {
    if store.finish_shard(name, k, run, outcome.as_str()).is_ok() {
        return Ok(());
    }
    *store = cryptospeed_store::open(db)?;
    store.finish_shard(name, k, run, outcome.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_numbers_parse() {
        assert_eq!(parse_shard("3/20").unwrap(), (3, 20));
        assert!(parse_shard("20/20").is_err());
        assert!(parse_shard("a/2").is_err());
        assert_eq!(ShardOutcome::from_exit(130), ShardOutcome::Interrupted);
        assert_eq!(ShardOutcome::from_exit(143), ShardOutcome::Interrupted);
        assert_eq!(ShardOutcome::from_exit(3), ShardOutcome::Failed);
    }
}
