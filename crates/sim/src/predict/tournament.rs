//! Tournament (combined) predictor, as in the Alpha 21264 and McFarling's paper: a bimodal and a
//! gshare component, and per-branch 2-bit choosers trained toward whichever was right.

use super::bimodal::Bimodal;
use super::gshare::Gshare;
use super::{train, BranchPredictor};

const CHOOSER_BITS: u32 = 12;

#[derive(Clone)]
struct Tournament {
    local: Bimodal,
    global: Gshare,
    /// ≥ 2: trust gshare.
    chooser: Vec<u8>,
}

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(Tournament {
        local: Bimodal::new(),
        global: Gshare::new(),
        chooser: vec![1; 1 << CHOOSER_BITS],
    })
}

impl BranchPredictor for Tournament {
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool {
        let i = (pc & ((1 << CHOOSER_BITS) - 1)) as usize;
        let l = self.local.predict(pc);
        let g = self.global.predict(pc);
        let predicted = if self.chooser[i] >= 2 { g } else { l };
        if l != g {
            train(&mut self.chooser[i], g == taken);
        }
        self.local.update(pc, taken);
        self.global.update(pc, taken);
        predicted != taken
    }
}
