//! mlkem-native's and mldsa-native's benchmark output (`test/bench/bench_mlkem.c`, printed by
//! `scripts/tests bench`): per parameter set an `INFO  > Benchmark  ML-KEM-768  (native, opt)`
//! line (`INFO  > MLKEM768` in mlkem-c-aarch64, its predecessor), then `   keypair cycles =
//! 51842` (the median of NTESTS runs; `cycles (avg) =` their mean; `cycles=60653` before), a `percentile 1 10 20 … 99` legend and one
//! `   keypair percentiles:  50898  51246 …` row per operation. The figure kept is the median in
//! cycles per operation (the 50th percentile where the row has one, else the `cycles =` line);
//! every percentile row is kept in the run's header. The bench times the byte-string API, so
//! `keypair`/`encaps`/`decaps` are `keygen+encode`/`encaps+parse`/`decaps+parse` and ML-DSA's
//! `verify` is `verify+parse` (the header's `timed` says each). A row whose values do not match the legend
//! (two wide numbers printed together) costs its percentiles, said in a warning, not the file.

use crate::names::{self, Mapped};
use crate::{
    numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog,
};
use cryptospeed_model::Op;

pub struct PqNative;

impl LogFormat for PqNative {
    fn name(&self) -> &'static str {
        "pq-native-bench"
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines().any(|l| cycles_line(l).is_some())
            && text
                .lines()
                .any(|l| l.trim_start().starts_with("percentile") || scheme_in(l.trim()).is_some())
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut reader = Reader::default();
        for (n, line) in numbered_lines(text) {
            reader.line(n, line);
        }
        reader.finish();
        Ok(reader.log)
    }
}

#[derive(Default)]
struct Reader {
    log: ParsedLog,
    run: Option<ImportedRun>,
    scheme: Option<String>,
    build: String,
    legend: Vec<u32>,
}

impl Reader {
    fn line(&mut self, n: usize, line: &str) {
        let t = line.trim();
        if let Some(scheme) = scheme_in(t) {
            self.scheme = Some(scheme);
            if let Some(build) = build_in(t) {
                self.set_build(build);
            }
        } else if let Some((op, cycles, avg)) = cycles_line(t) {
            self.cycles(n, t, op, cycles, avg);
        } else if let Some(rest) = t.strip_prefix("percentile ") {
            self.legend = rest
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
        } else if let Some((op, values)) = t.split_once(" percentiles:") {
            self.percentiles(n, op.trim(), values);
        } else if !t.is_empty() && !t.starts_with("INFO") && !t.starts_with("CRYPTO_") {
            self.log.skipped.push((n, line.to_string()));
        }
    }

    /// `(native, no_opt)` in a `Benchmark` line: another build is another output.
    fn set_build(&mut self, build: String) {
        if build != self.build && self.run.as_ref().is_some_and(|r| !r.results.is_empty()) {
            self.finish();
        }
        self.build = build;
    }

    fn cycles(&mut self, n: usize, t: &str, op: Op, cycles: f64, avg: bool) {
        let Some(scheme) = self.scheme.clone() else {
            self.log.skipped.push((n, t.to_string()));
            return;
        };
        let m = names::named_scheme(&scheme);
        let repeated = self.run.as_ref().is_some_and(|r| {
            r.results
                .iter()
                .any(|x| x.primitive == m.primitive && x.op == op)
        });
        if repeated {
            self.finish();
        }
        let run = self
            .run
            .get_or_insert_with(|| new_run(n, &scheme, &self.build));
        run.last_line = n;
        run.results.push(result(n, &scheme, &m, op, cycles));
        if avg {
            run.set(
                "cycles",
                "mean (cycles (avg) =); the median is the 50th percentile where printed",
            );
        }
    }

    /// A percentile row: kept in the header, and its 50th percentile as the median.
    fn percentiles(&mut self, n: usize, op: &str, values: &str) {
        let values: Vec<&str> = values.split_whitespace().collect();
        let (Some(run), Some(op)) = (self.run.as_mut(), op_named(op)) else {
            self.log
                .skipped
                .push((n, format!("{op} percentiles:{}", values.join(" "))));
            return;
        };
        run.last_line = n;
        let Some(result) = run.results.iter_mut().rev().find(|r| r.op == op) else {
            return;
        };
        let numbers: Option<Vec<f64>> = values.iter().map(|v| v.parse().ok()).collect();
        let numbers = numbers.filter(|v| v.len() == self.legend.len());
        let Some(numbers) = numbers else {
            self.log.warnings.push(format!(
                "line {n}: the {} {} percentile row has {} values for {} percentiles (two numbers printed together?): its percentiles are not kept, its median comes from the 'cycles =' line",
                result.primitive, op, values.len(), self.legend.len()
            ));
            return;
        };
        if let Some(i) = self.legend.iter().position(|p| *p == 50) {
            result.cycles = Some(numbers[i]);
        }
        let shown: Vec<String> = self
            .legend
            .iter()
            .zip(&numbers)
            .map(|(p, v)| format!("p{p}={v}"))
            .collect();
        let key = format!("{} {} percentiles", result.primitive, op);
        run.set(&key, shown.join(" "));
    }

