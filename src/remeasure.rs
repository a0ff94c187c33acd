//! `compare BASE NEW --remeasure`: the front end of `cryptospeed_runner::remeasure`. It runs
//! the new run as `run` does (stored, with a progress bar and the same closing lines), says
//! which sides it could not time again and why, and hands `compare` the new run's sides, so
//! the table printed is the paired within-run comparison of that run.

use crate::session::{command_line, db_location, interrupt_flag, recording};
use anyhow::Result;
use cryptospeed_compare::{Comparison, Filter, SideInput};
use cryptospeed_model::CellSpec;
use cryptospeed_query::StoredSide;
use cryptospeed_runner::remeasure::{self, Remeasure};
use cryptospeed_runner::{Outcome, RunMeta};

/// The new run's sides, ready to compare, and what to tell the user after the table.
pub struct Remeasured {
    pub sides: Vec<SideInput>,
    pub baseline: usize,
    /// The run's exit status (`Outcome::exit_code`).
    pub code: i32,
    pub run_id: i64,
    /// Which stored side each new side re-measures (index into the stored sides).
    pub of: Vec<usize>,
}

/// Times the stored sides' builds again in one new run, stored in `db`.
pub fn remeasure(
    stored: &[StoredSide],
    baseline: usize,
    filter: &Filter,
    db: &Option<String>,
) -> Result<Remeasured> {
    let cancel = interrupt_flag();
    let sides: Vec<remeasure::StoredSide> = stored
        .iter()
        .map(|s| remeasure::StoredSide {
            name: &s.name,
            variant: &s.variant,
            records: &s.records,
        })
        .collect();
    let keep = |c: &CellSpec| kept(filter, c);
    let prepared = remeasure::prepare(&sides, baseline, &keep, &cancel)?;
    for refusal in &prepared.refused {
        eprintln!("cryptospeed: {refusal}");
    }
    let db = db_location(db);
    let meta = RunMeta {
        store: db.clone(),
        label: Some(prepared.label.clone()),
        command: command_line(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        recording: recording(60.0)?,
        shard: None,
        resume: None,
    };
    let outcome =
        cryptospeed_runner::execute(&prepared.plan, &meta, &cancel, &crate::run::Bar::new())?;
    for line in outcome.closing_lines(&prepared.plan, Some(&prepared.label), &db) {
        eprintln!("cryptospeed: {line}");
    }
    Ok(sides_of(&prepared, &outcome, stored, baseline))
}

/// `compare`'s `-b` and `-a` filters, on a cell to re-measure.
fn kept(filter: &Filter, c: &CellSpec) -> bool {
    let size = match (filter.bytes, c.bytes) {
        (Some(b), Some(cb)) => b == cb,
        _ => true,
    };
    let primitive = filter
        .primitives
        .as_ref()
        .is_none_or(|list| list.contains(&c.primitive));
    size && primitive
}

/// One side per re-measured variant of the new run, named as `compare RUN` names them.
fn sides_of(
    prepared: &Remeasure,
    outcome: &Outcome,
    stored: &[StoredSide],
    baseline: usize,
) -> Remeasured {
    let mut sides = Vec::new();
    for (i, label) in &prepared.remeasured {
        let mut side = SideInput {
            name: label.clone(),
            description: format!(
                "run {}, re-measuring {}",
                outcome.run_id, stored[*i].description
            ),
            ..Default::default()
        };
        side.add_run(&outcome.record, Some(label));
        sides.push(side);
    }
    let of: Vec<usize> = prepared.remeasured.iter().map(|(i, _)| *i).collect();
    Remeasured {
        sides,
        baseline: of.iter().position(|i| *i == baseline).unwrap_or(0),
        code: outcome.exit_code(),
        run_id: outcome.run_id,
        of,
    }
}

/// The lines printed after the table: which run holds the re-measurement, and the stored
/// figures' geomeans beside the new ones, for reference.
pub fn closing(
    r: &Remeasured,
    stored: &[StoredSide],
    as_stored: &Comparison,
    now: &Comparison,
) -> Vec<String> {
    let names: Vec<String> =
        r.of.iter()
            .map(|i| format!("{} ({})", stored[*i].name, stored[*i].variant))
            .collect();
    let mut lines = vec![format!(
        "run {} holds the re-measurement of {}, timed together now; the stored runs are unchanged",
        r.run_id,
        names.join(" and ")
    )];
    for (k, i) in r.of.iter().enumerate() {
        let geomean = |c: &Comparison, side: usize| {
            c.sides
                .get(side)
                .and_then(|s| s.geomean)
                .map_or("-".to_string(), |g| format!("{g:.3}x"))
        };
        if k != r.baseline {
            lines.push(format!(
                "geomean of {} over the baseline: {} re-measured (paired, run {}), {} as stored (across runs)",
                stored[*i].name,
                geomean(now, k),
                r.run_id,
                geomean(as_stored, *i)
            ));
        }
    }
    lines
}
