//! Runs: opening, beating, closing and listing them, and storing or loading one whole.

use super::machines::{machine_of, MACHINE_COLUMNS};
use super::measurements::carried;
use super::{derived_uid, judged_status, new_uid, now, one, returned_id, SqlStore, PULSE_COLUMNS};
use crate::db::Db;
use crate::{params, RunIdentity, RunRow, RunStart};
use anyhow::{anyhow, bail, Result};
use cryptospeed_model::*;

impl<D: Db> SqlStore<D> {
    /// Stores a whole run with its measurements and profiles; the caller owns the transaction.
    pub(super) fn insert_record(
        &self,
        record: &RunRecord,
        profiles: &[ProfileRecord],
        started_at: &str,
        finished_at: Option<&str>,
        status: RunStatus,
        uid: &str,
    ) -> Result<i64> {
        let machine = self.machine_id(&record.machine)?;
        let source = record
            .run
            .imported
            .as_ref()
            .map(serde_json::to_string)
            .transpose()?;
        let rows = self.db.query(
            "INSERT INTO run (label, started_at, finished_at, command, tool_version, status, machine_id, config, source, uid, conditions)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
            params![
                record.run.label.clone(),
                started_at,
                finished_at,
                &record.run.command,
                &record.run.tool_version,
                status.as_str(),
                machine,
                serde_json::to_string(&record.run.config)?,
                source,
                uid,
                record
                    .run
                    .conditions
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()?
            ],
        )?;
        let run = returned_id(rows, "run")?;
        let mut ids = Vec::new();
        for v in &record.variants {
            ids.push((v.label.clone(), self.variant_row(v)?));
        }
        let find = |label: &str, what: &str| -> Result<i64> {
            ids.iter()
                .find(|(l, _)| l == label)
                .map(|(_, id)| *id)
                .ok_or_else(|| {
                    anyhow!("{what} names variant '{label}', which the run does not carry")
                })
        };
        for vm in &record.measurements {
            let vid = find(
                &vm.variant,
                &format!("measurement of {}", vm.measurement.cell.primitive),
            )?;
            self.insert_measurement(run, vid, &vm.measurement, carried(vm))?;
        }
        for p in profiles {
            let vid = find(&p.variant, &format!("profile of {}", p.primitive))?;
            self.insert_profile(run, vid, p)?;
        }
        Ok(run)
    }

    /// The judged status of a run, if it is stored.
    pub(super) fn run_status(&self, run: i64) -> Result<Option<RunStatus>> {
        one(
            self.db.query(
                &format!("SELECT {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1"),
                params![run],
            )?,
            |r| judged_status(r, 0),
        )
    }

    pub(super) fn open_run(&mut self, start: &RunStart) -> Result<i64> {
        self.in_tx(|| {
            if let Some(id) = one(
                self.db
                    .query("SELECT id FROM run WHERE uid = ?1", params![&start.uid])?,
                |r| r.i64(0),
            )? {
                return Ok(id);
            }
            let machine_id = self.machine_id(&start.machine)?;
            let stamp = now();
            let rows = self.db.query(
                "INSERT INTO run (label, started_at, command, tool_version, status, machine_id, config, uid, heartbeat_at, heartbeat_s, pid, resume_key) VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
                params![start.label.clone(), stamp.clone(), &start.command, &start.tool_version, machine_id, serde_json::to_string(&start.config)?, &start.uid, stamp, start.heartbeat_s, start.pid, start.resume_key.clone()],
            )?;
            returned_id(rows, "run")
        })
    }

    /// `run --resume`: the run is this process's now, running again.
    pub(super) fn reopen(&mut self, run: i64, start: &RunStart) -> Result<()> {
        self.db.execute(
            "UPDATE run SET status = 'running', finished_at = NULL, heartbeat_at = ?1, heartbeat_s = ?2, pid = ?3 WHERE id = ?4",
            params![now(), start.heartbeat_s, start.pid, run],
        )?;
        Ok(())
    }

    pub(super) fn stored_resume_key(&self, run: i64) -> Result<Option<String>> {
        Ok(one(
            self.db
                .query("SELECT resume_key FROM run WHERE id = ?1", params![run])?,
            |r| r.opt_text(0),
        )?
        .flatten())
    }

    pub(super) fn beat(&mut self, run: i64) -> Result<()> {
        self.db.execute(
            "UPDATE run SET heartbeat_at = ?1 WHERE id = ?2",
            params![now(), run],
        )?;
        Ok(())
    }

    pub(super) fn import(&mut self, record: &RunRecord) -> Result<i64> {
        if record.run.imported.is_none() {
            bail!("import_run needs a run with an import source");
        }
        let stamp = now();
        self.in_tx(|| {
            self.insert_record(
                record,
                &[],
                &stamp,
                Some(&stamp),
                RunStatus::Complete,
                &new_uid(&record.machine),
            )
        })
    }

    pub(super) fn set_conditions(&mut self, run: i64, conditions: &RunConditions) -> Result<()> {
        self.db.execute(
            "UPDATE run SET conditions = ?1 WHERE id = ?2",
            params![serde_json::to_string(conditions)?, run],
        )?;
        Ok(())
    }

