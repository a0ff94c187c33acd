//! Sweeps and their shards: a stored plan, and which host runs or ran each shard.

use super::{now, one, returned_id, SqlStore};
use crate::db::Db;
use crate::{params, ShardClaim, ShardRow, SweepRow, STALE_CLAIM_S};
use anyhow::{anyhow, bail, Result};
use cryptospeed_model::*;

impl<D: Db> SqlStore<D> {
    /// For a shard marked running: `Busy` while its run lives, or, before it named a run, while
    /// its claim is recent; `None` when its runner is gone and the shard may be taken again.
    pub(super) fn busy_shard(
        &self,
        sweep: i64,
        shard: usize,
        run: Option<i64>,
    ) -> Result<Option<ShardClaim>> {
        let (host, updated_at) = one(
            self.db.query(
                "SELECT host, updated_at FROM sweep_shard WHERE sweep_id = ?1 AND shard = ?2",
                params![sweep, shard],
            )?,
            |r| Ok((r.opt_text(0)?, r.text(1)?)),
        )?
        .unwrap_or_default();
        let alive = match run {
            Some(run) => self.run_status(run)? == Some(RunStatus::Running),
            None => chrono::DateTime::parse_from_rfc3339(&updated_at).is_ok_and(|at| {
                chrono::Utc::now().signed_duration_since(at).num_seconds() < STALE_CLAIM_S
            }),
        };
        Ok(alive.then_some(ShardClaim::Busy { host, run }))
    }

    pub(super) fn sweep_id(&self, name: &str) -> Result<i64> {
        one(
            self.db
                .query("SELECT id FROM sweep WHERE name = ?1", params![name])?,
            |r| r.i64(0),
        )?
        .ok_or_else(|| anyhow!("no sweep named '{name}' ('cryptospeed sweep status' lists them)"))
    }

    pub(super) fn save(&mut self, name: &str, spec: &str, shards: &[String]) -> Result<bool> {
        self.in_tx(|| {
            if let Some((id, stored)) = one(
                self.db
                    .query("SELECT id, spec FROM sweep WHERE name = ?1", params![name])?,
                |r| Ok((r.i64(0)?, r.text(1)?)),
            )? {
                if stored != spec {
                    bail!("a sweep named '{name}' is already stored with a different plan (sweep {id}); give this one another name");
                }
                return Ok(false);
            }
            let id = returned_id(
                self.db.query(
                    "INSERT INTO sweep (name, spec, shards, created_at) VALUES (?1, ?2, ?3, ?4) RETURNING id",
                    params![name, spec, shards.len(), now()],
                )?,
                "sweep",
            )?;
            for (k, jobs) in shards.iter().enumerate() {
                self.db.execute(
                    "INSERT INTO sweep_shard (sweep_id, shard, jobs, status, attempts, updated_at) VALUES (?1, ?2, ?3, 'pending', 0, ?4)",
                    params![id, k, jobs, now()],
                )?;
            }
            Ok(true)
        })
    }

    pub(super) fn list_sweeps(&self) -> Result<Vec<SweepRow>> {
        self.db
            .query(
                "SELECT s.name, s.spec, s.shards, s.created_at,
                        (SELECT COUNT(*) FROM sweep_shard k WHERE k.sweep_id = s.id AND k.status = 'done')
                 FROM sweep s ORDER BY s.id",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(SweepRow {
                    name: r.text(0)?,
                    spec: r.text(1)?,
                    shards: r.i64(2)? as usize,
                    created_at: r.text(3)?,
                    done: r.i64(4)? as usize,
                })
            })
            .collect()
    }

    pub(super) fn shards(&self, name: &str) -> Result<Vec<ShardRow>> {
        let id = self.sweep_id(name)?;
        self.db
            .query(
                "SELECT shard, jobs, status, run_id, attempts, host, updated_at FROM sweep_shard WHERE sweep_id = ?1 ORDER BY shard",
                params![id],
            )?
            .iter()
            .map(|r| {
                let mut status = r.text(2)?;
                if let (Some(run), "running") = (r.opt_i64(3)?, status.as_str()) {
                    if self.run_status(run)? == Some(RunStatus::Abandoned) {
                        status = "abandoned".into();
                    }
                }
                Ok(ShardRow {
                    shard: r.i64(0)? as usize,
                    jobs: r.text(1)?,
                    status,
                    run_id: r.opt_i64(3)?,
                    attempts: r.i64(4)? as usize,
                    host: r.opt_text(5)?,
                    updated_at: r.text(6)?,
                })
            })
            .collect()
    }

    pub(super) fn claim(&mut self, name: &str, shard: usize, host: &str) -> Result<ShardClaim> {
        let id = self.sweep_id(name)?;
        self.in_tx(|| {
            let row = one(
                self.db.query(
                    "SELECT status, run_id, jobs FROM sweep_shard WHERE sweep_id = ?1 AND shard = ?2",
                    params![id, shard],
                )?,
                |r| Ok((r.text(0)?, r.opt_i64(1)?, r.text(2)?)),
            )?;
            let Some((status, run, jobs)) = row else {
                bail!("sweep '{name}' has no shard {shard}");
            };
            if status == "done" {
                return Ok(ShardClaim::AlreadyDone(run.unwrap_or_default()));
            }
            if status == "running" {
                if let Some(busy) = self.busy_shard(id, shard, run)? {
                    return Ok(busy);
                }
            }
            self.db.execute(
                "UPDATE sweep_shard SET status = 'running', attempts = attempts + 1, host = ?1, updated_at = ?2 WHERE sweep_id = ?3 AND shard = ?4",
                params![host, now(), id, shard],
            )?;
            Ok(ShardClaim::Claimed(jobs))
        })
    }

    pub(super) fn link(&mut self, name: &str, shard: usize, run: i64) -> Result<()> {
        let id = self.sweep_id(name)?;
        self.db.execute(
            "UPDATE sweep_shard SET run_id = ?1, updated_at = ?2 WHERE sweep_id = ?3 AND shard = ?4",
            params![run, now(), id, shard],
        )?;
        Ok(())
    }

    pub(super) fn finish(
        &mut self,
        name: &str,
        shard: usize,
        run: Option<i64>,
        status: &str,
    ) -> Result<()> {
        let id = self.sweep_id(name)?;
        self.db.execute(
            "UPDATE sweep_shard SET status = ?1, run_id = ?2, updated_at = ?3 WHERE sweep_id = ?4 AND shard = ?5",
            params![status, run, now(), id, shard],
        )?;
        Ok(())
    }
}
