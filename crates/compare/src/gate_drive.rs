//! The gate's protocol, apart from how bouts are taken: measure every cell once, keep measuring
//! the cells that stay undecided (up to a budget of passes and seconds), then re-measure only the
//! flagged regressions in a fresh run and let that run confirm or clear them. The real gate
//! (crates/runner, `gate`) measures by running plans; the simulation tests
//! (tests/gate_simulation.rs) by drawing bouts, so both go through this one loop.

use super::{self as gate, Evidence, GateCell, GateConfig, GateVerdict, PairedRun};
use crate::CellKey;
use std::collections::BTreeMap;
use std::time::Instant;

/// Which measuring pass is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Every cell of the gate.
    First,
    /// The n-th pass (from 1) over the cells still undecided.
    More(usize),
    /// The n-th pass (from 0) over the flagged cells the confirmation has not decided, each in
    /// a fresh run of its own.
    Confirm(usize),
}

/// How much more measuring undecided cells may get.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Passes over undecided cells after the first, and over flagged cells the confirmation
    /// could not decide after its first.
    pub extra_passes: usize,
    /// No further pass starts once this many seconds have gone since the first began.
    pub seconds: Option<f64>,
    /// Re-measure the flagged cells before calling them regressions.
    pub confirm: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            extra_passes: 6,
            seconds: None,
            confirm: true,
        }
    }
}

impl Budget {
    /// Whether a further pass may start: the budget's seconds since `start` are not gone.
    pub fn clock(&self, start: Instant) -> impl Fn() -> bool + '_ {
        move || {
            self.seconds
                .is_none_or(|s| start.elapsed().as_secs_f64() < s)
        }
    }
}

/// One pass's bouts: per cell measured, its paired bouts of that pass.
pub type Measured = Vec<(CellKey, PairedRun)>;

/// The judged table and how it was reached.
#[derive(Debug, Clone)]
pub struct Driven {
    pub cells: Vec<GateCell>,
    /// Measuring passes made, the first included (the confirmation not).
    pub passes: usize,
    /// Cells re-measured in the confirming pass.
    pub confirmed_cells: usize,
}

/// Runs the protocol (see the module comment) with `measure` taking the bouts of a pass: `None`
/// asks for every cell, `Some(keys)` for those alone.
pub fn drive<E>(
    cfg: &GateConfig,
    budget: &Budget,
    mut measure: impl FnMut(Option<&[CellKey]>, Pass) -> Result<Measured, E>,
) -> Result<Driven, E> {
    let in_time = budget.clock(Instant::now());
    let mut data: BTreeMap<CellKey, Vec<PairedRun>> = BTreeMap::new();
    merge(&mut data, measure(None, Pass::First)?);
    let cells = gate::decide(&evidence_of(&data), cfg);
    let mut state = (data, cells);
    let more = keep_measuring(
        &mut state,
        budget,
        &in_time,
        |(_, cells)| keys_where(cells, GateVerdict::Undecided),
        |(data, cells), open, pass| {
            merge(data, measure(Some(open), pass)?);
            *cells = gate::decide(&evidence_of(data), cfg);
            Ok(())
        },
    )?;
    let (passes, mut cells) = (1 + more, state.1);
    let flagged = keys_where(&cells, GateVerdict::Flagged);
    if budget.confirm && !flagged.is_empty() {
        cells = confirming(cells, &flagged, budget, &in_time, &mut measure, cfg)?;
    }
    Ok(Driven {
        cells,
        passes,
        confirmed_cells: if budget.confirm { flagged.len() } else { 0 },
    })
}

/// Decisive: keeps measuring the cells `open` names in passes of their own (`Pass::More(1)`,
/// `More(2)`, …; `more` measures one into `state` and judges again) until none is open,
/// `budget.extra_passes` are made or `in_time` says the budget's seconds are gone. Returns the
/// passes made. The gate's undecided cells and `compare --remeasure`'s `?` cells both go
/// through it.
pub fn keep_measuring<S, E>(
    state: &mut S,
    budget: &Budget,
    in_time: &dyn Fn() -> bool,
    open: impl Fn(&S) -> Vec<CellKey>,
    mut more: impl FnMut(&mut S, &[CellKey], Pass) -> Result<(), E>,
) -> Result<usize, E> {
    let mut passes = 0;
    while passes < budget.extra_passes && in_time() {
        let keys = open(state);
        if keys.is_empty() {
            break;
        }
        passes += 1;
        more(state, &keys, Pass::More(passes))?;
    }
    Ok(passes)
}

fn keys_where(cells: &[GateCell], v: GateVerdict) -> Vec<CellKey> {
    cells
        .iter()
        .filter(|c| c.verdict == v)
        .map(|c| c.key.clone())
        .collect()
}

/// The confirmation: the flagged cells measured in fresh runs, judged on those runs alone, the
/// ones it cannot decide measured again (up to the budget), always judged from the flags.
fn confirming<E>(
    flagged_table: Vec<GateCell>,
    flagged: &[CellKey],
    budget: &Budget,
    in_time: &dyn Fn() -> bool,
    measure: &mut impl FnMut(Option<&[CellKey]>, Pass) -> Result<Measured, E>,
    cfg: &GateConfig,
) -> Result<Vec<GateCell>, E> {
    let mut again = BTreeMap::new();
    let mut open = flagged.to_vec();
    let mut pass = 0;
    loop {
        merge(&mut again, measure(Some(&open), Pass::Confirm(pass))?);
        let mut cells = flagged_table.clone();
        gate::confirm(&mut cells, &evidence_of(&again), cfg);
        open = flagged
            .iter()
            .filter(|k| cells.iter().any(|c| &c.key == *k && c.verdict.is_open()))
            .cloned()
            .collect();
        pass += 1;
        if open.is_empty() || pass > budget.extra_passes || !in_time() {
            return Ok(cells);
        }
    }
}

fn merge(data: &mut BTreeMap<CellKey, Vec<PairedRun>>, measured: Measured) {
    for (key, run) in measured {
        data.entry(key).or_default().push(run);
    }
}

/// Every cell's evidence, pooled over the passes it was measured in, in the table's order.
fn evidence_of(data: &BTreeMap<CellKey, Vec<PairedRun>>) -> Vec<(CellKey, Option<Evidence>)> {
    data.iter()
        .map(|(k, runs)| (k.clone(), gate::evidence(runs)))
        .collect()
}
