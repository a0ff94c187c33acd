//! The store itself, written once over the [`Db`] adapter: every query, every row mapping and every
//! transaction boundary, so SQLite and PostgreSQL behave the same by construction.
//!
//! One file per entity beside this one (runs, measurements, profiles, machines, variants, sweeps,
//! and the copies `sync` makes); the [`Store`] trait is implemented here by handing each call to
//! its entity's file.

mod copies;
mod machines;
mod measurements;
mod profiles;
mod runs;
mod sweeps;
mod variants;

use crate::db::{Db, Row, Value};
use crate::liveness::{judge, Pulse};
use crate::schema::MIGRATIONS;
use crate::{
    params, MachineRow, RunIdentity, RunRow, RunStart, ShardClaim, ShardRow, Store,
    StoredDefinition, SweepRow, SyncOutcome,
};
use anyhow::{anyhow, bail, Result};
use cryptospeed_model::*;
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicU64, Ordering};

pub struct SqlStore<D: Db> {
    pub(crate) db: D,
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Applies the missing migrations in one transaction that first takes the schema lock, so two
/// processes opening a new store at once do not both create the tables: the second waits and then
/// sees the first one's schema. (Written here rather than with rusqlite_migration or refinery:
/// those read the version before locking, and neither serves both engines from one list.)
pub(crate) fn migrate<D: Db>(db: &D) -> Result<()> {
    db.begin()?;
    let result = (|| {
        db.lock_schema()?;
        let version = db.schema_version()?;
        if version > MIGRATIONS.len() {
            bail!(
                "the store has schema version {version}, newer than this cryptospeed knows ({}); upgrade cryptospeed",
                MIGRATIONS.len()
            );
        }
        for sql in &MIGRATIONS[version..] {
            db.batch(&db.dialect().render(sql))?;
        }
        if version != MIGRATIONS.len() {
            db.set_schema_version(MIGRATIONS.len())?;
        }
        Ok(())
    })();
    finish_tx(db, result)
}

/// Commits when `result` is Ok, rolls back otherwise.
fn finish_tx<D: Db, T>(db: &D, result: Result<T>) -> Result<T> {
    match result {
        Ok(v) => {
            db.commit()?;
            Ok(v)
        }
        Err(e) => {
            let _ = db.rollback();
            Err(e)
        }
    }
}

fn hex_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// A fresh run identity: unique across machines (machine, time to the nanosecond, process, and a
/// counter within the process).
pub fn new_uid(machine: &Machine) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    hex_sha256(&format!(
        "{}|{nanos}|{}|{}",
        machine.fingerprint(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))[..32]
        .to_string()
}

/// The identity of a run stored before runs had one (schema < 4): derived from what the run is,
/// so every store holding a copy derives the same one.
fn derived_uid(machine_fingerprint: &str, started_at: &str, command: &str, label: &str) -> String {
    hex_sha256(&format!(
        "{machine_fingerprint}|{started_at}|{command}|{label}"
    ))[..32]
        .to_string()
}

/// The columns a run's liveness is judged from, for a query over `run r JOIN machine m`.
const PULSE_COLUMNS: &str = "r.status, r.heartbeat_at, r.heartbeat_s, r.pid, m.hostname";

/// The judged status of a row holding [`PULSE_COLUMNS`] from column `at` on.
fn judged_status(r: &Row, at: usize) -> Result<RunStatus> {
    let stored = RunStatus::parse(&r.text(at)?).unwrap_or(RunStatus::Failed);
    let pulse = Pulse {
        heartbeat_at: r.opt_text(at + 1)?,
        heartbeat_s: r.opt_f64(at + 2)?,
        pid: r.opt_i64(at + 3)?,
        host: r.text(at + 4)?,
    };
    Ok(judge(stored, &pulse))
}

fn one<T>(rows: Vec<Row>, f: impl FnOnce(&Row) -> Result<T>) -> Result<Option<T>> {
    rows.first().map(f).transpose()
}

/// The id in the first row (of an `INSERT … RETURNING id` or a lookup just after an insert).
fn returned_id(rows: Vec<Row>, what: &str) -> Result<i64> {
    one(rows, |r| r.i64(0))?.ok_or_else(|| anyhow!("the store returned no id for the new {what}"))
}

impl<D: Db> SqlStore<D> {
    fn in_tx<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.db.begin()?;
        let result = f();
        finish_tx(&self.db, result)
    }

