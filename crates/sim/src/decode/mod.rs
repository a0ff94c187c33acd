//! Decoding the traced code, once per distinct instruction: what class it is for the
//! instruction mix, what kind of branch, which registers it reads and writes (for the ILP
//! model) and an assumed latency. Everything a simulator needs per executed instruction is
//! precomputed here, so the per-instruction work in the simulators is a table lookup. Each
//! instruction set's decoder is its own file, registered in [`decode_one`]: x86-64 with
//! iced-x86, the RISC sets with capstone (see [`risc`] for what they share).
//!
//! Every decoder sorts an instruction into the first class that fits, in this order: branches
//! (by kind), crypto extensions, SIMD, multiply/divide, other (no-ops, barriers, system),
//! load/store (an instruction with a memory operand), integer ALU. So a vector load is a load
//! only where it is not a crypto or SIMD operation on x86 (which counts `movdqu` as SIMD); on
//! the RISC sets a vector load or store is a load or store, since it has a memory operand and
//! does no vector arithmetic.

mod aarch64;
mod ppc64;
mod risc;
mod riscv64;
mod x86;

use iced_x86::{InstructionInfoFactory, Mnemonic};
use std::collections::HashMap;

/// The instruction-mix classes. Every instruction is in exactly one; branches first, then
/// crypto extensions, SIMD, multiply/divide, plain loads and stores, integer ALU.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Class {
    Load,
    Store,
    IntAlu,
    MulDiv,
    CondBranch,
    Jump,
    Call,
    Return,
    Indirect,
    Simd,
    Crypto,
    Other,
}

impl Class {
    pub const ALL: [Class; 12] = [
        Class::Load,
        Class::Store,
        Class::IntAlu,
        Class::MulDiv,
        Class::CondBranch,
        Class::Jump,
        Class::Call,
        Class::Return,
        Class::Indirect,
        Class::Simd,
        Class::Crypto,
        Class::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Load => "load",
            Class::Store => "store",
            Class::IntAlu => "integer ALU",
            Class::MulDiv => "multiply/divide",
            Class::CondBranch => "conditional branch",
            Class::Jump => "unconditional jump",
            Class::Call => "call",
            Class::Return => "return",
            Class::Indirect => "indirect jump/call",
            Class::Simd => "SIMD",
            Class::Crypto => "crypto extension",
            Class::Other => "other",
        }
    }
}

/// How a branch predictor sees the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchKind {
    None,
    /// Taken iff the next executed instruction is not at `addr + len`. Includes rep-prefixed
    /// string instructions, which valgrind (and so cachegrind) treats as a conditional exit per
    /// iteration.
    Conditional,
    Direct,
    Return,
    /// Indirect jump or call: its target is predicted.
    Indirect,
}

/// Cycles from a load's address to its value in the ILP model (an L1 hit).
pub const LOAD_LATENCY: u32 = 4;

/// Register slot used for RFLAGS in the dependence tables.
pub const FLAGS_SLOT: u16 = 511;

#[derive(Debug, Clone)]
pub struct InstrInfo {
    /// Index in [`Decoded`].
    pub ix: u32,
    pub addr: u64,
    pub len: u8,
    pub class: Class,
    pub branch: BranchKind,
    pub reads_memory: bool,
    pub writes_memory: bool,
    /// Register slots read as data / written (full registers; RFLAGS as [`FLAGS_SLOT`]; the
    /// implicit stack-pointer update of push/pop/call/ret left out, as a stack engine would).
    pub sources: Vec<u16>,
    pub dests: Vec<u16>,
    /// Registers that only form a memory operand's address (base, index): a load can start
    /// as soon as these are ready, before the data sources are.
    pub address_sources: Vec<u16>,
    /// Cycles from the operands (data sources and loaded value) to the result in the ILP model;
    /// a memory read adds [`LOAD_LATENCY`] before the loaded value is ready (see `ilp.rs`).
    pub latency: u32,
    pub mnemonic: Mnemonic,
    /// False when iced-x86 could not decode the bytes (counted as `other`).
    pub decoded: bool,
    /// The instruction's bytes (up to 16), to show or re-decode it.
    pub bytes: Vec<u8>,
    /// A static prediction hint the instruction set encodes in a conditional branch (POWER's
    /// `at` bits: `+` taken, `-` not taken): `Some(true)` hinted taken. None elsewhere.
    pub static_hint: Option<bool>,
    /// A direct branch's target (taken), where the instruction encodes it; None for every
    /// other instruction and for x86, whose traces carry their targets.
    pub target: Option<u64>,
    /// An integer or floating-point divide (an unpipelined unit in the timing model).
    pub divide: bool,
}

/// Every distinct instruction seen in a trace.
#[derive(Default)]
pub struct Decoded {
    isa: crate::isa::Isa,
    infos: Vec<InstrInfo>,
    index: HashMap<(u64, [u8; 16]), u32>,
    factory: Option<InstructionInfoFactory>,
}

impl Decoded {
    /// An empty table decoding with `isa`'s decoder (`Decoded::default()` is x86-64).
    pub fn new(isa: crate::isa::Isa) -> Decoded {
        Decoded {
            isa,
            ..Decoded::default()
        }
    }

    pub fn isa(&self) -> crate::isa::Isa {
        self.isa
    }

