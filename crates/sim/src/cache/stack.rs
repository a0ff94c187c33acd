//! Every associativity of one LRU cache shape in one pass (Mattson et al. 1970, per set): LRU
//! has the inclusion property, so keeping each set's blocks in recency order, the depth at which
//! a block is found says at once for which associativities the lookup hits (depth < ways). A
//! grid of sizes × associativities at one line size needs one pass per distinct set count
//! instead of one per configuration. Hand-written: the algorithm is a dozen lines over the
//! block streams of [`super::blocks`], which no crate takes.

use super::blocks::{BlockStream, Counts, Replay};

/// Every associativity 1..=`max_ways` of an LRU cache with `sets` sets at the stream's line
/// size; [`Replay::counts`] gives them in that order.
pub struct LruStack {
    mask: u64,
    max_ways: usize,
    /// Each set's block ids, most recent first (u32::MAX = empty).
    stacks: Vec<u32>,
    /// Counted accesses whose deepest lookup was at depth d (max_ways = held by none).
    by_depth: Vec<u64>,
    accesses: u64,
    /// The access in progress: its deepest lookup so far, if it is counted.
    pending: Option<usize>,
    depth_of_access: usize,
    /// What [`Replay::mark`] remembered: the stacks, the access in progress, the counts.
    marked: Option<Marked>,
}

struct Marked {
    stacks: Vec<u32>,
    pending: Option<usize>,
    depth_of_access: usize,
    by_depth: Vec<u64>,
    accesses: u64,
}

impl LruStack {
    pub fn new(sets: usize, max_ways: usize) -> LruStack {
        assert!(sets.is_power_of_two() && sets <= super::blocks::MAX_SETS && max_ways >= 1);
        LruStack {
            mask: sets as u64 - 1,
            max_ways,
            stacks: vec![u32::MAX; sets * max_ways],
            by_depth: vec![0; max_ways + 1],
            accesses: 0,
            pending: None,
            depth_of_access: 0,
            marked: None,
        }
    }
}

impl Replay for LruStack {
    fn feed(&mut self, stream: &BlockStream, range: std::ops::Range<usize>) {
        let max_ways = self.max_ways;
        let Self {
            mask,
            stacks,
            by_depth,
            accesses,
            pending,
            depth_of_access,
            ..
        } = self;
        stream.for_each_in(range, |low, id, starts, counted| {
            if starts {
                if let Some(d) = pending.take() {
                    by_depth[d] += 1;
                }
                *depth_of_access = 0;
                if counted > 0 {
                    *pending = Some(0);
                }
            }
            let set = (low & *mask) as usize;
            let s = &mut stacks[set * max_ways..(set + 1) * max_ways];
            let depth = s.iter().position(|b| *b == id).unwrap_or(max_ways);
            // Move (or insert) to the front; a block not held pushes out the least recent.
            s.copy_within(0..depth.min(max_ways - 1), 1);
            s[0] = id;
            *depth_of_access = (*depth_of_access).max(depth);
            if let Some(d) = pending.as_mut() {
                *d = *depth_of_access;
            }
            *accesses += counted;
        });
    }

    fn mark(&mut self) {
        self.marked = Some(Marked {
            stacks: self.stacks.clone(),
            pending: self.pending,
            depth_of_access: self.depth_of_access,
            by_depth: self.by_depth.clone(),
            accesses: self.accesses,
        });
    }

    /// The stacks hold each set's blocks in recency order, all LRU's state.
    fn repeat_if_steady(&mut self, times: u64) -> bool {
        let Some(then) = &self.marked else {
            return false;
        };
        if then.pending != self.pending
            || then.depth_of_access != self.depth_of_access
            || then.stacks != self.stacks
        {
            return false;
        }
        for (now, before) in self.by_depth.iter_mut().zip(&then.by_depth) {
            *now += (*now - before) * times;
        }
        self.accesses += (self.accesses - then.accesses) * times;
        self.marked = None;
        true
    }

    fn counts(&mut self) -> Vec<Counts> {
        if let Some(d) = self.pending.take() {
            self.by_depth[d] += 1;
        }
        (1..=self.max_ways)
            .map(|ways| Counts {
                accesses: self.accesses,
                misses: self.by_depth[ways..].iter().sum(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::blocks::replay;
    use crate::cache::repeats::replay_group;
    use crate::cache::CacheConfig;

    #[test]
    fn one_pass_equals_one_lru_cache_per_associativity() {
        let mut x = 0x9e37_79b9_u64;
        let mut s = BlockStream::new(16);
        for k in 0..50_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if k == 10_000 {
                s.start_counting();
            }
            let addr = if k % 5 == 0 {
                x % 16384
            } else {
                (k * 24) % 2048
            };
            s.push(addr, [1, 8, 16][(x % 3) as usize], 1 + (k % 3 == 0) as u64);
        }
        for sets in [1, 4, 32] {
            let got = replay_group(&mut [Box::new(LruStack::new(sets, 8))], &s);
            for ways in 1..=8u64 {
                let cfg = CacheConfig::new(sets as u64 * ways * 16, 16, ways, "lru").unwrap();
                let want = replay(&cfg, &s);
                assert_eq!(got[ways as usize - 1], want, "{sets} sets, {ways} ways");
            }
        }
    }
}
