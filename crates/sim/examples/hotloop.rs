//! Validation aid (scripts/mca-compare): finds the hottest loop of a kept cstrace stream's
//! measured part (the backward conditional branch covering the most executed bytes), writes one
//! iteration as Intel-syntax assembly for llvm-mca, and prints the timing model's cycles per
//! iteration of the same loop on the real trace (the default core, warmed by everything before).
use cryptospeed_sim::decode::{BranchKind, Class, Decoded};
use cryptospeed_sim::region::{unpack, Event, Recorder};
use cryptospeed_sim::timing::{self, TimingConfig};
use cryptospeed_sim::trace::read_cstrace;
use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, OpKind};
use std::collections::HashMap;

fn main() {
    let mut args = std::env::args().skip(1);
    let (trace, asm) = match (args.next(), args.next()) {
        (Some(t), Some(a)) => (t, a),
        _ => panic!("usage: hotloop TRACE OUT.s"),
    };
    let f = std::io::BufReader::new(std::fs::File::open(trace).unwrap());
    let mut d = Decoded::default();
    let mut rec = Recorder::new(false, 200_000_000);
    read_cstrace(f, &mut d, &mut rec).unwrap();
    let m = rec.measured_range();
    // (index in events, decoded index) of every measured instruction.
    let instrs: Vec<(usize, u32)> = (m.clone())
        .filter_map(|k| match unpack(rec.events[k]) {
            Event::Instr(ix) => Some((k, ix)),
            _ => None,
        })
        .collect();
    let mut loops: HashMap<(u64, u64), u64> = HashMap::new();
    for w in instrs.windows(2) {
        let (a, b) = (d.info(w[0].1), d.info(w[1].1));
        if a.branch == BranchKind::Conditional && b.addr <= a.addr {
            *loops.entry((b.addr, a.addr)).or_default() += a.addr - b.addr + a.len as u64;
        }
    }
    let (&(top, bottom), _) = loops.iter().max_by_key(|(_, w)| **w).expect("a loop");
    // One iteration: from an execution of the top to the bottom branch.
    let starts: Vec<usize> = (0..instrs.len())
        .filter(|k| d.info(instrs[*k].1).addr == top)
        .collect();
    let first = starts[0];
    let end = (first..instrs.len())
        .find(|k| d.info(instrs[*k].1).addr == bottom)
        .expect("the loop's branch");
    let mut fmt = IntelFormatter::new();
    fmt.options_mut().set_hex_prefix("0x");
    fmt.options_mut().set_hex_suffix("");
    fmt.options_mut().set_rip_relative_addresses(true);
    fmt.options_mut()
        .set_memory_size_options(iced_x86::MemorySizeOptions::Always);
    let mut text = String::from(".intel_syntax noprefix\n");
    for &(_, ix) in &instrs[first..=end] {
        let info = d.info(ix);
        // The trace has the callee in line: calls, returns and direct jumps are only control
        // flow here, which llvm-mca ignores (and charges a call 100 cycles).
        if matches!(info.class, Class::Call | Class::Return | Class::Jump) {
            continue;
        }
        let mut dec = Decoder::with_ip(64, &info.bytes, info.addr, DecoderOptions::NONE);
        let instr = dec.decode();
        let mut out = String::new();
        fmt.format(&instr, &mut out);
        // llvm-mc takes no numeric branch targets in Intel syntax: name them.
        if instr.op_count() == 1 && matches!(instr.op0_kind(), OpKind::NearBranch64) {
            let mut m = String::new();
            fmt.format_mnemonic(&instr, &mut m);
            out = format!("{m} L{:x}", instr.near_branch_target());
        }
        text += &out;
        text.push('\n');
    }
    std::fs::write(&asm, &text).unwrap();
    // The model on the real trace: up to 1,000 iterations from the first.
    let n = (starts.len() - 1).min(1000);
    let range = instrs[first].0..instrs[starts[n]].0;
    let r = timing::simulate(&rec.events, range, &d, &TimingConfig::default(), usize::MAX).unwrap();
    println!(
        "loop {top:#x}..{bottom:#x}: {} instructions per iteration ({} to llvm-mca), {} iterations timed; model {:.2} cycles/iteration, IPC {:.2}",
        end - first + 1,
        text.lines().count() - 1,
        n,
        r.cycles as f64 / n as f64,
        r.ipc
    );
}