    #[inline]
    pub fn info(&self, ix: u32) -> &InstrInfo {
        &self.infos[ix as usize]
    }

    pub fn all(&self) -> &[InstrInfo] {
        &self.infos
    }

    /// The index of the instruction with these bytes at this address, decoding it if new.
    pub fn intern(&mut self, addr: u64, bytes: &[u8]) -> u32 {
        let mut key = [0u8; 16];
        let n = bytes.len().min(16);
        key[..n].copy_from_slice(&bytes[..n]);
        // The length is part of what the instruction is (valgrind's 19-byte client request).
        let len = bytes.len().min(255) as u8;
        if let Some(ix) = self.index.get(&(addr, key)) {
            return *ix;
        }
        let ix = self.infos.len() as u32;
        let mut info = decode_one(self.isa, &mut self.factory, addr, &bytes[..n]);
        info.ix = ix;
        info.len = len;
        self.infos.push(info);
        self.index.insert((addr, key), ix);
        ix
    }
}

impl Decoded {
    /// Decodes again, from `code_at(addr, len)` (the worker's mapped files), each x86-64
    /// instruction the trace gave too few bytes to decode that ends where a 4 KB page does:
    /// qemu 7.2's plugin API hands an instruction that crosses a page boundary only the bytes on
    /// its first page. The instruction keeps its index; returns what each repaired one was.
    pub fn repair_page_crossers(
        &mut self,
        mut code_at: impl FnMut(u64, usize) -> Option<Vec<u8>>,
    ) -> Vec<InstrInfo> {
        let mut repaired = Vec::new();
        if self.isa != crate::isa::Isa::X86_64 {
            return repaired; // RISC instructions are aligned and never cross a page
        }
        for k in 0..self.infos.len() {
            let (addr, end) = (
                self.infos[k].addr,
                self.infos[k].addr + self.infos[k].len as u64,
            );
            if self.infos[k].decoded || end % 4096 != 0 {
                continue;
            }
            let Some(bytes) = code_at(addr, 15) else {
                continue;
            };
            let len = iced_x86::Decoder::with_ip(64, &bytes, addr, iced_x86::DecoderOptions::NONE)
                .decode()
                .len();
            let Some(bytes) = bytes.get(..len).filter(|_| len > 0) else {
                continue;
            };
            let mut info = decode_one(self.isa, &mut self.factory, addr, bytes);
            if info.decoded {
                info.ix = k as u32;
                info.len = len as u8;
                repaired.push(std::mem::replace(&mut self.infos[k], info));
            }
        }
        repaired
    }
}

/// The registry: one line per instruction set.
fn decode_one(
    isa: crate::isa::Isa,
    factory: &mut Option<InstructionInfoFactory>,
    addr: u64,
    bytes: &[u8],
) -> InstrInfo {
    use crate::isa::Isa;
    match isa {
        Isa::X86_64 => x86::classify(
            factory.get_or_insert_with(InstructionInfoFactory::new),
            addr,
            bytes,
        ),
        Isa::Ppc64le => ppc64::decode(addr, bytes),
        Isa::Aarch64 => aarch64::decode(addr, bytes),
        Isa::Riscv64 => riscv64::decode(addr, bytes),
    }
}

/// The latency table every decoder uses: one cycle; multiply 3; divide 24; crypto 4.
pub(crate) fn latency_of(class: Class, divide: bool) -> u32 {
    match class {
        Class::MulDiv if divide => 24,
        Class::MulDiv => 3,
        Class::Crypto => 4,
        _ => 1,
    }
}

/// What an undecodable instruction is taken for: one cycle of something else.
pub(crate) fn undecoded(addr: u64, bytes: &[u8]) -> InstrInfo {
    InstrInfo {
        ix: 0,
        addr,
        len: bytes.len() as u8,
        class: Class::Other,
        branch: BranchKind::None,
        reads_memory: false,
        writes_memory: false,
        sources: vec![],
        dests: vec![],
        address_sources: vec![],
        latency: 1,
        mnemonic: Mnemonic::INVALID,
        decoded: false,
        bytes: bytes.to_vec(),
        static_hint: None,
        target: None,
        divide: false,
    }
}

#[cfg(test)]
mod repair_tests {
    use super::*;

    #[test]
    fn an_instruction_cut_at_a_page_end_is_decoded_again_from_the_code() {
        let mut d = Decoded::default();
        // `mov eax, ecx` (89 c8) at the last byte of a page, given only its first byte.
        let cut = d.intern(0x1fff, &[0x89]);
        let whole = d.intern(0x3000, &[0x89, 0xc8]);
        assert!(!d.info(cut).decoded);
        let code = |addr: u64, len: usize| {
            assert_eq!((addr, len), (0x1fff, 15));
            Some([0x89, 0xc8].iter().copied().chain([0x90; 13]).collect())
        };
        let was = d.repair_page_crossers(code);
        assert_eq!((was.len(), was[0].ix, was[0].decoded), (1, cut, false));
        let (a, b) = (d.info(cut), d.info(whole));
        assert!(a.decoded && a.ix == cut);
        assert_eq!((a.len, a.class, &a.bytes), (2, b.class, &b.bytes));
        assert_eq!(a.sources, b.sources);
    }
}
