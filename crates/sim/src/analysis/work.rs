//! The analysis as work items on all CPUs ([`super::pool`]), each queueing what its result makes
//! possible, so no CPU waits for a phase to end. The first items: each first level's block
//! stream at the first line size, the L2's input, the branch outcomes, the warm-up part's
//! branches, the timing cores' first-level cache walks and the ILP points. A block stream queues
//! the cache chains that replay it and its level's stream at the next line size; the L2's input
//! queues the L2's stream; the outcomes queue the predictors; the warm-up part's branches queue
//! each branch unit's warm-up, and the last warm-up queues the timing cores. The queue hands out
//! the costliest item first (estimated nanoseconds): streams, then the long cache chains, with
//! the short model items filling the CPUs at the end.

use super::cores::{self, WarmParts};
use super::{
    branch_outcomes, cache_work, first_instructions, first_level_stream, group_name,
    l2_block_stream, l2_stream, pool, predictor_result, run_caches, CacheResult, Grid, Group,
    Level, PredictorResult,
};
use crate::branches::Outcome;
use crate::cache::blocks::BlockStream;
use crate::cache::CacheConfig;
use crate::decode::Decoded;
use crate::ilp::{self, IlpConfig, IlpResult};
use crate::spans::span;
use crate::timing::sweeps::{TimingPoint, TimingRun};
use crate::timing::warm::{Side, WarmL1};
use crate::timing::{self, TimingConfig, WarmBranches, WarmupBranches};
use crate::trace::DataAccess;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

pub(super) enum Work {
    L2Input,
    Outcomes,
    BranchList,
    /// The branch unit of `branch_cores[k]`.
    WarmBranches(usize),
    /// The first-level caches of `walks[k]`.
    WarmL1s(usize),
    /// A level's block stream at `grid.lines[k]`, from its stream at the line before where
    /// that is shorter ([`BlockStream::coarser`]).
    Stream(Level, usize, Option<Arc<BlockStream>>),
    Caches(Group, Arc<BlockStream>),
    Predictor(String),
    Ilp(IlpConfig),
    /// Cores whose caches share one warm-up.
    Timing(Vec<TimingPoint>),
}

pub(super) enum Done {
    Caches(Vec<CacheResult>),
    Predictor(PredictorResult),
    Ilp(IlpResult),
    Timing(Vec<TimingRun>),
    Nothing,
}

type BranchUnits = HashMap<(String, u32), Mutex<WarmBranches>>;
/// Warm-ups finished so far: branch units by predictor and BTB, first-level caches.
type Warmed = (Vec<((String, u32), WarmBranches)>, Vec<WarmL1>);

/// What the items read, and what earlier items left for later ones.
struct Shared<'a> {
    events: &'a [u64],
    measured: std::ops::Range<usize>,
    decoded: &'a Decoded,
    grid: &'a Grid,
    ilp_events: &'a [u64],
    branch_cores: Vec<&'a TimingConfig>,
    walks: Vec<Vec<(Side, CacheConfig)>>,
    l2_input: OnceLock<Vec<(DataAccess, bool)>>,
    outcomes: OnceLock<Vec<(Outcome, bool)>>,
    branch_list: OnceLock<WarmupBranches>,
    /// Warm-ups done so far, and how many are left before the timing cores can start.
    warmed: Mutex<Warmed>,
    warm_left: AtomicUsize,
    branches: OnceLock<BranchUnits>,
    l1s: OnceLock<Vec<WarmL1>>,
}

/// Estimated nanoseconds per event walked, per word replayed and per instruction modelled
/// (from spans on this project's 2-vCPU VM); only their ratios matter.
const NS_WALK: u64 = 6;
const NS_REPLAY: u64 = 3;
const NS_TIMING: u64 = 90;
const NS_ILP: u64 = 6;
/// Streams come first: every cache chain waits for one.
const FIRST: u64 = u64::MAX;

