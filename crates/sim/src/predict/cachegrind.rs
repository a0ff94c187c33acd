//! cachegrind's branch model, rebuilt from its documented design (cg_branchpred.c): 16384
//! 2-bit counters indexed by 7 bits of global history above 7 bits of the branch address, and
//! a 512-entry table of last targets for indirect branches. It exists so that callgrind
//! `--branch-sim=yes` can check our branch records: same trace, same model, same counts.

use super::{train, BranchPredictor};

const HIST_BITS: u32 = 7;
const ADDR_BITS: u32 = 7;

#[derive(Clone)]
struct CachegrindConditional {
    history: u64,
    counters: Vec<u8>,
}

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(CachegrindConditional {
        history: 0,
        counters: vec![0; 1 << (HIST_BITS + ADDR_BITS)],
    })
}

impl BranchPredictor for CachegrindConditional {
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool {
        let hist = self.history & ((1 << HIST_BITS) - 1);
        let addr = pc & ((1 << ADDR_BITS) - 1);
        let i = ((hist << ADDR_BITS) | addr) as usize;
        let wrong = (self.counters[i] >= 2) != taken;
        self.history = (self.history << 1) | taken as u64;
        train(&mut self.counters[i], taken);
        wrong
    }
}

/// Last-target table for indirect jumps and calls (returns are not predicted: a return stack
/// is assumed perfect, as cachegrind does).
#[derive(Clone)]
pub struct IndirectTable {
    targets: Vec<u64>,
}

impl Default for IndirectTable {
    fn default() -> Self {
        IndirectTable {
            targets: vec![0; 512],
        }
    }
}

impl IndirectTable {
    pub fn mispredicts(&mut self, pc: u64, target: u64) -> bool {
        let i = (pc & 511) as usize;
        let wrong = self.targets[i] != target;
        self.targets[i] = target;
        wrong
    }
}
