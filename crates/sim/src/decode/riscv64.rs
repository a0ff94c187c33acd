//! The riscv64 decoder (RV64GC). Control transfers are decoded from their fields (JAL, JALR,
//! BRANCH and the compressed c.j, c.jr, c.jalr, c.beqz, c.bnez), whose kind depends on the
//! link and source registers exactly (`jal x0` is a jump, `jalr x0, 0(ra)` a return); every
//! other instruction through capstone, with the register convention of [`super::risc`].
//! Capstone 5 decodes RV64GC only, so the scalar-crypto extensions (Zkn: AES, SHA-256,
//! SHA-512; Zks: SM3, SM4) and the bit-manipulation ones (Zb*) are decoded here from their
//! fields; the vector extension (and its crypto, Zvk) stays `undecoded`.
//!
//! Register slots: x1–x31 are 1–31 (x0, always zero, is no slot); f0–f31 32–63.

use super::risc::{class_of, starts_with_any, Parts, Traits};
use super::{undecoded, BranchKind, Class, InstrInfo};
use capstone::arch::riscv::{ArchExtraMode, ArchMode, RiscVOperand};
use capstone::arch::{ArchOperand, BuildsCapstone, BuildsCapstoneExtraMode};
use capstone::{Capstone, RegId};

thread_local! {
    // Capstone's handle is neither Send nor Sync, and a `Decoded` moves between threads: one
    // disassembler per thread, made on first use.
    static CS: Capstone = Capstone::new()
        .riscv()
        .mode(ArchMode::RiscV64)
        .extra_mode([ArchExtraMode::RiscVC].iter().copied())
        .detail(true)
        .build()
        .expect("capstone supports RV64GC");
}

pub(super) fn decode(addr: u64, bytes: &[u8]) -> InstrInfo {
    let word = match bytes.len() {
        2 => u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
        4 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        _ => return undecoded(addr, bytes),
    };
    let parts = if bytes.len() == 2 {
        compressed_branch(word as u16, addr)
    } else {
        branch(word, addr).or_else(|| scalar_crypto(word))
    };
    if let Some(p) = parts {
        return p.into_info(addr, bytes);
    }
    CS.with(|cs| other(cs, addr, bytes))
        .or_else(|| bit_manipulation(word).map(|p| p.into_info(addr, bytes)))
        .unwrap_or_else(|| undecoded(addr, bytes))
}

/// An integer instruction of the major opcodes OP, OP-IMM, OP-32 and OP-IMM-32 that capstone 5
/// does not know: the bit-manipulation extensions (Zba, Zbb, Zbc, Zbs, Zbkb, Zbkx), each
/// `rd <- f(rs1[, rs2])`. Carry-less multiplication (`clmul`, `clmulh`, `clmulr`: GHASH's
/// instruction, like x86's PCLMULQDQ) is crypto.
fn bit_manipulation(w: u32) -> Option<Parts> {
    let opcode = w & 0x7f;
    if !matches!(opcode, 0x13 | 0x1b | 0x33 | 0x3b) {
        return None;
    }
    let (rd, rs1, rs2) = ((w >> 7) & 31, (w >> 15) & 31, (w >> 20) & 31);
    let clmul = opcode == 0x33 && w >> 25 == 0x05 && matches!((w >> 12) & 7, 1..=3);
    let class = if clmul { Class::Crypto } else { Class::IntAlu };
    let mut p = Parts::new(class, BranchKind::None);
    p.dests.extend(x(rd));
    p.sources.extend(x(rs1));
    if opcode & 0x20 != 0 {
        p.sources.extend(x(rs2));
    }
    Some(p)
}

/// A register number as a slot (x0 is none).
fn x(n: u32) -> Option<u16> {
    (n != 0).then_some(n as u16)
}

fn sign_extend(value: u32, bits: u32) -> u64 {
    (((value << (32 - bits)) as i32) >> (32 - bits)) as i64 as u64
}

/// Compressed forms whose one named destination is also their first source (rd = rd OP …).
const READ_MODIFY_WRITE: &[&str] = &[
    "c.add",
    "c.addw",
    "c.sub",
    "c.subw",
    "c.xor",
    "c.or",
    "c.and",
    "c.andi",
    "c.slli",
    "c.srli",
    "c.srai",
    "c.addi",
    "c.addiw",
    "c.addi16sp",
];

