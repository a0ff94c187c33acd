//! `compare BASE NEW --remeasure`: the front end of `cryptospeed_runner::remeasure`. It runs
//! the new run as `run` does (stored, with a progress bar and the same closing lines), says
//! which sides it could not time again and why, and hands `compare` the new run's sides, so
//! the table printed is the paired within-run comparison of that run. Cells that run leaves
//! `?` (undecided) are timed again in runs of their own, up to a budget, through the gate's
//! decisive loop (`gate::drive::keep_measuring`, with the gate's pass settings), their pairs
//! pooled within runs, until each says a change or no change as large as the resolution.

use crate::session::{command_line, db_location, interrupt_flag, recording};
use anyhow::Result;
use cryptospeed_compare::gate::drive::{keep_measuring, Budget, Pass};
use cryptospeed_compare::{cell_key, CellKey, Comparison, Filter, SideInput, Verdict};
use cryptospeed_model::{CellSpec, RunStatus};
use cryptospeed_query::StoredSide;
use cryptospeed_runner::gate::{pass_config, pass_label};
use cryptospeed_runner::remeasure::{self, Remeasure};
use cryptospeed_runner::{Outcome, Plan, RunMeta};
use std::time::Instant;

/// The new runs' sides, ready to compare, and what to tell the user after the table.
pub struct Remeasured {
    pub sides: Vec<SideInput>,
    pub baseline: usize,
    /// The runs' exit status (`Outcome::exit_code`; the first non-zero one).
    pub code: i32,
    /// The re-measuring runs: the first over every cell, then the passes over undecided ones.
    pub runs: Vec<i64>,
    /// Which stored side each new side re-measures (index into the stored sides).
    pub of: Vec<usize>,
    /// The comparison of `sides` after the last pass.
    pub comparison: Comparison,
    /// The labels of the new sides in each run.
    labels: Vec<String>,
}

/// Judges the re-measured sides (`compare`'s table of them, baseline given) at the user's alpha
/// divided by the last argument.
pub type Judge<'a> = dyn Fn(&[SideInput], usize, f64) -> Result<Comparison> + 'a;

/// Times the stored sides' builds again in one new run, stored in `db`, then the cells `judge`
/// leaves undecided again within `budget`.
pub fn remeasure(
    stored: &[StoredSide],
    baseline: usize,
    filter: &Filter,
    db: &Option<String>,
    budget: &Budget,
    judge: &Judge,
) -> Result<Remeasured> {
    let start = Instant::now();
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
    let execute = |plan: &Plan, meta: &RunMeta| -> Result<Outcome> {
        let outcome = cryptospeed_runner::execute(plan, meta, &cancel, &crate::run::Bar::new())?;
        for line in outcome.closing_lines(plan, meta.label.as_deref(), &db) {
            eprintln!("cryptospeed: {line}");
        }
        Ok(outcome)
    };
    let outcome = execute(&prepared.plan, &meta)?;
    let mut r = sides_of(&prepared, &outcome, stored, baseline, judge)?;
    let in_time = budget.clock(start);
    keep_measuring(
        &mut r,
        budget,
        &in_time,
        // A failed cell does not end the passes; an interruption does.
        |r| match r.code == 130 || cancel.load(std::sync::atomic::Ordering::SeqCst) {
            false => undecided(&r.comparison),
            true => Vec::new(),
        },
        |r, keys, pass| {
            let plan = pass_plan(&prepared.plan, keys, pass);
            let meta = RunMeta {
                label: Some(pass_label(&prepared.label, pass)),
                ..meta.clone()
            };
            let outcome = execute(&plan, &meta)?;
            r.add(&outcome, judge)
        },
    )?;
    Ok(r)
}

/// A pass over the cells `keys` alone, with the gate's settings for it (twice the time per
/// cell of the pass before, up to 8×; half the precision target).
fn pass_plan(plan: &Plan, keys: &[CellKey], pass: Pass) -> Plan {
    let wanted = |c: &CellSpec| keys.contains(&cell_key(&c.primitive, c.op, c.bytes));
    Plan {
        cells: plan.cells.iter().filter(|c| wanted(c)).cloned().collect(),
        config: pass_config(&plan.config, pass),
        ..plan.clone()
    }
}

