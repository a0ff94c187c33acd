//! Bimodal: a table of 2-bit saturating counters indexed by the branch address.

use super::{train, BranchPredictor};

pub const BITS: u32 = 12;

#[derive(Clone)]
pub struct Bimodal {
    counters: Vec<u8>,
}

impl Bimodal {
    pub fn new() -> Bimodal {
        Bimodal {
            counters: vec![0; 1 << BITS],
        }
    }
    #[inline]
    pub fn index(pc: u64) -> usize {
        (pc & ((1 << BITS) - 1)) as usize
    }
    pub fn predict(&self, pc: u64) -> bool {
        self.counters[Self::index(pc)] >= 2
    }
    pub fn update(&mut self, pc: u64, taken: bool) {
        train(&mut self.counters[Self::index(pc)], taken);
    }
}

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(Bimodal::new())
}

impl BranchPredictor for Bimodal {
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool {
        let wrong = self.predict(pc) != taken;
        self.update(pc, taken);
        wrong
    }
}
