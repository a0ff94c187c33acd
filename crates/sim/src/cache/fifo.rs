//! First in, first out: evict the line filled longest ago; hits change nothing. The cache fills
//! a set's invalid ways in order and never invalidates, so the line filled longest ago is always
//! the one after the way filled last: a pointer per set instead of a fill time per line.

use super::ReplacementPolicy;

#[derive(Clone)]
pub struct Fifo {
    ways: usize,
    next: Vec<u8>,
}

impl ReplacementPolicy for Fifo {
    fn new(sets: usize, ways: usize) -> Fifo {
        assert!(ways <= 256, "FIFO keeps a way number in a byte");
        Fifo {
            ways,
            next: vec![0; sets],
        }
    }
    fn touched(&mut self, _set: usize, _way: usize) {}
    fn filled(&mut self, set: usize, way: usize) {
        self.next[set] = ((way + 1) % self.ways) as u8;
    }
    fn same_state(&self, other: &Self) -> bool {
        self.next == other.next
    }
    fn victim(&mut self, set: usize) -> usize {
        self.next[set] as usize
    }
}
