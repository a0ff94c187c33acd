//! Tables of strings and the two ways to print them (aligned text, GitHub Markdown), so a
//! tabular format builds only its rows and legend and leaves the markup here (the shape of
//! hyperfine's `MarkupExporter`). The comparison's text and Markdown formats use it.

/// A titled table of strings: a header row and body rows of the same width.
pub struct Grid {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Padded columns, benchstat-like: the first left-aligned, the rest right-aligned, two spaces
/// between, trailing spaces trimmed.
pub fn aligned(g: &Grid) -> String {
    let mut out = String::new();
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
    out
}

/// Text made safe inside a Markdown table cell.
pub fn markdown_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A bold title line, then the table: first column left-aligned, the rest right-aligned.
pub fn markdown(g: &Grid) -> String {
    let row = |cells: &[String]| {
        format!(
            "| {} |\n",
            cells
                .iter()
                .map(|c| markdown_escape(c))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    };
    let mut out = format!("\n**{}**\n\n", markdown_escape(&g.title));
    out.push_str(&row(&g.header));
    out.push_str(&format!(
        "|{}|\n",
        g.header
            .iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { ":---" } else { "---:" })
            .collect::<Vec<_>>()
            .join("|")
    ));
    for r in &g.rows {
        out.push_str(&row(r));
    }
    out
}
