//! Copies of runs from another store or the spool: a new run is copied whole, a run held only in
//! part is completed, and a run already held is left as it is.

use super::measurements::carried;
use super::{derived_uid, one, SqlStore};
use crate::db::Db;
use crate::{params, SyncOutcome};
use anyhow::{bail, Context, Result};
use cryptospeed_model::*;

impl<D: Db> SqlStore<D> {
    /// `copy_run` of a run this store already holds under `id`: when it holds only the beginning
    /// (its store failed mid-run; the copy comes from the spool), adds the rest and takes the
    /// copy's status. A complete run is never reopened; a copy that disagrees with what is stored
    /// is refused. The caller owns the transaction.
    pub(super) fn complete_run(&self, id: i64, record: &RunRecord) -> Result<SyncOutcome> {
        let status = one(
            self.db
                .query("SELECT status FROM run WHERE id = ?1", params![id])?,
            |r| r.text(0),
        )?
        .unwrap_or_default();
        let stored: Vec<(String, String, Option<i64>, String)> = self
            .db
            .query(
                "SELECT m.primitive, m.op, m.bytes, v.label FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE m.run_id = ?1 AND m.status <> 'partial' ORDER BY m.id",
                params![id],
            )?
            .iter()
            .map(|r| Ok((r.text(0)?, r.text(1)?, r.opt_i64(2)?, r.text(3)?)))
            .collect::<Result<_>>()?;
        let k = stored.len();
        // Partial cells are not part of the prefix: the copy's replace whatever is here.
        let (finished, partial): (Vec<_>, Vec<_>) = record
            .measurements
            .iter()
            .partition(|vm| vm.measurement.status != Status::Partial);
        let same_status = status == record.run.status.as_str();
        if status == RunStatus::Complete.as_str()
            || k > finished.len()
            || (k == finished.len() && same_status)
        {
            return Ok(SyncOutcome::AlreadyThere(id));
        }
        for (i, (here, there)) in stored.iter().zip(&finished).enumerate() {
            let c = &there.measurement.cell;
            let key = (
                c.primitive.clone(),
                c.op.as_str().to_string(),
                c.bytes.map(|b| b as i64),
                there.variant.clone(),
            );
            if *here != key {
                bail!(
                    "run {id} here and the copy differ at measurement {}: cannot complete it",
                    i + 1
                );
            }
        }
        let mut ids = Vec::new();
        for v in &record.variants {
            ids.push((v.label.clone(), self.variant_row(v)?));
        }
        for vm in finished[k..].iter().chain(&partial) {
            let Some((_, vid)) = ids.iter().find(|(l, _)| *l == vm.variant) else {
                bail!(
                    "a measurement names variant '{}', which the run does not carry",
                    vm.variant
                );
            };
            self.replace_partial(id, *vid, &vm.measurement, carried(vm))?;
        }
        self.db.execute(
            "UPDATE run SET status = ?1, finished_at = ?2, conditions = ?3 WHERE id = ?4",
            params![
                record.run.status.as_str(),
                record.run.finished_at.clone(),
                record
                    .run
                    .conditions
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()?,
                id
            ],
        )?;
        Ok(SyncOutcome::Completed {
            id,
            added: finished.len() - k,
        })
    }

    pub(super) fn copy(
        &mut self,
        uid: &str,
        record: &RunRecord,
        profiles: &[ProfileRecord],
    ) -> Result<SyncOutcome> {
        self.in_tx(|| {
            if let Some(id) = one(
                self.db
                    .query("SELECT id FROM run WHERE uid = ?1", params![uid])?,
                |r| r.i64(0),
            )? {
                return self.complete_run(id, record);
            }
            // Runs stored before runs had identities: recognise the run by what it is.
            for r in self.db.query(
                "SELECT r.id, r.label, r.started_at, r.command, m.fingerprint FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.uid IS NULL",
                &[],
            )? {
                let label = r.opt_text(1)?.unwrap_or_default();
                if derived_uid(&r.text(4)?, &r.text(2)?, &r.text(3)?, &label) == uid {
                    return Ok(SyncOutcome::AlreadyThere(r.i64(0)?));
                }
            }
            let id = self.insert_record(
                record,
                profiles,
                &record.run.started_at,
                record.run.finished_at.as_deref(),
                record.run.status,
                uid,
            )?;
            Ok(SyncOutcome::Copied(id))
        })
        .with_context(|| format!("cannot copy run {}", record.run.id))
    }
}
