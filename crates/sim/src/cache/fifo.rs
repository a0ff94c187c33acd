//! First in, first out: evict the line filled longest ago; hits change nothing.

use super::ReplacementPolicy;

pub struct Fifo {
    ways: usize,
    clock: u64,
    filled_at: Vec<u64>,
}

impl Fifo {
    pub fn boxed(sets: usize, ways: usize) -> Box<dyn ReplacementPolicy> {
        Box::new(Fifo {
            ways,
            clock: 0,
            filled_at: vec![0; sets * ways],
        })
    }
}

impl ReplacementPolicy for Fifo {
    fn touched(&mut self, _set: usize, _way: usize) {}
    fn filled(&mut self, set: usize, way: usize) {
        self.clock += 1;
        self.filled_at[set * self.ways + way] = self.clock;
    }
    fn victim(&mut self, set: usize) -> usize {
        let s = &self.filled_at[set * self.ways..(set + 1) * self.ways];
        (0..self.ways).min_by_key(|w| s[*w]).unwrap_or(0)
    }
}
