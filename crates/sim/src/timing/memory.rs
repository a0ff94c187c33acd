//! The memory system the timing model sees: an I1 and a D1 in front of a unified L2 and a
//! fixed-latency memory, the same caches (and replacement policies) as the miss-rate grid.

use super::TimingConfig;
use crate::cache::Cache;
use crate::trace::{Access, DataAccess};

/// Where an access was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    L1,
    L2,
    Memory,
}

pub trait MemorySystem {
    /// An instruction fetch: where its bytes came from.
    fn fetch(&mut self, addr: u64, len: u32) -> Served;
    /// A data access: where it was served.
    fn data(&mut self, access: &DataAccess) -> Served;
    /// Cycles from issue to use for an access served at `level`.
    fn latency(&self, level: Served) -> u32;
}

#[derive(Clone)]
pub struct Caches {
    i1: Cache,
    d1: Cache,
    l2: Cache,
    latencies: [u32; 3],
}

impl Caches {
    pub fn new(c: &TimingConfig) -> Caches {
        Caches {
            i1: Cache::new(&c.i1),
            d1: Cache::new(&c.d1),
            l2: Cache::new(&c.l2),
            latencies: [c.l1_latency, c.l2_latency, c.memory_latency],
        }
    }

    /// These caches, already warmed, with `c`'s latencies.
    pub fn from_parts(i1: Cache, d1: Cache, l2: Cache, c: &TimingConfig) -> Caches {
        Caches {
            i1,
            d1,
            l2,
            latencies: [c.l1_latency, c.l2_latency, c.memory_latency],
        }
    }

    /// The same caches, with `c`'s latencies.
    pub fn with_latencies(mut self, c: &TimingConfig) -> Caches {
        self.latencies = [c.l1_latency, c.l2_latency, c.memory_latency];
        self
    }

    fn below_l1(&mut self, addr: u64, size: u32) -> Served {
        if self.l2.access_is_miss(addr, size) {
            Served::Memory
        } else {
            Served::L2
        }
    }
}

impl MemorySystem for Caches {
    fn fetch(&mut self, addr: u64, len: u32) -> Served {
        if self.i1.access_is_miss(addr, len) {
            self.below_l1(addr, len)
        } else {
            Served::L1
        }
    }

    fn data(&mut self, a: &DataAccess) -> Served {
        let _ = a.access == Access::Write; // write-allocate: a store misses like a load
        if self.d1.access_is_miss(a.addr, a.size) {
            self.below_l1(a.addr, a.size)
        } else {
            Served::L1
        }
    }

    fn latency(&self, level: Served) -> u32 {
        match level {
            Served::L1 => self.latencies[0],
            Served::L2 => self.latencies[1],
            Served::Memory => self.latencies[2],
        }
    }
}
