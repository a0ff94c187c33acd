//! pqm4's benchmark tables (`benchmarks.md`, written by its `convert_benchmarks.py md`): the
//! Cortex-M4 benchmark of post-quantum schemes. `# Speed Evaluation` has one table for KEMs
//! (`| scheme | implementation | key generation [cycles] | encapsulation [cycles] |
//! decapsulation [cycles] |`) and one for signatures, each cell `AVG: 988,722 <br /> MIN: … <br />
//! MAX: …`; `# Memory Evaluation` gives the stack in bytes the same way. Each implementation
//! column value (`clean`, `m4fspeed`, …) is a variant of its own (`pqm4-m4fspeed`); the figure is
//! the average cycles per operation, the stack is kept in the header. pqm4 takes every cycle
//! count at 24 MHz (its README), which is the clock the runs carry. mupq's speed.c times the
//! byte-string API (`crypto_kem_keypair(pk, sk)`, `crypto_kem_enc(ct, ss, pk)`,
//! `crypto_kem_dec(ss, ct, sk)`, `crypto_sign_keypair`/`crypto_sign`/`crypto_sign_open`), so the
//! columns are the from-bytes operations; the header's `timed` says each.

use crate::names;
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
    CLOCK_GHZ, CPU_MODEL,
};
use cryptospeed_model::Op;

pub struct Pqm4;

impl LogFormat for Pqm4 {
    fn name(&self) -> &'static str {
        "pqm4"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines()
            .any(|l| l.starts_with("| scheme | implementation |") && l.contains("[cycles]"))
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut log = ParsedLog::default();
        let mut section = String::new();
        let mut ops: Vec<Op> = Vec::new();
        for (n, line) in numbered_lines(text) {
            let t = line.trim();
            if let Some(title) = t.strip_prefix("# ") {
                section = title.to_string();
            } else if t.starts_with("| scheme |") || t.starts_with("| Scheme |") {
                ops = header_ops(t);
            } else if t.starts_with('|') && is_figures(&section) && !t.starts_with("| ---") {
                row(&mut log.runs, &section, &ops, n, t)?;
            } else if !(t.starts_with('|') || t.starts_with("## ") || t.is_empty()) {
                log.skipped.push((n, line.to_string()));
            }
        }
        log.runs.retain(|r| !r.results.is_empty());
        Ok(log)
    }
}

/// Speed (cycles) and memory (stack) tables; hashing shares and code sizes are not read.
fn is_figures(section: &str) -> bool {
    section.starts_with("Speed") || section.starts_with("Memory")
}

/// The operations of a table's columns after `scheme | implementation`.
fn header_ops(t: &str) -> Vec<Op> {
    cells(t)
        .iter()
        .skip(2)
        .filter_map(|c| {
            let c = c.to_ascii_lowercase();
            Some(if c.starts_with("key generation") {
                Op::KeygenEncode
            } else if c.starts_with("encapsulation") {
                Op::EncapsParse
            } else if c.starts_with("decapsulation") {
                Op::DecapsParse
            } else if c.starts_with("sign") {
                Op::Sign
            } else if c.starts_with("verify") {
                Op::VerifyParse
            } else {
                return None;
            })
        })
        .collect()
}

fn cells(t: &str) -> Vec<&str> {
    t.trim_matches('|').split('|').map(str::trim).collect()
}

/// One scheme × implementation row of a speed or memory table.
fn row(
    runs: &mut Vec<ImportedRun>,
    section: &str,
    ops: &[Op],
    n: usize,
    t: &str,
) -> Result<(), ImportError> {
    let c = cells(t);
    if c.len() != ops.len() + 2 {
        return Err(ImportError::at(
            n,
            format!(
                "expected a scheme, an implementation and {} figures, found '{t}'",
                ops.len()
            ),
        ));
    }
    let scheme = c[0].split(" (").next().unwrap_or(c[0]).trim();
    let run = run_for(runs, c[1], n);
    run.last_line = n;
    if section.starts_with("Memory") {
        let stack: Vec<String> = ops
            .iter()
            .zip(&c[2..])
            .map(|(op, v)| format!("{op} {v}"))
            .collect();
        run.set(&format!("stack bytes {scheme}"), stack.join(", "));
        return Ok(());
    }
    let m = names::named_scheme(scheme);
    for (op, cell) in ops.iter().zip(&c[2..]) {
        let avg = average(cell).ok_or_else(|| {
            ImportError::at(
                n,
                format!("expected 'AVG: N <br /> MIN: … <br /> MAX: …', found '{cell}'"),
            )
        })?;
        run.results.push(ImportedResult {
            primitive: m.primitive.clone(),
            op: *op,
            bytes: None,
            rate: 0.024e9 / avg,
            printed_name: scheme.to_string(),
            mapped: m.mapped,
            line: n,
            samples: Vec::new(),
            cycles: Some(avg),
        });
    }
    Ok(())
}

/// The run of one implementation column value (`m4fspeed`), made at its first row.
fn run_for<'a>(
    runs: &'a mut Vec<ImportedRun>,
    implementation: &str,
    n: usize,
) -> &'a mut ImportedRun {
    let name = format!("pqm4-{implementation}");
    if let Some(i) = runs.iter().position(|r| r.implementation == name) {
        return &mut runs[i];
    }
    let mut run = ImportedRun {
        format: "pqm4".into(),
        implementation: name,
        first_line: n,
        ..Default::default()
    };
    run.set(CPU_MODEL, "Arm Cortex-M4 (pqm4)");
    run.set(CLOCK_GHZ, "0.024");
    run.set("cycles", "average of the executions (AVG:)");
    run.set("timed", TIMED);
    runs.push(run);
    runs.last_mut().expect("just pushed")
}

/// What mupq's crypto_kem/speed.c and crypto_sign/speed.c time, in cryptospeed's operations:
/// the NIST byte-string API, its randomness drawn inside each timed call.
const TIMED: &str = "key generation = keygen+encode (crypto_kem_keypair / crypto_sign_keypair: \
    pk and sk written as bytes, randombytes inside the call), encapsulation = encaps+parse \
    (crypto_kem_enc: pk parsed from bytes in each call), decapsulation = decaps+parse \
    (crypto_kem_dec: sk parsed from bytes in each call), sign = sign (crypto_sign: sk unpacked \
    in each call; there is no sign+parse), verify = verify+parse (crypto_sign_open: pk unpacked \
    in each call)";

/// `AVG: 988,722 <br /> MIN: 985,880 <br /> MAX: 998,135` → 988722.
fn average(cell: &str) -> Option<f64> {
    let avg = cell
        .strip_prefix("AVG:")?
        .split('<')
        .next()?
        .trim()
        .replace(',', "");
    avg.parse::<u64>()
        .ok()
        .map(|v| v as f64)
        .filter(|v| *v > 0.0)
}
