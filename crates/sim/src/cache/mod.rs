//! Set-associative caches for trace-driven simulation, with the replacement policy behind one
//! trait. Accesses follow cachegrind's rules so its counts are an oracle for the LRU case:
//! write-allocate, the block number is the tag, set = block mod sets, and an access that straddles
//! two lines looks both up but counts as one access and at most one miss.
//!
//! Adding a policy: one file in this folder implementing [`ReplacementPolicy`] and one line in
//! [`POLICIES`]. A grid of configurations is replayed through [`blocks`] (one block stream per
//! line size, shared by every configuration of that line size) and, for policies with the stack
//! property (LRU), through [`stack`] (one pass for every associativity of a set count); every
//! configuration of a set count replays the stream filtered for it (`BlockStream::for_sets`).

pub mod blocks;
mod fifo;
mod lru;
mod random;
pub mod repeats;
pub mod stack;

use serde::{Deserialize, Serialize};

/// Decides which way of a full set to evict. Invalid ways are always filled first (by the
/// cache), so a policy only chooses among valid lines. A lookup of the same line as the
/// lookup just before is answered by the cache without telling the policy (for LRU, FIFO and
/// Random it changes nothing); a policy that counts every use must not rely on `touched` for
/// those.
pub trait ReplacementPolicy: Send + Sync + ClonePolicy {
    /// The state for `sets` sets of `ways` ways.
    fn new(sets: usize, ways: usize) -> Self
    where
        Self: Sized;
    /// A hit on `way` of `set`.
    fn touched(&mut self, set: usize, way: usize);
    /// `way` of `set` was just filled with a new line.
    fn filled(&mut self, set: usize, way: usize);
    /// The way to evict from a full `set`.
    fn victim(&mut self, set: usize) -> usize;
    /// Whether every later call will choose as `other`'s would (a repeated stretch of a stream
    /// is then skipped, [`repeats`]); a policy that cannot say keeps the default.
    fn same_state(&self, _other: &Self) -> bool
    where
        Self: Sized,
    {
        false
    }
}

/// A boxed policy's copy (the timing model warms a cache once and copies it): any policy that
/// is `Clone` has it.
pub trait ClonePolicy {
    fn clone_box(&self) -> Box<dyn ReplacementPolicy>;
}

impl<T: ReplacementPolicy + Clone + 'static> ClonePolicy for T {
    fn clone_box(&self) -> Box<dyn ReplacementPolicy> {
        Box::new(self.clone())
    }
}

type PolicyMaker = fn(sets: usize, ways: usize) -> Box<dyn ReplacementPolicy>;
type Replayer = fn(&CacheConfig) -> Box<dyn blocks::Replay>;

/// One replacement policy in the registry.
pub struct Policy {
    pub name: &'static str,
    make: PolicyMaker,
    /// A cache of this policy that replays block streams, compiled for it (no virtual call per
    /// lookup).
    pub replay: Replayer,
    /// A cache of `w` ways always holds what one of `w - 1` ways holds (Mattson's inclusion
    /// property), so [`stack`] can count every associativity of a set count in one pass.
    pub stack_property: bool,
}

const fn policy<P: ReplacementPolicy + Clone + 'static>(
    name: &'static str,
    stack_property: bool,
) -> Policy {
    Policy {
        name,
        make: |sets, ways| Box::new(P::new(sets, ways)),
        replay: blocks::CacheReplay::<P>::boxed,
        stack_property,
    }
}

/// Registry: every replacement policy.
pub const POLICIES: &[Policy] = &[
    policy::<lru::Lru>("lru", true),
    policy::<fifo::Fifo>("fifo", false),
    policy::<random::Random>("random", false),
];

pub fn policy_names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.name).collect()
}

/// The registry entry of a policy name.
pub fn policy_named(name: &str) -> Option<&'static Policy> {
    POLICIES.iter().find(|p| p.name == name)
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheConfig {
    pub size: u64,
    pub line: u64,
    pub assoc: u64,
    pub policy: String,
}

