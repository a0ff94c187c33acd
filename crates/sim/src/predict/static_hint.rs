//! Bimodal that honours static hints on a cold entry: the first time one of its counters is used,
//! a conditional branch whose instruction encodes a hint (POWER's `+`/`-` "at" bits, read into
//! `InstrInfo::static_hint`) sets that counter to the hint's strong state (3 taken, 0 not taken);
//! a counter first used by an unhinted branch starts where plain bimodal's does (0, strongly not
//! taken). From then on it learns exactly as [`Bimodal`](super::bimodal::Bimodal) does, so the
//! two differ only on cold entries, which is what a hint patch can change.

use super::bimodal::{Bimodal, BITS};
use super::{train, BranchPredictor};

#[derive(Clone)]
pub struct StaticHint {
    counters: Vec<u8>,
    /// Whether a branch has used the counter yet (the cold entry is the first use).
    seen: Vec<bool>,
}

impl StaticHint {
    pub fn new() -> StaticHint {
        StaticHint {
            counters: vec![0; 1 << BITS],
            seen: vec![false; 1 << BITS],
        }
    }
}

pub fn boxed() -> Box<dyn BranchPredictor> {
    Box::new(StaticHint::new())
}

impl BranchPredictor for StaticHint {
    fn mispredicts(&mut self, pc: u64, taken: bool) -> bool {
        self.mispredicts_hinted(pc, taken, None)
    }

    fn mispredicts_hinted(&mut self, pc: u64, taken: bool, hint: Option<bool>) -> bool {
        let i = Bimodal::index(pc);
        if !self.seen[i] {
            self.seen[i] = true;
            if let Some(h) = hint {
                self.counters[i] = if h { 3 } else { 0 };
            }
        }
        let wrong = (self.counters[i] >= 2) != taken;
        train(&mut self.counters[i], taken);
        wrong
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{BranchKind, Decoded, InstrInfo};

    /// A conditional branch at `addr` (x86's `jne .`, decoded) given the static hint `hint`.
    fn branch(addr: u64, hint: Option<bool>) -> InstrInfo {
        let mut decoded = Decoded::default();
        let ix = decoded.intern(addr, &[0x75, 0xfe]);
        let mut info = decoded.info(ix).clone();
        assert_eq!(info.branch, BranchKind::Conditional);
        info.static_hint = hint;
        info
    }

    /// Mispredictions of `p` over `outcomes` of the branch `info`.
    fn misses(p: &mut dyn BranchPredictor, info: &InstrInfo, outcomes: &[bool]) -> usize {
        outcomes
            .iter()
            .filter(|&&t| p.mispredicts_hinted(info.addr, t, info.static_hint))
            .count()
    }

    /// A counted loop's back edge (`bdnz+`): taken `n - 1` times, then falls through.
    fn back_edge(n: usize) -> Vec<bool> {
        (0..n).map(|i| i + 1 < n).collect()
    }

    #[test]
    fn hinted_taken_back_edge_is_right_from_its_cold_entry() {
        let info = branch(0x1000_0a40, Some(true));
        let t = back_edge(4);
        // Plain bimodal starts strongly not taken: wrong on the first two iterations (0 -> 1 -> 2),
        // right on the third, wrong on the exit.
        assert_eq!(misses(&mut Bimodal::new(), &info, &t), 3);
        // The hint starts the counter at 3: only the exit is wrong.
        assert_eq!(misses(&mut StaticHint::new(), &info, &t), 1);
    }

    #[test]
    fn the_patched_aes_round_loop_decodes_hinted_and_misses_less_cold() {
        // aes_p8_encrypt's round loop back edge (aesp8-ppc.pl's Loop_enc) in the two ppc64le
        // workers of the branch-hint study, as powerpc64le-linux-gnu-objdump shows it at 0x21a064:
        // `bdnz` (e0 ff 00 42) unpatched, `bdnz+` (e0 ff 20 43) with
        // docs/experiments/patches/ppc-branch-hints.patch: BO 16 against 25, nothing else.
        let decode = |bytes: &[u8]| {
            let mut d = Decoded::new(crate::isa::Isa::Ppc64le);
            let ix = d.intern(0x21a064, bytes);
            d.info(ix).clone()
        };
        let base = decode(&[0xe0, 0xff, 0x00, 0x42]);
        let patched = decode(&[0xe0, 0xff, 0x20, 0x43]);
        assert_eq!(base.branch, BranchKind::Conditional);
        assert_eq!((base.static_hint, patched.static_hint), (None, Some(true)));
        // AES-128 takes the back edge rounds/2 - 2 = 3 times, then leaves: 4 outcomes.
        let t = back_edge(4);
        assert_eq!(misses(&mut StaticHint::new(), &base, &t), 3);
        assert_eq!(misses(&mut StaticHint::new(), &patched, &t), 1);
    }

    #[test]
    fn after_the_cold_entry_it_learns_as_bimodal() {
        let info = branch(0x1000_0a40, Some(true));
        let (mut hinted, mut plain) = (StaticHint::new(), Bimodal::new());
        misses(&mut hinted, &info, &back_edge(4));
        misses(&mut plain, &info, &back_edge(4));
        // Both counters sit at 2 after the exit; every later call of the loop costs each one miss.
        for _ in 0..10 {
            assert_eq!(misses(&mut hinted, &info, &back_edge(4)), 1);
            assert_eq!(misses(&mut plain, &info, &back_edge(4)), 1);
        }
    }

    #[test]
    fn a_wrong_hint_costs_what_a_wrong_strong_state_costs() {
        // `beq+` on a branch that is never taken: 3 -> 2 -> 1, two misses; plain bimodal none.
        let info = branch(0x2000, Some(true));
        let never = [false; 8];
        assert_eq!(misses(&mut StaticHint::new(), &info, &never), 2);
        assert_eq!(misses(&mut Bimodal::new(), &info, &never), 0);
        // `bne-` on a branch that is always taken: the same as bimodal's own cold start.
        let info = branch(0x2000, Some(false));
        let always = [true; 8];
        assert_eq!(misses(&mut StaticHint::new(), &info, &always), 2);
        assert_eq!(misses(&mut Bimodal::new(), &info, &always), 2);
    }

    #[test]
    fn unhinted_branches_are_plain_bimodal() {
        // A pseudo-random mix of branches and outcomes with no hints: identical miss counts.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut hinted, mut plain) = (StaticHint::new(), Bimodal::new());
        let (mut a, mut b) = (0, 0);
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (pc, taken) = (0x1000 + (x % 64) * 4, !x.is_multiple_of(3));
            a += hinted.mispredicts_hinted(pc, taken, None) as usize;
            b += plain.mispredicts(pc, taken) as usize;
        }
        assert_eq!(a, b);
        assert!(a > 0);
    }

    #[test]
    fn only_the_first_use_of_a_counter_reads_the_hint() {
        // Two branches 4096 bytes apart share a counter: the second is not cold, so its
        // `+` hint is not applied (the first, unhinted, left the counter at 0).
        let first = branch(0x1000, None);
        let alias = branch(0x1000 + (1 << BITS), Some(true));
        let mut p = StaticHint::new();
        assert_eq!(misses(&mut p, &first, &[false]), 0);
        assert_eq!(misses(&mut p, &alias, &[true]), 1);
    }

    #[test]
    fn it_is_in_the_registry() {
        let mut p = crate::predict::create("static-hint").unwrap();
        assert!(!p.mispredicts_hinted(0x40, true, Some(true)));
        assert!(p.mispredicts_hinted(0x80, true, None));
    }
}
