//! The implementation matrix: rows are primitives (and operations), columns are the run's
//! variants, one table per message size plus one for public key; the fastest cell of each row
//! is marked `*`. A primitive an implementation does not offer is `n/a`, never 0.
//!
//! It is what `run --impl a,b,c` prints by default, and `--format matrix` for any run.

use super::{by_variant, find, is_symmetric, Options};
use crate::registry::OutputFormat;
use cryptospeed_model::{Measurement, Op, RunRecord, Status, VariantMeasurement};
use std::fmt::Write;

/// Throughput in the unit a reader scans fastest: MB/s (10^6 bytes) for messages, ops/s for
/// public key.
fn rate(m: &Measurement) -> Option<f64> {
    if !m.status.has_numbers() {
        return None;
    }
    match m.cell.bytes {
        Some(_) => m.bytes_per_s().map(|b| b / 1e6),
        None => m.ops_per_s(),
    }
}

/// A cell's figure with its marks; `implementation` names its column's footnotes.
fn text(
    m: Option<&Measurement>,
    best: Option<f64>,
    options: &Options,
    implementation: &str,
) -> String {
    let Some(m) = m else {
        return "-".into();
    };
    match rate(m) {
        Some(r) => {
            let mut s = if r >= 100.0 {
                format!("{r:.0}")
            } else {
                format!("{r:.2}")
            };
            if m.samples.is_empty() {
                // Numbers read back from another tool carry no samples.
                s.push('†');
            }
            if options.ci {
                let shown = !m.samples.is_empty() && m.honest_interval();
                if let Some(sum) = m.summary.filter(|_| shown) {
                    let _ = write!(s, " ±{:.1}%", sum.rel_ci() * 100.0);
                }
            }
            if m.status == Status::Imprecise {
                s.push('?');
            }
            if m.status == Status::Partial {
                s.push('…');
            }
            let c = &m.cell;
            s.push_str(
                &options
                    .footnotes
                    .aligned_marker(implementation, &c.primitive, c.op),
            );
            if best == Some(r) {
                s.push_str(" *");
            }
            s
        }
        None => match m.status {
            Status::Unavailable => "n/a".into(),
            _ => "FAILED".into(),
        },
    }
}

type Row = (String, String, Vec<Option<Measurement>>);

/// One table; `impls` holds each column's implementation, for its footnote markers.
fn table(columns: &[String], impls: &[&str], rows: &[Row], options: &Options) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    let mut header = vec!["primitive".to_string(), "op".to_string()];
    header.extend(columns.iter().cloned());
    t.set_header(header);
    for (id, op, cells) in rows {
        let best = cells
            .iter()
            .flatten()
            .filter_map(rate)
            .fold(None, |a: Option<f64>, r| Some(a.map_or(r, |a| a.max(r))));
        let best = best.filter(|_| cells.iter().flatten().filter_map(rate).count() > 1);
        let mut row = vec![id.clone(), op.clone()];
        let texts = cells.iter().zip(impls);
        row.extend(texts.map(|(m, i)| text(m.as_ref(), best, options, i)));
        t.add_row(row);
    }
    for i in 2..columns.len() + 2 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    format!("{t}\n")
}

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "matrix",
    aliases: &[],
    write,
};

pub fn write(record: &RunRecord, options: &Options) -> String {
    let groups = by_variant(record);
    let columns: Vec<String> = groups.iter().map(|(l, _)| l.clone()).collect();
    let impls: Vec<&str> = groups
        .iter()
        .map(|(_, ms)| ms[0].implementation.as_str())
        .collect();
    let all: Vec<&VariantMeasurement> = record.measurements.iter().collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "cryptospeed run {}{} on {}",
        record.run.id,
        record
            .run
            .label
            .as_deref()
            .map(|l| format!(" '{l}'"))
            .unwrap_or_default(),
        record.machine.cpu_model
    );
    let prims: Vec<_> = super::primitives_in(&all);
    let mut sizes = super::sizes(&all);
    sizes.dedup();
    let cell_row = |id: &str, op: Op, bytes: Option<u64>| -> Vec<Option<Measurement>> {
        groups
            .iter()
            .map(|(_, ms)| find(ms, id, op, bytes).cloned())
            .collect()
    };
    for size in &sizes {
        let mut rows = Vec::new();
        for p in prims.iter().filter(|p| is_symmetric(p)) {
            for op in p.ops() {
                let cells = cell_row(p.id, *op, Some(*size));
                if cells.iter().any(Option::is_some) {
                    rows.push((p.id.to_string(), op.to_string(), cells));
                }
            }
        }
        if !rows.is_empty() {
            let _ = writeln!(out, "\nMB/s at {size} bytes (10^6 bytes per second)");
            out.push_str(&table(&columns, &impls, &rows, options));
        }
    }
    let mut rows = Vec::new();
    for p in prims.iter().filter(|p| !is_symmetric(p)) {
        for op in p.ops() {
            let cells = cell_row(p.id, *op, None);
            if cells.iter().any(Option::is_some) {
                rows.push((p.id.to_string(), op.to_string(), cells));
            }
        }
    }
    if !rows.is_empty() {
        let _ = writeln!(out, "\noperations per second");
        out.push_str(&table(&columns, &impls, &rows, options));
    }
    legend(&mut out, record, options);
    out
}