/// Every result of the analysis, in the order the items finished.
pub(super) fn run(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    grid: &Grid,
) -> Vec<Done> {
    let shared = Shared {
        events,
        ilp_events: first_instructions(&events[measured.clone()], grid.ilp_limit),
        measured,
        decoded,
        grid,
        branch_cores: cores::branch_cores(grid),
        walks: cores::l1_walks(grid),
        l2_input: OnceLock::new(),
        outcomes: OnceLock::new(),
        branch_list: OnceLock::new(),
        warmed: Mutex::new((Vec::new(), Vec::new())),
        warm_left: AtomicUsize::new(0),
        branches: OnceLock::new(),
        l1s: OnceLock::new(),
    };
    let first = first_items(&shared);
    pool::run(first, |w, queue| {
        let label = name(&shared, &w);
        span(|| label, || step(&shared, w, queue))
    })
}

fn first_items(s: &Shared) -> Vec<(u64, Work)> {
    let walk = s.events.len() as u64 * NS_WALK;
    let mut items = Vec::new();
    if !s.grid.lines.is_empty() {
        items.push((FIRST, Work::Stream(Level::I1, 0, None)));
        items.push((FIRST, Work::Stream(Level::D1, 0, None)));
        items.push((walk, Work::L2Input));
    }
    if !s.grid.predictors.is_empty() {
        items.push((walk / 2, Work::Outcomes));
    }
    if !s.grid.timing.is_empty() {
        s.warm_left
            .store(s.branch_cores.len() + s.walks.len(), Ordering::SeqCst);
        items.push((walk / 2, Work::BranchList));
        for (k, w) in s.walks.iter().enumerate() {
            items.push((walk * w.len() as u64 / 4, Work::WarmL1s(k)));
        }
    }
    let ilp = s.ilp_events.len() as u64 * NS_ILP;
    for &window in &s.grid.windows {
        for &width in &s.grid.widths {
            items.push((ilp, Work::Ilp(IlpConfig { window, width })));
        }
    }
    items
}

fn name(s: &Shared, w: &Work) -> String {
    match w {
        Work::L2Input => "l2 stream".into(),
        Work::Outcomes => "branch outcomes".into(),
        Work::BranchList => "warm branches".into(),
        Work::WarmBranches(k) => format!("warm branches {}", s.branch_cores[*k].predictor),
        Work::WarmL1s(k) => format!("warm {} first-level caches", s.walks[*k].len()),
        Work::Stream(level, k, _) => {
            format!("block streams {} {} B", level.name(), s.grid.lines[*k])
        }
        Work::Caches(g, _) => group_name(g),
        Work::Predictor(p) => format!("predictor {p}"),
        Work::Ilp(c) => format!("ilp window {} width {}", c.window, c.width),
        Work::Timing(points) => format!("timing {} points", points.len()),
    }
}

fn step(s: &Shared, w: Work, queue: &pool::Queue<Work>) -> Done {
    match w {
        Work::L2Input => {
            let grid = s.grid;
            let input = l2_stream(
                s.events,
                s.decoded,
                &s.measured,
                &grid.l2_front_i1,
                &grid.l2_front_d1,
            );
            let _ = s.l2_input.set(input);
            queue.push(FIRST, Work::Stream(Level::L2, 0, None));
            Done::Nothing
        }
        Work::Outcomes => {
            let _ = s
                .outcomes
                .set(branch_outcomes(s.events, &s.measured, s.decoded));
            let cost = s.outcomes.get().map_or(0, |o| o.len() as u64 * NS_WALK);
            for p in &s.grid.predictors {
                queue.push(cost, Work::Predictor(p.clone()));
            }
            Done::Nothing
        }
        Work::BranchList => {
            let list = timing::warmup_branches(s.events, &s.measured, s.decoded);
            let _ = s.branch_list.set(list);
            let cost = s.events.len() as u64;
            for k in 0..s.branch_cores.len() {
                queue.push(cost, Work::WarmBranches(k));
            }
            Done::Nothing
        }
        Work::WarmBranches(k) => {
            let core = s.branch_cores[k];
            let list = s.branch_list.get().expect("queued after the list");
            let unit = cores::warm_branch_unit(list, s.decoded, core);
            s.warmed.lock().unwrap().0.push((core.branch_key(), unit));
            warmed_one(s, queue);
            Done::Nothing
        }
        Work::WarmL1s(k) => {
            let l1s = cores::warm_l1s(&s.walks[k], s.events, &s.measured, s.decoded);
            s.warmed.lock().unwrap().1.extend(l1s);
            warmed_one(s, queue);
            Done::Nothing
        }
        Work::Stream(level, k, finer) => stream(s, level, k, finer, queue),
        Work::Caches(g, stream) => Done::Caches(run_caches(&g, &stream)),
        Work::Predictor(name) => {
            let outcomes = s.outcomes.get().expect("queued after the outcomes");
            Done::Predictor(predictor_result(&name, outcomes))
        }
        Work::Ilp(cfg) => Done::Ilp(ilp::simulate(s.ilp_events, s.decoded, cfg)),
        Work::Timing(points) => Done::Timing(timing_runs(s, &points)),
    }
}

