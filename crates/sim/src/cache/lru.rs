//! Least recently used: evict the line whose last use is oldest (cachegrind's policy).

use super::ReplacementPolicy;

#[derive(Clone)]
pub struct Lru {
    ways: usize,
    clock: u64,
    last_use: Vec<u64>,
}

impl ReplacementPolicy for Lru {
    fn new(sets: usize, ways: usize) -> Lru {
        Lru {
            ways,
            clock: 0,
            last_use: vec![0; sets * ways],
        }
    }
    fn touched(&mut self, set: usize, way: usize) {
        self.clock += 1;
        self.last_use[set * self.ways + way] = self.clock;
    }
    fn filled(&mut self, set: usize, way: usize) {
        self.touched(set, way);
    }
    fn victim(&mut self, set: usize) -> usize {
        let s = &self.last_use[set * self.ways..(set + 1) * self.ways];
        (0..self.ways).min_by_key(|w| s[*w]).unwrap_or(0)
    }
}
