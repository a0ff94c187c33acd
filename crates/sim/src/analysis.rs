//! Replays a recorded region through every model: the cache grid (I1, D1, and a unified L2
//! behind fixed first-level caches), every branch predictor, the ILP grid and the timing model's
//! cores. Work items run on all CPUs from one queue (analysis/work.rs, analysis/pool.rs). For the caches the
//! region becomes one block stream per level and line size (cache/blocks.rs; the longer lines'
//! made from the 8 B stream), configurations that never evict are answered from the streams'
//! first uses, and the rest go by set count: the stream filtered for that set count (lookups of
//! the block their set looked up last left out, `BlockStream::for_sets`), replayed by one LRU
//! stack pass for every associativity (cache/stack.rs) and by each FIFO and Random
//! configuration, all reading each piece of the filtered stream once and skipping the repeats
//! of a repeated stretch once their state repeats (cache/repeats.rs).

use crate::branches::{BranchCounts, BranchSim, Outcome, Resolver};
use crate::cache::blocks::{BlockStream, Counts, Replay};
use crate::cache::{self, stack, Cache, CacheConfig};
use crate::decode::Decoded;
use crate::ilp::IlpResult;
use crate::predict;
use crate::recycle;
use crate::region::{unpack, Event};
use crate::timing::{
    self,
    sweeps::{self, TimingPoint, TimingRun},
};
use crate::trace::{Access, DataAccess};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    I1,
    D1,
    L2,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::I1 => "I1",
            Level::D1 => "D1",
            Level::L2 => "L2",
        }
    }
}

/// What to simulate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grid {
    pub l1_sizes: Vec<u64>,
    pub l2_sizes: Vec<u64>,
    pub lines: Vec<u64>,
    pub assocs: Vec<u64>,
    pub policies: Vec<String>,
    /// First-level caches in front of the L2 sweep.
    pub l2_front_i1: CacheConfig,
    pub l2_front_d1: CacheConfig,
    pub windows: Vec<usize>,
    pub widths: Vec<usize>,
    pub predictors: Vec<String>,
    /// The ILP model runs on at most this many measured instructions (from the start).
    pub ilp_limit: usize,
    /// Cores the timing model times (timing/sweeps.rs).
    #[serde(default)]
    pub timing: Vec<TimingPoint>,
    /// The timing model times at most this many measured instructions (from the start), after
    /// the warm-up part only warmed its caches and predictor.
    #[serde(default)]
    pub timing_limit: usize,
}

impl Grid {
    /// The architecture study's grid: L1 4 KB–256 KB, L2 128 KB–2 MB, lines 8–64 B, 1–16 ways,
    /// LRU/FIFO/Random; windows 1–256, widths 1–16; every predictor.
    pub fn full() -> Grid {
        Grid::full_for(&timing::TimingConfig::default())
    }

    /// [`Grid::full`] with the timing sweeps around `core` (timing/cores.rs).
    pub fn full_for(core: &timing::TimingConfig) -> Grid {
        Grid {
            l1_sizes: (12..=18).map(|b| 1u64 << b).collect(),
            l2_sizes: (17..=21).map(|b| 1u64 << b).collect(),
            lines: vec![8, 16, 32, 64],
            assocs: vec![1, 2, 4, 8, 16],
            policies: crate::cache::policy_names()
                .iter()
                .map(|s| s.to_string())
                .collect(),
            l2_front_i1: CacheConfig::new(32768, 64, 8, "lru").unwrap(),
            l2_front_d1: CacheConfig::new(32768, 64, 8, "lru").unwrap(),
            windows: vec![1, 2, 4, 8, 16, 32, 64, 128, 256],
            widths: vec![1, 2, 4, 8, 16],
            predictors: predict::names().iter().map(|s| s.to_string()).collect(),
            ilp_limit: 4_000_000,
            timing: sweeps::study(core),
            timing_limit: 1_000_000,
        }
    }

    /// One cache configuration per level (32 KB 8-way 64 B LRU L1s, 1 MB 16-way L2), every
    /// predictor, ILP at window 256 / width 4 only.
    pub fn single() -> Grid {
        Grid::single_for(&timing::TimingConfig::default())
    }

