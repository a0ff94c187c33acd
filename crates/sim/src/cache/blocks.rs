//! A cache's input at one line size, extracted once and shared by every configuration of that
//! line size: the block numbers looked up, in order, grouped into accesses (an access that
//! straddles lines is one access and at most one miss), with every access that only looks up the
//! block looked up just before folded into the previous word. Such a lookup hits and changes no
//! policy's state (see [`Cache`]), so replaying it would only cost time; the fold keeps its count.

use super::{CacheConfig, ReplacementPolicy};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// A word: the block's low bits (its set in any cache of up to 2^20 sets), its dense id (each
/// distinct block numbered from 0 in order of first use), folded repeats, and [`CONTINUES`].
const LOW_BITS: u32 = 20;
const LOW_MASK: u64 = (1 << LOW_BITS) - 1;
const ID_BITS: u32 = 28;
const ID_MASK: u64 = (1 << ID_BITS) - 1;
const REPEAT_SHIFT: u32 = 48;
const REPEAT_MAX: u64 = (1 << 15) - 1;
/// The word continues the access of the word before (a straddle's next line).
const CONTINUES: u64 = 1 << 63;

/// The most sets a cache replayed from a block stream may have.
pub const MAX_SETS: usize = 1 << LOW_BITS;

/// Counted accesses and misses of one configuration.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub accesses: u64,
    pub misses: u64,
}

pub struct BlockStream {
    pub line: u64,
    line_bits: u32,
    words: Vec<u64>,
    /// Index of the first counted word; everything before only warms the cache.
    counted_from: Option<usize>,
    last_block: u64,
    ids: FxHashMap<u64, u32>,
    /// Distinct blocks of the stream this one was made from (ids are below it).
    blocks: usize,
    /// Each id's block number.
    id_block: Vec<u64>,
    /// Counted accesses, and those of them that look up a block for the first time.
    counted: Counts,
    /// Whether replaying looks for repeated stretches ([`super::repeats`]); filtered streams
    /// inherit it from their parent.
    repeats: bool,
}

impl BlockStream {
    pub fn new(line: u64) -> BlockStream {
        BlockStream::with_room(line, 0)
    }

    /// A stream expected to hold about `words` words: its buffer is a recycled one with that
    /// much room where there is one ([`crate::recycle`]).
    pub fn with_room(line: u64, words: usize) -> BlockStream {
        assert!(line.is_power_of_two());
        BlockStream {
            line,
            line_bits: line.trailing_zeros(),
            words: crate::recycle::take(words),
            counted_from: None,
            last_block: u64::MAX,
            ids: FxHashMap::default(),
            blocks: 0,
            id_block: Vec::new(),
            counted: Counts::default(),
            repeats: true,
        }
    }

    /// Everything pushed from now on is counted (called once, between accesses).
    pub fn start_counting(&mut self) {
        if self.counted_from.is_none() {
            self.counted_from = Some(self.words.len());
            self.last_block = u64::MAX; // never fold across the boundary
        }
    }

    /// Distinct blocks (the largest dense id + 1).
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Counted accesses (every configuration of the level counts the same ones) and first uses.
    pub fn counted(&self) -> Counts {
        self.counted
    }

    /// The word of `block`, and whether this is its first use.
    #[inline]
    fn word(&mut self, block: u64) -> (u64, bool) {
        let next = self.ids.len() as u32;
        let id = *self.ids.entry(block).or_insert(next);
        let new = id == next;
        if new {
            assert!(id as u64 <= ID_MASK, "more than 2^28 distinct blocks");
            self.blocks += 1;
            self.id_block.push(block);
        }
        ((block & LOW_MASK) | ((id as u64) << LOW_BITS), new)
    }

    /// The counts of a cache of `sets` × `ways` that never has to evict (no set is ever asked
    /// to hold more distinct blocks than it has ways), whatever its policy: its only misses are
    /// first uses. None if some set would have to evict. (A whole stream only, not one made
    /// by [`BlockStream::for_sets`].)
    pub fn without_evictions(&self, sets: usize, ways: usize) -> Option<Counts> {
        assert_eq!(self.id_block.len(), self.blocks, "a whole stream");
        if self.blocks > sets * ways {
            return None;
        }
        let mut held = vec![0usize; sets];
        for block in &self.id_block {
            let n = &mut held[*block as usize & (sets - 1)];
            *n += 1;
            if *n > ways {
                return None;
            }
        }
        Some(self.counted)
    }

