//! A profile's run in the store: begun with the machine, each profiled cell's variant, native
//! measurement and analysis committed as soon as it is done, finished complete, failed or
//! interrupted, so a profile that stops keeps what it finished.

use anyhow::Result;
use cryptospeed_model::{MeasureConfig, Measurement, ProfileRecord, RunStatus, Variant};
use cryptospeed_sim::profile::ProfileDocument;
use cryptospeed_store::{RunStart, Store};

pub struct ProfileRun {
    store: Box<dyn Store>,
    pub run: i64,
    /// The store as it may be shown (password redacted).
    pub shown: String,
    profiles: usize,
}

impl ProfileRun {
    /// Begins the run in `db` on this machine, linked to a sweep shard when it measures one.
    pub fn begin(
        db: &str,
        label: Option<&str>,
        command: &str,
        tool_version: &str,
        shard: Option<(String, usize)>,
    ) -> Result<ProfileRun> {
        let mut store = cryptospeed_store::open(db)?;
        let machine = cryptospeed_engine::machine::probe();
        let start = RunStart::new(
            machine,
            label,
            command,
            tool_version,
            MeasureConfig::default(),
        );
        let run = store.begin_run(&start)?;
        if let Some((sweep, k)) = shard {
            if let Err(e) = store.link_shard(&sweep, k, run) {
                let _ = store.finish_run(run, RunStatus::Failed);
                return Err(e);
            }
        }
        Ok(ProfileRun {
            store,
            run,
            shown: cryptospeed_store::redact(db),
            profiles: 0,
        })
    }

    /// Stores one profiled cell: its variant, native measurement and analysis.
    pub fn add(
        &mut self,
        profile: &ProfileDocument,
        variant: &Variant,
        native: Option<&Measurement>,
    ) -> Result<()> {
        let variant_id = self.store.variant_id(variant)?;
        if let Some(m) = native {
            self.store.add_measurement(self.run, variant_id, m)?;
        }
        let record = ProfileRecord {
            variant: variant.label.clone(),
            primitive: profile.primitive.clone(),
            bytes: Some(profile.bytes).filter(|b| *b > 0),
            document: profile.to_json(),
        };
        self.store.add_profile(self.run, variant_id, &record)?;
        self.profiles += 1;
        Ok(())
    }

    /// Ends the run as `status`; what it says of it (for stderr).
    pub fn finish(mut self, status: RunStatus) -> Result<String> {
        self.store.finish_run(self.run, status)?;
        let (run, db) = (self.run, &self.shown);
        Ok(match status {
            RunStatus::Complete => format!(
                "stored as run {run} in {db} (`cryptospeed report {run} -o report.html` draws it)"
            ),
            _ => format!(
                "run {run} in {db} keeps the {} profile(s) finished before this",
                self.profiles
            ),
        })
    }
}