/// A jump through `rs1` linking into `rd` (JALR, c.jr, c.jalr), by the calling convention's
/// hints (the unprivileged spec's table for JALR): a return pops, a link pushes.
fn register_jump(rd: u32, rs1: u32, imm: u64) -> Parts {
    let link = |r: u32| r == 1 || r == 5;
    let mut p = if rd == 0 && link(rs1) && imm == 0 {
        Parts::new(Class::Return, BranchKind::Return)
    } else {
        Parts::new(Class::Indirect, BranchKind::Indirect)
    };
    p.sources.extend(x(rs1));
    p.dests.extend(x(rd));
    p
}

fn branch(w: u32, addr: u64) -> Option<Parts> {
    let rd = (w >> 7) & 31;
    let rs1 = (w >> 15) & 31;
    let rs2 = (w >> 20) & 31;
    match w & 0x7f {
        0x6f => {
            let imm = ((w >> 31) << 20)
                | (((w >> 12) & 0xff) << 12)
                | (((w >> 20) & 1) << 11)
                | (((w >> 21) & 0x3ff) << 1);
            let class = if rd == 0 { Class::Jump } else { Class::Call };
            let mut p = Parts::new(class, BranchKind::Direct);
            p.target = Some(addr.wrapping_add(sign_extend(imm, 21)));
            p.dests.extend(x(rd));
            Some(p)
        }
        0x67 => Some(register_jump(rd, rs1, sign_extend(w >> 20, 12))),
        0x63 => {
            let imm = ((w >> 31) << 12)
                | (((w >> 7) & 1) << 11)
                | (((w >> 25) & 0x3f) << 5)
                | (((w >> 8) & 0xf) << 1);
            let mut p = Parts::new(Class::CondBranch, BranchKind::Conditional);
            p.target = Some(addr.wrapping_add(sign_extend(imm, 13)));
            p.sources.extend(x(rs1));
            p.sources.extend(x(rs2));
            Some(p)
        }
        _ => None,
    }
}

fn compressed_branch(h: u16, addr: u64) -> Option<Parts> {
    let w = h as u32;
    let funct3 = w >> 13;
    let bit = |k: u32| (w >> k) & 1;
    match (w & 3, funct3) {
        (1, 0b101) => {
            // c.j: offset[11|4|9:8|10|6|7|3:1|5]
            let imm = (bit(12) << 11)
                | (bit(11) << 4)
                | (((w >> 9) & 3) << 8)
                | (bit(8) << 10)
                | (bit(7) << 6)
                | (bit(6) << 7)
                | (((w >> 3) & 7) << 1)
                | (bit(2) << 5);
            let mut p = Parts::new(Class::Jump, BranchKind::Direct);
            p.target = Some(addr.wrapping_add(sign_extend(imm, 12)));
            Some(p)
        }
        (1, 0b110 | 0b111) => {
            // c.beqz/c.bnez rs1', offset[8|4:3] [7:6|2:1|5]
            let imm = (bit(12) << 8)
                | (((w >> 10) & 3) << 3)
                | (((w >> 5) & 3) << 6)
                | (((w >> 3) & 3) << 1)
                | (bit(2) << 5);
            let mut p = Parts::new(Class::CondBranch, BranchKind::Conditional);
            p.target = Some(addr.wrapping_add(sign_extend(imm, 9)));
            p.sources.extend(x(8 + ((w >> 7) & 7)));
            Some(p)
        }
        (2, 0b100) if (w >> 2) & 31 == 0 && (w >> 7) & 31 != 0 => {
            // c.jr rs1 (bit 12 clear) / c.jalr rs1 (set, links into ra)
            Some(register_jump(bit(12), (w >> 7) & 31, 0))
        }
        _ => None,
    }
}

/// A scalar-crypto instruction (the RISC-V scalar cryptography spec, v1.0.1, RV64 encodings):
/// `aes64es/esm/ds/dsm/ks2` and `sm4ed/sm4ks` in OP, `aes64ks1i`, `aes64im`, `sha256*`,
/// `sha512*` and `sm3p0/p1` in OP-IMM with funct3 001.
fn scalar_crypto(w: u32) -> Option<Parts> {
    let (rd, rs1, rs2) = ((w >> 7) & 31, (w >> 15) & 31, (w >> 20) & 31);
    let funct3 = (w >> 12) & 7;
    let funct7 = w >> 25;
    let two_sources = match (w & 0x7f, funct3) {
        (0x33, 0) if matches!(funct7, 0x19 | 0x1b | 0x1d | 0x1f | 0x3f) => true,
        (0x33, 0) if matches!(funct7 & 0x1f, 0x18 | 0x1a) => true, // sm4ed, sm4ks (bs above)
        (0x13, 1) if matches!(w >> 20, 0x100..=0x109 | 0x300 | 0x310..=0x31a) => false,
        _ => return None,
    };
    let mut p = Parts::new(Class::Crypto, BranchKind::None);
    p.dests.extend(x(rd));
    p.sources.extend(x(rs1));
    if two_sources {
        p.sources.extend(x(rs2));
    }
    Some(p)
}

