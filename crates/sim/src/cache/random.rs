//! Random replacement with a fixed seed (xorshift64*), so every run of the same trace gives the
//! same counts. Hand-written: a dependency for six lines of PRNG is not worth it, and the exact
//! sequence must never change under us.

use super::ReplacementPolicy;

#[derive(Clone)]
pub struct Random {
    ways: usize,
    state: u64,
}

pub const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

impl ReplacementPolicy for Random {
    fn new(_sets: usize, ways: usize) -> Random {
        Random { ways, state: SEED }
    }
    fn touched(&mut self, _set: usize, _way: usize) {}
    fn filled(&mut self, _set: usize, _way: usize) {}
    fn same_state(&self, other: &Self) -> bool {
        self.state == other.state
    }
    fn victim(&mut self, _set: usize) -> usize {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let r = (self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize;
        if self.ways.is_power_of_two() {
            r & (self.ways - 1) // the same number, without a division
        } else {
            r % self.ways
        }
    }
}
