//! The store's listings as the commands print them: stored runs, machines, sweeps and a sweep's
//! shards, as plain text tables (JSON is the rows themselves, serialised by the caller).

use cryptospeed_store::{MachineRow, RunRow, ShardRow, SweepRow};
use std::collections::HashMap;

/// A plain text table with this header, as the listing commands print them.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    t.set_header(header.to_vec());
    t
}

/// `cryptospeed runs`.
pub fn runs_table(rows: &[RunRow]) -> String {
    let mut t = table(&[
        "id", "label", "started", "status", "cells", "variants", "cpu",
    ]);
    for r in rows {
        let status = match r.source.is_empty() {
            true => r.status.as_str(),
            false => "imported",
        };
        t.add_row([
            r.id.to_string(),
            r.label.clone().unwrap_or_default(),
            r.started_at.clone(),
            status.to_string(),
            r.measurements.to_string(),
            r.variants.clone(),
            r.cpu_model.clone(),
        ]);
    }
    t.to_string()
}

/// `cryptospeed machines`.
pub fn machines_table(rows: &[MachineRow]) -> String {
    let mut t = table(&[
        "id",
        "key",
        "host",
        "cpu",
        "cores/threads",
        "TSC GHz",
        "arch",
        "os",
        "runs",
        "first run",
        "last run",
    ]);
    for m in rows {
        let tsc = match m.tsc_hz > 0.0 {
            true => format!("{:.3}", m.tsc_hz / 1e9),
            false => "unknown".into(),
        };
        t.add_row([
            m.id.to_string(),
            m.key.clone(),
            m.hostname.clone(),
            m.cpu_model.clone(),
            format!("{}/{}", m.cores, m.threads),
            tsc,
            m.arch.clone(),
            m.os.clone(),
            m.runs.to_string(),
            m.first_run.clone().unwrap_or_default(),
            m.last_run.clone().unwrap_or_default(),
        ]);
    }
    t.to_string()
}

/// `cryptospeed sweep status`: every sweep.
pub fn sweeps_table(sweeps: &[SweepRow]) -> String {
    let mut t = table(&["sweep", "shards", "done", "created"]);
    for s in sweeps {
        t.add_row(vec![
            s.name.clone(),
            s.shards.to_string(),
            s.done.to_string(),
            s.created_at.clone(),
        ]);
    }
    t.to_string()
}

/// `cryptospeed sweep status NAME`: each shard, with how many measurements its run stored
/// (`stored`: run id → measurements).
pub fn shards_table(shards: &[ShardRow], stored: &HashMap<i64, i64>) -> String {
    let mut t = table(&[
        "shard", "status", "cells", "run", "stored", "attempts", "host", "updated",
    ]);
    for s in shards {
        let cells: Vec<serde_json::Value> = serde_json::from_str(&s.jobs).unwrap_or_default();
        let measurements = s.run_id.and_then(|r| stored.get(&r));
        t.add_row(vec![
            s.shard.to_string(),
            s.status.clone(),
            cells.len().to_string(),
            s.run_id.map(|r| r.to_string()).unwrap_or_default(),
            measurements
                .map(|m| format!("{m} measurements"))
                .unwrap_or_default(),
            s.attempts.to_string(),
            s.host.clone().unwrap_or_default(),
            s.updated_at.clone(),
        ]);
    }
    t.to_string()
}

/// The line under a sweep's shard table: how many shards are in each state.
pub fn shards_summary(name: &str, shards: &[ShardRow]) -> String {
    let count = |st: &str| shards.iter().filter(|s| s.status == st).count();
    format!(
        "sweep '{name}': {}/{} shards done, {} running, {} abandoned, {} failed or interrupted, {} pending",
        count("done"),
        shards.len(),
        count("running"),
        count("abandoned"),
        count("failed") + count("interrupted"),
        count("pending")
    )
}
