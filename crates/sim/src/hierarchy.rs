//! An I1 + D1 + unified LL hierarchy counted the way cachegrind counts: Ir/Dr/Dw references,
//! first-level and last-level misses, a "modify" counted as one read, the LL looked up with the
//! same address and size after a first-level miss. With LRU caches its counts equal
//! cachegrind's on the same trace; any policy can be plugged in.

use crate::cache::{Cache, CacheConfig};
use crate::decode::InstrInfo;
use crate::trace::{Access, DataAccess, Sink};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HierarchyCounts {
    pub ir: u64,
    pub i1mr: u64,
    pub ilmr: u64,
    pub dr: u64,
    pub d1mr: u64,
    pub dlmr: u64,
    pub dw: u64,
    pub d1mw: u64,
    pub dlmw: u64,
}

pub struct Hierarchy {
    i1: Cache,
    d1: Cache,
    ll: Cache,
    min_line: u32,
    pub counts: HierarchyCounts,
    /// Counting on/off (references still update the caches while off).
    pub counting: bool,
}

impl Hierarchy {
    pub fn new(i1: &CacheConfig, d1: &CacheConfig, ll: &CacheConfig) -> Hierarchy {
        Hierarchy {
            i1: Cache::new(i1),
            d1: Cache::new(d1),
            ll: Cache::new(ll),
            min_line: i1.line.min(d1.line).min(ll.line) as u32,
            counts: HierarchyCounts::default(),
            counting: true,
        }
    }

    #[inline]
    pub fn fetch(&mut self, addr: u64, len: u32) {
        let c = self.counting as u64;
        self.counts.ir += c;
        if self.i1.access_is_miss(addr, len) {
            self.counts.i1mr += c;
            if self.ll.access_is_miss(addr, len) {
                self.counts.ilmr += c;
            }
        }
    }

    #[inline]
    pub fn data_access(&mut self, a: DataAccess) {
        let size = if a.capped {
            a.size.min(self.min_line)
        } else {
            a.size
        };
        let c = self.counting as u64;
        let write = a.access == Access::Write;
        if write {
            self.counts.dw += c;
        } else {
            self.counts.dr += c;
        }
        if self.d1.access_is_miss(a.addr, size) {
            if write {
                self.counts.d1mw += c;
            } else {
                self.counts.d1mr += c;
            }
            if self.ll.access_is_miss(a.addr, size) {
                if write {
                    self.counts.dlmw += c;
                } else {
                    self.counts.dlmr += c;
                }
            }
        }
    }
}

impl Sink for Hierarchy {
    #[inline]
    fn instruction(&mut self, info: &InstrInfo) {
        self.fetch(info.addr, info.len as u32);
    }
    #[inline]
    fn data(&mut self, access: DataAccess) {
        self.data_access(access);
    }
}
