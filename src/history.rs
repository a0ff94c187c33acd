//! `cryptospeed history CELL`: one machine's stored figures of a cell over its runs, with the
//! run-to-run noise and the change points where the series moved (docs/gate.md#history). It
//! reads the store and parses the options; the series and the search are
//! `cryptospeed_compare::history` and its `series`; `--remeasure` times the builds either side
//! of each change point again (src/history_remeasure.rs).

#[path = "history_remeasure.rs"]
mod remeasure;

use crate::session::{db_location, emit, StoreArgs};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use cryptospeed_compare::history::series::{self, history as cell_history};
use cryptospeed_compare::history::Search;
use cryptospeed_model::Op;
use std::path::PathBuf;

#[derive(Args)]
pub struct HistoryArgs {
    /// The primitive, in any spelling `run -a` takes (`sha256`, `aes-128-cbc`, `rsa2048`).
    pub primitive: String,
    /// The message size (for primitives that have one).
    #[arg(long, short)]
    pub bytes: Option<String>,
    /// The operation (default: the primitive's first openssl speed operation).
    #[arg(long)]
    pub op: Option<String>,
    /// Follow this variant label (default: each run's first variant with the cell).
    #[arg(long)]
    pub variant: Option<String>,
    /// The machine (its id in `cryptospeed machines`); default: the newest run's with the cell.
    #[arg(long)]
    pub machine: Option<i64>,
    /// A change point stands when its permutation p-value is below this.
    #[arg(long, default_value_t = 0.01)]
    pub alpha: f64,
    /// Smallest change worth reporting (`2%` or `0.02`, as the gate's `--fail-above`): smaller
    /// significant shifts (the host's own) are not change points.
    #[arg(long, default_value = "2%", value_parser = share)]
    pub min_change: f64,
    /// Only the newest N runs with the cell (the site's history pages show the newest 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub last: Option<u64>,
    /// Time the builds either side of each change point again, paired in one run (as `compare
    /// --remeasure` does), and say whether the change is confirmed, or why it cannot be.
    #[arg(long)]
    pub remeasure: bool,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// `2%` or `0.02` as a share below 1.
fn share(text: &str) -> Result<f64, String> {
    let v = match text.trim().strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => text.trim().parse::<f64>(),
    };
    match v {
        Ok(v) if (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "wants a share below 100%, like 2% or 0.02; got '{text}'"
        )),
    }
}

pub fn history(a: HistoryArgs) -> Result<i32> {
    let p = cryptospeed_catalog::lookup(&a.primitive)
        .ok_or_else(|| anyhow!("unknown primitive '{}'", a.primitive))?;
    let op = match &a.op {
        Some(o) => Op::parse(o).ok_or_else(|| anyhow!("unknown operation '{o}'"))?,
        None => p.default_ops()[0],
    };
    let bytes = a
        .bytes
        .as_deref()
        .map(crate::args::parse_size)
        .transpose()?;
    let mut store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let rows = store.runs()?;
    let mut records = Vec::new();
    for row in rows.iter().filter(|r| r.source.is_empty()) {
        if a.machine.is_none_or(|m| m == row.machine_id) {
            records.push((row.machine_id, store.load_run(&row.id.to_string())?));
        }
    }
    let all: Vec<_> = records.iter().map(|(_, r)| r.clone()).collect();
    let h = cell_history(
        &all,
        (p.id, op, bytes),
        a.variant.as_deref(),
        &Search::default(),
    );
    let Some(newest) = h.points.last() else {
        bail!(
            "no stored run measured {} {op}{}",
            p.id,
            bytes.map_or(String::new(), |b| format!(" at {b} bytes"))
        );
    };
    let machine = records
        .iter()
        .find(|(_, r)| r.run.id == newest.run)
        .map(|(m, _)| *m);
    let mine: Vec<_> = records
        .into_iter()
        .filter(|(m, _)| Some(*m) == machine)
        .map(|(_, r)| r)
        .collect();
    let search = Search {
        alpha: a.alpha,
        min_change: a.min_change,
        ..Search::default()
    };
    let cell = (p.id, op, bytes);
    let points = mine
        .iter()
        .filter_map(|r| series::point(r, cell, a.variant.as_deref()))
        .collect();
    let points = match a.last {
        Some(n) => series::newest(points, n as usize),
        None => points,
    };
    let h = series::of_points(cell, points, &search);
    let (checked, code) = match a.remeasure {
        true => remeasure::check_all(&h, &mine, store.as_mut(), &a.store, a.min_change)?,
        false => (Vec::new(), 0),
    };
    let text = match a.json {
        true => {
            let mut v = serde_json::to_value(&h)?;
            if a.remeasure {
                v["remeasured"] = serde_json::to_value(&checked)?;
            }
            serde_json::to_string_pretty(&v)? + "\n"
        }
        false => h.text() + &remeasure::text(&h, &checked),
    };
    emit(&text, &a.output)?;
    Ok(code)
}
