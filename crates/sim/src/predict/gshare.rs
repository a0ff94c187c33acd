//! Two-level gshare (McFarling): global history XOR branch address indexes 2-bit counters.

use super::{train, BranchPredictor};

pub const BITS: u32 = 12;

#[derive(Clone)]
pub struct Gshare {
    history: u64,
    counters: Vec<u8>,
}

impl Gshare {
    pub fn new() -> Gshare {
        Gshare {
            history: 0,
            counters: vec![0; 1 << BITS],
        }
    }
    #[inline]
    fn index(&self, pc: u64) -> usize {
        ((pc ^ self.history) & ((1 << BITS) - 1)) as usize
    }
    pub fn predict(&self, pc: u64) -> bool {
        self.counters[self.index(pc)] >= 2
    }
    pub fn update(&mut self, pc: u64, taken: bool) {
        let i = self.index(pc);
        train(&mut self.counters[i], taken);
        self.history = (self.history << 1) | taken as u64;
    }
}

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(Gshare::new())
}

impl BranchPredictor for Gshare {
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool {
        let wrong = self.predict(pc) != taken;
        self.update(pc, taken);
        wrong
    }
}
