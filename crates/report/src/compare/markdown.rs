//! GitHub-flavoured Markdown tables, ready for a pull request or a README, with the declared
//! deviations as numbered footnotes below.

use super::{grids, legend, View};
use crate::markup::{markdown, markdown_escape};
use crate::registry::OutputFormat;
use cryptospeed_compare::Comparison;

pub const FORMAT: OutputFormat<Comparison, View> = OutputFormat {
    name: "markdown",
    aliases: &["md"],
    write,
};

pub fn write(c: &Comparison, view: &View) -> String {
    let mut out = String::new();
    for line in legend(c, view) {
        out.push_str(&format!("{}  \n", markdown_escape(&line)));
    }
    for g in grids(c, view) {
        out.push_str(&markdown(&g));
    }
    let notes = view.footnotes.lines();
    if !notes.is_empty() {
        out.push_str(&format!("\n{}\n", markdown_escape(&notes.join("  \n"))));
    }
    out
}