/// A register's slot from capstone's id: x0..x31 are ids 1..32, then f0..f31 each as a
/// 32-bit and a 64-bit id.
fn slot(r: RegId) -> Option<u16> {
    match r.0 {
        2..=32 => Some(r.0 - 1),
        33..=96 => Some(32 + (r.0 - 33) / 2),
        _ => None,
    }
}

const LOADS: &[&str] = &[
    "lb", "lh", "lw", "ld", "lbu", "lhu", "lwu", "flw", "fld", "lwsp", "ldsp", "flwsp", "fldsp",
];
const STORES: &[&str] = &[
    "sb", "sh", "sw", "sd", "fsw", "fsd", "swsp", "sdsp", "fswsp", "fsdsp",
];
const MUL_DIV: &[&str] = &["mul", "div", "rem"];
const OTHER: &[&str] = &[
    "nop",
    "c.nop",
    "fence",
    "ecall",
    "ebreak",
    "c.ebreak",
    "csr",
    "wfi",
    "rdcycle",
    "rdtime",
    "rdinstret",
    "unimp",
];

/// A non-branch instruction through capstone: loads and stores are the RV64GC load and store
/// instructions by name (`lw a0, 8(a1)`, `c.ldsp`) and the reservations (`lr` a load, `sc` a store); the atomics
/// (`amo*`) are loads that also write memory.
fn other(cs: &Capstone, addr: u64, bytes: &[u8]) -> Option<InstrInfo> {
    let insns = cs.disasm_count(bytes, addr, 1).ok()?;
    let insn = insns.iter().next()?;
    let full = insn.mnemonic()?.to_string();
    let m = full.strip_prefix("c.").unwrap_or(&full);
    let detail = cs.insn_detail(insn).ok()?;
    let (mut regs, mut address) = (Vec::new(), Vec::new());
    let mut vector = false;
    for op in detail.arch_detail().operands() {
        let ArchOperand::RiscVOperand(op) = op else {
            continue;
        };
        match op {
            RiscVOperand::Reg(r) => {
                vector |= (33..=96).contains(&r.0);
                regs.extend(slot(r));
            }
            RiscVOperand::Mem(mem) => address.extend(slot(mem.base())),
            _ => {}
        }
    }
    let atomic = m.starts_with("amo");
    let conditional = m.starts_with("sc.");
    let reserve = m.starts_with("lr.");
    if (atomic || reserve || conditional) && address.is_empty() {
        // `amoadd.w rd, rs2, (rs1)`: capstone gives the address register as a register.
        address.extend(regs.pop());
    }
    // Capstone gives the compressed forms (`c.ld a0, 8(a1)`) their address register as a
    // plain register operand, the last.
    let load = LOADS.contains(&m) || reserve || atomic;
    let store = STORES.contains(&m) || conditional;
    if (load || store) && address.is_empty() {
        address.extend(regs.pop());
    }
    let memory = load || store;
    let traits = Traits {
        crypto: false,
        vector,
        mul_div: starts_with_any(m, MUL_DIV),
        other: starts_with_any(&full, OTHER) || starts_with_any(m, OTHER),
        reads_memory: memory && !store,
        writes_memory: store || atomic,
    };
    let mut p = Parts::new(class_of(&traits), BranchKind::None);
    p.reads_memory = traits.reads_memory;
    p.writes_memory = traits.writes_memory;
    p.divide = m.starts_with("div") || m.starts_with("rem");
    if atomic || conditional {
        // The first register receives the old value (or sc's status), the rest are data.
        p.dests.extend(regs.first());
        p.sources.extend(regs.iter().skip(1));
    } else {
        p.convention(&regs, false);
        if READ_MODIFY_WRITE.contains(&full.as_str()) {
            // `c.add rd, rs2` is `add rd, rd, rs2`: capstone lists rd once, as written.
            p.sources.extend(regs.first());
        }
    }
    p.address_sources = address;
    Some(p.into_info(addr, bytes))
}
