//! The timing model on hand-made traces whose cycle counts can be worked out on paper.

use super::*;

const INSTR: u64 = 1 << 63;

/// `code` laid out 16 bytes apart from 0x1000, executed `repeat` times in order (no branches).
fn events(d: &mut Decoded, code: &[&[u8]], repeat: usize) -> Vec<u64> {
    let ixs: Vec<u32> = code
        .iter()
        .enumerate()
        .map(|(k, b)| d.intern(0x1000 + 16 * k as u64, b))
        .collect();
    (0..repeat)
        .flat_map(|_| ixs.iter().map(|ix| INSTR | *ix as u64))
        .collect()
}

/// Times the second half of `ev` after warming the caches and predictor on the first.
fn run(ev: &[u64], d: &Decoded, cfg: &TimingConfig) -> TimingResult {
    let r = simulate(ev, ev.len() / 2..ev.len(), d, cfg, usize::MAX).unwrap();
    let sum: u64 = r.cpi.values().iter().sum();
    assert_eq!(
        sum, r.cycles,
        "the CPI stack adds up to the cycles: {:?}",
        r.cpi
    );
    r
}

const ADD_RAX_RBX: &[u8] = &[0x48, 0x01, 0xd8];

#[test]
fn a_dependent_chain_takes_its_latency_per_instruction() {
    let mut d = Decoded::default();
    let ev = events(&mut d, &[ADD_RAX_RBX], 10_000);
    for latency in [1, 3] {
        let cfg = TimingConfig {
            int_latency: latency,
            ..TimingConfig::default()
        };
        let r = run(&ev, &d, &cfg);
        let per = r.cycles as f64 / 5_000.0;
        assert!(
            (per - latency as f64).abs() < 0.01,
            "latency {latency}: {per}"
        );
        assert!(
            r.cpi.dependences > r.cycles * 9 / 10 || latency == 1,
            "{:?}",
            r.cpi
        );
    }
}

#[test]
fn independent_instructions_run_at_the_machine_width() {
    let mut d = Decoded::default();
    // mov eax,1 / mov ebx,2 / mov ecx,3 / mov edx,4 / mov esi,5 / mov edi,6 / mov r8d,7 /
    // mov r9d,8: no dependences at all.
    let code: [&[u8]; 8] = [
        &[0xb8, 1, 0, 0, 0],
        &[0xbb, 2, 0, 0, 0],
        &[0xb9, 3, 0, 0, 0],
        &[0xba, 4, 0, 0, 0],
        &[0xbe, 5, 0, 0, 0],
        &[0xbf, 6, 0, 0, 0],
        &[0x41, 0xb8, 7, 0, 0, 0],
        &[0x41, 0xb9, 8, 0, 0, 0],
    ];
    let ev = events(&mut d, &code, 2_000);
    for width in [1u32, 2, 4, 8] {
        let cfg = TimingConfig {
            fetch_width: width,
            decode_width: width,
            issue_width: width,
            commit_width: width,
            int_alus: 8,
            ..TimingConfig::default()
        };
        let r = run(&ev, &d, &cfg);
        assert!(
            (r.ipc - width as f64).abs() < 0.02 * width as f64,
            "width {width}: {}",
            r.ipc
        );
    }
}

#[test]
fn integer_alus_limit_independent_chains() {
    let mut d = Decoded::default();
    // add rax,1 / add rbx,1 / add rcx,1 / add rdx,1: four independent chains (and flags, which
    // only ever get written: no chain through them).
    let code: [&[u8]; 4] = [
        &[0x48, 0x83, 0xc0, 1],
        &[0x48, 0x83, 0xc3, 1],
        &[0x48, 0x83, 0xc1, 1],
        &[0x48, 0x83, 0xc2, 1],
    ];
    let ev = events(&mut d, &code, 5_000);
    for alus in [1u32, 2, 4] {
        let cfg = TimingConfig {
            int_alus: alus,
            ..TimingConfig::default()
        };
        let r = run(&ev, &d, &cfg);
        assert!(
            (r.ipc - alus as f64).abs() < 0.05 * alus as f64,
            "{alus} ALUs: {}",
            r.ipc
        );
        if alus == 1 {
            assert!(r.cpi.structural > r.cycles / 2, "{:?}", r.cpi);
        }
    }
}

