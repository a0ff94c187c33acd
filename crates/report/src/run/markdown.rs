//! Markdown tables for READMEs and issue comments: one symmetric table (1000s of bytes/s, with
//! ±% when asked) and one public-key table (ops/s) per variant; a figure whose column declares a
//! deviation carries its footnote's marker, the footnotes close the document.

use super::{by_variant, find, is_symmetric, primitives_in, sizes, symmetric_op, Options};
use crate::registry::OutputFormat;
use cryptospeed_model::RunRecord;
use std::fmt::Write;

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "markdown",
    aliases: &["md"],
    write,
};

pub fn write(record: &RunRecord, options: &Options) -> String {
    let mut out = String::new();
    for (label, ms) in by_variant(record) {
        let mark = |p: &str, op| options.footnotes.marker(&ms[0].implementation, p, op);
        let _ = writeln!(out, "### {label} on {}\n", record.machine.cpu_model);
        let prims = primitives_in(&ms);
        let sizes = sizes(&ms);
        if prims.iter().any(|p| is_symmetric(p)) && !sizes.is_empty() {
            let _ = write!(out, "| primitive |");
            for s in &sizes {
                let _ = write!(out, " {s} B |");
            }
            let _ = writeln!(out, "\n|---|{}", "---:|".repeat(sizes.len()));
            for p in prims.iter().filter(|p| is_symmetric(p)) {
                let op = symmetric_op(&ms, p);
                let _ = write!(out, "| {} |", p.id);
                for s in &sizes {
                    let cell = match find(&ms, p.id, op, Some(*s)) {
                        Some(m) if m.status.has_numbers() => {
                            let k = m.bytes_per_s().unwrap_or(0.0) / 1e3;
                            let honest = m.summary.filter(|s| s.n > 1 && m.honest_interval());
                            let figure = match (options.ci, honest) {
                                (true, Some(sum)) => {
                                    format!("{k:.2}k ±{:.1}%", sum.rel_ci() * 100.0)
                                }
                                _ => format!("{k:.2}k"),
                            };
                            figure + &mark(p.id, op)
                        }
                        Some(m) => m.status.as_str().to_string(),
                        None => "n/a".into(),
                    };
                    let _ = write!(out, " {cell} |");
                }
                out.push('\n');
            }
            out.push('\n');
        }
        let pk: Vec<_> = prims.iter().filter(|p| !is_symmetric(p)).collect();
        if !pk.is_empty() {
            let _ = writeln!(
                out,
                "| primitive | op | ops/s | ±% | cycles/op |\n|---|---|---:|---:|---:|"
            );
            for p in pk {
                for op in p.ops() {
                    if let Some(m) = find(&ms, p.id, *op, None) {
                        match (m.status.has_numbers(), m.summary) {
                            (true, Some(s)) => {
                                let _ = writeln!(
                                    out,
                                    "| {} | {op} | {:.1}{} | {} | {:.0} |",
                                    p.id,
                                    1e9 / s.median,
                                    mark(p.id, *op),
                                    interval_pct(m),
                                    m.cycles_per_op().unwrap_or(0.0)
                                );
                            }
                            _ => {
                                let _ = writeln!(
                                    out,
                                    "| {} | {op} | {} | | |",
                                    p.id,
                                    m.status.as_str()
                                );
                            }
                        }
                    }
                }
            }
            out.push('\n');
        }
    }
    let notes = options.footnotes.lines();
    if !notes.is_empty() {
        let _ = writeln!(out, "{}\n", notes.join("  \n"));
    }
    out
}

/// The ±% of a figure's interval; nothing for a single (imported) figure, which has none, nor
/// for a partial cell of one bout.
fn interval_pct(m: &cryptospeed_model::Measurement) -> String {
    match m.summary.filter(|s| s.n > 1 && m.honest_interval()) {
        Some(s) => format!("{:.1}", s.rel_ci() * 100.0),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tables_render() {
        let text = super::write(
            &super::super::fixture::record(),
            &super::Options {
                ci: true,
                cycles: false,
                ..Default::default()
            },
        );
        assert!(text.contains("| primitive | 16 B | 8192 B |"), "{text}");
        assert!(
            text.contains("| md5 | 100000.00k ±1.0% | 500000.00k ±1.0% |"),
            "{text}"
        );
        assert!(text.contains("| md2 | unavailable | n/a |"), "{text}");
        assert!(
            text.contains("| rsa-2048 | sign | 4000.0 | 1.0 | 650000 |"),
            "{text}"
        );
    }
}