impl CacheConfig {
    pub fn new(size: u64, line: u64, assoc: u64, policy: &str) -> Result<CacheConfig, String> {
        let c = CacheConfig {
            size,
            line,
            assoc,
            policy: policy.to_string(),
        };
        c.check()?;
        Ok(c)
    }

    /// `SIZE,ASSOC,LINE` as cachegrind's `--I1=` takes it, with an optional `,POLICY`.
    pub fn parse(text: &str) -> Result<CacheConfig, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() < 3 || parts.len() > 4 {
            return Err(format!(
                "cache '{text}' should be SIZE,ASSOC,LINE[,POLICY] (e.g. 32768,8,64,lru)"
            ));
        }
        let num = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| format!("cache '{text}': '{s}' is not a whole number"))
        };
        CacheConfig::new(
            num(parts[0])?,
            num(parts[2])?,
            num(parts[1])?,
            parts.get(3).copied().unwrap_or("lru"),
        )
    }

    fn check(&self) -> Result<(), String> {
        if policy_named(&self.policy).is_none() {
            return Err(format!(
                "unknown replacement policy '{}'; known: {}",
                self.policy,
                policy_names().join(", ")
            ));
        }
        if !self.line.is_power_of_two() || self.line < 4 {
            return Err(format!("line size {} is not a power of two ≥ 4", self.line));
        }
        if self.assoc == 0 || !self.size.is_multiple_of(self.line * self.assoc) {
            return Err(format!(
                "{} B is not a whole number of {}-way sets of {} B lines",
                self.size, self.assoc, self.line
            ));
        }
        let sets = self.size / (self.line * self.assoc);
        if !sets.is_power_of_two() {
            return Err(format!(
                "{} B, {}-way, {} B lines gives {sets} sets, not a power of two",
                self.size, self.assoc, self.line
            ));
        }
        Ok(())
    }

    /// (sets, ways).
    pub fn shape(&self) -> (usize, usize) {
        (
            (self.size / (self.line * self.assoc)) as usize,
            self.assoc as usize,
        )
    }

    pub fn label(&self) -> String {
        format!(
            "{} {}B {}-way {}",
            human_size(self.size),
            self.line,
            self.assoc,
            self.policy
        )
    }
}

pub fn human_size(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}M", b >> 20)
    } else if b >= 1 << 10 && b.is_multiple_of(1 << 10) {
        format!("{}K", b >> 10)
    } else {
        format!("{b}")
    }
}

const EMPTY: u64 = u64::MAX;

/// A set-associative cache. `Cache` (the default) picks its policy by name at run time;
/// `Cache<P>` for a concrete policy is compiled for it (see [`blocks::replay`]).
pub struct Cache<P: ReplacementPolicy + ?Sized = dyn ReplacementPolicy> {
    pub config: CacheConfig,
    ways: usize,
    line_bits: u32,
    set_mask: u64,
    tags: Vec<u64>,
    policy: Box<P>,
    /// The block of the previous lookup: looking it up again is a hit that changes no
    /// policy's order (it is already the most recent line), so it skips the set search.
    last_block: u64,
}

impl Clone for Cache {
    fn clone(&self) -> Cache {
        Cache {
            config: self.config.clone(),
            ways: self.ways,
            line_bits: self.line_bits,
            set_mask: self.set_mask,
            tags: self.tags.clone(),
            policy: self.policy.clone_box(),
            last_block: self.last_block,
        }
    }
}

impl Cache {
    pub fn new(config: &CacheConfig) -> Cache {
        config.check().expect("cache configuration was checked");
        let (sets, ways) = config.shape();
        let make = policy_named(&config.policy)
            .expect("policy was checked")
            .make;
        Cache::with_policy(config, make(sets, ways))
    }
}

impl<P: ReplacementPolicy + ?Sized> Cache<P> {
    pub fn with_policy(config: &CacheConfig, policy: Box<P>) -> Cache<P> {
        let (sets, ways) = config.shape();
        Cache {
            config: config.clone(),
            ways,
            line_bits: config.line.trailing_zeros(),
            set_mask: sets as u64 - 1,
            tags: vec![EMPTY; sets * ways],
            policy,
            last_block: EMPTY,
        }
    }

