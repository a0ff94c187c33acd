//! Where runs are kept. Callers see only the [`Store`] trait; SQLite is the default backend
//! (a file, no server), and another backend (PostgreSQL for shared use) implements the same trait.
//!
//! Every measurement is committed in its own transaction as soon as it is taken, so an interrupted
//! or killed run keeps every finished cell and the file always passes an integrity check.

mod sqlite;

pub use sqlite::SqliteStore;

use anyhow::Result;
use cryptospeed_model::{
    Machine, MeasureConfig, Measurement, ProfileRecord, RunRecord, RunStatus, Variant,
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
}

/// One line of `cryptospeed machines`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MachineRow {
    pub id: i64,
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

pub trait Store {
    /// Records the start of a run and returns its id.
    fn begin_run(
        &mut self,
        machine: &Machine,
        label: Option<&str>,
        command: &str,
        tool_version: &str,
        config: &MeasureConfig,
    ) -> Result<i64>;
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
    fn finish_run(&mut self, run: i64, status: RunStatus) -> Result<()>;
    fn runs(&self) -> Result<Vec<RunRow>>;
    /// Every machine a run was recorded on, with its run count.
    fn machines(&self) -> Result<Vec<MachineRow>>;
    /// The newest run holding measurements of the variant with this label.
    fn latest_run_with_variant(&self, label: &str) -> Result<Option<i64>>;
    /// Loads a run by id, or the newest run with that label.
    fn load_run(&self, selector: &str) -> Result<RunRecord>;
}

/// Opens the store a `--db` value names (today: a SQLite file path).
pub fn open(location: &str) -> Result<Box<dyn Store>> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        anyhow::bail!(
            "PostgreSQL stores are not supported by this build yet; use a SQLite file path"
        );
    }
    Ok(Box::new(SqliteStore::open(std::path::Path::new(location))?))
}