    /// One access of `size` bytes at `addr`, looked up `times` times in a row.
    #[inline]
    pub fn push(&mut self, addr: u64, size: u32, times: u64) {
        let first = addr >> self.line_bits;
        let last = (addr + size.max(1) as u64 - 1) >> self.line_bits;
        self.push_blocks(first, last, times);
    }

    /// One access of the blocks `first..=last`, looked up `times` times in a row.
    #[inline]
    fn push_blocks(&mut self, first: u64, last: u64, times: u64) {
        self.push_with(first, last, times, Self::word);
    }

    /// [`BlockStream::push_blocks`] with each block's word and first use from `word_of`.
    #[inline]
    fn push_with(
        &mut self,
        first: u64,
        last: u64,
        times: u64,
        mut word_of: impl FnMut(&mut Self, u64) -> (u64, bool),
    ) {
        let mut extra = times - 1;
        let mut new = false;
        if first == last && first == self.last_block {
            extra += 1;
        } else {
            for b in first..=last {
                let (w, n) = word_of(self, b);
                new |= n;
                self.words.push(w | if b == first { 0 } else { CONTINUES });
            }
            self.last_block = last;
        }
        if self.counted_from.is_some() {
            self.counted.accesses += times;
            self.counted.misses += new as u64;
        }
        // Fold the repeats into the last word, spilling into fresh words of the same block
        // (each one a hit that changes nothing) when the field is full.
        while extra > 0 {
            let top = self.words.last_mut().expect("a block was pushed");
            let room = REPEAT_MAX - ((*top >> REPEAT_SHIFT) & REPEAT_MAX);
            let n = extra.min(room);
            *top += n << REPEAT_SHIFT;
            extra -= n;
            if extra > 0 {
                let (w, _) = self.word(self.last_block);
                self.words.push(w);
                extra -= 1;
            }
        }
    }