/// What the marks under the tables mean, those that occur only when they do.
fn legend(out: &mut String, record: &RunRecord, options: &Options) {
    let _ = writeln!(
        out,
        "\n* fastest in the row; n/a: the implementation does not offer it; FAILED: see --format json\n\
         ?: imprecise (time budget spent before the precision target)"
    );
    let partial = |m: &VariantMeasurement| m.measurement.status == Status::Partial;
    if record.measurements.iter().any(partial) {
        let _ = writeln!(
            out,
            "…: partial (the run stopped before the cell finished: its bouts so far; an interval from two bouts on)"
        );
    }
    if record
        .measurements
        .iter()
        .any(|m| m.measurement.status.has_numbers() && m.measurement.samples.is_empty())
    {
        let _ = writeln!(
            out,
            "†: read back from `openssl speed -mr`: one number, no samples, no confidence interval"
        );
    }
    for line in options.footnotes.lines() {
        let _ = writeln!(out, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_per_variant_fastest_marked_missing_is_na() {
        let mut r = super::super::fixture::record();
        for m in &mut r.measurements {
            m.measurement.samples.push(cryptospeed_model::Sample {
                iters: 1,
                wall_ns: 1,
                cpu_ns: 1,
                tsc: 1,
                bout: 0,
            });
        }
        let mut other = r.measurements.clone();
        for m in &mut other {
            m.variant = "ring-0.17".into();
            m.implementation = "ring".into();
            if let Some(s) = m.measurement.summary.as_mut() {
                s.median /= 2.0; // twice as fast
            }
        }
        other.retain(|m| m.measurement.cell.primitive != "x25519");
        r.measurements.extend(other);
        let out = write(&r, &Options::default());
        assert!(
            out.contains("openssl-3.0.19") && out.contains("ring-0.17"),
            "{out}"
        );
        let md5 = out
            .lines()
            .find(|l| l.contains("md5") && l.contains("hash"))
            .unwrap();
        // 16 B in 160 ns = 100 MB/s; ring at 80 ns = 200 MB/s, the fastest.
        let md5: Vec<&str> = md5.split_whitespace().collect();
        assert_eq!(md5, ["md5", "hash", "100", "200", "*"]);
        assert!(!out.contains('†'));
        // ring has no x25519 cell in this run: its column shows `-`.
        let x = out.lines().find(|l| l.contains("x25519")).unwrap();
        let x: Vec<&str> = x.split_whitespace().collect();
        assert_eq!((x.len(), x[0], x[3]), (4, "x25519", "-"), "{x:?}");
        assert!(x[2].parse::<f64>().is_ok(), "{x:?}");
        assert!(out.contains("MB/s at 8192 bytes"));
        let md2 = out.lines().find(|l| l.contains("md2")).unwrap();
        assert!(md2.contains("n/a"), "{md2}");
    }

    #[test]
    fn a_partial_cell_is_marked_with_an_interval_only_from_two_bouts() {
        let mut r = super::super::fixture::record();
        r.measurements
            .retain(|m| m.measurement.cell.primitive == "md5");
        r.measurements.truncate(1);
        let sample = |bout| cryptospeed_model::Sample {
            iters: 1,
            wall_ns: 1,
            cpu_ns: 1,
            tsc: 1,
            bout,
        };
        let m = &mut r.measurements[0].measurement;
        m.status = Status::Partial;
        m.samples = vec![sample(0), sample(0)];
        let ci = Options {
            ci: true,
            ..Options::default()
        };
        let one = write(&r, &ci);
        assert!(one.contains('…') && one.contains("…: partial"), "{one}");
        assert!(!one.contains('±'), "one bout, no interval: {one}");
        r.measurements[0].measurement.samples.push(sample(1));
        assert!(write(&r, &ci).contains('±'));
    }
}
