//! A trace-driven out-of-order timing model in the spirit of SimpleScalar's `sim-outorder`:
//! turns the traced instruction stream, the simulated caches and a branch predictor into cycles,
//! IPC and a CPI stack, so a design choice reads as "cycles per byte" instead of "miss rate".
//!
//! Model (one pass in program order; each instruction gets a fetch, dispatch, issue, done and
//! commit cycle): fetch takes `fetch_width` instructions a cycle, ends the cycle at a taken
//! branch, stalls on an I1 miss for the L2/memory latency and may run at most `fetch_queue`
//! instructions ahead of dispatch; dispatch takes `decode_width` a cycle, `frontend_stages` after
//! fetch, when the reorder window (`rob`) and, for memory instructions, the load/store queue
//! (`lsq`) have room; an instruction issues (`issue_width` a cycle) once its register operands
//! (renamed: true dependences only, RFLAGS as one register, stack-pointer updates of push/pop/
//! call/ret free) and a unit of its kind are ready; a memory read first waits for its address
//! registers and any earlier store to the same 8-byte granule, then for the D1/L2/memory
//! latency, or for `store_forward_latency` when stores not yet committed hold every granule it
//! reads (store-to-load forwarding); commit is in order, `commit_width` a cycle. A mispredicted branch (wrong direction,
//! or wrong indirect target) restarts fetch `mispredict_penalty` cycles after it executes; a
//! taken branch whose target the BTB lacks costs `btb_miss_penalty`. Not modelled: wrong-path
//! instructions (they would pollute caches and predictors), memory bandwidth and MSHR limits,
//! store-buffer stalls, micro-op fusion and splitting (one x86 instruction = one operation),
//! partial-register and flags merges.
//!
//! The CPI stack charges each cycle between two commits to why the later instruction was late:
//! its D-cache miss, a wait for a unit / the window / the queues (structural), a wait for
//! operands or its own latency (dependences), a late fetch after a mispredict or BTB miss
//! (branch) or an I-cache miss, and otherwise the machine's width (base). It adds up to the
//! cycles exactly.

mod config;
pub mod cores;
mod frontend;
mod memory;
mod slots;
pub mod sweeps;
#[cfg(test)]
mod tests;
mod units;
pub mod warm;

pub use config::TimingConfig;

use crate::decode::{BranchKind, Decoded, InstrInfo};
use crate::region::{unpack, Event};
use crate::trace::{Access, DataAccess};
use frontend::{BranchUnit, Redirect};
use memory::{Caches, MemorySystem, Served};
use serde::{Deserialize, Serialize};
use slots::Slots;
use units::{unit_of, UnitKind, UnitPool, Units};

/// Cycles by cause; they add up to the cycles.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpiStack {
    pub base: u64,
    pub dependences: u64,
    pub branch: u64,
    pub icache: u64,
    pub dcache: u64,
    pub structural: u64,
}

impl CpiStack {
    pub const NAMES: [&'static str; 6] = [
        "base",
        "dependences",
        "branch",
        "I-cache",
        "D-cache",
        "structural",
    ];

    pub fn values(&self) -> [u64; 6] {
        [
            self.base,
            self.dependences,
            self.branch,
            self.icache,
            self.dcache,
            self.structural,
        ]
    }

