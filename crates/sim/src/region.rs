//! Recording the part of a trace that matters: from the worker's warm-up marker to its end
//! marker, compactly, so that hundreds of cache configurations, several predictors and the ILP
//! model can each replay it. Only the measured part (between the measure and end markers) is
//! counted; the warm-up part only warms the simulated caches and predictors.

use crate::decode::{Class, InstrInfo};
use crate::trace::{Access, DataAccess, Sink, MARK_END, MARK_MEASURE, MARK_WARMUP};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const INSTR_BIT: u64 = 1 << 63;

/// One recorded event: an instruction (its index in `Decoded`) or a data access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Instr(u32),
    Data(DataAccess),
}

#[inline]
pub fn unpack(w: u64) -> Event {
    if w & INSTR_BIT != 0 {
        Event::Instr(w as u32)
    } else {
        Event::Data(DataAccess {
            addr: w & 0xFFFF_FFFF_FFFF,
            size: ((w >> 48) & 0xFF) as u32,
            access: match (w >> 56) & 3 {
                0 => Access::Read,
                1 => Access::Write,
                _ => Access::Modify,
            },
            capped: (w >> 59) & 1 == 1,
        })
    }
}

#[inline]
fn pack_data(a: &DataAccess) -> u64 {
    let kind = match a.access {
        Access::Read => 0u64,
        Access::Write => 1,
        Access::Modify => 2,
    };
    (a.addr & 0xFFFF_FFFF_FFFF)
        | ((a.size.min(255) as u64) << 48)
        | (kind << 56)
        | ((a.capped as u64) << 59)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    BeforeWarmup,
    Warmup,
    Measured,
    After,
}

/// The instruction mix of the measured part.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Mix {
    pub instructions: u64,
    pub by_class: BTreeMap<Class, u64>,
    /// Instructions that read / write memory (a load-and-add counts as integer ALU in
    /// `by_class` and as reading memory here).
    pub reading_memory: u64,
    pub writing_memory: u64,
    pub data_reads: u64,
    pub data_writes: u64,
    pub undecodable: u64,
}

pub struct Recorder {
    pub phase: Phase,
    /// Record everything from the first instruction (whole-program mode) instead of waiting for
    /// the warm-up marker.
    pub whole_program: bool,
    pub events: Vec<u64>,
    /// Index in `events` where the measured part starts and ends.
    pub measured_from: usize,
    pub measured_to: usize,
    pub mix: Mix,
    pub limit: usize,
    pub overflowed: bool,
}

/// Room for `limit` events, reserved up front where the system grants the address space: pages
/// are touched only as events arrive, and the region never grows by copying (3DES's is 1.5 GB).
/// Under strict overcommit the reservation may be refused; the vector then grows as it fills.
/// The buffer is a recycled one where there is one ([`crate::recycle`]).
fn reserved(limit: usize) -> Vec<u64> {
    crate::recycle::take(limit)
}

impl Drop for Recorder {
    fn drop(&mut self) {
        crate::recycle::give(std::mem::take(&mut self.events));
    }
}

impl Recorder {
    /// Lackey's trace text ([`crate::trace::read_lackey`]) into this recorder. Not generic, so
    /// it is compiled here, in this crate, which test builds optimise (Cargo.toml): read from an
    /// unoptimised caller, the generic loop took 24 s for the 370 MB a 2 KB SHA-1 cell's trace
    /// holds.
    pub fn read_lackey(
        &mut self,
        src: &mut dyn std::io::BufRead,
        decoded: &mut crate::decode::Decoded,
        code: &mut dyn crate::trace::CodeSource,
        markers: &[(u64, u32)],
    ) -> Result<crate::trace::TraceTotals, String> {
        crate::trace::read_lackey(src, decoded, code, markers, self)
    }

