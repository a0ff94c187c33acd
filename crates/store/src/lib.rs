//! Where runs are kept. Callers see only the [`Store`] trait; SQLite is the default backend
//! (a file, no server) and PostgreSQL the shared one (a team, a cluster). Both are the one
//! implementation in `sql/` (one file per entity) over a small adapter (`db.rs`), with one list
//! of migrations (`schema.rs`).
//!
//! Every measurement is committed in its own transaction as soon as it is taken, so an interrupted
//! or killed run keeps every finished cell and the store never holds half a measurement. A
//! measuring run writes through a [`Recorder`], which keeps measuring when the store fails
//! (retrying, spooling to a local file) and beats the run's heartbeat, so a run whose process
//! died reads as `abandoned` ([`liveness`]).

pub mod db;
pub mod fault;
pub mod liveness;
mod postgres;
pub mod recorder;
pub mod schema;
mod sql;
mod sqlite;
mod writer;

pub use fault::{fault_of, Fault};
pub use postgres::PostgresStore;
pub use recorder::{Recorder, RecorderOptions, Storage};
pub use sql::{new_uid, SqlStore};
pub use sqlite::SqliteStore;

use anyhow::Result;
use cryptospeed_model::{
    Machine, MeasureConfig, Measurement, Op, ProfileRecord, RunConditions, RunRecord, RunStatus,
    Variant,
};

/// One line of `cryptospeed runs`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunRow {
    pub id: i64,
    /// `import:FILE` for imported runs, empty for measured ones.
    pub source: String,
    pub label: Option<String>,
    pub started_at: String,
    pub status: RunStatus,
    pub measurements: i64,
    pub variants: String,
    pub cpu_model: String,
    pub command: String,
    /// The machine's row id (see [`MachineRow`]).
    pub machine_id: i64,
}

/// One line of `cryptospeed machines`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MachineRow {
    pub id: i64,
    /// Short stable name of the machine: the first 12 hex digits of SHA-256 of its fingerprint,
    /// the same in every store.
    pub key: String,
    pub fingerprint: String,
    pub hostname: String,
    pub cpu_model: String,
    pub cores: u32,
    pub threads: u32,
    pub tsc_hz: f64,
    pub arch: String,
    pub os: String,
    pub kernel: String,
    pub runs: i64,
    /// Start of the first and the last run on it.
    pub first_run: Option<String>,
    pub last_run: Option<String>,
}

/// A run as `sync` sees it: its id here and the identity it keeps in every store.
#[derive(Debug, Clone)]
pub struct RunIdentity {
    pub id: i64,
    pub uid: String,
    pub status: RunStatus,
    pub label: Option<String>,
}

/// What `copy_run` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncOutcome {
    /// Stored under this new id.
    Copied(i64),
    /// The store already held the run, under this id.
    AlreadyThere(i64),
    /// The store held the beginning of the run (a run whose store failed mid-way, its rest
    /// kept in a spool): the missing measurements were added and its status brought up to date.
    Completed { id: i64, added: usize },
}

/// Everything a run is stored with when it begins.
#[derive(Debug, Clone)]
pub struct RunStart {
    /// The run's identity in every store ([`new_uid`]): a run begun again under the same uid
    /// (its spool, a retry after a lost reply) is the same run.
    pub uid: String,
    pub machine: Machine,
    pub label: Option<String>,
    /// The command line (passwords already redacted).
    pub command: String,
    pub tool_version: String,
    pub config: MeasureConfig,
    /// The process measuring it, and how often it promises a heartbeat (none: never judged by
    /// heartbeat, see [`liveness`]).
    pub pid: u32,
    pub heartbeat_s: Option<f64>,
    /// What a resumed run must find unchanged (machine, builds by hash, settings), as the caller
    /// writes it; `None`: the run cannot be resumed.
    pub resume_key: Option<String>,
    /// This is a stored run (same uid) going on in a new process: reopen it, do not begin it.
    pub resume: bool,
}

impl RunStart {
    /// A new run of this process, with a fresh uid and no heartbeat promised.
    pub fn new(
        machine: Machine,
        label: Option<&str>,
        command: &str,
        tool_version: &str,
        config: MeasureConfig,
    ) -> RunStart {
        RunStart {
            uid: new_uid(&machine),
            machine,
            label: label.map(str::to_string),
            command: command.to_string(),
            tool_version: tool_version.to_string(),
            config,
            pid: std::process::id(),
            heartbeat_s: None,
            resume_key: None,
            resume: false,
        }
    }
}

