//! Replays a recorded region through every model: the cache grid (I1, D1, and a unified L2
//! behind fixed first-level caches), every branch predictor, and the ILP grid. Work items run on
//! all CPUs. The caches go one line size at a time: the region becomes three block streams of
//! that line size (cache/blocks.rs), configurations that never evict are answered from the
//! streams' first uses, and the rest go by set count: the stream filtered for that set count
//! (lookups of the block their set looked up last left out, `BlockStream::for_sets`), replayed
//! by one LRU stack pass for every associativity (cache/stack.rs) and by each FIFO and Random
//! configuration, all reading each piece of the filtered stream once.

use crate::branches::{BranchCounts, BranchSim, Outcome, Resolver};
use crate::cache::blocks::{self, BlockStream, Counts, Replay};
use crate::cache::{self, stack, Cache, CacheConfig};
use crate::decode::Decoded;
use crate::ilp::{self, IlpConfig, IlpResult};
use crate::predict;
use crate::region::{unpack, Event};
use crate::spans::span;
use crate::timing::{
    self,
    sweeps::{self, TimingPoint, TimingRun},
};
use crate::trace::{Access, DataAccess};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// The block streams of one line size: I1's (instruction fetches), D1's (data accesses) and
/// the L2's (first-level misses), each shared by every configuration of that level and line.
/// I1's and D1's are built side by side, on two CPUs.
fn block_streams(
    events: &[u64],
    decoded: &Decoded,
    measured: &std::ops::Range<usize>,
    l2_input: &[(DataAccess, bool)],
    line: u64,
) -> [BlockStream; 3] {
    let one = |instructions: bool| {
        let mut s = BlockStream::new(line);
        for (k, w) in events[..measured.end.min(events.len())].iter().enumerate() {
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
        s.decide_on_repeats();
        s
    };
    if cpus_reserved() > 0 {
        let (i, d) = (one(true), one(false));
        return [i, d, l2_block_stream(l2_input, line)];
    }
    let (i, d) = std::thread::scope(|scope| {
        let i = scope.spawn(|| one(true));
        let d = one(false);
        (i.join().expect("the I1 stream builder panicked"), d)
    });
    [i, d, l2_block_stream(l2_input, line)]
}

/// The L2's block stream: the first-level misses up to the end of the measured part.
fn l2_block_stream(l2_input: &[(DataAccess, bool)], line: u64) -> BlockStream {
    let mut l2 = BlockStream::new(line);
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

/// CPUs the analysis leaves alone for now (see [`reserve_cpu`]).
static RESERVED: AtomicUsize = AtomicUsize::new(0);

/// While the guard lives, an analysis running beside (on other threads) uses one worker thread
/// fewer (always at least one), from its next work item on: a timed native run started next
/// to a profile's analysis gets a CPU of its own instead of sharing one with two workers.
pub fn reserve_cpu() -> CpuReserved {
    RESERVED.fetch_add(1, Ordering::SeqCst);
    CpuReserved(())
}

pub struct CpuReserved(());

impl Drop for CpuReserved {
    fn drop(&mut self) {
        RESERVED.fetch_sub(1, Ordering::SeqCst);
    }
}

fn cpus_reserved() -> usize {
    RESERVED.load(Ordering::SeqCst)
}

/// Worker `w` of `threads` waits while CPUs are reserved for someone else (worker 0 never
/// does); false once there is nothing left to take.
fn may_take(w: usize, threads: usize, next: &AtomicUsize, len: usize) -> bool {
    while w > 0 && w >= threads.saturating_sub(cpus_reserved()) {
        if next.load(Ordering::Relaxed) >= len {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    true
}

fn run_parallel<T: Sync, R: Send>(items: Vec<T>, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..threads {
            let (next, results, f, items) = (&next, &results, &f, &items);
            s.spawn(move || loop {
                if !may_take(w, threads, next, items.len()) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(i, _)| *i);
    r.into_iter().map(|(_, r)| r).collect()
}

/// Simulators that replay one level's stream filtered for one set count together (see
/// [`BlockStream::for_sets`] and [`blocks::replay_group`]): each member with the configurations
/// its counts belong to.
struct SetGroup {
    sets: usize,
    members: Vec<Vec<CacheConfig>>,
}

/// Set groups of one level, by ascending set count: one chain of filters.
type Group = (Level, Vec<SetGroup>);

enum Work {
    Caches(Group),
    Predictor(String),
    Ilp(IlpConfig),
    /// Cores whose caches share one warm-up.
    Timing(Vec<TimingPoint>),
}

impl Work {
    /// What the work item is, for [`span`].
    fn name(&self) -> String {
        match self {
            Work::Caches((level, chain)) => format!(
                "{} sets {}..{} ({} members)",
                level.name(),
                chain[0].sets,
                chain[chain.len() - 1].sets,
                chain.iter().map(|g| g.members.len()).sum::<usize>()
            ),
            Work::Predictor(p) => format!("predictor {p}"),
            Work::Ilp(c) => format!("ilp window {} width {}", c.window, c.width),
            Work::Timing(points) => format!("timing {} points", points.len()),
        }
    }
}

enum Done {
    Caches(Vec<CacheResult>),
    Predictor(PredictorResult),
    Ilp(IlpResult),
    Timing(Vec<TimingRun>),
}

/// Set counts per chain: each chain filters the whole stream once and then each smaller result
/// again; short enough that the chains spread over the CPUs.
const CHAIN: usize = 6;

fn level_index(level: Level) -> usize {
    match level {
        Level::I1 => 0,
        Level::D1 => 1,
        Level::L2 => 2,
    }
}

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

/// The cache work of one line size: configurations of a stack-property policy (LRU) as one
/// member per (level, set count) holding every associativity, every other configuration as a
/// member of its own; the members of a level grouped by set count, the set counts in chains of
/// [`CHAIN`]. A configuration that never evicts is answered at once and not replayed (pushed to
/// `done`).
fn cache_work(
    grid: &Grid,
    line: u64,
    streams: &[BlockStream; 3],
    done: &mut Vec<CacheResult>,
) -> Vec<Work> {
    let mut members: BTreeMap<(Level, usize, usize, String), Vec<CacheConfig>> = BTreeMap::new();
    for (k, (level, c)) in grid.cache_configs().into_iter().enumerate() {
        if c.line != line {
            continue;
        }
        let (sets, ways) = c.shape();
        if let Some(counts) = streams[level_index(level)].without_evictions(sets, ways) {
            done.push(cache_result(level, &c, counts));
            continue;
        }
        let key = if cache::policy_named(&c.policy).is_some_and(|p| p.stack_property) {
            (level, sets, 0, c.policy.clone())
        } else {
            (level, sets, k + 1, String::new())
        };
        members.entry(key).or_default().push(c);
    }
    let mut by_level: BTreeMap<Level, Vec<SetGroup>> = BTreeMap::new();
    for ((level, sets, _, _), configs) in members {
        let groups = by_level.entry(level).or_default();
        match groups.last_mut() {
            Some(g) if g.sets == sets => g.members.push(configs),
            _ => groups.push(SetGroup {
                sets,
                members: vec![configs],
            }),
        }
    }
    let mut work = Vec::new();
    for (level, groups) in by_level {
        let mut groups = groups.into_iter().peekable();
        while groups.peek().is_some() {
            let chain: Vec<SetGroup> = groups.by_ref().take(CHAIN).collect();
            work.push(Work::Caches((level, chain)));
        }
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
fn run_caches((level, chain): &Group, streams: &[BlockStream; 3]) -> Vec<CacheResult> {
    let stream = &streams[level_index(*level)];
    let accesses = stream.counted().accesses;
    let mut counts = Vec::new();
    let mut filtered: Option<BlockStream> = None;
    for g in chain {
        // The first set count filters the stream into this thread's spare buffer; each next
        // one refines that in place.
        let f = match filtered.as_mut() {
            Some(f) => {
                f.refine(g.sets);
                f
            }
            None => filtered.insert(stream.for_sets_into(g.sets, SPARE_WORDS.take())),
        };
        let mut group: Vec<Box<dyn Replay>> = g.members.iter().map(|m| replayer(m)).collect();
        blocks::replay_group(&mut group, f);
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
    if let Some(f) = filtered {
        SPARE_WORDS.set(f.into_words());
    }
    counts
}

thread_local! {
    /// The buffer a thread's last chain filtered into, kept for its next chain.
    static SPARE_WORDS: std::cell::Cell<Vec<u64>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Replays `events` (with `measured` the counted part) through everything in `grid`.
pub fn analyse(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    grid: &Grid,
) -> Analysis {
    let l2_input = span(
        || "l2 stream".into(),
        || {
            l2_stream(
                events,
                decoded,
                &measured,
                &grid.l2_front_i1,
                &grid.l2_front_d1,
            )
        },
    );
    let outcomes = span(
        || "branch outcomes".into(),
        || branch_outcomes(events, &measured, decoded),
    );
    let ilp_events = first_instructions(&events[measured.clone()], grid.ilp_limit);
    let branches = span(
        || "warm branches".into(),
        || cores::warm_branches(grid, events, &measured, decoded),
    );
    let l1s = span(
        || "warm first-level caches".into(),
        || cores::warm_l1s(grid, events, &measured, decoded),
    );
    let work = model_work(grid);
    let mut done = run_parallel(work, |w| {
        span(
            || w.name(),
            || match w {
                Work::Timing(points) => Done::Timing(cores::timing_runs(
                    points,
                    events,
                    &measured,
                    decoded,
                    grid.timing_limit,
                    (&branches, &l1s),
                )),
                Work::Predictor(name) => Done::Predictor(predictor_result(name, &outcomes)),
                Work::Ilp(cfg) => Done::Ilp(ilp::simulate(ilp_events, decoded, *cfg)),
                _ => Done::Caches(vec![]),
            },
        )
    });
    // One line size at a time: its three block streams, then every configuration using them.
    for &line in &grid.lines {
        let streams = span(
            || format!("block streams {line} B"),
            || block_streams(events, decoded, &measured, &l2_input, line),
        );
        let mut answered = Vec::new();
        let work = span(
            || format!("cache work {line} B"),
            || cache_work(grid, line, &streams, &mut answered),
        );
        done.push(Done::Caches(answered));
        let results = run_parallel(work, |w| {
            span(
                || w.name(),
                || match w {
                    Work::Caches(g) => run_caches(g, &streams),
                    _ => vec![],
                },
            )
        });
        done.extend(results.into_iter().map(Done::Caches));
    }
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

/// The non-cache work: the timing model's cores first (the longest), grouped by the caches their
/// warm-up fills, then the predictors and the ILP points.
fn model_work(grid: &Grid) -> Vec<Work> {
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
    let mut work: Vec<Work> = groups.into_iter().map(Work::Timing).collect();
    for p in &grid.predictors {
        work.push(Work::Predictor(p.clone()));
    }
    for &window in &grid.windows {
        for &width in &grid.widths {
            work.push(Work::Ilp(IlpConfig { window, width }));
        }
    }
    work
}

/// The results in the grid's order (caches: level, size, line, associativity, policy).
fn collect(grid: &Grid, done: Vec<Done>) -> Analysis {
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
            Done::Caches(c) => a.caches.extend(c),
            Done::Timing(t) => a.timing.extend(t),
            Done::Predictor(p) => a.predictors.push(p),
            Done::Ilp(i) => {
                a.ilp_instructions = i.instructions;
                a.ilp.push(i)
            }
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
#[cfg(test)]
mod tests;
