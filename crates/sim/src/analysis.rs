//! Replays a recorded region through every model: the cache grid (I1, D1, and a unified L2
//! behind fixed first-level caches), every branch predictor, and the ILP grid. Work items run on
//! all CPUs; each replays the shared, read-only event vector.

use crate::branches::{BranchCounts, BranchSim, Resolver};
use crate::cache::{Cache, CacheConfig};
use crate::decode::Decoded;
use crate::ilp::{self, IlpConfig, IlpResult};
use crate::predict;
use crate::region::{unpack, Event};
use crate::trace::{Access, DataAccess};
use serde::{Deserialize, Serialize};
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
}

impl Grid {
    /// The architecture study's grid: L1 4 KB–256 KB, L2 128 KB–2 MB, lines 8–64 B, 1–16 ways,
    /// LRU/FIFO/Random; windows 1–256, widths 1–16; every predictor.
    pub fn full() -> Grid {
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
        }
    }

    /// One cache configuration per level (32 KB 8-way 64 B LRU L1s, 1 MB 16-way L2), every
    /// predictor, ILP at window 256 / width 4 only.
    pub fn single() -> Grid {
        Grid {
            l1_sizes: vec![32768],
            l2_sizes: vec![1 << 20],
            lines: vec![64],
            assocs: vec![8],
            policies: vec!["lru".into()],
            windows: vec![256],
            widths: vec![4],
            ..Grid::full()
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

/// A first-level cache's input, extracted once: (address, size, repeats) packed in a word, split
/// into the warm-up part and the counted part. Instruction fetches that lie wholly inside the
/// 8-byte granule where the previous fetch ended are folded into that fetch's repeat count:
/// for any line of 8 bytes or more they hit the line looked up last, which changes no policy's
/// state (see `Cache`), so replaying them one by one would only cost time.
struct Stream {
    words: Vec<u64>,
    counted_from: usize,
}

#[inline]
fn pack_ref(addr: u64, size: u32, repeats: u64) -> u64 {
    (addr & 0xFFFF_FFFF_FFFF) | ((size.min(255) as u64) << 48) | (repeats.min(255) << 56)
}

fn extract(
    events: &[u64],
    decoded: &Decoded,
    measured: &std::ops::Range<usize>,
    instructions: bool,
) -> Stream {
    let mut words: Vec<u64> = Vec::new();
    let mut counted_from = None;
    let mut last_granule = u64::MAX;
    for (k, w) in events.iter().enumerate() {
        if k == measured.start {
            counted_from = Some(words.len());
            last_granule = u64::MAX; // never fold across the boundary
        }
        if k >= measured.end {
            break;
        }
        match (instructions, unpack(*w)) {
            (true, Event::Instr(ix)) => {
                let info = decoded.info(ix);
                let (a, len) = (info.addr, info.len as u64);
                if a >> 3 == last_granule && (a + len - 1) >> 3 == last_granule {
                    let top = words
                        .last_mut()
                        .expect("a granule implies a previous fetch");
                    if *top >> 56 < 255 {
                        *top += 1 << 56;
                        continue;
                    }
                }
                last_granule = (a + len - 1) >> 3;
                words.push(pack_ref(a, len as u32, 1));
            }
            (false, Event::Data(d)) => words.push(pack_ref(d.addr, d.size, 1)),
            _ => {}
        }
    }
    Stream {
        counted_from: counted_from.unwrap_or(words.len()),
        words,
    }
}

fn run_parallel<T: Sync, R: Send>(items: Vec<T>, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
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

enum Work {
    Cache(Level, CacheConfig),
    Predictor(String),
    Ilp(IlpConfig),
}

enum Done {
    Cache(CacheResult),
    Predictor(PredictorResult),
    Ilp(IlpResult),
}

/// Replays `events` (with `measured` the counted part) through everything in `grid`.
pub fn analyse(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    grid: &Grid,
) -> Analysis {
    let l2_input = l2_stream(
        events,
        decoded,
        &measured,
        &grid.l2_front_i1,
        &grid.l2_front_d1,
    );
    // Branch outcomes once; every predictor replays them.
    let mut resolver = Resolver::default();
    let mut outcomes = Vec::new();
    for (k, w) in events.iter().enumerate() {
        if let Event::Instr(ix) = unpack(*w) {
            if let Some(o) = resolver.next(decoded.info(ix)) {
                outcomes.push((o, measured.contains(&k)));
            }
        }
    }
    let ilp_events = {
        let m = &events[measured.clone()];
        let mut n = 0usize;
        let mut end = m.len();
        for (k, w) in m.iter().enumerate() {
            if matches!(unpack(*w), Event::Instr(_)) {
                if n == grid.ilp_limit {
                    end = k;
                    break;
                }
                n += 1;
            }
        }
        &m[..end]
    };
    let i_stream = extract(events, decoded, &measured, true);
    let d_stream = extract(events, decoded, &measured, false);
    let mut work: Vec<Work> = Vec::new();
    for p in &grid.predictors {
        work.push(Work::Predictor(p.clone()));
    }
    for &window in &grid.windows {
        for &width in &grid.widths {
            work.push(Work::Ilp(IlpConfig { window, width }));
        }
    }
    for (level, c) in grid.cache_configs() {
        work.push(Work::Cache(level, c));
    }
    let done = run_parallel(work, |w| match w {
        Work::Cache(level, config) => {
            let mut cache = Cache::new(config);
            let (mut accesses, mut misses) = (0u64, 0u64);
            let mut count = |miss: bool, counted: bool| {
                if counted {
                    accesses += 1;
                    misses += miss as u64;
                }
            };
            match level {
                Level::L2 => {
                    for (d, counted) in &l2_input {
                        count(cache.access_is_miss(d.addr, d.size), *counted);
                    }
                }
                Level::I1 | Level::D1 => {
                    let stream = if *level == Level::I1 {
                        &i_stream
                    } else {
                        &d_stream
                    };
                    for (k, w) in stream.words.iter().enumerate() {
                        let addr = w & 0xFFFF_FFFF_FFFF;
                        let size = ((w >> 48) & 0xFF) as u32;
                        let repeats = w >> 56;
                        let miss = cache.access_is_miss(addr, size);
                        if k >= stream.counted_from {
                            accesses += repeats;
                            misses += miss as u64;
                        }
                    }
                }
            }
            Done::Cache(CacheResult {
                level: *level,
                config: config.clone(),
                accesses,
                misses,
                miss_rate: if accesses == 0 {
                    0.0
                } else {
                    misses as f64 / accesses as f64
                },
            })
        }
        Work::Predictor(name) => {
            let mut sim = BranchSim::new(predict::create(name).expect("grid names predictors"));
            for (o, counted) in &outcomes {
                sim.counting = *counted;
                sim.outcome(*o);
            }
            let c = sim.counts;
            Done::Predictor(PredictorResult {
                predictor: name.clone(),
                counts: c,
                hit_rate: if c.conditional == 0 {
                    1.0
                } else {
                    1.0 - c.conditional_mispredicted as f64 / c.conditional as f64
                },
            })
        }
        Work::Ilp(cfg) => Done::Ilp(ilp::simulate(ilp_events, decoded, *cfg)),
    });
    let mut a = Analysis {
        caches: vec![],
        predictors: vec![],
        ilp: vec![],
        ilp_instructions: 0,
    };
    for d in done {
        match d {
            Done::Cache(c) => a.caches.push(c),
            Done::Predictor(p) => a.predictors.push(p),
            Done::Ilp(i) => {
                a.ilp_instructions = i.instructions;
                a.ilp.push(i)
            }
        }
    }
    a
}
