//! The gate's measuring: two builds (a base and a new one) timed paired, interleaved in one run,
//! then the cells the decision leaves undecided timed again in runs of their own, and the
//! flagged regressions timed again in fresh runs (fresh worker processes) to confirm them. The
//! protocol and the decision are cryptospeed_compare's (`gate::drive`, `gate`); this module
//! turns each pass it asks for into a stored run and the run's bouts into paired evidence.

use crate::{execute, Plan, Progress, RunMeta};
use anyhow::{bail, Result};
use cryptospeed_compare::gate::drive::{drive, Budget, Measured, Pass};
use cryptospeed_compare::gate::summary::GateReport;
use cryptospeed_compare::gate::{self, GateConfig, PairedRun};
use cryptospeed_compare::{cell_key, paired_bout_means, CellKey};
use cryptospeed_model::{CellSpec, MeasureConfig, RunRecord, RunStatus};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What a gate measures and how it judges.
pub struct GateRequest<'a> {
    /// The cells and exactly two variants, base first; interleaved.
    pub plan: Plan,
    /// The stored runs' settings; each pass's run is labelled after `meta.label`.
    pub meta: RunMeta,
    pub config: GateConfig,
    pub budget: Budget,
    /// How the user named the two sides.
    pub names: (String, String),
    pub cancel: &'a AtomicBool,
    pub progress: &'a dyn Progress,
}

/// The settings of a pass: a later pass over undecided cells aims at twice the precision with
/// twice the time per cell of the pass before (up to 8 times the first's): a cell the first
/// pass left undecided sits near the threshold or on a noisy stretch of the machine and needs
/// more bouts than it got. A confirming pass is judged on its own run, so it starts at twice.
pub fn pass_config(base: &MeasureConfig, pass: Pass) -> MeasureConfig {
    let mut c = base.clone();
    let doublings = match pass {
        Pass::First => 0,
        Pass::More(n) => n.min(3),
        Pass::Confirm(n) => (n + 1).min(3),
    };
    if doublings > 0 {
        c.precision = (c.precision / 2.0).max(0.001);
        c.max_time_s *= (1 << doublings) as f64;
    }
    c
}

pub fn pass_label(label: &str, pass: Pass) -> String {
    match pass {
        Pass::First => label.to_string(),
        Pass::More(n) => format!("{label}-more-{n}"),
        Pass::Confirm(n) => format!("{label}-confirm-{}", n + 1),
    }
}

/// Each cell's paired bouts in a run of the two variants `labels` (base, new).
pub fn paired_bouts(record: &RunRecord, labels: (&str, &str)) -> Measured {
    let mut cells: std::collections::BTreeMap<CellKey, PairedRun> = Default::default();
    for vm in &record.measurements {
        let m = &vm.measurement;
        if !m.status.has_numbers() || m.cell.misalign != 0 {
            continue;
        }
        let key = cell_key(&m.cell.primitive, m.cell.op, m.cell.bytes);
        let run = cells.entry(key).or_default();
        if vm.variant == labels.0 {
            run.base = paired_bout_means(m, 1.0);
        } else if vm.variant == labels.1 {
            run.cand = paired_bout_means(m, 1.0);
        }
    }
    cells.into_iter().collect()
}

/// Runs the gate: every pass the protocol asks for is a stored run; returns the judged report.
pub fn run(req: &GateRequest) -> Result<GateReport> {
    if req.plan.variants.len() != 2 {
        bail!("a gate compares exactly two builds");
    }
    let start = Instant::now();
    let label = req.meta.label.clone().unwrap_or_else(|| "gate".into());
    let mut runs = Vec::new();
    let mut labels: Option<(String, String)> = None;
    let measure = |keys: Option<&[CellKey]>, pass: Pass| -> Result<Measured> {
        let record = one_pass(req, keys, pass, &label, &mut runs)?;
        let l = labels
            .get_or_insert_with(|| {
                let v = |i: usize| record.variants.get(i).map(|v| v.label.clone());
                (v(0).unwrap_or_default(), v(1).unwrap_or_default())
            })
            .clone();
        Ok(paired_bouts(&record, (&l.0, &l.1)))
    };
    let driven = drive(&req.config, &req.budget, measure)?;
    let (base, new) = labels.unwrap_or_default();
    Ok(GateReport {
        base: format!("{} ({base})", req.names.0),
        new: format!("{} ({new})", req.names.1),
        config: req.config,
        outcome: gate::outcome(&driven.cells),
        runs,
        passes: driven.passes,
        confirmed_cells: driven.confirmed_cells,
        seconds: start.elapsed().as_secs_f64(),
        cells: driven.cells,
    })
}

/// One pass as a stored run of its own over `keys` (every cell of the plan when `None`).
fn one_pass(
    req: &GateRequest,
    keys: Option<&[CellKey]>,
    pass: Pass,
    label: &str,
    runs: &mut Vec<i64>,
) -> Result<RunRecord> {
    let wanted =
        |c: &CellSpec| keys.is_none_or(|k| k.contains(&cell_key(&c.primitive, c.op, c.bytes)));
    let plan = Plan {
        cells: req
            .plan
            .cells
            .iter()
            .filter(|c| wanted(c))
            .cloned()
            .collect(),
        config: pass_config(&req.plan.config, pass),
        ..req.plan.clone()
    };
    let meta = RunMeta {
        label: Some(pass_label(label, pass)),
        ..req.meta.clone()
    };
    let outcome = execute(&plan, &meta, req.cancel, req.progress)?;
    runs.push(outcome.run_id);
    for line in outcome.closing_lines(&plan, meta.label.as_deref(), &meta.store) {
        req.progress.note(&line);
    }
    if outcome.status == RunStatus::Interrupted {
        bail!(
            "interrupted: run {} holds what was measured",
            outcome.run_id
        );
    }
    Ok(outcome.record)
}

/// A side of the gate as the user writes it: an implementation selector (`openssl`,
/// `openssl:/opt/ssl/lib/libcrypto.so.3`, `openssl#2`) or a built variant's label, either with
/// `+MASK` (`openssl+no-aesni`, `gcc-12+no-avx2,no-aesni`): a CPU-feature mask.
pub fn side(spec: &str) -> Result<crate::ImplChoice> {
    use cryptospeed_engine::mask::FeatureMask;
    let (build, mask) = match spec.rsplit_once('+') {
        Some((b, m)) => match FeatureMask::parse(m) {
            Ok(mask) => (b, mask),
            Err(_) => (spec, FeatureMask::default()),
        },
        None => (spec, FeatureMask::default()),
    };
    let name = build.split([':', '#']).next().unwrap_or_default();
    let mut choice = if crate::all_implementations().iter().any(|n| n == name) {
        crate::ImplChoice::parse(build)
    } else {
        let mut built = crate::variant::choices(build)?;
        if built.len() != 1 {
            bail!("'{spec}' names no implementation or built variant");
        }
        built.remove(0)
    };
    choice.mask = mask;
    Ok(choice)
}

/// The two sides as variants of one run: the same build on both (an A/A gate) becomes a replica
/// of itself, `#new`, so the two are told apart.
pub fn sides(base: &str, new: &str) -> Result<Vec<crate::ImplChoice>> {
    let (b, mut n) = (side(base)?, side(new)?);
    if b.display() == n.display() {
        n.replica = Some("new".into());
    }
    Ok(vec![b, n])
}
