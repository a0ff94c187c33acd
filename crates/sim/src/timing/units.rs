//! Functional units by kind: each kind has a count; pipelined kinds accept that many operations
//! per cycle, an unpipelined one (the divider) is busy for its whole latency.

use super::slots::Slots;
use super::TimingConfig;
use crate::decode::{Class, InstrInfo};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    IntAlu,
    Mul,
    Div,
    Mem,
    Simd,
    Crypto,
}

/// Which unit an instruction needs and for how long its result takes (loads: the memory
/// system's latency is added by the caller).
pub fn unit_of(info: &InstrInfo, c: &TimingConfig) -> (UnitKind, u32) {
    match info.class {
        Class::MulDiv if info.divide => (UnitKind::Div, c.div_latency),
        Class::MulDiv => (UnitKind::Mul, c.mul_latency),
        Class::Load | Class::Store => (UnitKind::Mem, 0),
        Class::Simd => (UnitKind::Simd, c.simd_latency),
        Class::Crypto => (UnitKind::Crypto, c.crypto_latency),
        _ => (UnitKind::IntAlu, c.int_latency),
    }
}

/// The execution resources: when can an operation of a kind start, at or after a cycle.
pub trait Units {
    /// Reserves a unit of `kind` for an operation ready at `t`; returns its start cycle.
    fn reserve(&mut self, kind: UnitKind, t: u64, latency: u32) -> u64;
}

pub struct UnitPool {
    int: Slots,
    mul: Slots,
    mem: Slots,
    simd: Slots,
    crypto: Slots,
    /// When each divider is next free.
    dividers: Vec<u64>,
}

impl UnitPool {
    pub fn new(c: &TimingConfig) -> UnitPool {
        UnitPool {
            int: Slots::new(c.int_alus),
            mul: Slots::new(c.mul_units),
            mem: Slots::new(c.mem_ports),
            simd: Slots::new(c.simd_units),
            crypto: Slots::new(c.crypto_units),
            dividers: vec![0; c.mul_units as usize],
        }
    }
}

impl Units for UnitPool {
    fn reserve(&mut self, kind: UnitKind, t: u64, latency: u32) -> u64 {
        let slots = match kind {
            UnitKind::IntAlu => &mut self.int,
            UnitKind::Mul => &mut self.mul,
            UnitKind::Mem => &mut self.mem,
            UnitKind::Simd => &mut self.simd,
            UnitKind::Crypto => &mut self.crypto,
            UnitKind::Div => {
                let (k, free) = self
                    .dividers
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, f)| **f)
                    .map(|(k, f)| (k, *f))
                    .expect("at least one divider");
                let start = t.max(free);
                self.dividers[k] = start + latency.max(1) as u64;
                return start;
            }
        };
        slots.take_first(t)
    }
}
