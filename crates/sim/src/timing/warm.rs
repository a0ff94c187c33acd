//! The timing sweeps' cache warm-ups, shared: a core's I1 and D1 after the warm-up part depend
//! only on their own configuration, and its L2 only on the accesses they missed, in order. So
//! each distinct first-level cache replays the warm-up part once, keeping its misses, and each
//! memory system's L2 replays only its I1's and D1's misses merged in program order. The study's
//! 26 memory systems have 16 distinct I1s and 16 distinct D1s, and a walk of the warm-up part
//! feeds several of them at once; the caches end in the state [`super::warm_with`] leaves
//! (the same lookups in the same order).

use super::memory::Caches;
use super::{TimingConfig, WarmBranches, Warmed};
use crate::cache::{Cache, CacheConfig};
use crate::decode::Decoded;
use crate::region::{unpack, Event};

/// Which first-level cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Instructions,
    Data,
}

/// A lookup a first-level cache missed: the index of its event (program order) and the access
/// the L2 then sees.
#[derive(Clone, Copy)]
struct Miss {
    at: usize,
    addr: u64,
    size: u32,
}

/// A first-level cache after the warm-up part, with the accesses it sent to the L2.
pub struct WarmL1 {
    side: Side,
    cache: Cache,
    misses: Vec<Miss>,
    /// The line of the last instruction fetched (I1: a fetch looks the cache up only when the
    /// line changes).
    last_fetch_line: u64,
    instructions: u64,
}

impl WarmL1 {
    fn new(side: Side, config: &CacheConfig) -> WarmL1 {
        WarmL1 {
            side,
            cache: Cache::new(config),
            misses: Vec::new(),
            last_fetch_line: u64::MAX,
            instructions: 0,
        }
    }

    fn is(&self, side: Side, config: &CacheConfig) -> bool {
        self.side == side && self.cache.config == *config
    }
}

/// Warms each of `caches` on the part of `events` before the measured part, in one walk: the
/// instruction fetches and data accesses a core's warm-up makes (data accesses before the first
/// instruction belong to none and are skipped, as there).
pub fn warm_l1s(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
    caches: &[(Side, CacheConfig)],
) -> Vec<WarmL1> {
    let mut l1s: Vec<WarmL1> = caches.iter().map(|(s, c)| WarmL1::new(*s, c)).collect();
    let (mut i1s, mut d1s): (Vec<&mut WarmL1>, Vec<&mut WarmL1>) =
        l1s.iter_mut().partition(|w| w.side == Side::Instructions);
    let mut instructions = 0u64;
    for (at, w) in events[..measured.start].iter().enumerate() {
        match unpack(*w) {
            Event::Instr(ix) => {
                instructions += 1;
                let info = decoded.info(ix);
                for l1 in i1s.iter_mut() {
                    let line = info.addr >> l1.cache.config.line.trailing_zeros();
                    if line != l1.last_fetch_line {
                        l1.last_fetch_line = line;
                        if l1.cache.access_is_miss(info.addr, info.len as u32) {
                            let (addr, size) = (info.addr, info.len as u32);
                            l1.misses.push(Miss { at, addr, size });
                        }
                    }
                }
            }
            Event::Data(a) if instructions > 0 => {
                for l1 in d1s.iter_mut() {
                    if l1.cache.access_is_miss(a.addr, a.size) {
                        let (addr, size) = (a.addr, a.size);
                        l1.misses.push(Miss { at, addr, size });
                    }
                }
            }
            Event::Data(_) => {}
        }
    }
    for l1 in i1s.iter_mut().chain(d1s.iter_mut()) {
        l1.instructions = instructions;
    }
    l1s
}

/// `cfg`'s caches after the warm-up part, from first-level caches warmed by [`warm_l1s`] (its
/// I1 and D1 must be among `l1s`), with the branch unit of `branches`.
pub fn warm_from(l1s: &[WarmL1], cfg: &TimingConfig, branches: &WarmBranches) -> Warmed {
    let find = |side: Side, config: &CacheConfig| {
        l1s.iter()
            .find(|w| w.is(side, config))
            .expect("every core's first-level caches were warmed")
    };
    let (i1, d1) = (find(Side::Instructions, &cfg.i1), find(Side::Data, &cfg.d1));
    let mut l2 = Cache::new(&cfg.l2);
    let (mut i, mut d) = (i1.misses.iter().peekable(), d1.misses.iter().peekable());
    loop {
        let next = match (i.peek(), d.peek()) {
            (Some(a), Some(b)) if a.at < b.at => i.next(),
            (Some(_), None) => i.next(),
            (_, Some(_)) => d.next(),
            (None, None) => break,
        };
        let m = next.expect("one list has a miss left");
        l2.access_is_miss(m.addr, m.size);
    }
    Warmed {
        mem: Caches::from_parts(i1.cache.clone(), d1.cache.clone(), l2, cfg),
        branches: branches.branches.clone(),
        last_fetch_line: i1.last_fetch_line,
        pending: branches.pending.clone(),
        instructions: i1.instructions,
    }
}
