//! The ppc64le decoder. Branches are decoded from their fields (the Power ISA's I-, B- and
//! XL-forms), since their kind, target and static hint (the `at` bits of BO) are exactly there;
//! every other instruction through capstone, with the register convention of [`super::risc`].
//!
//! Register slots: r0–r31 are 0–31; f0–f31 (vs0–vs31) 32–63; v0–v31 (vs32–vs63) 64–95; the
//! condition register fields cr0–cr7 96–103; LR 104; CTR 105; XER (its carry) 106; any other
//! register 107.

use super::risc::{class_of, starts_with_any, Parts, Traits};
use super::{undecoded, BranchKind, Class, InstrInfo};
use capstone::arch::ppc::{ArchMode, PpcOperand};
use capstone::arch::{ArchOperand, BuildsCapstone, BuildsCapstoneEndian};
use capstone::{Capstone, Endian, RegId};

const CR0: u16 = 96;
const LR: u16 = 104;
const CTR: u16 = 105;
const XER: u16 = 106;
const MISC: u16 = 107;

thread_local! {
    // Capstone's handle is neither Send nor Sync, and a `Decoded` moves between threads: one
    // disassembler per thread, made on first use.
    static CS: Capstone = Capstone::new()
        .ppc()
        .mode(ArchMode::Mode64)
        .endian(Endian::Little)
        .detail(true)
        .build()
        .expect("capstone supports 64-bit little-endian PowerPC");
}

pub(super) fn decode(addr: u64, bytes: &[u8]) -> InstrInfo {
    let Ok(word) = <[u8; 4]>::try_from(bytes).map(u32::from_le_bytes) else {
        return undecoded(addr, bytes);
    };
    if let Some(parts) = branch(word, addr) {
        return parts.into_info(addr, bytes);
    }
    CS.with(|cs| other(cs, addr, bytes))
        .unwrap_or_else(|| undecoded(addr, bytes))
}

/// The static hint of a conditional branch's BO field (Power ISA Book I, 2.4): `at` = 0b11
/// hinted taken, 0b10 hinted not taken. In BO = b0..b4 the forms that test only CR (`001at`,
/// `011at`) hold `at` in b3 b4; those that test only CTR (`1a00t`, `1a01t`) in b1 b4; the forms
/// that test both have no hint bits, and `1z1zz` branches always.
pub fn bo_hint(bo: u32) -> Option<bool> {
    let bit = |k: u32| (bo >> (4 - k)) & 1;
    let at = match (bit(0), bit(2)) {
        (0, 1) => (bit(3) << 1) | bit(4),
        (1, 0) => (bit(1) << 1) | bit(4),
        _ => return None,
    };
    match at {
        0b11 => Some(true),
        0b10 => Some(false),
        _ => None,
    }
}

/// A branch (primary opcode 18, 16, or 19 with XO 16/528/560), else None.
fn branch(word: u32, addr: u64) -> Option<Parts> {
    let opcode = word >> 26;
    let lk = word & 1 == 1;
    let aa = word & 2 == 2;
    if opcode == 18 {
        let li = (((word & 0x03ff_fffc) << 6) as i32 >> 6) as i64;
        let mut p = Parts::new(
            if lk { Class::Call } else { Class::Jump },
            BranchKind::Direct,
        );
        p.target = Some(if aa {
            li as u64
        } else {
            addr.wrapping_add(li as u64)
        });
        if lk {
            p.dests.push(LR);
        }
        return Some(p);
    }
    let xo = (word >> 1) & 0x3ff;
    let to = match (opcode, xo) {
        (16, _) => None,
        (19, 16) => Some(LR),
        (19, 528) => Some(CTR),
        (19, 560) => Some(MISC), // bctar: the target address register
        _ => return None,
    };
    let bo = (word >> 21) & 0x1f;
    let bi = (word >> 16) & 0x1f;
    let always = bo & 0b10100 == 0b10100;
    let mut p = match (always, to) {
        (true, None) if lk => Parts::new(Class::Call, BranchKind::Direct),
        (true, None) => Parts::new(Class::Jump, BranchKind::Direct),
        (true, Some(LR)) if !lk => Parts::new(Class::Return, BranchKind::Return),
        (true, Some(_)) => Parts::new(Class::Indirect, BranchKind::Indirect),
        (false, _) => Parts::new(Class::CondBranch, BranchKind::Conditional),
    };
    if to.is_none() {
        let bd = ((word & 0xfffc) as u16 as i16) as i64;
        p.target = Some(if aa {
            bd as u64
        } else {
            addr.wrapping_add(bd as u64)
        });
    }
    p.static_hint = bo_hint(bo);
    if bo & 0b10000 == 0 {
        p.sources.push(CR0 + (bi / 4) as u16);
    }
    if bo & 0b00100 == 0 {
        p.sources.push(CTR);
        p.dests.push(CTR);
    }
    p.sources.extend(to);
    if lk {
        p.dests.push(LR);
    }
    Some(p)
}

/// A register's slot from its name as capstone prints it.
fn slot(name: &str) -> u16 {
    let num = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|n| n.parse::<u16>().ok())
    };
    if let Some(n) = num("vs") {
        return 32 + n.min(63);
    }
    if let Some(n) = num("cr") {
        return CR0 + n.min(7);
    }
    match (num("r"), num("f"), num("v")) {
        (Some(n), _, _) => n.min(31),
        (_, Some(n), _) => 32 + n.min(31),
        (_, _, Some(n)) => 64 + n.min(31),
        _ => match name {
            "lr" => LR,
            "ctr" => CTR,
            "xer" | "carry" | "ca" => XER,
            _ => MISC,
        },
    }
}

