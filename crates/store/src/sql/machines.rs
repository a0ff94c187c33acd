//! Machines: one row per machine fingerprint, shared by every run measured on it.

use super::SqlStore;
use crate::db::{Db, Row};
use crate::{params, MachineRow};
use anyhow::Result;
use cryptospeed_model::*;

pub(super) const MACHINE_COLUMNS: &str =
    "hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch";

pub(super) fn machine_of(r: &Row, at: usize) -> Result<Machine> {
    Ok(Machine {
        hostname: r.text(at)?,
        cpu_model: r.text(at + 1)?,
        cpu_flags: r
            .text(at + 2)?
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        cores: r.i64(at + 3)? as u32,
        threads: r.i64(at + 4)? as u32,
        caches: serde_json::from_str(&r.text(at + 5)?).unwrap_or_default(),
        tsc_hz: r.f64(at + 6)?,
        constant_tsc: r.i64(at + 7)? != 0,
        kernel: r.text(at + 8)?,
        os: r.text(at + 9)?,
        arch: r.text(at + 10)?,
    })
}

impl<D: Db> SqlStore<D> {
    /// The id of a machine row, inserting it on first sight.
    pub(super) fn machine_id(&self, m: &Machine) -> Result<i64> {
        self.row_by_fingerprint(
            "machine",
            "fingerprint, hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch",
            params![m.fingerprint(), &m.hostname, &m.cpu_model, m.cpu_flags.join(" "), m.cores, m.threads, serde_json::to_string(&m.caches)?, m.tsc_hz, m.constant_tsc, &m.kernel, &m.os, &m.arch],
        )
    }

    pub(super) fn list_machines(&self) -> Result<Vec<MachineRow>> {
        self.db
            .query(
                "SELECT m.id, m.fingerprint, m.hostname, m.cpu_model, m.cores, m.threads, m.tsc_hz, m.arch, m.os, m.kernel,
                        COUNT(r.id), MIN(r.started_at), MAX(r.started_at)
                 FROM machine m LEFT JOIN run r ON r.machine_id = m.id
                 GROUP BY m.id, m.fingerprint, m.hostname, m.cpu_model, m.cores, m.threads, m.tsc_hz, m.arch, m.os, m.kernel
                 ORDER BY m.id",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(MachineRow {
                    id: r.i64(0)?,
                    key: crate::machine_key(&r.text(1)?),
                    fingerprint: r.text(1)?,
                    hostname: r.text(2)?,
                    cpu_model: r.text(3)?,
                    cores: r.i64(4)? as u32,
                    threads: r.i64(5)? as u32,
                    tsc_hz: r.f64(6)?,
                    arch: r.text(7)?,
                    os: r.text(8)?,
                    kernel: r.text(9)?,
                    runs: r.i64(10)?,
                    first_run: r.opt_text(11)?,
                    last_run: r.opt_text(12)?,
                })
            })
            .collect()
    }
}
