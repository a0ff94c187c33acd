//! The interleaved schedule, in rounds. A round gives every unfinished cell of every variant one
//! bout (a few samples after a warm-up), cells in a new order each round and variants inner, so
//! drift over the run hits every variant alike. Each round runs in fresh worker processes with
//! another memory layout, so what differs from one process to the next (address-space layout,
//! buffer placement, environment size) becomes variance between bouts instead of a hidden bias
//! (Mytkowicz et al. 2009; Kalibera & Jones 2013). Every worker of a round is pinned to the
//! same CPU ([`round_cpu`]), so the two bouts of a pair share what that CPU suffers. A cell is
//! done, and stored, once its interval between bouts, and every paired ratio against the first
//! variant, is within the precision target after at least `min_bouts` bouts, or its time budget
//! (and whatever precise cells left unused, see `stopping::may_stop`) is spent.
//!
//! Nothing measured waits for its cell to finish: after each round's bouts of a cell, the cell's
//! bouts so far are stored as one `partial` measurement, which the next replaces and the finished
//! measurement drops. A worker that dies costs only the cell it was on (it is restarted for the
//! rest); Ctrl-C or SIGTERM keeps every finished cell and every finished bout (unfinished cells
//! stay `partial`) and marks the run interrupted; `run --resume` goes on from there
//! ([`resume_cells`]), its bouts joining the earlier ones as bouts of the same run.

use crate::{
    conclude, deadline, relay, variant_of, ImplChoice, Layout, Outcome, Plan, Progress, ResumeFrom,
    RunMeta,
};
use anyhow::Result;
use cryptospeed_engine::load::CpuTimes;
use cryptospeed_engine::sampler::summarize_bouts;
use cryptospeed_engine::worker_client::{WorkerClient, WorkerError};
use cryptospeed_model::{
    BoutDisturbance, CellSpec, MeasureConfig, Measurement, RunConditions, RunStatus, Sample,
    Status, Variant,
};
use cryptospeed_store::Recorder;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

mod stopping;
#[cfg(test)]
mod stopping_tests;
use stopping::left_unused;

/// One variant's worker during a run.
struct Slot {
    choice: ImplChoice,
    variant: Variant,
    worker: Option<WorkerClient>,
    /// Why the worker is gone, once it cannot be (re)started.
    broken: Option<String>,
}

/// One cell of one variant, measured over the rounds.
#[derive(Default)]
struct Bouts {
    samples: Vec<Sample>,
    /// What the host did to each bout, where the worker could tell.
    disturbances: Vec<BoutDisturbance>,
    /// A handshake cell's bytes per flight, as its worker's check counted them (the latest bout's).
    flights: Vec<u64>,
    bouts: u32,
    /// Calls per sample, calibrated in the first bout and kept for the rest while its samples
    /// last about the sample time; 0 calibrates again in the next bout.
    iters: u64,
    spent_s: f64,
    /// The most seconds of budget this cell has been charged so far: what it is charged never
    /// goes down (a later slow bout can lower the counted share; see `Bouts::charged_s`).
    charged_peak_s: f64,
    /// Wall seconds (`spent_s`) up to which the cell may go on measuring on time granted from
    /// the pool that precise cells left unused; 0 when none was granted.
    granted_until_s: f64,
    done: bool,
    /// The machine's quiet canary reference and floor, stamped on each bout's record.
    stamps: crate::quiet_canary::Stamps,
}