    pub(super) fn close_run(&mut self, run: i64, status: RunStatus) -> Result<()> {
        self.db.execute(
            "UPDATE run SET status = ?1, finished_at = ?2 WHERE id = ?3",
            params![status.as_str(), now(), run],
        )?;
        Ok(())
    }

    pub(super) fn list_runs(&self) -> Result<Vec<RunRow>> {
        // The variant labels of each run, in the order they were first measured.
        let mut labels: std::collections::HashMap<i64, Vec<String>> = Default::default();
        for r in self.db.query(
            "SELECT x.run_id, v.label, MIN(x.id) AS first FROM measurement x JOIN variant v ON v.id = x.variant_id GROUP BY x.run_id, v.label ORDER BY x.run_id, first",
            &[],
        )? {
            labels.entry(r.i64(0)?).or_default().push(r.text(1)?);
        }
        self.db
            .query(
                &format!("SELECT r.id, r.label, r.started_at, r.status, r.command, m.cpu_model, r.source,
                        (SELECT COUNT(*) FROM measurement x WHERE x.run_id = r.id), r.machine_id, {PULSE_COLUMNS}
                 FROM run r JOIN machine m ON m.id = r.machine_id ORDER BY r.id"),
                &[],
            )?
            .iter()
            .map(|r| {
                let id = r.i64(0)?;
                Ok(RunRow {
                    id,
                    label: r.opt_text(1)?,
                    started_at: r.text(2)?,
                    status: judged_status(r, 9)?,
                    command: r.text(4)?,
                    cpu_model: r.text(5)?,
                    source: r
                        .opt_text(6)?
                        .and_then(|s| serde_json::from_str::<ImportSource>(&s).ok())
                        .map(|s| format!("import:{}", s.file))
                        .unwrap_or_default(),
                    measurements: r.i64(7)?,
                    machine_id: r.i64(8)?,
                    variants: labels.remove(&id).unwrap_or_default().join(","),
                })
            })
            .collect()
    }

    pub(super) fn latest_with_variant(&self, label: &str) -> Result<Option<i64>> {
        Ok(one(
            self.db.query(
                "SELECT MAX(m.run_id) FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE v.label = ?1",
                params![label],
            )?,
            |r| r.opt_i64(0),
        )?
        .flatten())
    }

    pub(super) fn load(&self, selector: &str) -> Result<RunRecord> {
        let id = self.resolve(selector)?;
        let rows = self.db.query(
            &format!("SELECT r.id, r.label, r.started_at, r.finished_at, r.command, r.tool_version, r.status, r.config, r.machine_id, r.source, r.uid, r.conditions, {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1"),
            params![id],
        )?;
        let (run, machine_id) = one(rows, |r| {
            Ok((
                RunInfo {
                    id: r.i64(0)?,
                    label: r.opt_text(1)?,
                    started_at: r.text(2)?,
                    finished_at: r.opt_text(3)?,
                    command: r.text(4)?,
                    tool_version: r.text(5)?,
                    status: judged_status(r, 12)?,
                    config: serde_json::from_str(&r.text(7)?).unwrap_or_default(),
                    imported: r.opt_text(9)?.and_then(|s| serde_json::from_str(&s).ok()),
                    uid: r.opt_text(10)?,
                    conditions: r.opt_text(11)?.and_then(|s| serde_json::from_str(&s).ok()),
                },
                r.i64(8)?,
            ))
        })?
        .ok_or_else(|| anyhow!("run {id} vanished while it was read"))?;
        let machine = one(
            self.db.query(
                &format!("SELECT {MACHINE_COLUMNS} FROM machine WHERE id = ?1"),
                params![machine_id],
            )?,
            |r| machine_of(r, 0),
        )?
        .ok_or_else(|| anyhow!("run {id} names machine {machine_id}, which is not stored"))?;
        let variants = self.run_variants(id)?;
        let measurements = self.run_measurements(id, &variants)?;
        Ok(RunRecord {
            run,
            machine,
            variants: variants.into_iter().map(|(_, v)| v).collect(),
            measurements,
        })
    }

    pub(super) fn identities(&self) -> Result<Vec<RunIdentity>> {
        self.db
            .query(
                &format!("SELECT r.id, r.uid, r.status, r.label, r.started_at, r.command, m.fingerprint, {PULSE_COLUMNS} FROM run r JOIN machine m ON m.id = r.machine_id ORDER BY r.id"),
                &[],
            )?
            .iter()
            .map(|r| {
                let label = r.opt_text(3)?.unwrap_or_default();
                Ok(RunIdentity {
                    id: r.i64(0)?,
                    uid: match r.opt_text(1)? {
                        Some(uid) => uid,
                        None => derived_uid(&r.text(6)?, &r.text(4)?, &r.text(5)?, &label),
                    },
                    status: judged_status(r, 7)?,
                    label: (!label.is_empty()).then_some(label),
                })
            })
            .collect()
    }
}
