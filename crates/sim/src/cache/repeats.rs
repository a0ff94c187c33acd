//! A cipher's block stream is mostly one stretch of words repeated: every block of a 256 KB
//! message runs the same code, so its instruction lines are looked up in the same order again
//! and again. A cache replaying such a stretch soon returns to the state it had one repetition
//! (or a few) earlier; from then on every repetition misses exactly as the last ones did, and
//! the rest can be counted without replaying it. This finds the repeated stretches of a stream
//! (once per stream, shared by every cache replaying it) and drives a group of replayers through
//! them, each skipping ahead as soon as its own state repeats ([`Replay::mark`],
//! [`Replay::repeat_if_steady`]). Exact: a replayer skips only on a state equal to an earlier
//! one, given the same words since, so the counts are those of a full replay (tested below).
//! Hand-written: the detection is a linear scan over the stream's dense ids, which no crate does.

use super::blocks::{BlockStream, Counts, Replay, PIECE};

/// The shortest unit of repetition used: a shorter period is taken several times over, so that
/// comparing states (a few KB for the caches that do not fit) costs less than the replay.
const MIN_UNIT: usize = 2048;
/// A stretch must repeat its unit this often to be worth the bookkeeping.
const MIN_REPS: usize = 4;
/// The longest period looked for: a loop body's words, not a whole call's (the counted call
/// repeats the warm-up call, and that period would hide the loop's inside each).
const MAX_PERIOD: usize = 1 << 16;

/// `reps` copies of `words[start..start + unit]`, one after another; `start` begins an access,
/// and the stretch lies wholly in the warm-up part or wholly in the counted part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repeat {
    pub start: usize,
    pub unit: usize,
    pub reps: usize,
}

impl Repeat {
    fn end(&self) -> usize {
        self.start + self.unit * self.reps
    }
}

/// Lets `stream` (and the streams filtered or coarsened from it) look for repeated stretches
/// only if a quarter of it or more is repeated: a data stream (table lookups, a message walked
/// once) seldom is, and looking costs a pass over each filtered stream.
pub fn decide(stream: &mut BlockStream) {
    let covered: usize = find(stream).iter().map(|r| r.unit * r.reps).sum();
    stream.set_repeats(covered * 4 >= stream.len());
}

/// The repeated stretches of `stream`, in order and disjoint. A scan keeps a candidate period
/// (the distance back to the last use of the word that broke the previous one) and how long
/// the stream has matched itself that far back; every long enough match becomes a stretch.
pub fn find(stream: &BlockStream) -> Vec<Repeat> {
    let words = stream.words();
    let mut last_seen = vec![usize::MAX; stream.blocks()];
    let mut found = Vec::new();
    let (mut period, mut matched) = (0usize, 0usize);
    for (k, &w) in words.iter().enumerate() {
        if period > 0 && words[k - period] == w {
            matched += 1;
        } else {
            if period > 0 {
                close(stream, k - matched - period, k, period, &mut found);
            }
            let id = BlockStream::id_of(w) as usize;
            period = match last_seen[id] {
                at if at == usize::MAX || k - at > MAX_PERIOD => 0,
                at => k - at,
            };
            matched = (period > 0 && words[k - period] == w) as usize;
        }
        last_seen[BlockStream::id_of(w) as usize] = k;
    }
    if period > 0 {
        close(
            stream,
            words.len() - matched - period,
            words.len(),
            period,
            &mut found,
        );
    }
    found
}

/// Records `words[from..to]`, periodic with `period`, as stretches: split where counting
/// starts, each beginning at an access, its unit a whole number of periods of at least
/// [`MIN_UNIT`] words.
fn close(stream: &BlockStream, from: usize, to: usize, period: usize, found: &mut Vec<Repeat>) {
    if to - from < period * MIN_REPS {
        return;
    }
    let unit = period * MIN_UNIT.div_ceil(period);
    let split = stream.counted_from().filter(|c| (from..to).contains(c));
    let parts = match split {
        Some(c) => [(from, c), (c, to)],
        None => [(from, to), (to, to)],
    };
    for (a, b) in parts {
        // The stretch begins at the first word of the first period that starts an access.
        let Some(start) = (a..(a + period).min(b)).find(|&k| stream.starts_access(k)) else {
            continue;
        };
        let reps = (b - start) / unit;
        if reps >= MIN_REPS {
            found.push(Repeat { start, unit, reps });
        }
    }
}

/// Replays `stream` through every member of `group`, piece by piece, skipping each member past
/// the rest of a repeated stretch once its state repeats; the counts of each member, in order.
pub fn replay_group(group: &mut [Box<dyn Replay>], stream: &BlockStream) -> Vec<Counts> {
    let mut at = 0;
    let found = match stream.has_repeats() {
        true => find(stream),
        false => Vec::new(),
    };
    for r in found {
        feed_all(group, stream, at, r.start, &mut vec![true; group.len()]);
        through_repeat(group, stream, r);
        at = r.end();
    }
    feed_all(
        group,
        stream,
        at,
        stream.len(),
        &mut vec![true; group.len()],
    );
    group.iter_mut().flat_map(|r| r.counts()).collect()
}

/// Feeds `stream[from..to]` to the members still `active`, piece by piece.
fn feed_all(
    group: &mut [Box<dyn Replay>],
    stream: &BlockStream,
    from: usize,
    to: usize,
    active: &mut [bool],
) {
    let mut at = from;
    while at < to {
        let end = (at + PIECE).min(to);
        for (r, _) in group.iter_mut().zip(active.iter()).filter(|(_, a)| **a) {
            r.feed(stream, at..end);
        }
        at = end;
    }
}

