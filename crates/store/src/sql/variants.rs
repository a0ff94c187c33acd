//! Variants: one row per variant fingerprint, shared by every run that measured it.

use super::SqlStore;
use crate::db::Db;
use crate::params;
use anyhow::Result;
use cryptospeed_model::*;

impl<D: Db> SqlStore<D> {
    /// The id of a variant row, inserting it on first sight.
    pub(super) fn variant_row(&self, v: &Variant) -> Result<i64> {
        self.row_by_fingerprint(
            "variant",
            "fingerprint, label, implementation, version, library, build_info, capabilities, feature_mask",
            params![v.fingerprint(), &v.label, &v.implementation, &v.version, &v.library, serde_json::to_string(&v.build_info)?, &v.capabilities, &v.feature_mask],
        )
    }

    /// The variants a run's measurements and profiles name, with their ids.
    pub(super) fn run_variants(&self, id: i64) -> Result<Vec<(i64, Variant)>> {
        self
            .db
            .query(
                "SELECT v.id, v.label, v.implementation, v.version, v.library, v.build_info, v.capabilities, v.feature_mask
                 FROM variant v WHERE v.id IN (SELECT variant_id FROM measurement WHERE run_id = ?1 UNION SELECT variant_id FROM profile WHERE run_id = ?1) ORDER BY v.id",
                params![id],
            )?
            .iter()
            .map(|r| {
                Ok((
                    r.i64(0)?,
                    Variant {
                        label: r.text(1)?,
                        implementation: r.text(2)?,
                        version: r.text(3)?,
                        library: r.text(4)?,
                        build_info: serde_json::from_str(&r.text(5)?).unwrap_or_default(),
                        capabilities: r.text(6)?,
                        feature_mask: r.text(7)?,
                    },
                ))
            })
            .collect::<Result<_>>()
    }
}
