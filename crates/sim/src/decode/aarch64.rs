//! The aarch64 decoder, through capstone: branches by mnemonic (capstone's names are the
//! architecture's), targets from the immediate operand, classes and registers from the
//! operands with the register convention of [`super::risc`] and the NZCV flags capstone
//! reports (`update_flags`, a condition code).
//!
//! Register slots: x0–x30 (w0–w30) are 0–30; sp 31; v0–v31 (and their q, d, s, h, b views)
//! 32–63 (SVE's z0–z31 too, whose low halves they are); NZCV is [`FLAGS_SLOT`]; SVE's
//! predicates p0–p15 65–80; any other register 64. The zero register is no slot.

use super::risc::{class_of, starts_with_any, Parts, Traits};
use super::{undecoded, BranchKind, Class, InstrInfo, FLAGS_SLOT};
use capstone::arch::arm64::{ArchMode, Arm64CC, Arm64OperandType};
use capstone::arch::{ArchDetail, BuildsCapstone, DetailsArchInsn};
use capstone::{Capstone, RegId};

const SP: u16 = 31;
const LR: u16 = 30;
const MISC: u16 = 64;

thread_local! {
    // Capstone's handle is neither Send nor Sync, and a `Decoded` moves between threads: one
    // disassembler per thread, made on first use.
    static CS: Capstone = Capstone::new()
        .arm64()
        .mode(ArchMode::Arm)
        .detail(true)
        .build()
        .expect("capstone supports AArch64");
}

pub(super) fn decode(addr: u64, bytes: &[u8]) -> InstrInfo {
    CS.with(|cs| decode_with(cs, addr, bytes))
        .unwrap_or_else(|| undecoded(addr, bytes))
}

/// A register's slot from its name as capstone prints it; None for the zero register.
fn slot(name: &str) -> Option<u16> {
    if name.is_empty() {
        return None; // no register (a memory operand without an index)
    }
    let num = |prefix: char| {
        name.strip_prefix(prefix)
            .and_then(|n| n.parse::<u16>().ok())
    };
    match name {
        "xzr" | "wzr" => return None,
        "sp" | "wsp" => return Some(SP),
        "nzcv" => return Some(FLAGS_SLOT),
        _ => {}
    }
    if let Some(n) = num('x').or_else(|| num('w')) {
        return Some(n.min(30));
    }
    for p in ['v', 'q', 'd', 's', 'h', 'b', 'z'] {
        if let Some(n) = num(p) {
            return Some(32 + n.min(31));
        }
    }
    if let Some(n) = num('p') {
        return Some(MISC + 1 + n.min(15));
    }
    Some(MISC)
}

const CRYPTO: &[&str] = &[
    "aes", "sha1", "sha256", "sha512", "pmull", "eor3", "rax1", "xar", "bcax", "sm3", "sm4",
];
const MUL_DIV: &[&str] = &[
    "mul", "madd", "msub", "mneg", "smull", "umull", "smulh", "umulh", "smaddl", "umaddl",
    "smsubl", "umsubl", "smnegl", "umnegl", "sdiv", "udiv",
];
const OTHER: &[&str] = &[
    "nop", "hint", "yield", "isb", "dsb", "dmb", "svc", "hvc", "smc", "brk", "hlt", "msr", "sys",
    "bti", "paci", "auti", "xpac", "prfm", "prfum", "clrex", "wfe", "wfi", "sev", "eret",
];
const COMPARE: &[&str] = &[
    "cmp", "cmn", "tst", "ccmp", "ccmn", "fcmp", "fcmpe", "fccmp", "fccmpe",
];

/// The branch kind of mnemonic `m` (with condition `cc`), if it is a branch.
fn branch_of(m: &str, cc: Arm64CC) -> Option<(Class, BranchKind)> {
    let conditional = !matches!(cc, Arm64CC::ARM64_CC_INVALID | Arm64CC::ARM64_CC_AL);
    Some(match m {
        "b" | "bc" if conditional => (Class::CondBranch, BranchKind::Conditional),
        "b" => (Class::Jump, BranchKind::Direct),
        "bl" => (Class::Call, BranchKind::Direct),
        "cbz" | "cbnz" | "tbz" | "tbnz" => (Class::CondBranch, BranchKind::Conditional),
        _ if m.starts_with("b.") || m.starts_with("bc.") => {
            (Class::CondBranch, BranchKind::Conditional)
        }
        "ret" | "retaa" | "retab" => (Class::Return, BranchKind::Return),
        _ if m.starts_with("br") || m.starts_with("blr") => (Class::Indirect, BranchKind::Indirect),
        _ => return None,
    })
}