    /// Calls `f(low_bits, id, starts_access, counted_accesses)` for every word in `range`; a
    /// word's accesses are counted (its own, when it starts one, and its folded repeats) only in
    /// the counted part.
    #[inline]
    pub fn for_each_in(
        &self,
        range: std::ops::Range<usize>,
        mut f: impl FnMut(u64, u32, bool, u64),
    ) {
        let from = self.counted_from.unwrap_or(self.words.len());
        for k in range {
            let w = self.words[k];
            let starts = w & CONTINUES == 0;
            let counted = if k >= from {
                starts as u64 + ((w >> REPEAT_SHIFT) & REPEAT_MAX)
            } else {
                0
            };
            f(
                w & LOW_MASK,
                ((w >> LOW_BITS) & ID_MASK) as u32,
                starts,
                counted,
            );
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// The words, for finding repeated stretches ([`super::repeats`]).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The dense id of a word's block.
    #[inline]
    pub fn id_of(word: u64) -> u32 {
        ((word >> LOW_BITS) & ID_MASK) as u32
    }

    /// Whether replaying this stream and those filtered or coarsened from it looks for
    /// repeated stretches ([`super::repeats::decide`]).
    pub fn set_repeats(&mut self, look: bool) {
        self.repeats = look;
    }

    /// Whether replaying looks for repeated stretches ([`BlockStream::set_repeats`]).
    pub fn has_repeats(&self) -> bool {
        self.repeats
    }

    /// Index of the first counted word, once counting started.
    pub fn counted_from(&self) -> Option<usize> {
        self.counted_from
    }

    /// This stream at a line `2^k` times as long, equal to the one built from the same accesses
    /// at that line (tested): each access looks up its blocks' coarser blocks, and its folded
    /// repeats (always on its last word) look up the last one again. Walks this stream's words
    /// instead of the region's events, and finds each coarser block's id through this stream's
    /// dense ids instead of a hash lookup per word. A whole stream only.
    pub fn coarser(&self, line: u64) -> BlockStream {
        assert!(line > self.line && line.is_power_of_two(), "a longer line");
        assert_eq!(self.id_block.len(), self.blocks, "a whole stream");
        let shift = line.trailing_zeros() - self.line_bits;
        let mut out = BlockStream::with_room(line, self.words.len());
        // A loop at one line size is a loop at any.
        out.repeats = self.repeats;
        // Each fine id's coarse id, once known: one hash lookup per distinct fine block.
        let mut coarse = vec![u32::MAX; self.blocks];
        let mut k = 0;
        while k < self.words.len() {
            if self.counted_from == Some(k) {
                out.start_counting();
            }
            let mut end = k + 1;
            while end < self.words.len() && self.words[end] & CONTINUES != 0 {
                end += 1;
            }
            let (fine_first, top) = (Self::id_of(self.words[k]), self.words[end - 1]);
            let fine_last = Self::id_of(top);
            let first = self.id_block[fine_first as usize] >> shift;
            let last = self.id_block[fine_last as usize] >> shift;
            out.push_with(first, last, 1, |out, b| {
                let fine = match b {
                    _ if b == first => fine_first,
                    _ if b == last => fine_last,
                    _ => return out.word(b),
                };
                match coarse[fine as usize] {
                    u32::MAX => {
                        let (w, new) = out.word(b);
                        coarse[fine as usize] = Self::id_of(w);
                        (w, new)
                    }
                    id => ((b & LOW_MASK) | (u64::from(id) << LOW_BITS), false),
                }
            });
            let repeats = (top >> REPEAT_SHIFT) & REPEAT_MAX;
            if repeats > 0 {
                out.push_blocks(last, last, repeats);
            }
            k = end;
        }
        if self.counted_from.is_some() {
            out.start_counting();
        }
        out
    }

    /// Whether word `k` begins an access (it does not continue a straddle).
    pub fn starts_access(&self, k: usize) -> bool {
        self.words[k] & CONTINUES == 0
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The part of this stream a cache of `sets` sets (any associativity, any policy) has to
    /// replay. A lookup of the block its set looked up last hits and changes no policy's state:
    /// nothing entered the set since, so the block is still there and, for LRU, already the
    /// most recent. Such words are left out (an access whose first word goes keeps its miss
    /// on the next word left in, which starts it instead). Accesses are not counted in the
    /// result: take them from [`BlockStream::counted`]. Filtering composes: the result for
    /// `2 × sets` made from this result equals the one made from the whole stream, since a
    /// set of the larger cache only sees lookups of one set of the smaller.
    pub fn for_sets(&self, sets: usize) -> BlockStream {
        self.for_sets_into(sets, Vec::new())
    }

    /// [`BlockStream::for_sets`] into the buffer `words` (emptied first): a buffer reused from
    /// one filtering to the next keeps its pages, which a fresh allocation of hundreds of MB
    /// would fault in (and the kernel zero) again.
    pub fn for_sets_into(&self, sets: usize, mut words: Vec<u64>) -> BlockStream {
        let mut filter = SetFilter::new(sets);
        // Room for every word: pages never written are never touched, and the vector never
        // grows by copying.
        words.clear();
        words.reserve(self.words.len());
        let mut counted_from = None;
        for (k, &w) in self.words.iter().enumerate() {
            if self.counted_from == Some(k) {
                counted_from = Some(words.len());
            }
            words.extend(filter.keep(w));
        }
        BlockStream {
            counted_from: self
                .counted_from
                .map(|_| counted_from.unwrap_or(words.len())),
            words,
            ids: FxHashMap::default(),
            id_block: Vec::new(),
            ..*self
        }
    }

    /// The stream's words, to reuse their buffer ([`BlockStream::for_sets_into`]).
    pub fn into_words(mut self) -> Vec<u64> {
        std::mem::take(&mut self.words)
    }

    /// This stream filtered for `sets` sets in place, as [`BlockStream::for_sets`] filters a
    /// copy: a chain of set counts refines one buffer instead of allocating one per set count.
    pub fn refine(&mut self, sets: usize) {
        let mut filter = SetFilter::new(sets);
        let (mut kept, mut counted_from) = (0, None);
        for k in 0..self.words.len() {
            if self.counted_from == Some(k) {
                counted_from = Some(kept);
            }
            if let Some(w) = filter.keep(self.words[k]) {
                // kept <= k: the word overwritten was read already.
                self.words[kept] = w;
                kept += 1;
            }
        }
        self.words.truncate(kept);
        self.counted_from = self.counted_from.map(|_| counted_from.unwrap_or(kept));
    }
}

impl Drop for BlockStream {
    fn drop(&mut self) {
        crate::recycle::give(std::mem::take(&mut self.words));
    }
}

/// The state of filtering a stream for a set count ([`BlockStream::for_sets`]): each set's last
/// block, and whether the access in progress lost its first word (the next word kept then
/// starts it).
struct SetFilter {
    mask: u64,
    last: Vec<u32>,
    promote: bool,
}

impl SetFilter {
    fn new(sets: usize) -> SetFilter {
        assert!(sets.is_power_of_two() && sets <= MAX_SETS);
        SetFilter {
            mask: sets as u64 - 1,
            last: vec![u32::MAX; sets],
            promote: false,
        }
    }

    /// The word to keep for `w`, or `None` when its lookup repeats its set's last block.
    fn keep(&mut self, w: u64) -> Option<u64> {
        if w & CONTINUES == 0 {
            self.promote = false;
        }
        let id = ((w >> LOW_BITS) & ID_MASK) as u32;
        let seen = &mut self.last[(w & self.mask) as usize];
        if *seen == id {
            self.promote |= w & CONTINUES == 0;
            return None;
        }
        *seen = id;
        let mut kept = w & !(REPEAT_MAX << REPEAT_SHIFT);
        if self.promote {
            kept &= !CONTINUES;
            self.promote = false;
        }
        Some(kept)
    }
}

/// A set-associative cache over a block stream's dense ids, with the same behaviour as
/// [`super::Cache`] (the same policy calls in the same order) but a hit found by one look into
/// a table indexed by id instead of a search of the set: the cost of a grid is its hits.
#[derive(Clone)]
pub struct DenseCache<P: ReplacementPolicy> {
    ways: usize,
    set_mask: u64,
    /// The id held by each way (u32::MAX: invalid); invalid ways fill in order, never reopen.
    tags: Vec<u32>,
    filled: Vec<u8>,
    /// Per id: 0 if not held, else its way + 1.
    way_of: Vec<u8>,
    last_id: u32,
    policy: P,
}

impl<P: ReplacementPolicy> DenseCache<P> {
    pub fn new(config: &CacheConfig, blocks: usize) -> DenseCache<P> {
        let (sets, ways) = config.shape();
        assert!(
            sets <= MAX_SETS && ways < 255,
            "{} is too big to replay",
            config.label()
        );
        DenseCache {
            ways,
            set_mask: sets as u64 - 1,
            tags: vec![u32::MAX; sets * ways],
            filled: vec![0; sets],
            way_of: vec![0; blocks],
            last_id: u32::MAX,
            policy: P::new(sets, ways),
        }
    }

    /// Whether this cache will answer every lookup from now on as `other` would: the same
    /// blocks in the same ways, the same last lookup and the same policy state (`way_of` follows
    /// from the ways). False when the policy cannot say.
    pub fn same_state(&self, other: &DenseCache<P>) -> bool {
        self.last_id == other.last_id
            && self.filled == other.filled
            && self.tags == other.tags
            && self.policy.same_state(&other.policy)
    }

    /// Looks one block up; true on a miss (the block is then filled).
    #[inline]
    pub fn is_miss(&mut self, low: u64, id: u32) -> bool {
        if id == self.last_id {
            return false;
        }
        self.last_id = id;
        let set = (low & self.set_mask) as usize;
        let held = self.way_of[id as usize];
        if held != 0 {
            self.policy.touched(set, held as usize - 1);
            return false;
        }
        let way = if (self.filled[set] as usize) < self.ways {
            self.filled[set] += 1;
            self.filled[set] as usize - 1
        } else {
            let w = self.policy.victim(set);
            self.way_of[self.tags[set * self.ways + w] as usize] = 0;
            w
        };
        self.tags[set * self.ways + way] = id;
        self.way_of[id as usize] = way as u8 + 1;
        self.policy.filled(set, way);
        true
    }
}

/// Something that consumes a block stream piece by piece: a cache, or every associativity of
/// an LRU shape ([`super::stack`]). Several consume the same piece while it is in the host's
/// cache, so a grid reads each stream from memory once per group instead of once per
/// configuration.
pub trait Replay: Send {
    fn feed(&mut self, stream: &BlockStream, range: std::ops::Range<usize>);
    /// Counts so far, one per configuration this replays.
    fn counts(&mut self) -> Vec<Counts>;
    /// Remembers the state and counts now, at the end of a unit of a repeated stretch
    /// ([`super::repeats`]).
    fn mark(&mut self) {}
    /// At the end of a later unit: if the state equals the one marked, the units since repeat
    /// from here on, so their counts are added `times` more times and true is returned (the
    /// state stays as it is, which is the state after those repetitions too).
    fn repeat_if_steady(&mut self, _times: u64) -> bool {
        false
    }
}

/// A cache with policy `P` compiled in (no virtual call per lookup).
pub struct CacheReplay<P: ReplacementPolicy> {
    config: CacheConfig,
    cache: Option<DenseCache<P>>,
    counts: Counts,
    /// The access in progress: (missed, counted); its miss is added when the next one starts.
    pending: (bool, bool),
    /// What [`Replay::mark`] remembered: the cache, the access in progress and the counts.
    marked: Option<(DenseCache<P>, (bool, bool), Counts)>,
}

impl<P: ReplacementPolicy + Clone + 'static> CacheReplay<P> {
    pub fn boxed(config: &CacheConfig) -> Box<dyn Replay> {
        Box::new(CacheReplay::<P> {
            config: config.clone(),
            cache: None,
            counts: Counts::default(),
            pending: (false, false),
            marked: None,
        })
    }
}

impl<P: ReplacementPolicy + Clone> Replay for CacheReplay<P> {
    fn feed(&mut self, stream: &BlockStream, range: std::ops::Range<usize>) {
        assert_eq!(self.config.line, stream.line, "one stream, one line size");
        let cache = self
            .cache
            .get_or_insert_with(|| DenseCache::new(&self.config, stream.blocks()));
        let (c, pending) = (&mut self.counts, &mut self.pending);
        stream.for_each_in(range, |low, id, starts, counted| {
            if starts {
                c.misses += (pending.0 && pending.1) as u64;
                *pending = (false, counted > 0);
            }
            pending.0 |= cache.is_miss(low, id);
            c.accesses += counted;
        });
    }

    fn counts(&mut self) -> Vec<Counts> {
        let mut c = self.counts;
        c.misses += (self.pending.0 && self.pending.1) as u64;
        vec![c]
    }

    fn mark(&mut self) {
        if let Some(cache) = &self.cache {
            self.marked = Some((cache.clone(), self.pending, self.counts));
        }
    }

    fn repeat_if_steady(&mut self, times: u64) -> bool {
        let (Some(cache), Some((then, pending, counts))) = (&self.cache, &self.marked) else {
            return false;
        };
        if *pending != self.pending || !cache.same_state(then) {
            return false;
        }
        self.counts.accesses += (self.counts.accesses - counts.accesses) * times;
        self.counts.misses += (self.counts.misses - counts.misses) * times;
        self.marked = None;
        true
    }
}

/// Words replayed by every member of a group before the next piece: 64 KB, well inside L2.
pub(super) const PIECE: usize = 8192;

/// Replays `stream` through every member of `group`, piece by piece, every word (the
/// reference `repeats::replay_group` is tested against).
pub fn replay_plain(group: &mut [Box<dyn Replay>], stream: &BlockStream) -> Vec<Counts> {
    let mut at = 0;
    while at < stream.len() {
        let end = (at + PIECE).min(stream.len());
        for r in group.iter_mut() {
            r.feed(stream, at..end);
        }
        at = end;
    }
    group.iter_mut().flat_map(|r| r.counts()).collect()
}

/// Replays `stream` through one cache of `config` (its policy by name).
pub fn replay(config: &CacheConfig, stream: &BlockStream) -> Counts {
    let policy = super::policy_named(&config.policy).expect("a checked configuration");
    replay_plain(&mut [(policy.replay)(config)], stream)[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Cache;

    /// Replaying a block stream gives what looking every access up one by one gives.
    #[test]
    fn a_block_stream_replays_like_the_accesses_it_folds() {
        let mut x = 0x1234_5678_9abc_u64;
        let accesses: Vec<(u64, u32)> = (0..20_000)
            .map(|k| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Runs of nearby addresses with some straddles and far jumps.
                let addr = if k % 7 == 0 {
                    x % 8192
                } else {
                    4096 + (k * 3) % 512
                };
                (addr, [1, 4, 8, 16][(x % 4) as usize])
            })
            .collect();
        for line in [8, 16, 64] {
            for policy in ["lru", "fifo", "random"] {
                let cfg = CacheConfig::new(1024, line, 2, policy).unwrap();
                let mut s = BlockStream::new(line);
                let mut cache = Cache::new(&cfg);
                let mut want = Counts::default();
                for (k, (a, size)) in accesses.iter().enumerate() {
                    if k == 5000 {
                        s.start_counting();
                    }
                    s.push(*a, *size, 1);
                    let miss = cache.access_is_miss(*a, *size);
                    if k >= 5000 {
                        want.accesses += 1;
                        want.misses += miss as u64;
                    }
                }
                if line == 64 {
                    assert!(s.len() < accesses.len() / 2, "64 B lines fold most lookups");
                }
                let got = replay(&cfg, &s);
                assert_eq!(got, want, "{line} B {policy}");
                assert_eq!(s.without_evictions(2, 2), None, "too many blocks for 2 × 2");
                // Big enough for every block: only first uses miss, as replaying says.
                let big = CacheConfig::new(1 << 20, line, 16, policy).unwrap();
                let (sets, ways) = big.shape();
                assert_eq!(s.without_evictions(sets, ways), Some(replay(&big, &s)));
            }
        }
    }

    /// A coarser stream made from a finer one equals the stream built at the coarser line from
    /// the same accesses: the same words (ids, straddles, folded repeats and their spills), the
    /// same counted accesses and first uses, the same blocks.
    #[test]
    fn a_coarser_stream_equals_one_built_at_its_line() {
        let mut x = 0x5851_f42d_4c95_7f2d_u64;
        let accesses: Vec<(u64, u32, u64)> = (0..60_000u64)
            .map(|k| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let addr = match k % 6 {
                    0 => x % 65536,
                    1 | 2 => 0x4000 + (k * 3) % 700,
                    3 => 0x9000 + (x % 64),
                    _ => 0x20000 + k * 5,
                };
                // Sizes that straddle, and now and then a run long enough to spill.
                let times = if k % 9973 == 0 { 40_000 } else { 1 + (x % 3) };
                (addr, [1, 4, 8, 15, 16, 32][(x % 6) as usize], times)
            })
            .collect();
        let build = |line: u64| {
            let mut s = BlockStream::new(line);
            for (k, (a, size, times)) in accesses.iter().enumerate() {
                if k == 15_000 {
                    s.start_counting();
                }
                s.push(*a, *size, *times);
            }
            s.start_counting();
            s
        };
        let fine = build(8);
        for line in [16, 32, 64] {
            let (want, got) = (build(line), fine.coarser(line));
            assert_eq!(got.words, want.words, "{line} B");
            assert_eq!(got.counted, want.counted, "{line} B");
            assert_eq!(got.counted_from, want.counted_from, "{line} B");
            assert_eq!(got.id_block, want.id_block, "{line} B");
            assert_eq!(got.coarser(128).words, want.coarser(128).words);
            assert_eq!(got.has_repeats(), fine.has_repeats());
        }
    }

    /// A stream filtered for a set count (directly, or from a filter for fewer sets) gives every
    /// cache of that set count the misses of the whole stream, for every policy.
    #[test]
    fn a_stream_filtered_for_a_set_count_misses_like_the_whole_stream() {
        let mut x = 0x2545_f491_u64;
        let mut s = BlockStream::new(16);
        for k in 0..40_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if k == 9_000 {
                s.start_counting();
            }
            // A hot table, a sliding buffer and far jumps; straddles of 16-byte lines.
            let addr = match k % 5 {
                0 => x % 32768,
                1 | 2 => 0x8000 + (x % 1024),
                _ => 0x10000 + (k * 4) % 4096,
            };
            s.push(
                addr,
                [1, 4, 8, 16][(x % 4) as usize],
                1 + (k % 7 == 0) as u64,
            );
        }
        let mut chained = s.for_sets(1);
        for sets in [1usize, 2, 4, 16, 64, 256] {
            chained = chained.for_sets(sets);
            let direct = s.for_sets(sets);
            assert!(
                direct.len() <= s.len(),
                "{sets} sets: {} of {} words",
                direct.len(),
                s.len()
            );
            assert!(
                sets < 256 || direct.len() < s.len() * 3 / 4,
                "{sets} sets: {} of {}",
                direct.len(),
                s.len()
            );
            assert_eq!(
                direct.words, chained.words,
                "{sets} sets: filtering composes"
            );
            for policy in ["lru", "fifo", "random"] {
                for ways in [1u64, 2, 4, 8] {
                    let cfg = CacheConfig::new(sets as u64 * ways * 16, 16, ways, policy).unwrap();
                    let want = replay(&cfg, &s);
                    let got = replay(&cfg, &chained);
                    assert_eq!(got.misses, want.misses, "{sets} sets {ways} ways {policy}");
                    assert_eq!(s.counted().accesses, want.accesses);
                }
            }
        }
    }
}