const CRYPTO: &[&str] = &["vcipher", "vncipher", "vpmsum", "vshasigma", "vsbox"];
const OTHER: &[&str] = &[
    "nop", "sync", "lwsync", "hwsync", "isync", "eieio", "ptesync", "sc", "trap", "tw", "td",
    "dcb", "icb", "mftb", "attn", "xnop",
];
const CARRY_OUT: &[&str] = &[
    "addc", "adde", "addic", "subfc", "subfe", "subfic", "addze", "addme", "subfze", "subfme",
    "sra",
];
const CARRY_IN: &[&str] = &["adde", "addze", "addme", "subfe", "subfze", "subfme"];

/// A non-branch instruction through capstone.
fn other(cs: &Capstone, addr: u64, bytes: &[u8]) -> Option<InstrInfo> {
    let insns = cs.disasm_count(bytes, addr, 1).ok()?;
    let insn = insns.iter().next()?;
    let m = insn.mnemonic()?.to_string();
    let detail = cs.insn_detail(insn).ok()?;
    let name = |r: RegId| cs.reg_name(r).unwrap_or_default();
    let mut regs = Vec::new();
    let mut address = Vec::new();
    let mut vector = false;
    for op in detail.arch_detail().operands() {
        let ArchOperand::PpcOperand(op) = op else {
            continue;
        };
        match op {
            PpcOperand::Reg(r) => {
                let s = slot(&name(r));
                vector |= (32..96).contains(&s);
                regs.push(s);
            }
            PpcOperand::Mem(mem) => address.push(slot(&name(mem.base()))),
            PpcOperand::Crx(c) => regs.push(slot(&name(c.reg()))),
            _ => {}
        }
    }
    // Loads are l* (not li/lis/la/lwsync/lvsl/lvsr), stores st*; the indexed forms (`lwzx rD,rA,rB`,
    // `lxvd2x`) have register operands where the displacement forms have a memory operand.
    let plain = m.trim_end_matches(['.', '+', '-']);
    // lvsl/lvsr make a permute control from an address without accessing it.
    let load = plain.starts_with('l')
        && !matches!(plain, "li" | "lis" | "la" | "lwsync" | "lvsl" | "lvsr");
    let store = plain.starts_with("st");
    if (load || store) && address.is_empty() && regs.len() >= 2 {
        address.extend(regs.drain(1..));
    }
    // The update forms (`stdu r1,-32(r1)`, `lwzux`) write their base register.
    let update = (load || store) && (plain.ends_with('u') || plain.ends_with("ux"));
    let traits = Traits {
        crypto: starts_with_any(plain, CRYPTO),
        vector,
        mul_div: starts_with_any(plain, &["mul", "div", "mod"]),
        other: starts_with_any(plain, OTHER),
        reads_memory: load,
        writes_memory: store,
    };
    let mut p = Parts::new(class_of(&traits), BranchKind::None);
    p.reads_memory = load;
    p.writes_memory = store;
    p.divide = plain.starts_with("div");
    let compare = plain.starts_with("cmp") || plain.starts_with("fcmp");
    if compare && !regs.first().is_some_and(|r| (CR0..CR0 + 8).contains(r)) {
        p.dests.push(CR0);
    }
    implicit(&mut p, plain, &mut regs);
    p.convention(&regs, compare && p.dests.contains(&CR0));
    if m.ends_with('.') {
        p.dests.push(CR0);
    }
    if update {
        p.dests.extend(address.first());
    }
    p.address_sources = address;
    Some(p.into_info(addr, bytes))
}

/// The special registers the move-to/from forms and the carry forms use.
fn implicit(p: &mut Parts, m: &str, regs: &mut Vec<u16>) {
    let special = match m.get(2..) {
        Some("lr") => vec![LR],
        Some("ctr") => vec![CTR],
        Some("xer") => vec![XER],
        Some(s) if s.starts_with("cr") || s.starts_with("ocrf") => (CR0..CR0 + 8).collect(),
        _ => vec![],
    };
    if m.starts_with("mt") && !special.is_empty() {
        p.sources.append(regs);
        p.dests.extend(special);
    } else if m.starts_with("mf") {
        p.sources.extend(special);
    }
    if starts_with_any(m, CARRY_OUT) {
        p.dests.push(XER);
    }
    if starts_with_any(m, CARRY_IN) {
        p.sources.push(XER);
    }
}

#[cfg(test)]
mod tests {
    use super::bo_hint;

    #[test]
    fn bo_hints_follow_the_power_isa_table() {
        // Book I, Figure 40 (BO field encodings) with Figure 41 (the "at" bits).
        assert_eq!(bo_hint(0b01100), None); // beq: 011at, at=00
        assert_eq!(bo_hint(0b01111), Some(true)); // beq+
        assert_eq!(bo_hint(0b01110), Some(false)); // beq-
        assert_eq!(bo_hint(0b00111), Some(true)); // bne+
        assert_eq!(bo_hint(0b10000), None); // bdnz
        assert_eq!(bo_hint(0b11001), Some(true)); // bdnz+: 1a00t, a=1 t=1
        assert_eq!(bo_hint(0b11000), Some(false)); // bdnz-
        assert_eq!(bo_hint(0b11011), Some(true)); // bdz+
        assert_eq!(bo_hint(0b10100), None); // always
        assert_eq!(bo_hint(0b01000), None); // bdnzt: tests both, no hint bits
    }
}
