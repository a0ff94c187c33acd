//! Go benchmark format (`go test -bench` lines), so `benchstat old.txt new.txt` and the rest of
//! the Go tooling read cryptospeed runs: `cpu:`/`pkg:` configuration lines, then per variant a
//! `variant:` line and one `BenchmarkPRIMITIVE/OP[/BYTES]  ITERS  NS ns/op  [MB/s]` line per
//! bout the figure is made from (slow bouts left out, each sample with the host's part removed,
//! its ns/op the mean of its samples': the bout figures `compare` works with; its calls summed). An imported
//! cell, which has no samples, is one line at its printed rate. Every cell with figures is
//! written, imprecise ones too (benchstat shows their spread); failed and unavailable ones are not.

use super::Options;
use crate::registry::OutputFormat;
use cryptospeed_model::{Measurement, RunRecord};

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "gobench",
    aliases: &["benchstat"],
    write,
};

pub fn write(record: &RunRecord, _: &Options) -> String {
    let mut out = String::new();
    let cpu = record.machine.cpu_model.trim();
    if !cpu.is_empty() {
        out.push_str(&format!("cpu: {cpu}\n"));
    }
    out.push_str("pkg: cryptospeed\n");
    let mut variant = None;
    for vm in &record.measurements {
        let m = &vm.measurement;
        if !m.status.has_numbers() && m.reported_rate.is_none() {
            continue;
        }
        if variant != Some(&vm.variant) {
            out.push_str(&format!("variant: {}\n", vm.variant));
            variant = Some(&vm.variant);
        }
        for (iters, ns) in bouts(m) {
            out.push_str(&line(m, iters, ns));
        }
    }
    out
}

/// (calls, ns per call) of each bout, in bout order; the printed rate of an imported cell.
fn bouts(m: &Measurement) -> Vec<(u64, f64)> {
    if m.samples.is_empty() {
        let ops = match m.reported_rate {
            Some(rate) if rate > 0.0 => rate / m.cell.bytes.unwrap_or(1) as f64,
            _ => return m.summary.iter().map(|s| (1, s.median)).collect(),
        };
        return vec![(1, 1e9 / ops)];
    }
    // The bouts the figure is made from: slow bouts left out, each sample with the host's part
    // removed (cryptospeed_stats::host), a bout's ns/op the mean of its samples' as the figure
    // takes it; its calls summed.
    let kept = cryptospeed_stats::without_slow_bouts(&m.samples, &m.disturbances);
    let mut by_bout: Vec<(u32, u64, Vec<f64>)> = Vec::new();
    for s in kept.iter().filter_map(cryptospeed_stats::host::corrected) {
        if s.iters == 0 {
            continue;
        }
        let ns = s.wall_ns as f64 / s.iters as f64;
        match by_bout.iter_mut().find(|(b, _, _)| *b == s.bout) {
            Some(entry) => {
                entry.1 += s.iters;
                entry.2.push(ns);
            }
            None => by_bout.push((s.bout, s.iters, vec![ns])),
        }
    }
    by_bout
        .into_iter()
        .map(|(_, iters, ns)| (iters, ns.iter().sum::<f64>() / ns.len() as f64))
        .collect()
}

/// One benchmark line; names carry no spaces (benchstat splits fields on them).
fn line(m: &Measurement, iters: u64, ns: f64) -> String {
    let mut name = format!("Benchmark{}/{}", m.cell.primitive, m.cell.op);
    if let Some(b) = m.cell.bytes {
        name.push_str(&format!("/{b}"));
    }
    let name: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    let mut text = format!("{name} \t{iters:>10}\t{ns:>14.4} ns/op");
    if let Some(b) = m.cell.bytes {
        text.push_str(&format!("\t{:>10.2} MB/s", b as f64 * 1e3 / ns));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use cryptospeed_model::{Measurement, Sample};

    #[test]
    fn one_line_per_bout_at_its_mean_rate() {
        let mut record = super::super::fixture::record();
        let text = super::write(&record, &Default::default());
        assert!(text.starts_with("cpu: "), "{text}");
        assert!(text.contains("variant: openssl-3.0.19\n"), "{text}");
        let m = &mut record
            .measurements
            .iter_mut()
            .find(|vm| vm.measurement.cell.primitive == "md5")
            .unwrap()
            .measurement;
        m.samples = (0..6)
            .map(|i| Sample {
                iters: 1000,
                wall_ns: 100_000 + 1000 * (i / 2),
                cpu_ns: 0,
                tsc: 0,
                bout: (i / 2) as u32,
            })
            .collect();
        let (primitive, op) = (m.cell.primitive.clone(), m.cell.op);
        let cell = m.cell.clone();
        let text = super::write(&record, &Default::default());
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&format!("Benchmark{primitive}/{op}/16 ")))
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].contains(" 2000\t") && lines[1].contains("101.0000 ns/op"));
        let imported = Measurement::imported(cell.clone(), 1e6 * cell.bytes.unwrap_or(1) as f64);
        assert_eq!(super::bouts(&imported), vec![(1, 1000.0)]);
    }

    #[test]
    fn imprecise_cells_are_written_too() {
        let mut record = super::super::fixture::record();
        for vm in &mut record.measurements {
            vm.measurement.status = cryptospeed_model::Status::Imprecise;
        }
        let text = super::write(&record, &Default::default());
        let lines = text.lines().filter(|l| l.starts_with("Benchmark")).count();
        let with_figures = record
            .measurements
            .iter()
            .filter(|vm| vm.measurement.summary.is_some())
            .count();
        assert!(with_figures > 0);
        assert_eq!(lines, with_figures, "{text}");
    }
}