    /// Looks one block up; true on a miss (the block is then filled).
    #[inline]
    pub fn block_is_miss(&mut self, block: u64) -> bool {
        if block == self.last_block {
            return false;
        }
        self.last_block = block;
        let set = (block & self.set_mask) as usize;
        let base = set * self.ways;
        let lines = &mut self.tags[base..base + self.ways];
        if let Some(way) = lines.iter().position(|t| *t == block) {
            self.policy.touched(set, way);
            return false;
        }
        let way = match lines.iter().position(|t| *t == EMPTY) {
            Some(w) => w,
            None => self.policy.victim(set),
        };
        lines[way] = block;
        self.policy.filled(set, way);
        true
    }

    /// One access of `size` bytes at `addr`: a miss if any line it touches misses (every line is
    /// looked up, since lookups change the cache's state).
    #[inline]
    pub fn access_is_miss(&mut self, addr: u64, size: u32) -> bool {
        let first = addr >> self.line_bits;
        let last = (addr + size.max(1) as u64 - 1) >> self.line_bits;
        let mut miss = self.block_is_miss(first);
        let mut b = first + 1;
        while b <= last {
            miss |= self.block_is_miss(b);
            b += 1;
        }
        miss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn misses(cfg: &CacheConfig, addrs: &[u64]) -> Vec<bool> {
        let mut c = Cache::new(cfg);
        addrs.iter().map(|a| c.access_is_miss(*a, 1)).collect()
    }

    // Hand-made traces with answers worked out on paper. One set of two ways (size = 2 lines):
    // blocks A=0x000, B=0x100, C=0x200 (line 16 B).
    const A: u64 = 0x000;
    const B: u64 = 0x100;
    const C: u64 = 0x200;

    #[test]
    fn lru_evicts_least_recently_used() {
        let cfg = CacheConfig::new(32, 16, 2, "lru").unwrap();
        // A B A C: C evicts B (A was used more recently), A hits; B evicts C (least recent),
        // C evicts A.
        assert_eq!(
            misses(&cfg, &[A, B, A, C, A, B, C]),
            vec![true, true, false, true, false, true, true]
        );
    }

    #[test]
    fn fifo_ignores_hits_when_choosing_a_victim() {
        let cfg = CacheConfig::new(32, 16, 2, "fifo").unwrap();
        // A B A C: C evicts A (first in) even though A was just used; then A misses.
        assert_eq!(
            misses(&cfg, &[A, B, A, C, A, B]),
            vec![true, true, false, true, true, true]
        );
    }

    #[test]
    fn random_is_seeded_and_reproducible() {
        let cfg = CacheConfig::new(64, 16, 4, "random").unwrap();
        let trace: Vec<u64> = (0..200).map(|i| (i * 7919 % 13) * 0x100).collect();
        let a = misses(&cfg, &trace);
        assert_eq!(a, misses(&cfg, &trace));
        // 13 blocks cycling through 4 ways: compulsory misses plus some, never all hits.
        let n = a.iter().filter(|m| **m).count();
        assert!(n > 13 && n < 200, "{n}");
    }

    #[test]
    fn small_lines_and_straddles() {
        // 8-byte lines, direct-mapped, 4 sets. An 8-byte access at 4 straddles blocks 0 and 1:
        // one access, one miss; then blocks 0 and 1 both hit.
        let cfg = CacheConfig::new(32, 8, 1, "lru").unwrap();
        let mut c = Cache::new(&cfg);
        assert!(c.access_is_miss(4, 8));
        assert!(!c.access_is_miss(0, 8));
        assert!(!c.access_is_miss(8, 8));
        // 0x20 maps to set 0 again: evicts block 0.
        assert!(c.access_is_miss(0x20, 4));
        assert!(c.access_is_miss(0, 4));
    }

    #[test]
    fn configurations_are_checked() {
        assert!(CacheConfig::parse("32768,8,64").is_ok());
        assert!(CacheConfig::parse("32768,8,64,plru")
            .unwrap_err()
            .contains("unknown replacement policy"));
        assert!(CacheConfig::parse("3000,8,64").is_err());
        assert!(CacheConfig::parse("49152,8,64")
            .unwrap_err()
            .contains("power of two"));
    }
}
