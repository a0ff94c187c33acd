//! The shell every page of the site shares: the report's Content Security Policy and style, a
//! navigation line back to the index, and relative links only, so the site reads the same from a
//! file system, any static host or a copy on a laptop. Also the little HTML helpers the pages use.

use cryptospeed_chart::escape;
use std::fmt::Write as _;

/// Extra style the site adds to the report's.
const SITE_STYLE: &str = r#"
table.data { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
table.data th, table.data td { border: 1px solid #ccc; padding: 3px 7px; vertical-align: top; }
table.data th { background: #f2f2f7; text-align: left; }
table.data td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.imported { color: #7a5a00; }
.ci, .via { color: #666; font-size: 11.5px; }
table.meta td { overflow-wrap: anywhere; }
"#;

/// A whole page. `depth` is how many folders below the site's root the page lies (0 for the
/// index, 1 for `runs/12.html`); `body` is already HTML.
pub fn page(title: &str, depth: usize, lead: &str, body: &str) -> String {
    let root = "../".repeat(depth);
    let title = escape(title);
    let mut out = String::with_capacity(body.len() + 4096);
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}{SITE_STYLE}</style>
</head>
<body>
<header>
<nav><a href="{root}index.html">cryptospeed results</a><a href="{root}index.html#machines">Machines</a><a href="{root}index.html#primitives">Primitives</a><a href="{root}index.html#runs">Latest runs</a><a href="{root}index.html#comparisons">Comparisons</a></nav>
<h1>{title}</h1>
<p class="lead">{lead}</p>
</header>
"#,
        csp = cryptospeed_report::policy::CSP,
        style = cryptospeed_report::html::STYLE,
    );
    out.push_str(body);
    out.push_str("</body>\n</html>\n");
    out
}

/// A link, its text escaped.
pub fn link(href: &str, text: &str) -> String {
    format!(r#"<a href="{}">{}</a>"#, escape(href), escape(text))
}

/// A table with a header row; `rows` are already HTML `<tr>…</tr>`.
pub fn table(class: &str, header: &[&str], rows: &[String]) -> String {
    let mut out = format!(r#"<table class="{class}"><tr>"#);
    for h in header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for r in rows {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str("</table>\n");
    out
}

/// A row of cells that are already HTML.
pub fn row(cells: &[String]) -> String {
    let mut out = String::from("<tr>");
    for c in cells {
        let _ = write!(out, "<td>{c}</td>");
    }
    out.push_str("</tr>");
    out
}

/// Lower-case letters, digits, dots and dashes: a file name from a label, with a short hash of
/// the label when anything had to be changed, so two labels never share a file.
pub fn slug(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '.' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '-',
        })
        .collect();
    let clean = clean.trim_matches('.').to_string();
    if clean == text && !clean.is_empty() {
        return clean;
    }
    format!("{clean}-{}", &crate::state::digest(text)[..8])
}

/// A machine's page.
pub fn machine_path(m: &cryptospeed_store::MachineRow) -> String {
    format!("machines/{}.html", m.key)
}

/// A primitive's page.
pub fn primitive_path(primitive: &str) -> String {
    format!("primitives/{}.html", slug(primitive))
}

/// A run's comparison with the previous run of its configuration.
pub fn previous_path(run: i64) -> String {
    format!("compare/previous-{run}.html")
}

/// A run's comparison of its variants.
pub fn sweep_path(run: i64) -> String {
    format!("compare/variants-{run}.html")
}

/// A machine's name on the pages: its CPU model and host.
pub fn machine_name(m: &cryptospeed_store::MachineRow) -> String {
    format!("{} ({}, {})", m.cpu_model, m.hostname, m.key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_file_names_and_never_collide() {
        assert_eq!(slug("openssl-3.0.19"), "openssl-3.0.19");
        let a = slug("gcc/openssl 3");
        let b = slug("gcc openssl/3");
        assert!(a.starts_with("gcc-openssl-3-") && b.starts_with("gcc-openssl-3-"));
        assert_ne!(a, b);
        assert!(!slug("../x").contains('/'));
        assert!(!slug("..").starts_with('.'));
    }

    #[test]
    fn the_page_carries_the_report_policy_and_escapes_its_title() {
        let p = page("<b>x</b>", 1, "lead", "<p>body</p>");
        assert!(p.contains(cryptospeed_report::policy::CSP));
        assert!(p.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(p.contains(r#"href="../index.html""#));
    }
}