/// One stored sweep plan (`cryptospeed sweep`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct SweepRow {
    pub name: String,
    /// The plan as JSON.
    pub spec: String,
    pub shards: usize,
    pub done: usize,
    pub created_at: String,
}

/// One shard of a sweep: its jobs (JSON), `pending`/`running`/`done`/`failed`, the run that holds
/// its results, how often it was started and where.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShardRow {
    pub shard: usize,
    pub jobs: String,
    pub status: String,
    pub run_id: Option<i64>,
    pub attempts: usize,
    pub host: Option<String>,
    pub updated_at: String,
}

/// The answer to "may I run this shard?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardClaim {
    /// Go: the shard's jobs (JSON).
    Claimed(String),
    /// Already finished by this run; nothing to do.
    AlreadyDone(i64),
    /// Running elsewhere, and alive (its run beats, or its claim is recent): leave it.
    Busy {
        host: Option<String>,
        run: Option<i64>,
    },
}

/// The definition one stored measurement was taken under (`kind/operation vVERSION`, the
/// catalog's), `None` for an imported cell or one stored before definitions were kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDefinition {
    pub variant: String,
    pub primitive: String,
    pub op: Op,
    pub definition: Option<String>,
}

pub trait Store {
    /// Records the start of a run and returns its id. A run with this uid already stored (a
    /// begin whose reply was lost) is not stored twice: its id is returned.
    fn begin_run(&mut self, start: &RunStart) -> Result<i64>;
    /// Records that the run's process is alive now.
    fn heartbeat(&mut self, run: i64) -> Result<()>;
    /// How many measurements of the run are stored.
    fn measurement_count(&self, run: i64) -> Result<usize>;
    /// Returns the id of a variant, storing it on first sight.
    fn variant_id(&mut self, variant: &Variant) -> Result<i64>;
    /// Stores one measurement with its samples, atomically.
    fn add_measurement(&mut self, run: i64, variant: i64, measurement: &Measurement) -> Result<()>;
    /// Stores a whole imported run (machine, variants, measurements) in one transaction, so a
    /// failed import leaves the store as it was. Returns the new run's id.
    fn import_run(&mut self, record: &RunRecord) -> Result<i64>;
    /// Stores one profiled cell of a run, atomically. `profile.variant` is ignored: the variant
    /// is the one `variant` names.
    fn add_profile(&mut self, run: i64, variant: i64, profile: &ProfileRecord) -> Result<()>;
    /// The profiles of a run, in the order they were stored.
    fn profiles(&self, run: i64) -> Result<Vec<ProfileRecord>>;
    /// Records what else the machine was doing while the run measured.
    fn record_conditions(&mut self, run: i64, conditions: &RunConditions) -> Result<()>;
    fn finish_run(&mut self, run: i64, status: RunStatus) -> Result<()>;
    /// Marks a stored run running again, in this process (`run --resume`): its pid, heartbeat
    /// and no end.
    fn reopen_run(&mut self, run: i64, start: &RunStart) -> Result<()>;
    /// What the run must find unchanged to be resumed ([`RunStart::resume_key`]), if it was
    /// stored with one.
    fn resume_key(&self, run: i64) -> Result<Option<String>>;
    fn runs(&self) -> Result<Vec<RunRow>>;
    /// Every machine a run was recorded on, with its run count.
    fn machines(&self) -> Result<Vec<MachineRow>>;
    /// The newest run holding measurements of the variant with this label.
    fn latest_run_with_variant(&self, label: &str) -> Result<Option<i64>>;
    /// Loads a run by id, or the newest run with that label.
    fn load_run(&self, selector: &str) -> Result<RunRecord>;
    /// The definition each measurement of run `run` was stored under, in the order stored.
    fn definitions(&self, run: i64) -> Result<Vec<StoredDefinition>>;

    /// Every run with its identity, for `sync`.
    fn run_identities(&self) -> Result<Vec<RunIdentity>>;
    /// Stores a copy of a run from another store (machine, variants, measurements with samples,
    /// profiles) in one transaction, unless a run with this identity is already here.
    fn copy_run(
        &mut self,
        uid: &str,
        record: &RunRecord,
        profiles: &[ProfileRecord],
    ) -> Result<SyncOutcome>;