#[test]
fn loads_that_miss_wait_for_memory() {
    let mut d = Decoded::default();
    // mov rax,[rbx] with rbx never changing, but the trace says each load reads a new line:
    // independent loads, so misses overlap up to the window; with a window of 1 they serialise.
    let ix = d.intern(0x1000, &[0x48, 0x8b, 0x03]);
    let mut ev = Vec::new();
    for k in 0..2_000u64 {
        ev.push(INSTR | ix as u64);
        ev.push((0x100_0000 + 64 * k) | (8u64 << 48)); // an 8-byte read of a new line
    }
    let serial = TimingConfig {
        rob: 1,
        ..TimingConfig::default()
    };
    let r = run(&ev, &d, &serial);
    let per = r.cycles as f64 / 1_000.0;
    let want = serial.memory_latency as f64;
    assert!(per > want && per < want + 10.0, "{per}");
    assert!(r.cpi.dcache > r.cycles * 9 / 10, "{:?}", r.cpi);
    let overlapped = run(&ev, &d, &TimingConfig::default());
    assert!(
        overlapped.cycles * 20 < r.cycles,
        "{} vs {}",
        overlapped.cycles,
        r.cycles
    );
}

#[test]
fn a_mispredicted_branch_costs_the_penalty() {
    let mut d = Decoded::default();
    // jne +0 at 0x1000 (2 bytes, to 0x1002 either way? no: taken goes to 0x1010) then a nop.
    let jne = d.intern(0x1000, &[0x75, 0x0e]);
    let nop_fall = d.intern(0x1002, &[0x90]);
    let nop_taken = d.intern(0x1010, &[0x90]);
    let mut ev = Vec::new();
    let mut x = 0x2545_f491u64;
    for _ in 0..4_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ev.push(INSTR | jne as u64);
        ev.push(INSTR | if x & 1 == 1 { nop_taken } else { nop_fall } as u64);
    }
    let cfg = TimingConfig::default();
    let r = run(&ev, &d, &cfg);
    // A random direction: about half the branches mispredict, each costing about the penalty.
    assert!(
        r.mispredicts > 750 && r.mispredicts < 1_250,
        "{}",
        r.mispredicts
    );
    let per_miss = r.cpi.branch as f64 / r.mispredicts as f64;
    let penalty = cfg.mispredict_penalty as f64;
    assert!(
        per_miss > penalty - 1.0 && per_miss < penalty + 6.0,
        "{per_miss}"
    );
}

#[test]
fn the_fetch_queue_bounds_fetch() {
    let mut d = Decoded::default();
    let code: [&[u8]; 4] = [
        &[0xb8, 1, 0, 0, 0],
        &[0xbb, 2, 0, 0, 0],
        &[0xb9, 3, 0, 0, 0],
        &[0xba, 4, 0, 0, 0],
    ];
    let ev = events(&mut d, &code, 2_000);
    for q in [1u32, 2, 4] {
        let cfg = TimingConfig {
            fetch_queue: q,
            ..TimingConfig::default()
        };
        let r = run(&ev, &d, &cfg);
        assert!(
            (r.ipc - q as f64).abs() < 0.05 * q as f64,
            "queue {q}: {}",
            r.ipc
        );
    }
}

/// `mov [rbx],rax / mov rax,[rbx]` 4,000 times, the load reading `load_offset` bytes from
/// where the store wrote: cycles per pair, timed on the second half.
fn store_then_load(cfg: &TimingConfig, load_offset: u64) -> f64 {
    let mut d = Decoded::default();
    let st = d.intern(0x1000, &[0x48, 0x89, 0x03]);
    let ld = d.intern(0x1003, &[0x48, 0x8b, 0x03]);
    let mut ev = Vec::new();
    for _ in 0..4_000 {
        let addr = 0x7000_0000u64;
        ev.push(INSTR | st as u64);
        ev.push(addr | (8u64 << 48) | (1u64 << 56)); // an 8-byte write
        ev.push(INSTR | ld as u64);
        ev.push((addr + load_offset) | (8u64 << 48)); // an 8-byte read
    }
    run(&ev, &d, cfg).cycles as f64 / 2_000.0
}

#[test]
fn a_load_of_an_in_flight_store_takes_the_forwarding_latency() {
    let with = |f: u32| TimingConfig {
        store_forward_latency: f,
        ..TimingConfig::default()
    };
    // The same bytes: a chain through memory, one forwarding per pair.
    let (fast, slow) = (store_then_load(&with(1), 0), store_then_load(&with(12), 0));
    assert!((slow - fast - 11.0).abs() < 0.5, "{fast} vs {slow}");
    // Other bytes (an L1 hit): no store holds them, the forwarding latency does not matter.
    let (a, b) = (
        store_then_load(&with(1), 64),
        store_then_load(&with(12), 64),
    );
    assert_eq!(a, b);
}
