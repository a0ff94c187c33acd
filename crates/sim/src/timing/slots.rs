//! Per-cycle capacity: how many of something (fetches, dispatches, issues, retirements, uses of
//! a unit kind) a cycle still has. A ring indexed by cycle, as the ILP model's issue slots: the
//! model only ever asks about cycles within a few thousand of each other.

const BITS: u32 = 16;

pub struct Slots {
    per_cycle: u32,
    ring: Vec<(u64, u32)>,
}

impl Slots {
    pub fn new(per_cycle: u32) -> Slots {
        Slots {
            per_cycle: per_cycle.max(1),
            ring: vec![(u64::MAX, 0); 1 << BITS],
        }
    }

    /// Whether cycle `t` has room left.
    #[inline]
    pub fn free(&self, t: u64) -> bool {
        let (cycle, used) = self.ring[(t as usize) & ((1 << BITS) - 1)];
        cycle != t || used < self.per_cycle
    }

    /// Takes one unit of cycle `t` (which must be free).
    #[inline]
    pub fn take(&mut self, t: u64) {
        let e = &mut self.ring[(t as usize) & ((1 << BITS) - 1)];
        if e.0 != t {
            *e = (t, 0);
        }
        e.1 += 1;
    }

    /// The first cycle at or after `t` with room; takes it.
    #[inline]
    pub fn take_first(&mut self, mut t: u64) -> u64 {
        while !self.free(t) {
            t += 1;
        }
        self.take(t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_holds_its_capacity_then_spills() {
        let mut s = Slots::new(2);
        assert_eq!(s.take_first(5), 5);
        assert_eq!(s.take_first(5), 5);
        assert_eq!(s.take_first(5), 6);
        assert_eq!(s.take_first(3), 3);
    }
}