    /// Stores a sweep plan with its shards' jobs. Storing the same plan again is a no-op (returns
    /// false); a different plan under a stored name is an error.
    fn save_sweep(&mut self, name: &str, spec: &str, shards: &[String]) -> Result<bool>;
    fn sweeps(&self) -> Result<Vec<SweepRow>>;
    fn sweep_shards(&self, name: &str) -> Result<Vec<ShardRow>>;
    /// Marks a shard running unless it is done, or running elsewhere and alive (its run not
    /// abandoned, or, before its run began, claimed less than [`STALE_CLAIM_S`] ago).
    fn claim_shard(&mut self, name: &str, shard: usize, host: &str) -> Result<ShardClaim>;
    /// Names the run that is measuring a claimed shard, so its liveness is the run's.
    fn link_shard(&mut self, name: &str, shard: usize, run: i64) -> Result<()>;
    /// Records how a shard ended (`done` or `failed`) and the run holding its results.
    fn finish_shard(
        &mut self,
        name: &str,
        shard: usize,
        run: Option<i64>,
        status: &str,
    ) -> Result<()>;
}

/// A shard claimed this long ago whose run never began is taken to be lost with its runner.
pub const STALE_CLAIM_S: i64 = 600;

/// The short key of a machine fingerprint (see [`MachineRow::key`]).
pub fn machine_key(fingerprint: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(fingerprint.as_bytes()))[..12].to_string()
}

/// True when `location` names a PostgreSQL store rather than a SQLite file.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// `location` fit to print: a PostgreSQL URL with its password replaced by `***`; anything else
/// as it is.
pub fn redact(location: &str) -> String {
    rewrite_password(location, Some("***"))
}

/// A PostgreSQL URL with its password taken out altogether (what a script may carry; the password
/// then comes from `$PGPASSWORD`); anything else as it is.
pub fn without_password(location: &str) -> String {
    rewrite_password(location, None)
}

/// Replaces (or with `None` removes) the password of a PostgreSQL URL, in the user part and in a
/// `password=` query parameter.
fn rewrite_password(location: &str, with: Option<&str>) -> String {
    if !is_postgres(location) {
        return location.to_string();
    }
    match url::Url::parse(location) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(with);
            }
            let pairs: Vec<(String, String)> = u
                .query_pairs()
                .filter_map(|(k, v)| match (k == "password", with) {
                    (false, _) => Some((k.into_owned(), v.into_owned())),
                    (true, Some(mask)) => Some((k.into_owned(), mask.to_string())),
                    (true, None) => None,
                })
                .collect();
            u.set_query(None);
            if !pairs.is_empty() {
                u.query_pairs_mut().extend_pairs(pairs);
            }
            u.to_string()
        }
        // Unparseable: show the scheme and nothing that could be a secret.
        Err(_) => format!("{}://…", location.split("://").next().unwrap_or("postgres")),
    }
}

/// A command line fit to store or print: any PostgreSQL URL among the arguments redacted.
pub fn redact_command_line(args: impl IntoIterator<Item = String>) -> String {
    args.into_iter()
        .map(|a| match a.find("postgres") {
            Some(i) if is_postgres(&a[i..]) => format!("{}{}", &a[..i], redact(&a[i..])),
            _ => a,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Opens the store a `--db` value names: a `postgres://` URL or a SQLite file path.
pub fn open(location: &str) -> Result<Box<dyn Store>> {
    if is_postgres(location) {
        return Ok(Box::new(PostgresStore::connect(location)?));
    }
    Ok(Box::new(SqliteStore::open(std::path::Path::new(location))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://bench:s3cret@db.lab:5433/results?sslmode=require"),
            "postgres://bench:***@db.lab:5433/results?sslmode=require"
        );
        assert_eq!(
            redact("postgresql://h/results?user=u&password=s3cret"),
            "postgresql://h/results?user=u&password=***"
        );
        assert_eq!(redact("postgres://bench@h/r"), "postgres://bench@h/r");
        assert_eq!(redact("/tmp/r.db"), "/tmp/r.db");
        assert_eq!(
            without_password("postgres://u:secret@h:5/db?sslmode=require&password=x"),
            "postgres://u@h:5/db?sslmode=require"
        );
        let line = redact_command_line(
            [
                "cryptospeed",
                "run",
                "--db",
                "postgres://u:s3cret@h/r",
                "--db=postgres://u:pw2@h/r",
            ]
            .map(String::from),
        );
        assert!(!line.contains("s3cret") && !line.contains("pw2"), "{line}");
        assert!(line.contains("--db=postgres://u:***@h/r"), "{line}");
    }
}
