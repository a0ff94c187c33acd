//! Aligned plain text, benchstat-like: a legend, then each table with padded columns (names
//! left-aligned, figures right-aligned).

use super::{grids, legend, View};
use crate::registry::OutputFormat;
use cryptospeed_compare::Comparison;

pub const FORMAT: OutputFormat<Comparison, View> = OutputFormat {
    name: "text",
    aliases: &[],
    write,
};

pub fn write(c: &Comparison, view: &View) -> String {
    let mut out = String::new();
    for line in legend(c, view) {
        out.push_str(&line);
        out.push('\n');
    }
    for g in grids(c, view) {
        out.push('\n');
        let cols = g.header.len();
        let mut widths = vec![0usize; cols];
        for row in std::iter::once(&g.header).chain(&g.rows) {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        for row in std::iter::once(&g.header).chain(&g.rows) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                let pad = widths[i] - cell.chars().count();
                if i == 0 {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                } else {
                    line.push_str("  ");
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}
