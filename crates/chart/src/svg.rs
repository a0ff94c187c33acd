//! The few SVG-writing helpers every chart shares: escaping, number formatting for coordinates,
//! and text-width estimation (no font is loaded; see the crate comment).

use std::fmt::Write as _;

/// Escapes text for SVG/HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0; show them as a replacement mark.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most one decimal, so snapshots are stable and files small.
pub(crate) fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

pub(crate) const FONT: &str = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif";
pub(crate) const FONT_SIZE: f64 = 12.0;

/// Estimated width of `s` at `size` px: DejaVu Sans averages about 0.6 em per character.
pub(crate) fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// `s` cut to `max` characters with an ellipsis.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A text element; `anchor` is start, middle or end.
pub(crate) fn text(out: &mut String, x: f64, y: f64, anchor: &str, extra: &str, s: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="{anchor}"{extra}>{}</text>"#,
        n(x),
        n(y),
        escape(s)
    );
}

/// An `id`-safe form of a chart id (ids are document-wide once charts are inlined in HTML).
pub(crate) fn id_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Opens the root element. `kind` goes to `data-chart` (what the report test looks for).
pub(crate) fn open(out: &mut String, kind: &str, title: &str, width: f64, height: f64) {
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{}" width="{}" height="{}" viewBox="0 0 {} {}" role="img" aria-label="{}" font-family="{FONT}" font-size="{FONT_SIZE}">"#,
        escape(kind),
        n(width),
        n(height),
        n(width),
        n(height),
        escape(title)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##,
        n(width),
        n(height)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x&y's")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;y&#39;s&quot;)&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{fffd}b");
    }

    #[test]
    fn coordinates_are_rounded() {
        assert_eq!(n(1.04), "1");
        assert_eq!(n(1.06), "1.1");
        assert_eq!(n(-3.0), "-3");
    }

    #[test]
    fn truncates_long_labels() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
