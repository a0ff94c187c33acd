//! GitHub-flavoured Markdown tables, ready for a pull request or a README.

use super::{grids, legend, View};
use crate::registry::OutputFormat;
use cryptospeed_compare::Comparison;

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub const FORMAT: OutputFormat<Comparison, View> = OutputFormat {
    name: "markdown",
    aliases: &["md"],
    write,
};

pub fn write(c: &Comparison, view: &View) -> String {
    let mut out = String::new();
    for line in legend(c, view) {
        out.push_str(&format!("{}  \n", escape(&line)));
    }
    for g in grids(c, view) {
        out.push_str(&format!("\n**{}**\n\n", escape(&g.title)));
        out.push_str(&format!(
            "| {} |\n",
            g.header
                .iter()
                .map(|h| escape(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        out.push_str(&format!(
            "|{}|\n",
            g.header
                .iter()
                .enumerate()
                .map(|(i, _)| if i == 0 { ":---" } else { "---:" })
                .collect::<Vec<_>>()
                .join("|")
        ));
        for row in &g.rows {
            out.push_str(&format!(
                "| {} |\n",
                row.iter()
                    .map(|c| escape(c))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
    }
    out
}