/// One stretch, unit by unit. After unit `u` a member compares its state with the one it marked
/// (after units 1, 2, 4, 8, …: a cycle of any length up to the mark's age is seen); on a match it
/// adds the cycles left at once and replays only the units that do not make a whole cycle.
fn through_repeat(group: &mut [Box<dyn Replay>], stream: &BlockStream, r: Repeat) {
    let mut active = vec![true; group.len()];
    // Per member: the units it still has to replay once it skipped (None: not skipped yet).
    let mut tail: Vec<Option<usize>> = vec![None; group.len()];
    let mut marked_at = vec![0usize; group.len()];
    for u in 1..=r.reps {
        let from = r.start + (u - 1) * r.unit;
        feed_all(group, stream, from, from + r.unit, &mut active);
        let left = r.reps - u;
        for (m, member) in group.iter_mut().enumerate() {
            if !active[m] {
                continue;
            }
            if let Some(t) = tail[m].as_mut() {
                *t -= 1;
                active[m] = *t > 0;
                continue;
            }
            if u > 1 && left > 0 {
                let cycle = u - marked_at[m];
                if member.repeat_if_steady((left / cycle) as u64) {
                    tail[m] = Some(left % cycle);
                    active[m] = !left.is_multiple_of(cycle);
                    continue;
                }
            }
            if u.is_power_of_two() {
                member.mark();
                marked_at[m] = u;
            }
        }
        if !active.iter().any(|a| *a) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::blocks::replay_plain;
    use crate::cache::stack::LruStack;
    use crate::cache::{policy_named, CacheConfig};

    /// A stream like a cipher's: a set-up part, then a loop body repeated many times (with an
    /// inner loop inside it, and a data-dependent part that breaks the repetition now and then),
    /// in the warm-up part and again in the counted part.
    fn cipher_like(line: u64, body: u64, blocks: u64) -> BlockStream {
        let mut s = BlockStream::new(line);
        let mut x = 0x2545_f491_u64;
        for call in 0..2 {
            if call == 1 {
                s.start_counting();
            }
            for k in 0..300u64 {
                s.push(0x40_0000 + k * 12, 4, 1);
            }
            for b in 0..blocks {
                for inner in 0..3 {
                    for k in 0..body {
                        s.push(0x1000 + k * 6 + inner * 2, 5, 1 + (k % 5 == 0) as u64);
                    }
                }
                for k in 0..body / 2 {
                    s.push(0x9000 + k * 8, 4, 1);
                }
                if b % 997 == 13 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    s.push(0x20_0000 + (x % 65536), 8, 1);
                }
            }
        }
        s
    }

    #[test]
    fn the_repeated_stretches_of_a_loop_are_found() {
        let s = cipher_like(16, 120, 3000);
        let found = find(&s);
        let covered: usize = found.iter().map(|r| r.unit * r.reps).sum();
        assert!(covered > s.len() * 9 / 10, "{covered} of {} words", s.len());
        for r in &found {
            let w = s.words();
            assert!(s.starts_access(r.start));
            let unit = &w[r.start..r.start + r.unit];
            for k in 1..r.reps {
                assert_eq!(unit, &w[r.start + k * r.unit..r.start + (k + 1) * r.unit]);
            }
            let c = s.counted_from().unwrap();
            assert!(r.end() <= c || r.start >= c, "{r:?} crosses {c}");
        }
    }

    /// A replayer that counts how often it skipped ahead.
    struct Counting(
        Box<dyn Replay>,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    );

    impl Replay for Counting {
        fn feed(&mut self, stream: &BlockStream, range: std::ops::Range<usize>) {
            self.0.feed(stream, range)
        }
        fn counts(&mut self) -> Vec<Counts> {
            self.0.counts()
        }
        fn mark(&mut self) {
            self.0.mark()
        }
        fn repeat_if_steady(&mut self, times: u64) -> bool {
            let skipped = self.0.repeat_if_steady(times);
            self.1
                .fetch_add(skipped as usize, std::sync::atomic::Ordering::Relaxed);
            skipped
        }
    }

    /// Skipping gives every policy and every LRU associativity the counts of a full replay, on
    /// whole and filtered streams, for caches that reach a steady state at once, after a cycle
    /// of several units, or never (random replacement with conflicts); and it does skip.
    #[test]
    fn skipping_repeats_counts_what_a_full_replay_counts() {
        let s = cipher_like(8, 200, 2500);
        let skips = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counting =
            |r: Box<dyn Replay>| -> Box<dyn Replay> { Box::new(Counting(r, skips.clone())) };
        for sets in [1usize, 8, 64, 256] {
            let f = s.for_sets(sets);
            for policy in ["fifo", "random", "lru"] {
                for ways in [1u64, 2, 4, 8] {
                    let cfg = CacheConfig::new(sets as u64 * ways * 8, 8, ways, policy).unwrap();
                    let maker = policy_named(policy).unwrap().replay;
                    let want = replay_plain(&mut [maker(&cfg)], &f);
                    let got = replay_group(&mut [counting(maker(&cfg))], &f);
                    assert_eq!(got, want, "{} on {sets} sets", cfg.label());
                }
            }
            let before = skips.load(std::sync::atomic::Ordering::Relaxed);
            let want = replay_plain(&mut [Box::new(LruStack::new(sets, 16))], &f);
            let got = replay_group(&mut [counting(Box::new(LruStack::new(sets, 16)))], &f);
            assert_eq!(got, want, "LRU stack, {sets} sets");
            assert!(
                skips.load(std::sync::atomic::Ordering::Relaxed) > before,
                "{sets} sets"
            );
        }
        // FIFO and random caches skip too (those that reach a steady state).
        assert!(skips.load(std::sync::atomic::Ordering::Relaxed) > 8);
    }
}