    pub fn new(whole_program: bool, limit_events: usize) -> Recorder {
        Recorder {
            phase: if whole_program {
                Phase::Measured
            } else {
                Phase::BeforeWarmup
            },
            whole_program,
            events: reserved(limit_events),
            measured_from: 0,
            measured_to: usize::MAX,
            mix: Mix::default(),
            limit: limit_events,
            overflowed: false,
        }
    }

    #[inline]
    fn recording(&self) -> bool {
        matches!(self.phase, Phase::Warmup | Phase::Measured)
    }

    fn push(&mut self, w: u64) {
        if self.events.len() >= self.limit {
            self.overflowed = true;
            return;
        }
        self.events.push(w);
    }

    /// Moves the measured executions of instructions decoded again
    /// ([`crate::decode::Decoded::repair_page_crossers`]) from what they were counted as to what
    /// they are (`now`: the decoded table after the repair).
    pub fn recount(&mut self, was: &[InstrInfo], now: &crate::decode::Decoded) {
        if was.is_empty() {
            return; // nothing repaired: no pass over the events
        }
        let mut runs: std::collections::HashMap<u64, u64> =
            was.iter().map(|i| (INSTR_BIT | i.ix as u64, 0)).collect();
        for e in &self.events[self.measured_range()] {
            if let Some(n) = runs.get_mut(e) {
                *n += 1;
            }
        }
        for old in was {
            let (n, new) = (runs[&(INSTR_BIT | old.ix as u64)], now.info(old.ix));
            let m = &mut self.mix;
            if let Some(c) = m.by_class.get_mut(&old.class) {
                *c -= n;
            }
            m.by_class.retain(|_, c| *c > 0);
            *m.by_class.entry(new.class).or_insert(0) += n;
            m.reading_memory += n * new.reads_memory as u64;
            m.reading_memory -= n * old.reads_memory as u64;
            m.writing_memory += n * new.writes_memory as u64;
            m.writing_memory -= n * old.writes_memory as u64;
            m.undecodable -= n * (!old.decoded) as u64;
        }
    }

    /// The recorded measured part ends at `measured_to` (or wherever recording stopped).
    pub fn measured_range(&self) -> std::ops::Range<usize> {
        self.measured_from..self.measured_to.min(self.events.len())
    }
}

impl Sink for Recorder {
    #[inline]
    fn instruction(&mut self, info: &InstrInfo) {
        if !self.recording() {
            return;
        }
        if self.phase == Phase::Measured {
            let m = &mut self.mix;
            m.instructions += 1;
            *m.by_class.entry(info.class).or_insert(0) += 1;
            m.reading_memory += info.reads_memory as u64;
            m.writing_memory += info.writes_memory as u64;
            m.undecodable += (!info.decoded) as u64;
        }
        self.push(INSTR_BIT | info.ix as u64);
    }

    #[inline]
    fn data(&mut self, access: DataAccess) {
        if !self.recording() {
            return;
        }
        if self.phase == Phase::Measured {
            match access.access {
                Access::Write => self.mix.data_writes += 1,
                _ => self.mix.data_reads += 1,
            }
        }
        self.push(pack_data(&access));
    }

    fn marker(&mut self, code: u32) {
        if self.whole_program {
            return;
        }
        match code {
            MARK_WARMUP if self.phase == Phase::BeforeWarmup => self.phase = Phase::Warmup,
            MARK_MEASURE if self.phase <= Phase::Warmup => {
                self.phase = Phase::Measured;
                self.measured_from = self.events.len();
            }
            MARK_END if self.phase == Phase::Measured => {
                self.phase = Phase::After;
                self.measured_to = self.events.len();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_words_round_trip() {
        for a in [
            DataAccess {
                addr: 0x7fff_1234_5678,
                size: 32,
                access: Access::Modify,
                capped: true,
            },
            DataAccess {
                addr: 8,
                size: 1,
                access: Access::Write,
                capped: false,
            },
        ] {
            assert_eq!(unpack(pack_data(&a)), Event::Data(a));
        }
        assert_eq!(unpack(INSTR_BIT | 77), Event::Instr(77));
    }
}
