//! What the decoders of the RISC instruction sets (ppc64le, aarch64, riscv64) share: capstone
//! disassembles them, and an instruction's parts (class, branch, registers) become an
//! [`InstrInfo`] the same way for each.
//!
//! Capstone (5.0, as `capstone-sys` 0.17 bundles it) says little about which register operands
//! an instruction reads and which it writes on these sets, so the decoders use the RISC
//! convention: the first register operand is written and the others read, except that a store
//! or a compare writes none of its register operands and a load writes all of them but its
//! address (`ldp`, `ld1 {v0, v1}`); the registers of a memory operand form its address. Each
//! decoder adds the implicit registers (link, count, condition and flag registers) itself.

use super::{latency_of, BranchKind, Class, InstrInfo};

/// An instruction's decoded parts, before they become an [`InstrInfo`].
pub(super) struct Parts {
    pub class: Class,
    pub branch: BranchKind,
    pub reads_memory: bool,
    pub writes_memory: bool,
    pub sources: Vec<u16>,
    pub dests: Vec<u16>,
    pub address_sources: Vec<u16>,
    pub divide: bool,
    pub static_hint: Option<bool>,
    pub target: Option<u64>,
}

impl Parts {
    pub fn new(class: Class, branch: BranchKind) -> Parts {
        Parts {
            class,
            branch,
            reads_memory: false,
            writes_memory: false,
            sources: vec![],
            dests: vec![],
            address_sources: vec![],
            divide: false,
            static_hint: None,
            target: None,
        }
    }

    /// Applies the register convention to the register operands `regs` (in assembly order,
    /// as slots) of an instruction that `reads_memory` (a load) / `writes_memory` (a store),
    /// or of a compare (`compare`: no register written).
    pub fn convention(&mut self, regs: &[u16], compare: bool) {
        for (k, &r) in regs.iter().enumerate() {
            let written = if self.writes_memory && !self.reads_memory {
                false
            } else if self.reads_memory {
                true
            } else {
                k == 0 && !compare
            };
            if written {
                self.dests.push(r);
            } else {
                self.sources.push(r);
            }
        }
    }

    pub fn into_info(mut self, addr: u64, bytes: &[u8]) -> InstrInfo {
        for v in [
            &mut self.sources,
            &mut self.dests,
            &mut self.address_sources,
        ] {
            v.sort_unstable();
            v.dedup();
        }
        InstrInfo {
            ix: 0,
            addr,
            len: bytes.len() as u8,
            class: self.class,
            branch: self.branch,
            reads_memory: self.reads_memory,
            writes_memory: self.writes_memory,
            sources: self.sources,
            dests: self.dests,
            address_sources: self.address_sources,
            latency: latency_of(self.class, self.divide),
            mnemonic: iced_x86::Mnemonic::INVALID,
            decoded: true,
            bytes: bytes.to_vec(),
            static_hint: self.static_hint,
            target: self.target,
            divide: self.divide,
        }
    }
}

/// Whether `m` starts with one of `prefixes`.
pub(super) fn starts_with_any(m: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| m.starts_with(p))
}

/// The class of a non-branch instruction, in the order every decoder uses (see the module
/// documentation of `decode`): crypto, SIMD (vector or floating-point registers and no memory
/// operand), multiply/divide, other, load/store, integer ALU.
pub(super) struct Traits {
    pub crypto: bool,
    pub vector: bool,
    pub mul_div: bool,
    pub other: bool,
    pub reads_memory: bool,
    pub writes_memory: bool,
}

pub(super) fn class_of(t: &Traits) -> Class {
    let memory = t.reads_memory || t.writes_memory;
    if t.crypto {
        Class::Crypto
    } else if t.vector && !memory {
        Class::Simd
    } else if t.mul_div {
        Class::MulDiv
    } else if t.other {
        Class::Other
    } else if t.reads_memory {
        Class::Load
    } else if t.writes_memory {
        Class::Store
    } else {
        Class::IntAlu
    }
}