/// A warm-up finished; after the last one, the timing cores are queued.
fn warmed_one(s: &Shared, queue: &pool::Queue<Work>) {
    if s.warm_left.fetch_sub(1, Ordering::SeqCst) != 1 {
        return;
    }
    let (units, l1s) = std::mem::take(&mut *s.warmed.lock().unwrap());
    let units = units.into_iter().map(|(k, u)| (k, Mutex::new(u))).collect();
    let _ = s.branches.set(units);
    let _ = s.l1s.set(l1s);
    let instructions = s.measured.len().min(s.grid.timing_limit) as u64;
    for group in timing_groups(s.grid) {
        queue.push(
            group.len() as u64 * instructions * NS_TIMING,
            Work::Timing(group),
        );
    }
}

/// The timing model's cores grouped by the caches their warm-up fills.
fn timing_groups(grid: &Grid) -> Vec<Vec<TimingPoint>> {
    let mut groups: Vec<Vec<TimingPoint>> = Vec::new();
    for p in &grid.timing {
        match groups
            .iter_mut()
            .find(|g| g[0].config.memory_key() == p.config.memory_key())
        {
            Some(g) => g.push(p.clone()),
            None => groups.push(vec![p.clone()]),
        }
    }
    groups
}

fn timing_runs(s: &Shared, points: &[TimingPoint]) -> Vec<TimingRun> {
    let parts: WarmParts = (
        s.branches.get().expect("queued after the warm-ups"),
        s.l1s.get().expect("queued after the warm-ups"),
    );
    cores::timing_runs(
        points,
        s.events,
        &s.measured,
        s.decoded,
        s.grid.timing_limit,
        parts,
    )
}

/// A level's block stream at line size `k`: the configurations that never evict answered
/// from it, the chains that replay it queued, and the next line size's stream queued.
fn stream(
    s: &Shared,
    level: Level,
    k: usize,
    finer: Option<Arc<BlockStream>>,
    queue: &pool::Queue<Work>,
) -> Done {
    let line = s.grid.lines[k];
    let built = match (level, finer) {
        (_, Some(finer)) if finer.line < line => finer.coarser(line),
        (Level::L2, _) => {
            let input = s.l2_input.get().expect("queued after the L2's input");
            l2_block_stream(input, line)
        }
        _ => first_level_stream(s.events, s.decoded, &s.measured, line, level == Level::I1),
    };
    let stream = Arc::new(built);
    let mut answered = Vec::new();
    for g in cache_work(s.grid, level, &stream, &mut answered) {
        let members: usize = g.1.iter().map(|sg| sg.members.len()).sum();
        let cost = stream.len() as u64 * members as u64 * NS_REPLAY;
        queue.push(cost, Work::Caches(g, stream.clone()));
    }
    if k + 1 < s.grid.lines.len() {
        queue.push(FIRST, Work::Stream(level, k + 1, Some(stream.clone())));
    }
    Done::Caches(answered)
}