fn decode_with(cs: &Capstone, addr: u64, bytes: &[u8]) -> Option<InstrInfo> {
    let insns = cs.disasm_count(bytes, addr, 1).ok()?;
    let insn = insns.iter().next()?;
    let m = insn.mnemonic()?.to_string();
    let detail = cs.insn_detail(insn).ok()?;
    let ArchDetail::Arm64Detail(arm) = detail.arch_detail() else {
        return None;
    };
    let name = |r: RegId| cs.reg_name(r).unwrap_or_default();
    let (mut regs, mut address, mut imm) = (Vec::new(), Vec::new(), None);
    let mut vector = false;
    for op in arm.operands() {
        match op.op_type {
            Arm64OperandType::Reg(r) => {
                let s = slot(&name(r));
                vector |= s.is_some_and(|s| (32..64).contains(&s));
                regs.extend(s);
            }
            Arm64OperandType::Mem(mem) => {
                address.extend(slot(&name(mem.base())));
                address.extend(slot(&name(mem.index())));
            }
            Arm64OperandType::Imm(i) => imm = Some(i),
            _ => {}
        }
    }
    let cc = arm.cc();
    let reads_flags = !matches!(cc, Arm64CC::ARM64_CC_INVALID | Arm64CC::ARM64_CC_AL)
        || matches!(m.as_str(), "adc" | "adcs" | "sbc" | "sbcs" | "ngc" | "ngcs");
    let mut p = if let Some((class, kind)) = branch_of(&m, cc) {
        let mut p = Parts::new(class, kind);
        if kind == BranchKind::Direct || kind == BranchKind::Conditional {
            p.target = imm.map(|i| i as u64);
        }
        p.sources.append(&mut regs);
        if class == Class::Call || m.starts_with("blr") {
            p.dests.push(LR);
        }
        if class == Class::Return {
            p.sources.push(LR);
        }
        p
    } else {
        other(&m, regs, &address, vector)
    };
    if reads_flags {
        p.sources.push(FLAGS_SLOT);
    }
    if arm.update_flags() {
        p.dests.push(FLAGS_SLOT);
    }
    if arm.writeback() {
        p.dests.extend(address.first());
    }
    p.address_sources = address;
    Some(p.into_info(addr, bytes))
}

/// A non-branch instruction's parts. Loads are the instructions with a memory operand whose
/// mnemonic is not a store's (`st*`); the atomics (`ldadd`, `swp`, `cas`) also write memory.
fn other(m: &str, regs: Vec<u16>, address: &[u16], vector: bool) -> Parts {
    let memory = !address.is_empty() && !starts_with_any(m, &["prfm", "prfum"]);
    let store = memory && m.starts_with("st") && !m.starts_with("stadd");
    let atomic = memory && (starts_with_any(m, &["swp", "cas", "stadd"]) || is_ld_atomic(m));
    let traits = Traits {
        crypto: starts_with_any(m, CRYPTO),
        vector,
        mul_div: MUL_DIV.contains(&m),
        other: starts_with_any(m, OTHER),
        reads_memory: memory && !store,
        writes_memory: store || atomic,
    };
    let mut p = Parts::new(class_of(&traits), BranchKind::None);
    p.reads_memory = traits.reads_memory;
    p.writes_memory = traits.writes_memory;
    p.divide = matches!(m, "sdiv" | "udiv");
    if atomic {
        // `ldadd xs, xt, [xn]`: the last register receives the old value.
        let (last, rest) = regs
            .split_last()
            .map_or((None, &[][..]), |(l, r)| (Some(*l), r));
        p.sources.extend_from_slice(rest);
        p.dests.extend(last);
    } else if store && (m.starts_with("stx") || m.starts_with("stlx")) {
        // `stxr ws, xt, [xn]`: the status register is written.
        p.dests.extend(regs.first());
        p.sources.extend(regs.iter().skip(1));
    } else {
        p.convention(&regs, COMPARE.contains(&m));
    }
    p
}

fn is_ld_atomic(m: &str) -> bool {
    [
        "ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin", "ldumax", "ldumin",
    ]
    .iter()
    .any(|p| m.starts_with(p))
}
