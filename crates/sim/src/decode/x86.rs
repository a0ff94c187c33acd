//! The x86-64 decoder: iced-x86 gives each instruction's flow control, CPUID features,
//! memory accesses and registers read and written.

use super::{undecoded, BranchKind, Class, InstrInfo, FLAGS_SLOT};
use iced_x86::{
    CpuidFeature, Decoder, DecoderOptions, FlowControl, Instruction, InstructionInfo,
    InstructionInfoFactory, Mnemonic, OpAccess, OpKind, Register,
};

fn is_vector_register(r: Register) -> bool {
    r.is_xmm() || r.is_ymm() || r.is_zmm() || r.is_mm() || r.is_k() || r.is_tmm()
}

fn is_crypto(f: CpuidFeature) -> bool {
    matches!(
        f,
        CpuidFeature::AES
            | CpuidFeature::VAES
            | CpuidFeature::PCLMULQDQ
            | CpuidFeature::VPCLMULQDQ
            | CpuidFeature::SHA
            | CpuidFeature::SHA512
            | CpuidFeature::GFNI
            | CpuidFeature::SM3
            | CpuidFeature::SM4
            | CpuidFeature::AVX_VNNI
    ) || format!("{f:?}").starts_with("KL")
}

fn is_mul_div(m: Mnemonic) -> bool {
    matches!(
        m,
        Mnemonic::Mul | Mnemonic::Imul | Mnemonic::Div | Mnemonic::Idiv | Mnemonic::Mulx
    )
}

fn is_move(m: Mnemonic) -> bool {
    matches!(
        m,
        Mnemonic::Mov
            | Mnemonic::Movzx
            | Mnemonic::Movsx
            | Mnemonic::Movsxd
            | Mnemonic::Movbe
            | Mnemonic::Push
            | Mnemonic::Pop
            | Mnemonic::Movsb
            | Mnemonic::Movsw
            | Mnemonic::Movsd
            | Mnemonic::Movsq
            | Mnemonic::Stosb
            | Mnemonic::Stosw
            | Mnemonic::Stosd
            | Mnemonic::Stosq
            | Mnemonic::Lodsb
            | Mnemonic::Lodsw
            | Mnemonic::Lodsd
            | Mnemonic::Lodsq
    )
}

fn is_other(m: Mnemonic) -> bool {
    matches!(
        m,
        Mnemonic::Nop
            | Mnemonic::Endbr64
            | Mnemonic::Endbr32
            | Mnemonic::Cpuid
            | Mnemonic::Syscall
            | Mnemonic::Rdtsc
            | Mnemonic::Rdtscp
            | Mnemonic::Xgetbv
            | Mnemonic::Lfence
            | Mnemonic::Mfence
            | Mnemonic::Sfence
            | Mnemonic::Pause
            | Mnemonic::Hlt
            | Mnemonic::Ud2
            | Mnemonic::Int3
            | Mnemonic::Rdrand
            | Mnemonic::Rdseed
    )
}

fn is_string_op(i: &Instruction) -> bool {
    (0..i.op_count()).any(|k| {
        matches!(
            i.op_kind(k),
            OpKind::MemorySegRSI
                | OpKind::MemorySegESI
                | OpKind::MemoryESRDI
                | OpKind::MemoryESEDI
                | OpKind::MemorySegRDI
        )
    })
}

/// Whether the instruction reads memory, and whether it writes it.
fn memory_use(info: &InstructionInfo) -> (bool, bool) {
    let mut reads_memory = false;
    let mut writes_memory = false;
    for mem in info.used_memory() {
        match mem.access() {
            OpAccess::Read | OpAccess::CondRead => reads_memory = true,
            OpAccess::Write | OpAccess::CondWrite => writes_memory = true,
            OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                reads_memory = true;
                writes_memory = true
            }
            _ => {}
        }
    }
    (reads_memory, writes_memory)
}

/// Register slots an instruction depends on and writes (full registers, RFLAGS as one; the
/// stack pointer of a stack operation left out), sorted and without repeats.
struct Dataflow {
    sources: Vec<u16>,
    dests: Vec<u16>,
    address_sources: Vec<u16>,
    /// It uses a vector register.
    vector: bool,
}

