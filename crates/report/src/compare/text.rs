//! Aligned plain text, benchstat-like: a legend, then each table with padded columns (names
//! left-aligned, figures right-aligned), the declared deviations as numbered footnotes below.

use super::{grids, legend, View};
use crate::markup::aligned;
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
        out.push_str(&aligned(&g));
    }
    let notes = view.footnotes.lines();
    if !notes.is_empty() {
        out.push('\n');
    }
    for line in notes {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
