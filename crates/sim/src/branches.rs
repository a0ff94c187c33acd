//! Turns the instruction stream into branch outcomes (taken iff the next executed instruction
//! is not the fall-through address) and feeds them to predictors.

use crate::decode::{BranchKind, InstrInfo};
use crate::predict::{BranchPredictor, IndirectTable};
use crate::trace::{DataAccess, Sink};
use serde::{Deserialize, Serialize};

/// One resolved branch: conditional (taken flag, and the static hint its instruction encodes,
/// if any) or indirect (its target).
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    Conditional {
        pc: u64,
        taken: bool,
        hint: Option<bool>,
    },
    Indirect {
        pc: u64,
        target: u64,
    },
}

/// Pending branch waiting for the next instruction to show where it went.
#[derive(Default)]
pub struct Resolver {
    pending: Option<(u64, u64, BranchKind, Option<bool>)>,
}

impl Resolver {
    /// Call with every executed instruction; returns the outcome of the previous one when it
    /// was a branch a predictor cares about.
    #[inline]
    pub fn next(&mut self, info: &InstrInfo) -> Option<Outcome> {
        let out = match self.pending.take() {
            Some((pc, fall, BranchKind::Conditional, hint)) => Some(Outcome::Conditional {
                pc,
                taken: info.addr != fall,
                hint,
            }),
            Some((pc, _, BranchKind::Indirect, _)) => Some(Outcome::Indirect {
                pc,
                target: info.addr,
            }),
            _ => None,
        };
        if matches!(info.branch, BranchKind::Conditional | BranchKind::Indirect) {
            self.pending = Some((
                info.addr,
                info.addr + info.len as u64,
                info.branch,
                info.static_hint,
            ));
        }
        out
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BranchCounts {
    pub conditional: u64,
    pub conditional_mispredicted: u64,
    pub conditional_taken: u64,
    pub indirect: u64,
    pub indirect_mispredicted: u64,
}

/// A streaming branch simulation with one conditional predictor and the indirect table.
pub struct BranchSim {
    resolver: Resolver,
    predictor: Box<dyn BranchPredictor>,
    indirect: IndirectTable,
    pub counts: BranchCounts,
    pub counting: bool,
}

impl BranchSim {
    pub fn new(predictor: Box<dyn BranchPredictor>) -> BranchSim {
        BranchSim {
            resolver: Resolver::default(),
            predictor,
            indirect: IndirectTable::default(),
            counts: BranchCounts::default(),
            counting: true,
        }
    }

    pub fn outcome(&mut self, o: Outcome) {
        let c = self.counting as u64;
        match o {
            Outcome::Conditional { pc, taken, hint } => {
                self.counts.conditional += c;
                self.counts.conditional_taken += c * taken as u64;
                if self.predictor.mispredicts_hinted(pc, taken, hint) {
                    self.counts.conditional_mispredicted += c;
                }
            }
            Outcome::Indirect { pc, target } => {
                self.counts.indirect += c;
                if self.indirect.mispredicts(pc, target) {
                    self.counts.indirect_mispredicted += c;
                }
            }
        }
    }
}

impl Sink for BranchSim {
    #[inline]
    fn instruction(&mut self, info: &InstrInfo) {
        if let Some(o) = self.resolver.next(info) {
            self.outcome(o);
        }
    }
    #[inline]
    fn data(&mut self, _access: DataAccess) {}
}