    fn resolve(&self, selector: &str) -> Result<i64> {
        if let Ok(id) = selector.parse::<i64>() {
            if !self
                .db
                .query("SELECT 1 FROM run WHERE id = ?1", params![id])?
                .is_empty()
            {
                return Ok(id);
            }
        }
        one(
            self.db.query(
                "SELECT id FROM run WHERE label = ?1 ORDER BY id DESC LIMIT 1",
                params![selector],
            )?,
            |r| r.i64(0),
        )?
        .ok_or_else(|| {
            anyhow!("no run with id or label '{selector}' ('cryptospeed runs' lists them)")
        })
    }

    /// Inserts a row keyed by its unique fingerprint (the first of `values`) unless one exists,
    /// and returns the row's id either way.
    fn row_by_fingerprint(&self, table: &str, columns: &str, values: &[Value]) -> Result<i64> {
        let placeholders: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        self.db.execute(
            &format!(
                "INSERT INTO {table} ({columns}) VALUES ({}) ON CONFLICT (fingerprint) DO NOTHING",
                placeholders.join(", ")
            ),
            values,
        )?;
        returned_id(
            self.db.query(
                &format!("SELECT id FROM {table} WHERE fingerprint = ?1"),
                &values[..1],
            )?,
            table,
        )
    }
}

impl<D: Db> Store for SqlStore<D> {
    fn begin_run(&mut self, start: &RunStart) -> Result<i64> {
        self.open_run(start)
    }

    fn heartbeat(&mut self, run: i64) -> Result<()> {
        self.beat(run)
    }

    fn measurement_count(&self, run: i64) -> Result<usize> {
        self.count_measurements(run)
    }

    fn variant_id(&mut self, v: &Variant) -> Result<i64> {
        self.variant_row(v)
    }

    fn add_measurement(&mut self, run: i64, variant: i64, m: &Measurement) -> Result<()> {
        self.in_tx(|| {
            let definition = measurements::definition_of(m);
            self.replace_partial(run, variant, m, definition.as_deref())
        })
    }

    fn import_run(&mut self, record: &RunRecord) -> Result<i64> {
        self.import(record)
    }

    fn add_profile(&mut self, run: i64, variant: i64, p: &ProfileRecord) -> Result<()> {
        self.insert_profile(run, variant, p)
    }

    fn profiles(&self, run: i64) -> Result<Vec<ProfileRecord>> {
        self.list_profiles(run)
    }

    fn record_conditions(&mut self, run: i64, conditions: &RunConditions) -> Result<()> {
        self.set_conditions(run, conditions)
    }

    fn finish_run(&mut self, run: i64, status: RunStatus) -> Result<()> {
        self.close_run(run, status)
    }

    fn reopen_run(&mut self, run: i64, start: &RunStart) -> Result<()> {
        self.reopen(run, start)
    }

    fn resume_key(&self, run: i64) -> Result<Option<String>> {
        self.stored_resume_key(run)
    }

    fn runs(&self) -> Result<Vec<RunRow>> {
        self.list_runs()
    }

    fn machines(&self) -> Result<Vec<MachineRow>> {
        self.list_machines()
    }

    fn latest_run_with_variant(&self, label: &str) -> Result<Option<i64>> {
        self.latest_with_variant(label)
    }

    fn load_run(&self, selector: &str) -> Result<RunRecord> {
        self.load(selector)
    }

    fn definitions(&self, run: i64) -> Result<Vec<StoredDefinition>> {
        self.run_definitions(run)
    }

    fn run_identities(&self) -> Result<Vec<RunIdentity>> {
        self.identities()
    }

    fn copy_run(
        &mut self,
        uid: &str,
        record: &RunRecord,
        profiles: &[ProfileRecord],
    ) -> Result<SyncOutcome> {
        self.copy(uid, record, profiles)
    }

    fn save_sweep(&mut self, name: &str, spec: &str, shards: &[String]) -> Result<bool> {
        self.save(name, spec, shards)
    }

    fn sweeps(&self) -> Result<Vec<SweepRow>> {
        self.list_sweeps()
    }

    fn sweep_shards(&self, name: &str) -> Result<Vec<ShardRow>> {
        self.shards(name)
    }

    fn claim_shard(&mut self, name: &str, shard: usize, host: &str) -> Result<ShardClaim> {
        self.claim(name, shard, host)
    }

    fn link_shard(&mut self, name: &str, shard: usize, run: i64) -> Result<()> {
        self.link(name, shard, run)
    }

    fn finish_shard(
        &mut self,
        name: &str,
        shard: usize,
        run: Option<i64>,
        status: &str,
    ) -> Result<()> {
        self.finish(name, shard, run, status)
    }
}
