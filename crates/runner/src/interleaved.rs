//! The interleaved schedule: one worker per variant, cells outer and variants inner, so drift
//! over the run hits every variant alike. A worker that dies costs only the cell it was on (it is
//! restarted for the rest); Ctrl-C keeps every finished cell and marks the run interrupted.

use crate::{deadline, variant_of, ImplChoice, Outcome, Plan, Progress, RunMeta};
use anyhow::Result;
use cryptospeed_engine::worker_client::{WorkerClient, WorkerError};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, RunStatus, Status, Variant};
use cryptospeed_store::Store;
use std::sync::atomic::AtomicBool;

/// One variant's worker during a run.
struct Slot {
    choice: ImplChoice,
    variant: Variant,
    worker: Option<WorkerClient>,
    /// Why the worker is gone, once it cannot be (re)started.
    broken: Option<String>,
}

/// Starts every worker before the run is stored: a single implementation that cannot start is
/// an error; among several, it is reported and its cells are stored as unavailable.
fn start_slots(
    choices: &[ImplChoice],
    pin: Option<usize>,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Vec<Slot>> {
    let mut slots = Vec::new();
    for choice in choices {
        match choice.start(pin, cancel) {
            Ok(w) => slots.push(Slot {
                choice: choice.clone(),
                variant: variant_of(choice, &w),
                worker: Some(w),
                broken: None,
            }),
            Err(e) if choices.len() > 1 => {
                progress.note(&format!("{e:#}; its cells are marked unavailable"));
                slots.push(Slot {
                    choice: choice.clone(),
                    variant: Variant {
                        label: choice.display(),
                        implementation: choice.name.clone(),
                        ..Default::default()
                    },
                    worker: None,
                    broken: Some(format!("{e:#}")),
                });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(slots)
}

impl Slot {
    /// Measures one cell on this slot's worker; `Err` only when the user interrupted.
    fn measure(
        &mut self,
        cell: &CellSpec,
        config: &MeasureConfig,
        pin: Option<usize>,
        cancel: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Measurement, WorkerError> {
        let Some(worker) = &mut self.worker else {
            let why = self.broken.clone().unwrap_or_default();
            return Ok(Measurement::not_timed(
                cell.clone(),
                Status::Unavailable,
                format!("worker unavailable: {why}"),
            ));
        };
        match worker.measure(cell.clone(), config, deadline(config), cancel) {
            Err(WorkerError::Interrupted) => Err(WorkerError::Interrupted),
            Ok(m) => Ok(m),
            Err(e) => {
                // The library crashed or hung: this cell fails, a fresh worker takes the rest.
                let name = self.choice.display();
                progress.note(&format!(
                    "{name} {}: {e}; restarting the worker",
                    cell.primitive
                ));
                self.restart(pin, cancel, progress);
                Ok(Measurement::not_timed(
                    cell.clone(),
                    Status::Failed,
                    e.to_string(),
                ))
            }
        }
    }

    fn restart(&mut self, pin: Option<usize>, cancel: &AtomicBool, progress: &dyn Progress) {
        match self.choice.start(pin, cancel) {
            Ok(w) => self.worker = Some(w),
            Err(err) => {
                progress.note(&format!(
                    "{} could not be restarted: {err:#}",
                    self.choice.display()
                ));
                self.worker = None;
                self.broken = Some(format!("could not be restarted: {err:#}"));
            }
        }
    }
}

pub(crate) fn run(
    plan: &Plan,
    pin: Option<usize>,
    store: &mut dyn Store,
    meta: &RunMeta,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome> {
    let machine = cryptospeed_engine::machine::probe();
    let mut slots = start_slots(&plan.variants, pin, cancel, progress)?;
    let config = &plan.config;
    let run_id = store.begin_run(
        &machine,
        meta.label.as_deref(),
        &meta.command,
        &meta.tool_version,
        config,
    )?;
    let mut variant_ids = Vec::new();
    for slot in &slots {
        variant_ids.push(store.variant_id(&slot.variant)?);
    }
    progress.start((plan.cells.len() * slots.len()) as u64);
    let mut status = RunStatus::Complete;
    let mut failed_cells = 0;
    'cells: for cell in &plan.cells {
        for (slot, variant_id) in slots.iter_mut().zip(&variant_ids) {
            progress.unit(&slot.choice.display(), cell);
            let Ok(measurement) = slot.measure(cell, config, pin, cancel, progress) else {
                status = RunStatus::Interrupted;
                break 'cells;
            };
            if measurement.status == Status::Failed {
                failed_cells += 1;
            }
            store.add_measurement(run_id, *variant_id, &measurement)?;
            progress.done();
        }
    }
    progress.finish();
    for slot in slots {
        if let Some(w) = slot.worker {
            w.quit();
        }
    }
    store.finish_run(run_id, status)?;
    Ok(Outcome {
        run_id,
        status,
        failed_cells,
        scaling: Vec::new(),
    })
}