/// Starts one worker per variant before the run is stored: a single implementation that cannot
/// start is an error; among several, it is reported and its cells are stored as unavailable.
fn start_slots(
    choices: &[ImplChoice],
    pin: Option<usize>,
    layout: Layout,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Vec<Slot>> {
    let mut slots = Vec::new();
    for choice in choices {
        match choice.start_in_layout(pin, Some(layout), cancel) {
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
    distinct_labels(&mut slots);
    Ok(slots)
}

/// Two builds that say the same of themselves (two trees of one OpenSSL version loaded by path,
/// a gate's base and head) would share a label, and their measurements could not be told apart:
/// the later one is labelled `#N`, N its place among the variants.
fn distinct_labels(slots: &mut [Slot]) {
    for i in 1..slots.len() {
        if slots[..i]
            .iter()
            .any(|s| s.variant.label == slots[i].variant.label)
        {
            let tag = format!("#{}", i + 1);
            let said = format!("labelled {tag}: an earlier variant of the run has the same label");
            slots[i].variant.label.push_str(&tag);
            slots[i].variant.build_info.push(said);
        }
    }
}

impl Slot {
    /// One bout of a cell on this slot's worker; `Err` only when the user interrupted.
    fn bout(
        &mut self,
        cell: &CellSpec,
        config: &MeasureConfig,
        ctx: &Ctx,
    ) -> Result<Measurement, WorkerError> {
        if ctx.cancel.load(Ordering::SeqCst) {
            return Err(WorkerError::Interrupted);
        }
        let Some(worker) = &mut self.worker else {
            let why = self.broken.clone().unwrap_or_default();
            return Ok(Measurement::not_timed(
                cell.clone(),
                Status::Unavailable,
                format!("worker unavailable: {why}"),
            ));
        };
        match worker.measure(cell.clone(), config, deadline(config), ctx.cancel) {
            Err(WorkerError::Interrupted) => Err(WorkerError::Interrupted),
            Ok(m) => Ok(m),
            Err(_) if stopping(ctx.cancel) => Err(WorkerError::Interrupted),
            Err(e) => {
                // The library crashed or hung: this cell fails, a fresh worker takes the rest.
                let name = self.choice.display();
                ctx.progress.note(&format!(
                    "{name} {}: {e}; restarting the worker",
                    cell.primitive
                ));
                self.restart(ctx, ctx.layout);
                Ok(Measurement::not_timed(
                    cell.clone(),
                    Status::Failed,
                    e.to_string(),
                ))
            }
        }
    }

    /// A fresh worker process in `layout` (a new round, or after a crash).
    fn restart(&mut self, ctx: &Ctx, layout: Layout) {
        if self.broken.is_some() {
            return;
        }
        if let Some(old) = self.worker.take() {
            old.quit();
        }
        match self
            .choice
            .start_in_layout(ctx.pin, Some(layout), ctx.cancel)
        {
            Ok(w) => self.worker = Some(w),
            // Ctrl-C while it started: not the worker's fault; the round ends as interrupted.
            Err(_) if ctx.cancel.load(Ordering::SeqCst) => {}
            Err(err) => {
                ctx.progress.note(&format!(
                    "{} could not be restarted: {err:#}",
                    self.choice.display()
                ));
                self.broken = Some(format!("could not be restarted: {err:#}"));
            }
        }
    }
}

/// Whether the run is being stopped, waiting a moment first: a scheduler's SIGTERM reaches the
/// workers too, and a worker it killed is not the library's fault.
fn stopping(cancel: &AtomicBool) -> bool {
    std::thread::sleep(std::time::Duration::from_millis(200));
    cancel.load(Ordering::SeqCst)
}

/// What every step of the run needs to hand on.
struct Ctx<'a> {
    /// The CPU every worker of the current round is pinned to (see [`round_cpu`]).
    pin: Option<usize>,
    cancel: &'a AtomicBool,
    progress: &'a dyn Progress,
    /// The current round's layout.
    layout: Layout,
}

impl Bouts {
    /// The request for this cell's next bout: calibrate in the first, then reuse the batch size
    /// with a one-batch warm-up in each fresh process.
    fn request(&self, config: &MeasureConfig) -> MeasureConfig {
        let mut c = config.clone();
        c.batch_iters = self.iters;
        c.bout_samples = c.bout_samples.max(1);
        if self.iters > 0 {
            c.warmup_s = config.sample_time_s;
        }
        c
    }

    /// Takes in the bout of round `round`: a reply that is not a bout (unavailable, failed, or a
    /// whole measurement of a tool that times itself, `openssl speed`) is final as it is.
    fn add(
        &mut self,
        reply: Measurement,
        round: u32,
        config: &MeasureConfig,
    ) -> Option<Measurement> {
        if !reply.status.has_numbers() || reply.samples.is_empty() {
            if self.bouts > 0 && reply.status == Status::Unavailable {
                // The worker could not be restarted: keep what its earlier bouts measured.
                let why = reply.reason.unwrap_or_default();
                let mut m = self.summary(&reply.cell, config, "stopped early");
                m.status = Status::Imprecise;
                m.reason = Some(format!("{why} after {} bouts", self.bouts));
                return Some(m);
            }
            return Some(reply);
        }
        // The batch size is kept for later bouts only if this bout's samples lasted about the
        // sample time: one calibrated on a slow call (a library's one-time set-up, a
        // preemption) is calibrated again in the next bout instead of kept for the run.
        let half_ns = (config.sample_time_s * 0.5e9) as u64;
        let short = reply.samples.iter().filter(|s| s.wall_ns < half_ns).count();
        self.iters = if short * 2 > reply.samples.len() {
            0
        } else {
            reply.samples[0].iters
        };
        // A bout is known by its round, so bouts of two variants with one number ran
        // back to back and can be compared pairwise.
        self.samples.extend(
            reply
                .samples
                .into_iter()
                .map(|s| Sample { bout: round, ..s }),
        );
        self.disturbances.extend(
            reply
                .disturbances
                .into_iter()
                .map(|d| self.stamps.on(BoutDisturbance { bout: round, ..d })),
        );
        if !reply.flights.is_empty() {
            self.flights = reply.flights;
        }
        self.bouts += 1;
        self.spent_s += reply.elapsed_s;
        self.settle_charge();
        None
    }

    /// Each bout's figure (mean time per call), by the round it ran in, for pairing with the
    /// other variants' bouts of the round: none is left out for its canary, as the pair shares
    /// the host's state (`cryptospeed_compare::paired_bout_means`).
    fn figures(&self) -> Vec<(u32, f64)> {
        cryptospeed_stats::bout_figures(&self.samples, Sample::ns_per_op)
    }

    /// The cell's bouts so far, stored until it finishes (status partial).
    fn partial(&self, cell: &CellSpec, config: &MeasureConfig) -> Measurement {
        let mut m = self.summary(cell, config, "partial");
        m.status = Status::Partial;
        m.reason = Some(format!("{} bouts so far", self.bouts));
        m
    }

    /// Takes in a stored partial cell (`run --resume`): its bouts are this cell's first ones,
    /// stamped again with this run's quiet reference and floor (none with
    /// `CRYPTOSPEED_QUIET_CANARY=off`), so that all of the cell's bouts are judged alike.
    fn resumed(m: &Measurement, stamps: crate::quiet_canary::Stamps) -> Bouts {
        Bouts {
            samples: m.samples.clone(),
            disturbances: m.disturbances.iter().map(|d| stamps.on(*d)).collect(),
            stamps,
            bouts: m.bout_count() as u32,
            iters: m.samples.first().map_or(0, |s| s.iters),
            spent_s: m.elapsed_s,
            ..Default::default()
        }
    }

    fn summary(&self, cell: &CellSpec, config: &MeasureConfig, stopped: &str) -> Measurement {
        let m = summarize_bouts(
            cell.clone(),
            self.samples.clone(),
            self.disturbances.clone(),
            config,
            self.spent_s,
            stopped,
        );
        Measurement {
            flights: self.flights.clone(),
            ..m
        }
    }
}

/// A fresh layout for each round: different in every run, so run-to-run layout effects are
/// inside every run's intervals.
fn layout_for(base: u64, round: u32, config: &MeasureConfig) -> Layout {
    Layout {
        seed: base ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        buffers: config.vary_buffers,
    }
}

/// The CPU all workers of round `round` share: the user's `--pin`, or the allowed CPUs in turn.
///
/// On a VM two vCPUs are not alike: at any moment one may sit on a physical core whose other
/// thread is busy, or be the one the host is stealing from. Two workers left to the scheduler
/// tend to stay on different vCPUs for a whole round, so one arm of a pair runs 5–20% slow and
/// the other not; on this 2-vCPU VM that made the paired differences of an A/A twin heavy-tailed
/// (standard deviation 2–22% per cell, against 0.3–1% with both on one CPU; docs/experiments/host-noise.md).
/// Sharing one CPU in a round makes whatever that CPU suffers hit both arms of every pair, and
/// moving on to the next CPU keeps CPU placement inside each cell's own interval.
///
/// A CPU keeps two rounds, so that the variants' order (which turns every round) is not tied to
/// the CPU: on a 2-CPU machine, turning both each round made "first in its pair" mean "on CPU 0".
fn round_cpu(user_pin: Option<usize>, cpus: &[usize], round: u32) -> Option<usize> {
    user_pin.or_else(|| (!cpus.is_empty()).then(|| cpus[(round / 2) as usize % cpus.len()]))
}

/// The order of the cells in a round: a shuffle that differs from round to round.
fn order(n: usize, round: u32) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut x = 0x2545_F491_4F6C_DD1D_u64 ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9);
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

pub(crate) fn run(
    plan: &Plan,
    pin: Option<usize>,
    meta: &RunMeta,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome> {
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let cpus = crate::allowed_cpus();
    let mut ctx = Ctx {
        pin: round_cpu(pin, &cpus, 0),
        cancel,
        progress,
        layout: layout_for(base, 0, &plan.config),
    };
    let mut slots = start_slots(&plan.variants, ctx.pin, ctx.layout, cancel, progress)?;
    let config = &plan.config;
    let variants: Vec<Variant> = slots.iter().map(|s| s.variant.clone()).collect();
    let (mut recorder, machine) = meta.begin_resumable(plan, &variants)?;
    let keeper = crate::quiet_canary::Keeper::for_machine(&machine);
    let variant_ids: Vec<usize> = slots.iter().map(|s| recorder.variant(&s.variant)).collect();
    let (started, cpu_start) = (Instant::now(), CpuTimes::now());
    progress.start((plan.cells.len() * slots.len()) as u64);
    let mut cells = fresh_cells(plan.cells.len(), slots.len(), keeper.as_ref());
    let (first, unused_s) = match &meta.resume {
        Some(from) => resume_cells(plan, &variants, from, &mut cells, &mut recorder, progress),
        None => (0, 0.0),
    };
    let mut tally = Tally {
        unused_s,
        ..Tally::default()
    };
    let mut processes = slots.len() as u32;
    let mut round_cpus: std::collections::BTreeSet<usize> = ctx.pin.into_iter().collect();
    let mut round = first;
    let status = loop {
        relay(&recorder, progress);
        if cancel.load(Ordering::SeqCst) {
            break RunStatus::Interrupted;
        }
        if round > first {
            ctx.layout = layout_for(base, round, config);
            ctx.pin = round_cpu(pin, &cpus, round);
            round_cpus.extend(ctx.pin);
            processes += restart_unfinished(&mut slots, &cells, &ctx);
        }
        match run_round(
            plan,
            round,
            &mut slots,
            &mut cells,
            &variant_ids,
            &ctx,
            &mut recorder,
            &mut tally,
        ) {
            RoundEnd::Interrupted => break RunStatus::Interrupted,
            RoundEnd::AllDone => break RunStatus::Complete,
            RoundEnd::More => round += 1,
        }
    };
    if status == RunStatus::Interrupted {
        store_unfinished(plan, &cells, &variant_ids, &mut recorder);
    }
    progress.finish();
    for slot in slots {
        if let Some(w) = slot.worker {
            w.quit();
        }
    }
    let mut conditions = conditions_of(cpu_start, started, pin, processes, &tally, config);
    conditions.round_cpus = round_cpus.into_iter().collect();
    note_conditions(&mut conditions, status, progress);
    let outcome = conclude(
        recorder,
        status,
        Some(conditions),
        tally.failed,
        Vec::new(),
        progress,
    );
    crate::quiet_canary::learn(keeper.as_ref(), &outcome, progress);
    Ok(outcome)
}

/// Each cell's bouts of each variant, none measured yet, to stamp the machine's quiet canary
/// reference and floor (`crate::quiet_canary`, 0 for none) on their records.
fn fresh_cells(
    cells: usize,
    variants: usize,
    keeper: Option<&crate::quiet_canary::Keeper>,
) -> Vec<Vec<Bouts>> {
    let stamps = keeper.map_or_else(Default::default, crate::quiet_canary::Keeper::stamps);
    let bouts = || Bouts {
        stamps,
        ..Bouts::default()
    };
    (0..cells)
        .map(|_| (0..variants).map(|_| bouts()).collect())
        .collect()
}

/// `run --resume`: the stored run's finished cells are done, its partial cells go on from their
/// bouts, and the run as printed holds them all. Returns the first round to run (the one after
/// every stored bout's, so bout numbers, which pair variants, stay unique) and the time precise
/// cells left unused, less what imprecise ones already took of it (see `stopping::may_stop`).
fn resume_cells(
    plan: &Plan,
    variants: &[Variant],
    from: &ResumeFrom,
    cells: &mut [Vec<Bouts>],
    recorder: &mut Recorder,
    progress: &dyn Progress,
) -> (u32, f64) {
    let stored = &from.record.measurements;
    let (mut next, mut unused_s) = (0, 0.0);
    for (cell, row) in plan.cells.iter().zip(cells.iter_mut()) {
        for (variant, bouts) in variants.iter().zip(row.iter_mut()) {
            let found = stored
                .iter()
                .find(|vm| vm.variant == variant.label && vm.measurement.cell == *cell);
            let Some(m) = found.map(|vm| &vm.measurement) else {
                continue;
            };
            next = next.max(m.samples.iter().map(|s| s.bout + 1).max().unwrap_or(0));
            unused_s += left_unused(m, plan.config.max_time_s);
            if m.status == Status::Partial {
                *bouts = Bouts::resumed(m, bouts.stamps);
            } else {
                bouts.done = true;
                progress.done();
            }
        }
    }
    recorder.carry(stored.clone());
    (next, unused_s.max(0.0))
}

/// Starts the next round's workers of the variants with cells left (fresh processes, the round's
/// CPU and layout); how many it started.
fn restart_unfinished(slots: &mut [Slot], cells: &[Vec<Bouts>], ctx: &Ctx) -> u32 {
    let mut started = 0;
    for (vi, slot) in slots.iter_mut().enumerate() {
        if cells.iter().any(|c| !c[vi].done) && slot.broken.is_none() {
            slot.restart(ctx, ctx.layout);
            started += 1;
        }
    }
    started
}

/// Prints the run's warnings, less the noise warning of cells cut short by Ctrl-C (they say
/// nothing about the machine).
fn note_conditions(conditions: &mut RunConditions, status: RunStatus, progress: &dyn Progress) {
    if status == RunStatus::Interrupted {
        conditions.warnings.retain(|w| !w.contains("did not reach"));
    }
    for w in &conditions.warnings {
        progress.note(w);
    }
}

/// Counts over the stored measurements, for the outcome and the noise warning.
#[derive(Default)]
struct Tally {
    /// Seconds of budget that cells which stopped precise left unused.
    unused_s: f64,
    failed: usize,
    imprecise: usize,
    stored: usize,
}

impl Tally {
    fn count(&mut self, m: &Measurement) {
        self.stored += 1;
        match m.status {
            Status::Failed => self.failed += 1,
            Status::Imprecise => self.imprecise += 1,
            _ => {}
        }
    }
}

enum RoundEnd {
    More,
    AllDone,
    Interrupted,
}

/// One round: a bout of every unfinished cell of every variant, storing the cells it finishes. A
/// cell finishes for all its variants at once (when each may stop), so every variant's bouts of a
/// cell come from the same rounds and can be compared pairwise.
#[allow(clippy::too_many_arguments)] // the run's state, passed down once per round
fn run_round(
    plan: &Plan,
    round: u32,
    slots: &mut [Slot],
    cells: &mut [Vec<Bouts>],
    variant_ids: &[usize],
    ctx: &Ctx,
    recorder: &mut Recorder,
    tally: &mut Tally,
) -> RoundEnd {
    let mut ran = false;
    let mut visited = Vec::new();
    for ci in order(plan.cells.len(), round) {
        let cell = &plan.cells[ci];
        if cells[ci].iter().all(|b| b.done) {
            continue;
        }
        ran = true;
        // Variants in a rotating order, so neither runs first in every pair.
        let n = slots.len();
        for vi in (0..n).map(|k| (k + round as usize) % n) {
            let slot = &mut slots[vi];
            let bouts = &mut cells[ci][vi];
            if bouts.done {
                continue;
            }
            ctx.progress.unit(&slot.choice.display(), cell);
            let Ok(reply) = slot.bout(cell, &bouts.request(&plan.config), ctx) else {
                return RoundEnd::Interrupted;
            };
            if let Some(m) = bouts.add(reply, round, &plan.config) {
                bouts.done = true;
                store_one(recorder, variant_ids[vi], m, tally, ctx);
            }
        }
        store_partial(&cells[ci], cell, &plan.config, variant_ids, recorder);
        visited.push(ci);
    }
    for ci in stopping::round_stops(cells, &plan.cells, visited, &plan.config, tally) {
        for (v, bouts) in cells[ci].iter_mut().enumerate() {
            if bouts.done {
                continue;
            }
            let m = bouts.summary(&plan.cells[ci], &plan.config, "time budget spent");
            bouts.done = true;
            store_one(recorder, variant_ids[v], m, tally, ctx);
        }
    }
    if ran {
        RoundEnd::More
    } else {
        RoundEnd::AllDone
    }
}

fn store_one(
    recorder: &mut Recorder,
    variant: usize,
    m: Measurement,
    tally: &mut Tally,
    ctx: &Ctx,
) {
    tally.count(&m);
    recorder.add(variant, m);
    relay(recorder, ctx.progress);
    ctx.progress.done();
}

/// Stores the bouts so far of every unfinished variant of a cell (status partial), in place of
/// the ones stored after the cell's previous round.
fn store_partial(
    row: &[Bouts],
    cell: &CellSpec,
    config: &MeasureConfig,
    variant_ids: &[usize],
    recorder: &mut Recorder,
) {
    for (bouts, id) in row.iter().zip(variant_ids) {
        if !bouts.done && bouts.bouts > 0 {
            recorder.partial(*id, bouts.partial(cell, config));
        }
    }
}

/// After Ctrl-C or SIGTERM: every unfinished cell keeps its bouts, stored as partial (a bout of
/// the interrupted round may not be stored yet), for `run --resume` to go on from.
fn store_unfinished(
    plan: &Plan,
    cells: &[Vec<Bouts>],
    variant_ids: &[usize],
    recorder: &mut Recorder,
) {
    for (cell, row) in plan.cells.iter().zip(cells) {
        store_partial(row, cell, &plan.config, variant_ids, recorder);
    }
}

/// The machine's state over the run, with warnings when it was too busy for the precision asked.
fn conditions_of(
    cpu_start: Option<CpuTimes>,
    started: Instant,
    pin: Option<usize>,
    processes: u32,
    tally: &Tally,
    config: &MeasureConfig,
) -> RunConditions {
    let seconds = started.elapsed().as_secs_f64();
    let mut c = match (cpu_start, CpuTimes::now()) {
        (Some(a), Some(b)) => cryptospeed_engine::load::conditions(a, b, seconds),
        _ => RunConditions {
            seconds,
            ..Default::default()
        },
    };
    c.pinned = pin;
    c.processes = processes;
    if c.steal > 0.02 || c.other_load > 0.25 {
        c.warnings.push(format!(
            "the machine was busy during the run: {:.1}% of CPU time stolen by the hypervisor, {:.2} CPUs busy with other work",
            100.0 * c.steal,
            c.other_load
        ));
    }
    if tally.imprecise * 4 > tally.stored.max(1) {
        c.warnings.push(format!(
            "{} of {} cells did not reach ±{:.1}% within --max-time {} s: the machine is too noisy for that precision in that time (raise --max-time, or accept the wider intervals shown)",
            tally.imprecise,
            tally.stored,
            100.0 * config.precision,
            config.max_time_s
        ));
    }
    c
}

#[cfg(test)]
mod tests;
