//! The ppc64le, aarch64 and riscv64 decoders against the GNU cross assembler: each hand-written
//! source in `data/isas/` says after `@@` on every line what its instruction is (class, the
//! label a direct branch goes to, a POWER static hint). The source is assembled and linked with
//! the cross binutils; the decoder must agree with the source, its targets with the labels'
//! addresses (`nm`), and its instruction lengths with `objdump -d` (independent of capstone).

use cryptospeed_sim::decode::{BranchKind, Class, Decoded, InstrInfo};
use cryptospeed_sim::isa::Isa;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEXT: u64 = 0x10000;

/// Runs a cross tool, failing loudly when it is missing or fails.
fn tool(name: &str, args: &[&str]) -> String {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} (Debian's cross binutils, scripts/setup): {e}"));
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("tool output is UTF-8")
}

/// What a source line says about its instruction.
struct Expected {
    line: String,
    class: Class,
    target: Option<String>,
    hint: Option<bool>,
}

fn expectations(source: &str) -> Vec<Expected> {
    let class = |w: &str| match w {
        "load" => Class::Load,
        "store" => Class::Store,
        "alu" => Class::IntAlu,
        "muldiv" => Class::MulDiv,
        "crypto" => Class::Crypto,
        "simd" => Class::Simd,
        "other" => Class::Other,
        "cond" => Class::CondBranch,
        "jump" => Class::Jump,
        "call" => Class::Call,
        "ret" => Class::Return,
        "ind" => Class::Indirect,
        _ => panic!("unknown class {w}"),
    };
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with(['#', '/']))
        .filter_map(|l| l.split_once("@@").map(|(_, tail)| (l, tail)))
        .map(|(l, tail)| {
            let words: Vec<&str> = tail.split_whitespace().collect();
            Expected {
                line: l.trim().to_string(),
                class: class(words[0]),
                target: words.get(1).filter(|w| **w != "-").map(|w| w.to_string()),
                hint: words.get(2).map(|h| *h == "+"),
            }
        })
        .collect()
}

/// The linked program's text, its instructions' addresses (objdump) and its labels (nm).
struct Assembled {
    text: Vec<u8>,
    addrs: Vec<u64>,
    labels: HashMap<String, u64>,
}

fn assemble(triple: &str, source: &Path, as_flags: &[&str]) -> Assembled {
    let dir = std::env::temp_dir().join(format!("cs-decode-isas-{}-{triple}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |ext: &str| -> String { dir.join(format!("t.{ext}")).display().to_string() };
    let mut args: Vec<&str> = as_flags.to_vec();
    let (obj, elf, bin) = (path("o"), path("elf"), path("bin"));
    args.extend(["-o", &obj, source.to_str().unwrap()]);
    tool(&format!("{triple}-as"), &args);
    // Linking resolves the branches the assembler leaves to the linker (riscv's relaxation).
    let ttext = format!("-Ttext={TEXT:#x}");
    tool(
        &format!("{triple}-ld"),
        &[&ttext, "-e", "start", "-o", &elf, &obj],
    );
    tool(
        &format!("{triple}-objcopy"),
        &["-O", "binary", "-j", ".text", &elf, &bin],
    );
    let addrs = tool(&format!("{triple}-objdump"), &["-d", &elf])
        .lines()
        .filter_map(|l| {
            let (a, rest) = l.trim_start().split_once(":\t")?;
            (!rest.is_empty()).then(|| u64::from_str_radix(a, 16).ok())?
        })
        .collect();
    let labels = tool(&format!("{triple}-nm"), &[&elf])
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            Some((w.get(2)?.to_string(), u64::from_str_radix(w[0], 16).ok()?))
        })
        .collect();
    let text = std::fs::read(&bin).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    Assembled {
        text,
        addrs,
        labels,
    }
}

fn kind_of(class: Class) -> BranchKind {
    match class {
        Class::CondBranch => BranchKind::Conditional,
        Class::Jump | Class::Call => BranchKind::Direct,
        Class::Return => BranchKind::Return,
        Class::Indirect => BranchKind::Indirect,
        _ => BranchKind::None,
    }
}

/// Decodes every instruction of `source` as `isa` and checks it against the source.
fn check(isa: Isa, triple: &str, source: &str, as_flags: &[&str]) -> Vec<InstrInfo> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests/data/isas", source]
        .iter()
        .collect();
    let expected = expectations(&std::fs::read_to_string(&path).unwrap());
    let a = assemble(triple, &path, as_flags);
    assert_eq!(
        a.addrs.len(),
        expected.len(),
        "objdump's instructions vs the source's"
    );
    let mut decoded = Decoded::new(isa);
    let mut infos = Vec::new();
    for (k, e) in expected.iter().enumerate() {
        let start = a.addrs[k];
        let end = a
            .addrs
            .get(k + 1)
            .copied()
            .unwrap_or(TEXT + a.text.len() as u64);
        let bytes = &a.text[(start - TEXT) as usize..(end - TEXT) as usize];
        let ix = decoded.intern(start, bytes);
        let info = decoded.info(ix).clone();
        let at = format!("{} at {start:#x} ({:02x?})", e.line, bytes);
        assert!(info.decoded, "{at}: undecoded");
        assert_eq!(info.len as u64, end - start, "{at}: length");
        assert_eq!(info.class, e.class, "{at}: class");
        assert_eq!(info.branch, kind_of(e.class), "{at}: branch kind");
        let target = e.target.as_ref().map(|l| a.labels[l]);
        assert_eq!(info.target, target, "{at}: target");
        assert_eq!(info.static_hint, e.hint, "{at}: static hint");
        assert_eq!(
            info.reads_memory || info.writes_memory,
            matches!(e.class, Class::Load | Class::Store),
            "{at}: memory access"
        );
        infos.push(info);
    }
    infos
}

