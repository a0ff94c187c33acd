//! Static prediction: every conditional branch taken.

use super::BranchPredictor;

#[derive(Clone)]
struct AlwaysTaken;

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(AlwaysTaken)
}

impl BranchPredictor for AlwaysTaken {
    fn mispredicts(&mut self, _pc: u64, taken: bool) -> bool {
        !taken
    }
}