    /// [`Grid::single`] timing `core` only.
    pub fn single_for(core: &timing::TimingConfig) -> Grid {
        Grid {
            l1_sizes: vec![32768],
            l2_sizes: vec![1 << 20],
            lines: vec![64],
            assocs: vec![8],
            policies: vec!["lru".into()],
            windows: vec![256],
            widths: vec![4],
            timing: sweeps::default_only(core),
            ..Grid::full_for(core)
        }
    }

    pub fn cache_configs(&self) -> Vec<(Level, CacheConfig)> {
        let mut out = Vec::new();
        for (level, sizes) in [
            (Level::I1, &self.l1_sizes),
            (Level::D1, &self.l1_sizes),
            (Level::L2, &self.l2_sizes),
        ] {
            for &size in sizes {
                for &line in &self.lines {
                    for &assoc in &self.assocs {
                        for policy in &self.policies {
                            // L2 ways of 16 with 128K and 8 B lines etc. are all valid powers
                            // of two; anything that is not is skipped, not failed.
                            if let Ok(c) = CacheConfig::new(size, line, assoc, policy) {
                                out.push((level, c));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CacheResult {
    pub level: Level,
    pub config: CacheConfig,
    pub accesses: u64,
    pub misses: u64,
    pub miss_rate: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PredictorResult {
    pub predictor: String,
    pub counts: BranchCounts,
    pub hit_rate: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Analysis {
    pub caches: Vec<CacheResult>,
    pub predictors: Vec<PredictorResult>,
    pub ilp: Vec<IlpResult>,
    pub ilp_instructions: u64,
    /// The timing model at every point of the grid's sweeps (absent in documents written
    /// before it, so those read and write back unchanged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timing: Vec<TimingRun>,
}

/// The L2's input: first-level misses, in order, with whether each falls in the measured part.
fn l2_stream(
    events: &[u64],
    decoded: &Decoded,
    measured: &std::ops::Range<usize>,
    i1: &CacheConfig,
    d1: &CacheConfig,
) -> Vec<(DataAccess, bool)> {
    let mut i1 = Cache::new(i1);
    let mut d1 = Cache::new(d1);
    let mut out = Vec::new();
    for (k, w) in events.iter().enumerate() {
        let counted = measured.contains(&k);
        match unpack(*w) {
            Event::Instr(ix) => {
                let info = decoded.info(ix);
                if i1.access_is_miss(info.addr, info.len as u32) {
                    out.push((
                        DataAccess {
                            addr: info.addr,
                            size: info.len as u32,
                            access: Access::Read,
                            capped: false,
                        },
                        counted,
                    ));
                }
            }
            Event::Data(d) => {
                if d1.access_is_miss(d.addr, d.size) {
                    out.push((d, counted));
                }
            }
        }
    }
    out
}

/// The block stream of one level at one line size: I1's (instruction fetches) or D1's (data
/// accesses), shared by every configuration of that level and line; the L2's comes from its
/// input ([`l2_block_stream`]).
fn first_level_stream(
    events: &[u64],
    decoded: &Decoded,
    measured: &std::ops::Range<usize>,
    line: u64,
    instructions: bool,
) -> BlockStream {
    let events = &events[..measured.end.min(events.len())];
    let mut s = BlockStream::with_room(line, events.len() / 2);
    for (k, w) in events.iter().enumerate() {
        if k == measured.start {
            s.start_counting();
        }
        match (instructions, unpack(*w)) {
            (true, Event::Instr(ix)) => {
                let info = decoded.info(ix);
                s.push(info.addr, info.len as u32, 1);
            }
            (false, Event::Data(a)) => s.push(a.addr, a.size, 1),
            _ => {}
        }
    }
    s.start_counting();
    cache::repeats::decide(&mut s);
    s
}

/// The L2's block stream: the first-level misses up to the end of the measured part.
fn l2_block_stream(l2_input: &[(DataAccess, bool)], line: u64) -> BlockStream {
    let mut l2 = BlockStream::with_room(line, l2_input.len());
    let mut counting = false;
    for (a, counted) in l2_input {
        if *counted {
            l2.start_counting();
            counting = true;
        } else if counting {
            break; // past the measured part (as for the first-level streams)
        }
        l2.push(a.addr, a.size, 1);
    }
    l2.start_counting();
    l2
}

/// Simulators that replay one level's stream filtered for one set count together (see
/// [`BlockStream::for_sets`] and [`cache::repeats::replay_group`]): each member with the configurations
/// its counts belong to.
struct SetGroup {
    sets: usize,
    members: Vec<Vec<CacheConfig>>,
}

/// Set groups of one level, by ascending set count: one chain of filters.
type Group = (Level, Vec<SetGroup>);

/// What the work item is, for [`span`].
fn group_name((level, chain): &Group) -> String {
    format!(
        "{} sets {}..{} ({} members)",
        level.name(),
        chain[0].sets,
        chain[chain.len() - 1].sets,
        chain.iter().map(|g| g.members.len()).sum::<usize>()
    )
}

/// Set counts per chain: each chain filters the whole stream once and then each smaller result
/// again; short enough that the chains spread over the CPUs.
const CHAIN: usize = 6;

fn cache_result(level: Level, config: &CacheConfig, c: Counts) -> CacheResult {
    CacheResult {
        level,
        config: config.clone(),
        accesses: c.accesses,
        misses: c.misses,
        miss_rate: if c.accesses == 0 {
            0.0
        } else {
            c.misses as f64 / c.accesses as f64
        },
    }
}

/// The cache work of one level at one line size: configurations of a stack-property policy
/// (LRU) as one member per set count holding every associativity, every other configuration as
/// a member of its own; the members grouped by set count, the set counts in chains of
/// [`CHAIN`]. A configuration that never evicts is answered at once and not replayed (pushed
/// to `done`).
fn cache_work(
    grid: &Grid,
    level: Level,
    stream: &BlockStream,
    done: &mut Vec<CacheResult>,
) -> Vec<Group> {
    let mut members: BTreeMap<(usize, usize, String), Vec<CacheConfig>> = BTreeMap::new();
    for (k, (l, c)) in grid.cache_configs().into_iter().enumerate() {
        if l != level || c.line != stream.line {
            continue;
        }
        let (sets, ways) = c.shape();
        if let Some(counts) = stream.without_evictions(sets, ways) {
            done.push(cache_result(level, &c, counts));
            continue;
        }
        let key = if cache::policy_named(&c.policy).is_some_and(|p| p.stack_property) {
            (sets, 0, c.policy.clone())
        } else {
            (sets, k + 1, String::new())
        };
        members.entry(key).or_default().push(c);
    }
    let mut groups: Vec<SetGroup> = Vec::new();
    for ((sets, _, _), configs) in members {
        match groups.last_mut() {
            Some(g) if g.sets == sets => g.members.push(configs),
            _ => groups.push(SetGroup {
                sets,
                members: vec![configs],
            }),
        }
    }
    let mut groups = groups.into_iter().peekable();
    let mut work = Vec::new();
    while groups.peek().is_some() {
        work.push((level, groups.by_ref().take(CHAIN).collect()));
    }
    work
}

fn replayer(member: &[CacheConfig]) -> Box<dyn Replay> {
    let first = &member[0];
    let policy = cache::policy_named(&first.policy).expect("grid names policies");
    if policy.stack_property {
        let max_ways = member.iter().map(|c| c.assoc).max().unwrap_or(1) as usize;
        Box::new(stack::LruStack::new(first.shape().0, max_ways))
    } else {
        (policy.replay)(first)
    }
}

/// One chain: the level's stream filtered for each set count in turn (each from the one
/// before), every member of that set count replaying the filtered stream.
fn run_caches((level, chain): &Group, stream: &BlockStream) -> Vec<CacheResult> {
    let accesses = stream.counted().accesses;
    let mut counts = Vec::new();
    let mut filtered: Option<BlockStream> = None;
    for g in chain {
        // The first set count filters the stream into a recycled buffer; each next one refines
        // that in place.
        let f = match filtered.as_mut() {
            Some(f) => {
                f.refine(g.sets);
                f
            }
            None => filtered.insert(stream.for_sets_into(g.sets, recycle::take(stream.len()))),
        };
        let mut group: Vec<Box<dyn Replay>> = g.members.iter().map(|m| replayer(m)).collect();
        cache::repeats::replay_group(&mut group, f);
        for (m, r) in g.members.iter().zip(group.iter_mut()) {
            let by = r.counts();
            for c in m {
                // A stack member counts every associativity up to its largest, in order.
                let k = if by.len() == 1 {
                    0
                } else {
                    c.assoc as usize - 1
                };
                let got = Counts {
                    accesses,
                    misses: by[k].misses,
                };
                counts.push(cache_result(*level, c, got));
            }
        }
    }
    counts
}

/// Replays `events` (with `measured` the counted part) through everything in `grid`, on all
/// CPUs (analysis/work.rs).
pub fn analyse(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    grid: &Grid,
) -> Analysis {
    let done = work::run(events, measured, decoded, grid);
    collect(grid, done)
}

/// Branch outcomes, once (every predictor replays them), with whether each is counted.
fn branch_outcomes(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
) -> Vec<(Outcome, bool)> {
    let mut resolver = Resolver::default();
    let mut outcomes = Vec::new();
    for (k, w) in events.iter().enumerate() {
        if let Event::Instr(ix) = unpack(*w) {
            if let Some(o) = resolver.next(decoded.info(ix)) {
                outcomes.push((o, measured.contains(&k)));
            }
        }
    }
    outcomes
}

/// The events of the first `limit` instructions of `events`.
fn first_instructions(events: &[u64], limit: usize) -> &[u64] {
    let mut n = 0usize;
    for (k, w) in events.iter().enumerate() {
        if matches!(unpack(*w), Event::Instr(_)) {
            if n == limit {
                return &events[..k];
            }
            n += 1;
        }
    }
    events
}

/// The results in the grid's order (caches: level, size, line, associativity, policy).
fn collect(grid: &Grid, done: Vec<work::Done>) -> Analysis {
    let order: HashMap<(Level, CacheConfig), usize> = grid
        .cache_configs()
        .into_iter()
        .enumerate()
        .map(|(k, c)| (c, k))
        .collect();
    let mut a = Analysis {
        caches: vec![],
        predictors: vec![],
        ilp: vec![],
        ilp_instructions: 0,
        timing: vec![],
    };
    for d in done {
        match d {
            work::Done::Caches(c) => a.caches.extend(c),
            work::Done::Timing(t) => a.timing.extend(t),
            work::Done::Predictor(p) => a.predictors.push(p),
            work::Done::Ilp(i) => {
                a.ilp_instructions = i.instructions;
                a.ilp.push(i)
            }
            work::Done::Nothing => {}
        }
    }
    a.caches
        .sort_by_key(|c| order[&(c.level, c.config.clone())]);
    let point = |t: &TimingRun| {
        grid.timing
            .iter()
            .position(|p| p.sweep == t.sweep && p.x == t.x)
    };
    a.timing.sort_by_key(point);
    // Work finishes in any order; predictors and ILP points keep the grid's.
    a.predictors
        .sort_by_key(|p| grid.predictors.iter().position(|n| *n == p.predictor));
    let ilp_point = |i: &IlpResult| {
        let w = grid.windows.iter().position(|w| *w == i.window);
        (w, grid.widths.iter().position(|w| *w == i.width))
    };
    a.ilp.sort_by_key(ilp_point);
    a
}

fn predictor_result(name: &str, outcomes: &[(Outcome, bool)]) -> PredictorResult {
    let mut sim = BranchSim::new(predict::create(name).expect("grid names predictors"));
    for (o, counted) in outcomes {
        sim.counting = *counted;
        sim.outcome(*o);
    }
    let c = sim.counts;
    PredictorResult {
        predictor: name.to_string(),
        counts: c,
        hit_rate: if c.conditional == 0 {
            1.0
        } else {
            1.0 - c.conditional_mispredicted as f64 / c.conditional as f64
        },
    }
}

mod cores;
mod pool;
#[cfg(test)]
mod tests;
mod work;

pub use pool::{reserve_cpu, CpuReserved};
