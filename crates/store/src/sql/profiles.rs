//! Profiles: the hardware-counter documents recorded beside a run's measurements.

use super::{now, SqlStore};
use crate::db::Db;
use crate::params;
use anyhow::Result;
use cryptospeed_model::*;

impl<D: Db> SqlStore<D> {
    pub(super) fn insert_profile(&self, run: i64, variant: i64, p: &ProfileRecord) -> Result<()> {
        self.db.execute(
            "INSERT INTO profile (run_id, variant_id, primitive, bytes, document, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run, variant, &p.primitive, p.bytes, &p.document, now()],
        )?;
        Ok(())
    }

    pub(super) fn list_profiles(&self, run: i64) -> Result<Vec<ProfileRecord>> {
        self.db
            .query(
                "SELECT v.label, p.primitive, p.bytes, p.document FROM profile p JOIN variant v ON v.id = p.variant_id WHERE p.run_id = ?1 ORDER BY p.id",
                params![run],
            )?
            .iter()
            .map(|r| {
                Ok(ProfileRecord {
                    variant: r.text(0)?,
                    primitive: r.text(1)?,
                    bytes: r.opt_i64(2)?.map(|b| b as u64),
                    document: r.text(3)?,
                })
            })
            .collect()
    }
}
