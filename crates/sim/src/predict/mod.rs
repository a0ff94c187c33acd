//! Conditional-branch predictors behind one trait, selected by name, plus the indirect-target
//! table cachegrind uses. Adding a predictor: one file here and one line in [`PREDICTORS`]; one
//! that reads the static hints some instruction sets encode overrides
//! [`BranchPredictor::mispredicts_hinted`].

mod always_taken;
mod bimodal;
mod cachegrind;
mod gshare;
mod never_taken;
mod static_hint;
mod tournament;

pub use cachegrind::IndirectTable;

pub trait BranchPredictor: Send + ClonePredictor {
    /// Predicts the branch at `pc`, learns its real outcome; true when the prediction was wrong.
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool;

    /// The same for a branch whose instruction may carry a static hint (`Some(true)`: hinted
    /// taken, as `InstrInfo::static_hint`); every caller uses this one. Predictors that do not
    /// read hints keep this default, which ignores it.
    fn mispredicts_hinted(&mut self, pc: u64, taken: bool, hint: Option<bool>) -> bool {
        let _ = hint;
        self.mispredicts(pc, taken)
    }
}

/// A boxed predictor's copy (the timing model warms one and copies it): any `Clone` predictor.
pub trait ClonePredictor {
    fn clone_box(&self) -> Box<dyn BranchPredictor>;
}

impl<T: BranchPredictor + Clone + 'static> ClonePredictor for T {
    fn clone_box(&self) -> Box<dyn BranchPredictor> {
        Box::new(self.clone())
    }
}

type PredictorMaker = fn() -> Box<dyn BranchPredictor>;

/// Registry: name, description, constructor.
pub const PREDICTORS: &[(&str, &str, PredictorMaker)] = &[
    (
        "always-taken",
        "static: every branch taken",
        always_taken::boxed,
    ),
    ("never-taken", "static: no branch taken", never_taken::boxed),
    (
        "bimodal",
        "4096 2-bit counters indexed by address",
        bimodal::boxed,
    ),
    (
        "gshare",
        "two-level: 12 bits of global history XOR address, 4096 2-bit counters",
        gshare::boxed,
    ),
    (
        "tournament",
        "bimodal and gshare, chosen per branch by 4096 2-bit counters",
        tournament::boxed,
    ),
    (
        "cachegrind",
        "cachegrind's: 7 history bits and 7 address bits index 16384 2-bit counters",
        cachegrind::boxed,
    ),
    (
        "static-hint",
        "bimodal whose counter starts at the instruction's static hint (POWER +/-) on first use",
        static_hint::boxed,
    ),
];

pub fn names() -> Vec<&'static str> {
    PREDICTORS.iter().map(|(n, _, _)| *n).collect()
}

pub fn create(name: &str) -> Result<Box<dyn BranchPredictor>, String> {
    PREDICTORS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, _, f)| f())
        .ok_or_else(|| {
            format!(
                "unknown branch predictor '{name}'; known: {}",
                names().join(", ")
            )
        })
}

/// A 2-bit saturating counter: 0-1 predict not taken, 2-3 taken.
#[inline]
pub(crate) fn train(counter: &mut u8, taken: bool) {
    if taken {
        *counter = (*counter + 1).min(3);
    } else {
        *counter = counter.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(name: &str, trace: &[(u64, bool)]) -> usize {
        let mut p = create(name).unwrap();
        trace
            .iter()
            .filter(|(pc, t)| p.mispredicts(*pc, *t))
            .count()
    }

    /// A loop branch taken 9 times then falling through, run 10 times: 100 branches.
    fn loop_trace() -> Vec<(u64, bool)> {
        (0..10)
            .flat_map(|_| (0..10).map(|i| (0x400100u64, i < 9)))
            .collect()
    }

    #[test]
    fn static_predictors_count_the_other_direction() {
        let t = loop_trace();
        assert_eq!(count("always-taken", &t), 10);
        assert_eq!(count("never-taken", &t), 90);
    }

    #[test]
    fn bimodal_learns_a_loop() {
        // Counter starts at 0 (strongly not taken): first two iterations mispredict, then each
        // exit mispredicts once and the counter (3 → 2) still predicts taken next time.
        assert_eq!(count("bimodal", &loop_trace()), 2 + 10);
    }

    #[test]
    fn history_predictors_learn_an_alternating_branch() {
        let t: Vec<(u64, bool)> = (0..1000).map(|i| (0x400200u64, i % 2 == 0)).collect();
        let bimodal = count("bimodal", &t);
        assert!(
            bimodal >= 499,
            "bimodal cannot learn alternation: {bimodal}"
        );
        for p in ["gshare", "tournament", "cachegrind"] {
            let n = count(p, &t);
            assert!(
                n < 20,
                "{p} should learn alternation after warm-up, got {n}"
            );
        }
    }

    #[test]
    fn unknown_predictor_is_named() {
        assert!(create("perceptron")
            .err()
            .unwrap()
            .contains("known: always-taken"));
    }
}