    fn finish(&mut self) {
        if let Some(run) = self.run.take() {
            if !run.results.is_empty() {
                self.log.runs.push(run);
            }
        }
    }
}

fn new_run(n: usize, scheme: &str, build: &str) -> ImportedRun {
    let dsa = scheme.to_ascii_lowercase().contains("dsa");
    let mut run = ImportedRun {
        format: "pq-native-bench".into(),
        implementation: if dsa { "mldsa-native" } else { "mlkem-native" }.into(),
        first_line: n,
        ..Default::default()
    };
    if !build.is_empty() {
        run.set("build", build);
    }
    // Cycle counts with no clock: file::rate_of reads them at --clock-ghz, else 1 GHz.
    run.set("cycles", "median of the runs (cycles =)");
    run.set("timed", if dsa { DSA_TIMED } else { KEM_TIMED });
    run
}

/// What test/bench/bench_mlkem.c times, in cryptospeed's operations (crates/catalog's
/// definitions): byte strings in and out, so the from-bytes forms.
const KEM_TIMED: &str = "keypair = keygen+encode (mlk_kem_keypair_derand: ek and the expanded \
    dk written as bytes; its 64 coins drawn before timing, not per call), encaps = encaps+parse \
    (mlk_kem_enc_derand: ek parsed with FIPS 203 7.2's modulus check, H(ek) and A computed per \
    call; m drawn before timing), decaps = decaps+parse (mlk_kem_dec: dk parsed with FIPS 203 \
    7.3's hash check per call)";
/// mldsa-native's bench: the same byte-string API (`sign` parses the private key per call too;
/// there is no `sign+parse` operation, so it stays `sign`).
const DSA_TIMED: &str = "keypair = keygen+encode (pk and sk written as bytes), sign = sign \
    (sk unpacked from bytes in each call), verify = verify+parse (pk unpacked in each call)";

fn result(n: usize, printed: &str, m: &Mapped, op: Op, cycles: f64) -> ImportedResult {
    ImportedResult {
        primitive: m.primitive.clone(),
        op,
        bytes: None,
        rate: 1e9 / cycles,
        printed_name: printed.to_string(),
        mapped: m.mapped,
        line: n,
        samples: Vec::new(),
        cycles: Some(cycles),
    }
}

/// `keypair cycles = 51842`, `sign cycles (avg) = 179807`, the older `keypair cycles=60653`:
/// the operation, the count, and whether it is a mean.
fn cycles_line(line: &str) -> Option<(Op, f64, bool)> {
    let (head, value) = line.trim().split_once('=')?;
    let (op, rest) = head.trim().split_once(' ')?;
    let avg = match rest.trim() {
        "cycles" => false,
        "cycles (avg)" => true,
        _ => return None,
    };
    let cycles: f64 = value.trim().parse::<u64>().ok()? as f64;
    Some((op_named(op)?, cycles, avg))
}

fn op_named(op: &str) -> Option<Op> {
    Some(match op {
        "keypair" => Op::KeygenEncode,
        "encaps" => Op::EncapsParse,
        "decaps" => Op::DecapsParse,
        "sign" => Op::Sign,
        "verify" => Op::VerifyParse,
        _ => return None,
    })
}

/// `ML-KEM-768`, `MLKEM768`, `ML-DSA-44`, `mldsa44` anywhere in a line, as `ml-kem-768`.
fn scheme_in(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    for (kind, sets) in [("kem", ["512", "768", "1024"]), ("dsa", ["44", "65", "87"])] {
        for set in sets {
            for spelled in [format!("ml-{kind}-{set}"), format!("ml{kind}{set}")] {
                if lower.contains(&spelled) && !lower.contains(" cycles") {
                    return Some(format!("ml-{kind}-{set}"));
                }
            }
        }
    }
    None
}

/// `(native, no_opt)` / `(native opt)` after the scheme of a `Benchmark` line.
fn build_in(line: &str) -> Option<String> {
    let open = line.find('(')?;
    let close = line[open..].find(')')? + open;
    Some(line[open + 1..close].to_string())
}