fn dataflow(instr: &Instruction, info: &InstructionInfo, stack_op: bool) -> Dataflow {
    let mut sources = Vec::new();
    let mut dests = Vec::new();
    let mut vector = false;
    let mut address_regs: Vec<Register> = Vec::new();
    for mem in info.used_memory() {
        for r in [mem.base(), mem.index()] {
            if r != Register::None && r != Register::RIP && r != Register::EIP {
                address_regs.push(r);
            }
        }
    }
    // A register used both in an address and as data (or written) stays a data source.
    let data_use = |r: Register| {
        instr
            .op_kinds()
            .enumerate()
            .any(|(k, kind)| kind == OpKind::Register && instr.op_register(k as u32) == r)
    };
    for used in info.used_registers() {
        let r = used.register();
        if is_vector_register(r) {
            vector = true;
        }
        if r == Register::RIP || r == Register::EIP {
            continue;
        }
        let full = r.full_register();
        if stack_op && full == Register::RSP {
            continue;
        }
        let slot = full as u16;
        match used.access() {
            OpAccess::Read | OpAccess::CondRead if address_regs.contains(&r) && !data_use(r) => {}
            OpAccess::Read | OpAccess::CondRead => sources.push(slot),
            OpAccess::Write | OpAccess::CondWrite => dests.push(slot),
            OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                sources.push(slot);
                dests.push(slot);
            }
            _ => {}
        }
    }
    if instr.rflags_read() != 0 {
        sources.push(FLAGS_SLOT);
    }
    if instr.rflags_modified() != 0 {
        dests.push(FLAGS_SLOT);
    }
    sources.sort_unstable();
    sources.dedup();
    let mut address_sources: Vec<u16> = address_regs
        .iter()
        .map(|r| r.full_register())
        .filter(|r| !(stack_op && *r == Register::RSP))
        .map(|r| r as u16)
        .collect();
    address_sources.sort_unstable();
    address_sources.dedup();
    dests.sort_unstable();
    dests.dedup();
    Dataflow {
        sources,
        dests,
        address_sources,
        vector,
    }
}

/// The instruction's class and branch kind.
fn class_of(instr: &Instruction, vector: bool, memory: (bool, bool)) -> (Class, BranchKind) {
    let m = instr.mnemonic();
    let (reads_memory, writes_memory) = memory;
    let rep_string = is_string_op(instr) && (instr.has_rep_prefix() || instr.has_repne_prefix());
    match instr.flow_control() {
        FlowControl::ConditionalBranch => (Class::CondBranch, BranchKind::Conditional),
        FlowControl::UnconditionalBranch => (Class::Jump, BranchKind::Direct),
        FlowControl::Call => (Class::Call, BranchKind::Direct),
        FlowControl::Return => (Class::Return, BranchKind::Return),
        FlowControl::IndirectBranch | FlowControl::IndirectCall => {
            (Class::Indirect, BranchKind::Indirect)
        }
        _ => {
            let branch = if rep_string {
                BranchKind::Conditional
            } else {
                BranchKind::None
            };
            let class = if instr.cpuid_features().iter().any(|f| is_crypto(*f)) {
                Class::Crypto
            } else if vector {
                Class::Simd
            } else if is_mul_div(m) {
                Class::MulDiv
            } else if is_other(m) || !matches!(instr.flow_control(), FlowControl::Next) {
                Class::Other
            } else if is_move(m) && reads_memory && !writes_memory {
                Class::Load
            } else if is_move(m) && writes_memory {
                Class::Store
            } else {
                Class::IntAlu
            };
            (class, branch)
        }
    }
}

