//! The ILP limit study: how many instructions per cycle the traced instruction stream allows
//! when only true dataflow limits it, under a finite instruction window and issue width.
//!
//! Model (the classic dataflow limit study, stated so the numbers can be read): perfect branch
//! prediction and caches; register renaming, so only read-after-write dependences through
//! registers (full registers; RFLAGS as one) and through memory (8-byte granules) count; the
//! stack-pointer updates of push/pop/call/ret are free (a stack engine); an instruction may
//! start only once the instruction `window` places before it has retired (in order), and at
//! most `width` instructions start per cycle. Latencies: 1 cycle, multiply 3, divide 24, crypto
//! extensions 4 (decode.rs); a memory read's value is ready 4 cycles after its address registers
//! (and any earlier store to it), independently of the instruction's other operands, so a
//! load-and-xor waits for its loaded value and its register operand, whichever comes last.

use crate::decode::{Decoded, LOAD_LATENCY};
use crate::region::{unpack, Event};
use crate::trace::Access;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IlpConfig {
    pub window: usize,
    pub width: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IlpResult {
    pub window: usize,
    pub width: usize,
    pub instructions: u64,
    pub cycles: u64,
    pub ipc: f64,
}

const MEM_BITS: u32 = 16;
const SLOT_BITS: u32 = 16;

/// The model's state between instructions.
struct Limits {
    window: usize,
    width: u32,
    reg_ready: Vec<u64>,
    mem_tag: Vec<u64>,
    mem_ready: Vec<u64>,
    slots: Vec<(u64, u32)>,
    /// Retirement cycles of the last `window` instructions (a ring; `at` is `n % window`).
    retired: Vec<u64>,
    at: usize,
    last_retire: u64,
    n: u64,
}

/// The 8-byte granules a data access touches.
fn granules(d: &crate::trace::DataAccess) -> std::ops::RangeInclusive<u64> {
    (d.addr >> 3)..=((d.addr + d.size.max(1) as u64 - 1) >> 3)
}

/// The data accesses among an instruction's events.
fn data_of(events: &[u64]) -> impl Iterator<Item = crate::trace::DataAccess> + '_ {
    events.iter().filter_map(|w| match unpack(*w) {
        Event::Data(d) => Some(d),
        Event::Instr(_) => None,
    })
}

impl Limits {
    fn new(cfg: IlpConfig) -> Limits {
        let window = cfg.window.max(1);
        Limits {
            window,
            width: cfg.width.max(1) as u32,
            reg_ready: vec![0u64; 512],
            mem_tag: vec![u64::MAX; 1 << MEM_BITS],
            mem_ready: vec![0u64; 1 << MEM_BITS],
            slots: vec![(u64::MAX, 0); 1 << SLOT_BITS],
            retired: vec![0u64; window],
            at: 0,
            last_retire: 0,
            n: 0,
        }
    }

    /// Earliest start: operands (registers, loaded values) ready, and room in the window.
    fn earliest(&self, info: &crate::decode::InstrInfo, data: &[u64]) -> u64 {
        let mut t = 0u64;
        for s in &info.sources {
            t = t.max(self.reg_ready[*s as usize]);
        }
        let mut loads = false;
        let mut loaded = 0u64;
        for s in &info.address_sources {
            loaded = loaded.max(self.reg_ready[*s as usize]);
        }
        for d in data_of(data).filter(|d| d.access != Access::Write) {
            loads = true;
            for g in granules(&d) {
                let k = (g as usize) & ((1 << MEM_BITS) - 1);
                if self.mem_tag[k] == g {
                    loaded = loaded.max(self.mem_ready[k]);
                }
            }
        }
        if loads {
            t = t.max(loaded + LOAD_LATENCY as u64);
        } else {
            t = t.max(loaded);
        }
        if self.n >= self.window as u64 {
            t = t.max(self.retired[self.at]);
        }
        t
    }

    /// Issue width: the first cycle at or after `t` with a free slot, taken.
    fn issue(&mut self, mut t: u64) -> u64 {
        loop {
            let k = (t as usize) & ((1 << SLOT_BITS) - 1);
            if self.slots[k].0 != t {
                self.slots[k] = (t, 1);
                return t;
            }
            if self.slots[k].1 < self.width {
                self.slots[k].1 += 1;
                return t;
            }
            t += 1;
        }
    }

