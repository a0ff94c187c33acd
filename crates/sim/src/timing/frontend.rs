//! The branch unit the fetch stage consults: a conditional predictor from the registry, a
//! direct-mapped branch target buffer for taken branches, cachegrind's indirect-target table,
//! and a perfect return stack.

use crate::branches::Outcome;
use crate::predict::{self, BranchPredictor, IndirectTable};

/// What a resolved branch costs the front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// Predicted right, target known: fetch goes on (a taken branch still ends the cycle).
    None,
    /// Direction right but the target was not in the BTB: a short decode-time bubble.
    Target,
    /// Wrong direction or wrong indirect target: fetch restarts after the branch resolves.
    Mispredict,
}

pub trait TargetBuffer {
    /// Looks `pc` up for a taken branch to `target`; true when it held that target. Learns it.
    fn hit(&mut self, pc: u64, target: u64) -> bool;
}

/// A direct-mapped BTB indexed by the branch's address; 0 entries means perfect.
#[derive(Clone)]
pub struct DirectBtb {
    entries: Vec<(u64, u64)>,
}

impl DirectBtb {
    pub fn new(entries: u32) -> DirectBtb {
        DirectBtb {
            entries: vec![
                (u64::MAX, 0);
                entries.next_power_of_two() as usize * (entries > 0) as usize
            ],
        }
    }
}

impl TargetBuffer for DirectBtb {
    fn hit(&mut self, pc: u64, target: u64) -> bool {
        if self.entries.is_empty() {
            return true;
        }
        let k = (pc as usize) & (self.entries.len() - 1);
        let hit = self.entries[k] == (pc, target);
        self.entries[k] = (pc, target);
        hit
    }
}

impl Clone for BranchUnit {
    fn clone(&self) -> BranchUnit {
        BranchUnit {
            predictor: self.predictor.clone_box(),
            btb: self.btb.clone(),
            indirect: self.indirect.clone(),
            mispredicts: self.mispredicts,
        }
    }
}

pub struct BranchUnit {
    predictor: Box<dyn BranchPredictor>,
    btb: DirectBtb,
    indirect: IndirectTable,
    pub mispredicts: u64,
}

impl BranchUnit {
    pub fn new(predictor: &str, btb_entries: u32) -> Result<BranchUnit, String> {
        Ok(BranchUnit {
            predictor: predict::create(predictor)?,
            btb: DirectBtb::new(btb_entries),
            indirect: IndirectTable::default(),
            mispredicts: 0,
        })
    }

    /// A conditional or indirect branch's outcome (`next` is where execution went).
    pub fn resolve(&mut self, o: Outcome, next: u64) -> Redirect {
        let r = match o {
            Outcome::Conditional { pc, taken, hint } => {
                if self.predictor.mispredicts_hinted(pc, taken, hint) {
                    Redirect::Mispredict
                } else if taken && !self.btb.hit(pc, next) {
                    Redirect::Target
                } else {
                    Redirect::None
                }
            }
            Outcome::Indirect { pc, target } => {
                if self.indirect.mispredicts(pc, target) {
                    Redirect::Mispredict
                } else {
                    Redirect::None
                }
            }
        };
        self.mispredicts += (r == Redirect::Mispredict) as u64;
        r
    }

    /// A direct jump or call to `target`.
    pub fn direct(&mut self, pc: u64, target: u64) -> Redirect {
        if self.btb.hit(pc, target) {
            Redirect::None
        } else {
            Redirect::Target
        }
    }
}