    fn charge(&mut self, cause: Cause, cycles: u64) {
        match cause {
            Cause::Base => self.base += cycles,
            Cause::Dependence => self.dependences += cycles,
            Cause::Branch => self.branch += cycles,
            Cause::ICache => self.icache += cycles,
            Cause::DCache => self.dcache += cycles,
            Cause::Structural => self.structural += cycles,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Base,
    Dependence,
    Branch,
    ICache,
    DCache,
    Structural,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TimingResult {
    /// Instructions timed (the sample), and the cycles they took.
    pub instructions: u64,
    pub cycles: u64,
    pub ipc: f64,
    pub cpi: CpiStack,
    pub mispredicts: u64,
    /// Instructions replayed before the sample only to warm the caches and predictors.
    pub warmed: u64,
}

/// A branch waiting for the next instruction to show where it went.
#[derive(Clone)]
struct Pending {
    pc: u64,
    fall_through: u64,
    kind: BranchKind,
    hint: Option<bool>,
    fetched: u64,
    done: u64,
}

const REG_SLOTS: usize = 512;
const MEM_BITS: u32 = 16;

/// The core's state while it runs.
struct Core<'c> {
    cfg: &'c TimingConfig,
    mem: Caches,
    units: UnitPool,
    branches: BranchUnit,
    fetch: Slots,
    dispatch: Slots,
    issue: Slots,
    commit: Slots,
    reg_ready: Vec<u64>,
    mem_tag: Vec<u64>,
    mem_ready: Vec<u64>,
    /// The commit cycle of the last store to each granule: in flight before it.
    mem_commit: Vec<u64>,
    /// Cycles the last `fetch_queue` instructions left the fetch queue, commit cycles of the last `rob`
    /// instructions and of the last `lsq` memory instructions (rings).
    dispatched: Vec<u64>,
    committed: Vec<u64>,
    mem_committed: Vec<u64>,
    n: u64,
    n_mem: u64,
    /// `n` modulo the fetch queue and the window, `n_mem` modulo the load/store queue: the
    /// rings' slots, kept as counters (a division per ring and instruction cost more than the
    /// rest of the step's arithmetic).
    at_q: usize,
    at_rob: usize,
    at_lsq: usize,
    fetch_at: u64,
    fetch_cause: Cause,
    last_fetch_line: u64,
    last_commit: u64,
    pending: Option<Pending>,
    stack: CpiStack,
}

impl<'c> Core<'c> {
    fn new(cfg: &'c TimingConfig) -> Result<Core<'c>, String> {
        cfg.check()?;
        Ok(Core {
            cfg,
            mem: Caches::new(cfg),
            units: UnitPool::new(cfg),
            branches: BranchUnit::new(&cfg.predictor, cfg.btb_entries)?,
            fetch: Slots::new(cfg.fetch_width),
            dispatch: Slots::new(cfg.decode_width),
            issue: Slots::new(cfg.issue_width),
            commit: Slots::new(cfg.commit_width),
            reg_ready: vec![0; REG_SLOTS],
            mem_tag: vec![u64::MAX; 1 << MEM_BITS],
            mem_ready: vec![0; 1 << MEM_BITS],
            mem_commit: vec![0; 1 << MEM_BITS],
            dispatched: vec![0; cfg.fetch_queue as usize],
            committed: vec![0; cfg.rob as usize],
            mem_committed: vec![0; cfg.lsq as usize],
            n: 0,
            n_mem: 0,
            at_q: 0,
            at_rob: 0,
            at_lsq: 0,
            fetch_at: 0,
            fetch_cause: Cause::Base,
            last_fetch_line: u64::MAX,
            last_commit: 0,
            pending: None,
            stack: CpiStack::default(),
        })
    }

    /// Warm-up of the branch unit: it learns where the previous branch went, nothing is timed.
    fn warm_branch(&mut self, info: &InstrInfo) {
        if let Some(p) = self.pending.take() {
            self.resolve(&p, info.addr);
        }
        self.pending = pending_branch(info, 0, 0);
    }

    /// Warm-up of the caches: they see the instruction's fetch and data, nothing is timed.
    fn warm_memory(&mut self, info: &InstrInfo, data: &[DataAccess]) {
        let line = info.addr >> self.cfg.i1.line.trailing_zeros();
        if line != self.last_fetch_line {
            self.mem.fetch(info.addr, info.len as u32);
            self.last_fetch_line = line;
        }
        for a in data {
            self.mem.data(a);
        }
    }

    /// Tells the branch unit where the previous branch went, and moves fetch accordingly.
    fn resolve(&mut self, p: &Pending, next: u64) -> (bool, Redirect) {
        use crate::branches::Outcome;
        let taken = next != p.fall_through;
        let redirect = match p.kind {
            BranchKind::Conditional => self.branches.resolve(
                Outcome::Conditional {
                    pc: p.pc,
                    taken,
                    hint: p.hint,
                },
                next,
            ),
            BranchKind::Indirect => self.branches.resolve(
                Outcome::Indirect {
                    pc: p.pc,
                    target: next,
                },
                next,
            ),
            BranchKind::Direct => self.branches.direct(p.pc, next),
            BranchKind::Return | BranchKind::None => Redirect::None,
        };
        (taken, redirect)
    }

    /// The cycle the instruction is fetched in, and why it was not earlier.
    fn fetch_stage(&mut self, info: &InstrInfo) -> (u64, Cause) {
        if let Some(p) = self.pending.take() {
            let (taken, redirect) = self.resolve(&p, info.addr);
            let after = match redirect {
                Redirect::Mispredict => p.done + self.cfg.mispredict_penalty as u64,
                Redirect::Target => p.fetched + 1 + self.cfg.btb_miss_penalty as u64,
                Redirect::None if taken => p.fetched + 1,
                Redirect::None => 0,
            };
            if after > self.fetch_at {
                self.fetch_at = after;
                self.fetch_cause = if redirect == Redirect::None {
                    Cause::Base
                } else {
                    Cause::Branch
                };
            }
        }
        let (mut f, mut cause) = (self.fetch_at, self.fetch_cause);
        let q = self.cfg.fetch_queue as u64;
        if self.n >= q {
            let freed = self.dispatched[self.at_q];
            if freed > f {
                (f, cause) = (freed, Cause::Structural);
            }
        }
        let line = info.addr >> self.cfg.i1.line.trailing_zeros();
        if line != self.last_fetch_line {
            self.last_fetch_line = line;
            let served = self.mem.fetch(info.addr, info.len as u32);
            if served != Served::L1 {
                f += self.mem.latency(served) as u64;
                cause = Cause::ICache;
            }
        }
        let at = self.fetch.take_first(f);
        if at > f {
            cause = Cause::Base;
        }
        (self.fetch_at, self.fetch_cause) = (at, Cause::Base);
        (at, cause)
    }

    /// The dispatch cycle (into the window), and why it was not earlier.
    fn dispatch_stage(&mut self, fetched: u64, cause: Cause, memory: bool) -> (u64, Cause) {
        let (mut d, mut cause) = (fetched + self.cfg.frontend_stages as u64, cause);
        let rob = self.cfg.rob as u64;
        if self.n >= rob {
            let freed = self.committed[self.at_rob] + 1;
            if freed > d {
                (d, cause) = (freed, Cause::Structural);
            }
        }
        let lsq = self.cfg.lsq as u64;
        if memory && self.n_mem >= lsq {
            let freed = self.mem_committed[self.at_lsq] + 1;
            if freed > d {
                (d, cause) = (freed, Cause::Structural);
            }
        }
        let at = self.dispatch.take_first(d);
        if at > d {
            cause = Cause::Base;
        }
        // It left the fetch queue when it entered the front end's next stage.
        self.dispatched[self.at_q] = at + 1 - self.cfg.frontend_stages.max(1) as u64;
        (at, cause)
    }
}

impl Core<'_> {
    /// Issue and execution: the cycle the result is ready, and why it was not earlier.
    fn execute(
        &mut self,
        info: &InstrInfo,
        data: &[DataAccess],
        d: u64,
        dcause: Cause,
    ) -> (u64, Cause) {
        let ready = info
            .sources
            .iter()
            .map(|s| self.reg_ready[*s as usize])
            .max()
            .unwrap_or(0);
        let addr_ready = info
            .address_sources
            .iter()
            .map(|s| self.reg_ready[*s as usize])
            .max()
            .unwrap_or(0);
        let (kind, lat) = unit_of(info, self.cfg);
        let earliest = d + 1;
        // Memory reads: address (and any earlier store to the granule), a port, the latency.
        let mut loaded: Option<(u64, bool)> = None;
        for a in data {
            let served = self.mem.data(a);
            if a.access == Access::Write {
                continue;
            }
            let (after, forwarded) = self.older_stores(a, addr_ready.max(earliest));
            let port = self.units.reserve(UnitKind::Mem, after, 0);
            let (latency, missed) = match forwarded {
                true => (self.cfg.store_forward_latency, false),
                false => (self.mem.latency(served), served != Served::L1),
            };
            let value = port + latency as u64;
            loaded = Some(match loaded {
                Some((v, m)) if v >= value => (v, m),
                _ => (value, missed),
            });
        }
        let (operands, start, done) = match (kind, loaded) {
            // A plain load: done when its value arrives (it already used an issue slot's port).
            (UnitKind::Mem, Some((value, _))) => (value, value, value),
            _ => {
                let mut t = earliest.max(ready);
                if kind == UnitKind::Mem {
                    t = t.max(addr_ready);
                }
                if let Some((value, _)) = loaded {
                    t = t.max(value);
                }
                let start = self.units.reserve(kind, t, lat);
                let start = self.issue.take_first(start);
                (t, start, start + lat.max(1) as u64)
            }
        };
        let cause = match loaded {
            Some((value, true)) if value >= operands && value > earliest => Cause::DCache,
            _ if start > operands => Cause::Structural,
            _ if operands > earliest || lat > 1 => Cause::Dependence,
            _ => dcause,
        };
        for a in data.iter().filter(|a| a.access != Access::Read) {
            for g in granules(a) {
                let k = (g as usize) & ((1 << MEM_BITS) - 1);
                self.mem_tag[k] = g;
                self.mem_ready[k] = done;
            }
        }
        for dst in &info.dests {
            self.reg_ready[*dst as usize] = done;
        }
        (done, cause)
    }

    /// When a read at `after` can start, given the earlier stores to its granules (their data
    /// must be ready), and whether stores in flight (committing no earlier than the read: a
    /// store writes the cache only once committed) hold all of its granules: then it takes the
    /// value from the store queue (store-to-load forwarding), not from the cache.
    fn older_stores(&self, a: &DataAccess, mut after: u64) -> (u64, bool) {
        let mut in_flight = true;
        let mut last_commit = u64::MAX;
        for g in granules(a) {
            let k = (g as usize) & ((1 << MEM_BITS) - 1);
            if self.mem_tag[k] == g {
                after = after.max(self.mem_ready[k]);
                last_commit = last_commit.min(self.mem_commit[k]);
            } else {
                in_flight = false;
            }
        }
        (after, in_flight && last_commit >= after)
    }

    /// One timed instruction through every stage.
    fn step(&mut self, info: &InstrInfo, data: &[DataAccess]) {
        let memory = !data.is_empty();
        let (fetched, fcause) = self.fetch_stage(info);
        let (d, dcause) = self.dispatch_stage(fetched, fcause, memory);
        let (done, cause) = self.execute(info, data, d, dcause);
        let c = self.commit.take_first(done.max(self.last_commit));
        // Cycles until it was done are its cause's; any beyond are the commit width's.
        let late = done
            .saturating_sub(self.last_commit)
            .min(c - self.last_commit);
        self.stack.charge(cause, late);
        self.stack.charge(Cause::Base, c - self.last_commit - late);
        self.last_commit = c;
        self.committed[self.at_rob] = c;
        for a in data.iter().filter(|a| a.access != Access::Read) {
            for g in granules(a) {
                self.mem_commit[(g as usize) & ((1 << MEM_BITS) - 1)] = c;
            }
        }
        if memory {
            self.mem_committed[self.at_lsq] = c;
            self.n_mem += 1;
            self.at_lsq = next_in_ring(self.at_lsq, self.mem_committed.len());
        }
        self.n += 1;
        self.at_q = next_in_ring(self.at_q, self.dispatched.len());
        self.at_rob = next_in_ring(self.at_rob, self.committed.len());
        self.pending = pending_branch(info, fetched, done);
    }
}

/// Calls `f` with every instruction in `events` and its data accesses, until it returns false.
fn each_instruction(
    events: &[u64],
    decoded: &Decoded,
    mut f: impl FnMut(&InstrInfo, &[DataAccess]) -> bool,
) {
    let mut data: Vec<DataAccess> = Vec::with_capacity(8);
    let mut current: Option<u32> = None;
    for w in events
        .iter()
        .chain(std::iter::once(&(1u64 << 63 | u32::MAX as u64)))
    {
        match unpack(*w) {
            Event::Data(a) => data.push(a),
            Event::Instr(ix) => {
                if let Some(prev) = current {
                    if !f(decoded.info(prev), &data) {
                        return;
                    }
                }
                data.clear();
                current = (ix != u32::MAX).then_some(ix);
            }
        }
    }
}

/// A core's caches and predictors after the warm-up part: cores that share them (the same
/// [`TimingConfig::warm_key`]) are timed from copies instead of each warming its own.
#[derive(Clone)]
pub struct Warmed {
    mem: Caches,
    branches: BranchUnit,
    last_fetch_line: u64,
    pending: Option<Pending>,
    instructions: u64,
}

/// The branch unit after the warm-up part: cores with the same predictor and BTB share it,
/// whatever their caches (the two halves of a warm-up do not affect each other).
#[derive(Clone)]
pub struct WarmBranches {
    branches: BranchUnit,
    pending: Option<Pending>,
}

/// Replays the branches before the measured part through `cfg`'s predictor and BTB, untimed.
pub fn warm_branches(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
    cfg: &TimingConfig,
) -> Result<WarmBranches, String> {
    let mut core = Core::new(cfg)?;
    each_instruction(&events[..measured.start], decoded, |info, _| {
        core.warm_branch(info);
        true
    });
    Ok(WarmBranches {
        branches: core.branches,
        pending: core.pending,
    })
}

/// The branches of the warm-up part, each with where it went (the address of the instruction
/// after it), and the last instruction when it is a branch still waiting: all that warming a
/// branch unit reads, gathered once for every predictor of the sweeps.
pub struct WarmupBranches {
    resolved: Vec<(u32, u64)>,
    waiting: Option<u32>,
}

/// The warm-up part's branches ([`WarmupBranches`]).
pub fn warmup_branches(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
) -> WarmupBranches {
    let mut list = WarmupBranches {
        resolved: Vec::new(),
        waiting: None,
    };
    each_instruction(&events[..measured.start], decoded, |info, _| {
        if let Some(ix) = list.waiting.take() {
            list.resolved.push((ix, info.addr));
        }
        list.waiting = (info.branch != BranchKind::None).then_some(info.ix);
        true
    });
    list
}

/// [`warm_branches`] from the warm-up part's branches gathered once: the same branch unit, the
/// events not walked again.
pub fn warm_branches_from(
    branches: &WarmupBranches,
    decoded: &Decoded,
    cfg: &TimingConfig,
) -> Result<WarmBranches, String> {
    let mut core = Core::new(cfg)?;
    let pending = |ix: u32| pending_branch(decoded.info(ix), 0, 0);
    for (ix, next) in &branches.resolved {
        let p = pending(*ix).expect("a branch");
        core.resolve(&p, *next);
    }
    Ok(WarmBranches {
        branches: core.branches,
        pending: branches.waiting.and_then(pending),
    })
}

/// Replays everything before the measured part (the warm-up calls) through `cfg`'s caches,
/// untimed, and takes the branch unit from `branches` (warmed on a core with the same
/// predictor and BTB). All of it: a cell streams its buffers once per call, so only a whole
/// call before leaves the L2 holding what the timed instructions read.
pub fn warm_with(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
    cfg: &TimingConfig,
    branches: &WarmBranches,
) -> Result<Warmed, String> {
    let mut core = Core::new(cfg)?;
    let mut n = 0u64;
    each_instruction(&events[..measured.start], decoded, |info, data| {
        core.warm_memory(info, data);
        n += 1;
        true
    });
    Ok(Warmed {
        mem: core.mem,
        branches: branches.branches.clone(),
        last_fetch_line: core.last_fetch_line,
        pending: branches.pending.clone(),
        instructions: n,
    })
}

impl Warmed {
    /// These caches with the branch unit of `branches` instead: cores that share caches but
    /// not a predictor ([`TimingConfig::memory_key`]) warm the caches once.
    pub fn with_branches(&self, branches: &WarmBranches) -> Warmed {
        Warmed {
            mem: self.mem.clone(),
            branches: branches.branches.clone(),
            last_fetch_line: self.last_fetch_line,
            pending: branches.pending.clone(),
            instructions: self.instructions,
        }
    }
}

/// [`warm_branches`] and [`warm_with`] for one core.
pub fn warm(
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
    cfg: &TimingConfig,
) -> Result<Warmed, String> {
    let branches = warm_branches(events, measured, decoded, cfg)?;
    warm_with(events, measured, decoded, cfg, &branches)
}

/// Times the first `limit` instructions of the measured part on the core of `cfg`, starting
/// from `warmed` (which must come from a core with the same warm key).
pub fn time(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    cfg: &TimingConfig,
    warmed: &Warmed,
    limit: usize,
) -> Result<TimingResult, String> {
    let mut core = Core::new(cfg)?;
    let w = warmed.clone();
    core.mem = w.mem.with_latencies(cfg);
    core.branches = w.branches;
    core.branches.mispredicts = 0;
    core.last_fetch_line = w.last_fetch_line;
    core.pending = w.pending;
    let mut n = 0usize;
    each_instruction(&events[measured], decoded, |info, data| {
        core.step(info, data);
        n += 1;
        n < limit
    });
    let cycles = core.last_commit.max(1);
    Ok(TimingResult {
        instructions: core.n,
        cycles,
        ipc: core.n as f64 / cycles as f64,
        cpi: core.stack,
        mispredicts: core.branches.mispredicts,
        warmed: w.instructions,
    })
}

/// [`warm`], then [`time`].
pub fn simulate(
    events: &[u64],
    measured: std::ops::Range<usize>,
    decoded: &Decoded,
    cfg: &TimingConfig,
    limit: usize,
) -> Result<TimingResult, String> {
    let warmed = warm(events, &measured, decoded, cfg)?;
    time(events, measured, decoded, cfg, &warmed, limit)
}

fn pending_branch(info: &InstrInfo, fetched: u64, done: u64) -> Option<Pending> {
    (info.branch != BranchKind::None).then(|| Pending {
        pc: info.addr,
        fall_through: info.addr + info.len as u64,
        kind: info.branch,
        hint: info.static_hint,
        fetched,
        done,
    })
}

/// The slot after `at` in a ring of `len` slots.
#[inline]
fn next_in_ring(at: usize, len: usize) -> usize {
    if at + 1 == len {
        0
    } else {
        at + 1
    }
}

#[inline]
fn granules(a: &DataAccess) -> std::ops::RangeInclusive<u64> {
    (a.addr >> 3)..=((a.addr + a.size.max(1) as u64 - 1) >> 3)
}