/// The instruction whose source line starts with `text`.
fn find<'a>(infos: &'a [InstrInfo], source: &str, text: &str) -> &'a InstrInfo {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests/data/isas", source]
        .iter()
        .collect();
    let lines = expectations(&std::fs::read_to_string(path).unwrap());
    let k = lines.iter().position(|e| e.line.starts_with(text)).unwrap();
    &infos[k]
}

#[test]
fn ppc64le_assembled_instructions_decode_as_written() {
    let infos = check(Isa::Ppc64le, "powerpc64le-linux-gnu", "ppc64le.s", &[]);
    // bdnz reads and writes CTR; bl writes LR and blr reads it; a recording form writes CR0.
    let bdnz = find(&infos, "ppc64le.s", "bdnz back");
    assert_eq!(bdnz.sources, bdnz.dests);
    assert_eq!(bdnz.sources.len(), 1);
    let bl = find(&infos, "ppc64le.s", "bl fwd");
    let blr = find(&infos, "ppc64le.s", "blr ");
    assert_eq!(bl.dests, blr.sources);
    let mtctr = find(&infos, "ppc64le.s", "mtctr");
    assert_eq!(mtctr.dests, bdnz.dests, "mtctr writes CTR");
    let add = find(&infos, "ppc64le.s", "add 3");
    let add_dot = find(&infos, "ppc64le.s", "add. 3");
    assert_eq!(add_dot.dests.len(), add.dests.len() + 1);
    // Indexed forms: the data register is written (a load) or read (a store), the others only
    // form the address (lxvd2x's RA = 0 reads as zero, not r0).
    let lwzx = find(&infos, "ppc64le.s", "lwzx");
    assert_eq!((lwzx.dests.len(), lwzx.address_sources.len()), (1, 2));
    let lxvd2x = find(&infos, "ppc64le.s", "lxvd2x");
    assert_eq!((lxvd2x.dests.len(), lxvd2x.sources.len()), (1, 0));
    assert!(!lxvd2x.address_sources.is_empty());
    let stxvd2x = find(&infos, "ppc64le.s", "stxvd2x");
    assert!(stxvd2x.dests.is_empty());
    assert_eq!(stxvd2x.sources, lxvd2x.dests);
    let divdu = find(&infos, "ppc64le.s", "divdu");
    assert!(divdu.divide && divdu.latency > find(&infos, "ppc64le.s", "mulld").latency);
}

#[test]
fn aarch64_assembled_instructions_decode_as_written() {
    let infos = check(Isa::Aarch64, "aarch64-linux-gnu", "aarch64.s", &[]);
    // cmp writes the flags that b.ne reads; ldp writes both its registers.
    let cmp = find(&infos, "aarch64.s", "cmp x0");
    let bne = find(&infos, "aarch64.s", "b.ne");
    assert_eq!(cmp.dests, bne.sources);
    let ldp = find(&infos, "aarch64.s", "ldp");
    assert_eq!(ldp.dests.len(), 2);
    assert_eq!(ldp.address_sources.len(), 1);
}

#[test]
fn riscv64_assembled_instructions_decode_as_written() {
    let infos = check(
        Isa::Riscv64,
        "riscv64-linux-gnu",
        "riscv64.s",
        &["-march=rv64gc_zbb_zbc_zkn_zks"],
    );
    // The assembler compressed some: both lengths occur, and objdump agreed on each above.
    assert!(infos.iter().any(|i| i.len == 2) && infos.iter().any(|i| i.len == 4));
    let add = find(&infos, "riscv64.s", "add a0");
    assert_eq!((add.sources.len(), add.dests.len()), (2, 1));
    let sd = find(&infos, "riscv64.s", "sd a0");
    assert!(sd.dests.is_empty() && sd.sources.len() == 1 && sd.address_sources.len() == 1);
    // A compressed two-operand form reads its destination (c.add a5, a4 is add a5, a5, a4);
    // c.mv only writes it.
    let c_add = find(&infos, "riscv64.s", "c.add a5");
    assert_eq!((c_add.sources.len(), c_add.dests.len()), (2, 1));
    assert!(c_add.sources.contains(&c_add.dests[0]));
    let c_slli = find(&infos, "riscv64.s", "c.slli a5");
    assert_eq!(c_slli.sources, c_slli.dests);
    let c_mv = find(&infos, "riscv64.s", "c.mv a6");
    assert_eq!((c_mv.sources.len(), c_mv.dests.len()), (1, 1));
    assert_ne!(c_mv.sources, c_mv.dests);
}