/// The cells some side could not decide against the baseline (`?`: not significant, and a
/// change of the resolution could have gone unseen).
pub fn undecided(c: &Comparison) -> Vec<CellKey> {
    c.rows
        .iter()
        .filter(|r| {
            r.versus
                .iter()
                .flatten()
                .any(|v| v.verdict == Verdict::Unknown)
        })
        .map(|r| r.key.clone())
        .collect()
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
    judge: &Judge,
) -> Result<Remeasured> {
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
    let baseline = of.iter().position(|i| *i == baseline).unwrap_or(0);
    Ok(Remeasured {
        comparison: judge(&sides, baseline, 1.0)?,
        sides,
        baseline,
        code: outcome.exit_code(),
        runs: vec![outcome.run_id],
        of,
        labels: prepared.remeasured.iter().map(|(_, l)| l.clone()).collect(),
    })
}

impl Remeasured {
    /// A further pass's run added to every side (its pairs pooled with the earlier runs' within
    /// runs), and the sides judged again; an interrupted pass ends the passes.
    fn add(&mut self, outcome: &Outcome, judge: &Judge) -> Result<()> {
        for (side, label) in self.sides.iter_mut().zip(&self.labels) {
            side.add_run(&outcome.record, Some(label));
        }
        self.runs.push(outcome.run_id);
        if self.code == 0 {
            self.code = outcome.exit_code();
        }
        if outcome.status == RunStatus::Interrupted {
            self.code = 130;
        }
        self.comparison = judged_again(&self.sides, self.baseline, &self.comparison, judge)?;
        Ok(())
    }
}

/// The sides judged after look `k` (the first run is look 1): a cell decided before keeps the
/// user's alpha, a cell still undecided before this look is judged at alpha / k. Looking again
/// at growing data and stopping at the first p < alpha would call an unchanged cell changed
/// more often than alpha says; with alpha / k at look k that chance is at most
/// alpha × (1 + 1/2 + … + 1/k), 2.6 × alpha over the default seven looks, against 7 × alpha.
fn judged_again(
    sides: &[SideInput],
    baseline: usize,
    before: &Comparison,
    judge: &Judge,
) -> Result<Comparison> {
    let looks = sides.first().map_or(1, |s| s.runs.len()).max(1) as f64;
    let open = undecided(before);
    let mut comparison = judge(sides, baseline, 1.0)?;
    if open.is_empty() || looks <= 1.0 {
        return Ok(comparison);
    }
    let strict = judge(sides, baseline, looks)?;
    for row in comparison.rows.iter_mut().filter(|r| open.contains(&r.key)) {
        if let Some(s) = strict.rows.iter().find(|s| s.key == row.key) {
            *row = s.clone();
        }
    }
    Ok(comparison)
}

/// The lines printed after the table: which runs hold the re-measurement, the stored figures'
/// geomeans beside the new ones, for reference, and which cells stayed undecided.
pub fn closing(r: &Remeasured, stored: &[StoredSide], as_stored: &Comparison) -> Vec<String> {
    let names: Vec<String> =
        r.of.iter()
            .map(|i| format!("{} ({})", stored[*i].name, stored[*i].variant))
            .collect();
    let runs = list(r.runs.iter());
    let more = match &r.runs[1..] {
        [] => String::new(),
        later => format!(
            "; run(s) {} timed the cells it left undecided again",
            list(later.iter())
        ),
    };
    let mut lines = vec![format!(
        "run {} holds the re-measurement of {}, timed together now{more}; the stored runs are unchanged",
        r.runs[0],
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
                "geomean of {} over the baseline: {} re-measured (paired, run {runs}), {} as stored (across runs)",
                stored[*i].name,
                geomean(&r.comparison, k),
                geomean(as_stored, *i)
            ));
        }
    }
    lines.push(decided(r));
    lines
}

/// Whether every cell was decided, or which stayed undecided and what change each could have
/// missed.
fn decided(r: &Remeasured) -> String {
    let passes = r.runs.len() - 1;
    let open: Vec<String> = r
        .comparison
        .rows
        .iter()
        .filter_map(|row| {
            let unknown = row.versus.iter().flatten();
            let unknown = unknown.filter(|v| v.verdict == Verdict::Unknown);
            let worst = unknown
                .map(|v| v.detectable.unwrap_or(f64::INFINITY))
                .reduce(f64::max)?;
            let size = row.key.bytes.map_or(String::new(), |b| format!(" @{b}"));
            Some(format!(
                "{}{size} (could miss {:.1}%)",
                row.label,
                worst * 100.0
            ))
        })
        .collect();
    let resolution = r.comparison.resolution * 100.0;
    match open.len() {
        0 => format!(
            "every cell decided (a change, or none as large as {resolution:.1}%) after {passes} more pass(es)"
        ),
        n => format!(
            "{n} cell(s) stayed undecided (?) after {passes} more pass(es) (--extra-passes, --budget): {}",
            open.join(", ")
        ),
    }
}

fn list<'a>(ids: impl Iterator<Item = &'a i64>) -> String {
    ids.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}
