//! Static prediction: no conditional branch taken.

use super::BranchPredictor;

#[derive(Clone)]
struct NeverTaken;

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(NeverTaken)
}

impl BranchPredictor for NeverTaken {
    fn mispredicts(&mut self, _pc: u64, taken: bool) -> bool {
        taken
    }
}