pub(super) fn classify(factory: &mut InstructionInfoFactory, addr: u64, bytes: &[u8]) -> InstrInfo {
    let mut decoder = Decoder::with_ip(64, bytes, addr, DecoderOptions::NONE);
    let instr = decoder.decode();
    if instr.is_invalid() {
        return undecoded(addr, bytes);
    }
    let m = instr.mnemonic();
    let info = factory.info(&instr);
    let (reads_memory, writes_memory) = memory_use(info);
    let stack_op = matches!(
        instr.flow_control(),
        FlowControl::Call | FlowControl::IndirectCall | FlowControl::Return
    ) || matches!(m, Mnemonic::Push | Mnemonic::Pop);
    let flow = dataflow(&instr, info, stack_op);
    let (class, branch) = class_of(&instr, flow.vector, (reads_memory, writes_memory));
    let divide = matches!(m, Mnemonic::Div | Mnemonic::Idiv);
    let base = super::latency_of(class, divide);
    InstrInfo {
        ix: 0,
        addr,
        len: bytes.len() as u8,
        class,
        branch,
        reads_memory,
        writes_memory,
        sources: flow.sources,
        dests: flow.dests,
        address_sources: flow.address_sources,
        latency: base,
        mnemonic: m,
        decoded: true,
        bytes: bytes.to_vec(),
        static_hint: None,
        target: None,
        divide,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Decoded;

    fn one(bytes: &[u8]) -> InstrInfo {
        let mut d = Decoded::default();
        let ix = d.intern(0x1000, bytes);
        d.info(ix).clone()
    }

    #[test]
    fn classes_of_known_encodings() {
        // Encodings from the Intel SDM, checked with objdump.
        assert_eq!(one(&[0x48, 0x8b, 0x03]).class, Class::Load); // mov rax,[rbx]
        assert_eq!(one(&[0x48, 0x89, 0x03]).class, Class::Store); // mov [rbx],rax
        assert_eq!(one(&[0x48, 0x01, 0xd8]).class, Class::IntAlu); // add rax,rbx
        assert_eq!(one(&[0x48, 0x03, 0x03]).class, Class::IntAlu); // add rax,[rbx]
        assert!(one(&[0x48, 0x03, 0x03]).reads_memory);
        assert_eq!(one(&[0x48, 0xf7, 0xe3]).class, Class::MulDiv); // mul rbx
        assert_eq!(one(&[0x75, 0x02]).branch, BranchKind::Conditional); // jne
        assert_eq!(one(&[0xeb, 0x02]).class, Class::Jump);
        assert_eq!(one(&[0xe8, 0, 0, 0, 0]).class, Class::Call);
        assert_eq!(one(&[0xc3]).class, Class::Return);
        assert_eq!(one(&[0xff, 0xe0]).branch, BranchKind::Indirect); // jmp rax
        assert_eq!(one(&[0xff, 0xd0]).class, Class::Indirect); // call rax
        assert_eq!(one(&[0x66, 0x0f, 0xef, 0xc1]).class, Class::Simd); // pxor xmm0,xmm1
        assert_eq!(one(&[0x66, 0x0f, 0x38, 0xdc, 0xc1]).class, Class::Crypto); // aesenc
        assert_eq!(
            one(&[0x66, 0x0f, 0x3a, 0x44, 0xc1, 0x00]).class,
            Class::Crypto
        ); // pclmulqdq
        assert_eq!(one(&[0x0f, 0x38, 0xcb, 0xc1]).class, Class::Crypto); // sha256rnds2
        let rep = one(&[0xf3, 0xa4]); // rep movsb
        assert_eq!(rep.branch, BranchKind::Conditional);
        assert_eq!(rep.class, Class::Store);
        assert!(
            !one(&[0x0f, 0xff, 0xff, 0xff]).decoded || one(&[0x0f, 0x0b]).class == Class::Other
        );
    }

    #[test]
    fn dependences_use_full_registers_and_flags() {
        let add = one(&[0x01, 0xd8]); // add eax,ebx
        assert!(add.sources.contains(&(Register::RAX as u16)));
        assert!(add.sources.contains(&(Register::RBX as u16)));
        assert!(add.dests.contains(&(Register::RAX as u16)));
        assert!(add.dests.contains(&FLAGS_SLOT));
        let jne = one(&[0x75, 0x02]);
        assert!(jne.sources.contains(&FLAGS_SLOT));
        let push = one(&[0x50]); // push rax: no RSP chain
        assert!(!push.dests.contains(&(Register::RSP as u16)));
        // mov rax,[rbx]: rbx only forms the address.
        let load = one(&[0x48, 0x8b, 0x03]);
        assert_eq!(load.address_sources, vec![Register::RBX as u16]);
        assert!(load.sources.is_empty());
        // xor eax,[rbx+rcx*4]: eax is data, rbx and rcx only address.
        let xor = one(&[0x33, 0x04, 0x8b]);
        assert_eq!(xor.sources, vec![Register::RAX as u16]);
        let mut expected = vec![Register::RBX as u16, Register::RCX as u16];
        expected.sort_unstable();
        assert_eq!(xor.address_sources, expected);
    }
}