    /// The instruction started at `t`: its results, its stores, its retirement.
    fn finish(&mut self, info: &crate::decode::InstrInfo, data: &[u64], t: u64) {
        let done = t + info.latency as u64;
        for d in &info.dests {
            self.reg_ready[*d as usize] = done;
        }
        for d in data_of(data).filter(|d| d.access != Access::Read) {
            for g in granules(&d) {
                let k = (g as usize) & ((1 << MEM_BITS) - 1);
                self.mem_tag[k] = g;
                self.mem_ready[k] = done;
            }
        }
        self.last_retire = self.last_retire.max(done);
        self.retired[self.at] = self.last_retire;
        self.at = if self.at + 1 == self.window {
            0
        } else {
            self.at + 1
        };
        self.n += 1;
    }
}

/// Runs the model over recorded events (instruction words followed by their data accesses).
pub fn simulate(events: &[u64], decoded: &Decoded, cfg: IlpConfig) -> IlpResult {
    let mut m = Limits::new(cfg);
    let mut i = 0usize;
    while i < events.len() {
        let Event::Instr(ix) = unpack(events[i]) else {
            i += 1;
            continue;
        };
        let info = decoded.info(ix);
        let mut j = i + 1;
        while j < events.len() && !matches!(unpack(events[j]), Event::Instr(_)) {
            j += 1;
        }
        let data = &events[i + 1..j];
        let t = m.earliest(info, data);
        let t = m.issue(t);
        m.finish(info, data, t);
        i = j;
    }
    let cycles = m.last_retire.max(1);
    IlpResult {
        window: cfg.window,
        width: cfg.width,
        instructions: m.n,
        cycles,
        ipc: m.n as f64 / cycles as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(d: &mut Decoded, code: &[&[u8]], repeat: usize) -> Vec<u64> {
        let ixs: Vec<u32> = code
            .iter()
            .enumerate()
            .map(|(k, b)| d.intern(0x1000 + 16 * k as u64, b))
            .collect();
        (0..repeat)
            .flat_map(|_| ixs.iter().map(|ix| (1u64 << 63) | *ix as u64))
            .collect()
    }

    #[test]
    fn a_dependent_chain_runs_at_one_per_cycle_whatever_the_width() {
        let mut d = Decoded::default();
        // add rax,rbx repeated: each depends on the previous through rax (and flags).
        let ev = events(&mut d, &[&[0x48, 0x01, 0xd8]], 1000);
        for width in [1, 4, 16] {
            let r = simulate(&ev, &d, IlpConfig { window: 64, width });
            assert!((r.ipc - 1.0).abs() < 0.01, "width {width}: {}", r.ipc);
        }
    }

    #[test]
    fn a_load_and_xor_chain_waits_for_the_xor_not_the_load() {
        let mut d = Decoded::default();
        // xor eax,[rbx+rcx*4] repeated: the loads' addresses never change, so only the 1-cycle
        // xor is on the chain (with the load's 4 cycles once, at the start).
        let ix = d.intern(0x1000, &[0x33, 0x04, 0x8b]);
        let mut ev = Vec::new();
        for k in 0..1000u64 {
            ev.push((1u64 << 63) | ix as u64);
            ev.push((0x10_0000 + 4 * (k % 64)) | (4u64 << 48)); // a 4-byte read
        }
        let r = simulate(
            &ev,
            &d,
            IlpConfig {
                window: 64,
                width: 4,
            },
        );
        assert!(r.ipc > 0.95, "{}", r.ipc);
    }

    #[test]
    fn independent_instructions_fill_the_width_and_the_window_limits_them() {
        let mut d = Decoded::default();
        // mov eax,1 / mov ebx,2 / mov ecx,3 / mov edx,4: no dependences (writes only).
        let code: [&[u8]; 4] = [
            &[0xb8, 1, 0, 0, 0],
            &[0xbb, 2, 0, 0, 0],
            &[0xb9, 3, 0, 0, 0],
            &[0xba, 4, 0, 0, 0],
        ];
        let ev = events(&mut d, &code, 1000);
        let wide = simulate(
            &ev,
            &d,
            IlpConfig {
                window: 256,
                width: 4,
            },
        );
        assert!((wide.ipc - 4.0).abs() < 0.05, "{}", wide.ipc);
        let narrow = simulate(
            &ev,
            &d,
            IlpConfig {
                window: 256,
                width: 2,
            },
        );
        assert!((narrow.ipc - 2.0).abs() < 0.05, "{}", narrow.ipc);
        // A window of one: each instruction waits for the previous to retire.
        let w1 = simulate(
            &ev,
            &d,
            IlpConfig {
                window: 1,
                width: 16,
            },
        );
        assert!((w1.ipc - 1.0).abs() < 0.01, "{}", w1.ipc);
    }
}
