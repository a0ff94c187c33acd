//! What every chart has around its data: title, plot area, axes with ticks, grid lines, axis
//! titles and a legend to the right of the plot (one row per series, so ten or more fit).

use crate::palette::Style;
use crate::scale::Fitted;
use crate::svg::{escape, n, text, text_width, truncate, FONT_SIZE};
use std::fmt::Write as _;

pub(crate) const LEGEND_ROW: f64 = 18.0;
const LEGEND_MAX_CHARS: usize = 44;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swatch {
    Line,
    Box,
}

pub(crate) struct LegendEntry<'a> {
    pub name: &'a str,
    pub style: Style,
    pub swatch: Swatch,
}

/// The style of each series and its legend entry, in order.
pub(crate) fn entries<'a>(
    names: impl Iterator<Item = &'a str>,
    swatch: Swatch,
) -> (Vec<Style>, Vec<LegendEntry<'a>>) {
    let legend: Vec<LegendEntry<'a>> = names
        .enumerate()
        .map(|(i, name)| LegendEntry {
            name,
            style: Style::of(i),
            swatch,
        })
        .collect();
    (legend.iter().map(|e| e.style).collect(), legend)
}

/// Positions of the plot area inside the chart.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub width: f64,
    pub height: f64,
    /// Plot area: x from `left` to `right`, y from `top` to `bottom`.
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

/// Lays a chart out: room for the y tick labels on the left, the x axis (`x_room` tall) below,
/// the legend on the right.
pub(crate) fn layout(
    y_ticks: &[(f64, String)],
    legend: &[LegendEntry<'_>],
    plot_width: f64,
    plot_height: f64,
    x_room: f64,
) -> Layout {
    let tick_w = y_ticks
        .iter()
        .map(|t| text_width(&t.1, FONT_SIZE))
        .fold(0.0, f64::max);
    let left = 30.0 + tick_w + 8.0;
    let top = 40.0;
    let legend_w = if legend.is_empty() {
        0.0
    } else {
        28.0 + legend
            .iter()
            .map(|e| text_width(&truncate(e.name, LEGEND_MAX_CHARS), FONT_SIZE))
            .fold(0.0, f64::max)
    };
    let right = left + plot_width;
    let bottom = top + plot_height;
    let legend_h = legend.len() as f64 * LEGEND_ROW + 8.0;
    Layout {
        width: right + 20.0 + legend_w + 10.0,
        height: (bottom + x_room).max(top + legend_h + 10.0),
        left,
        right,
        top,
        bottom,
    }
}

pub(crate) fn title(out: &mut String, l: &Layout, title: &str) {
    text(
        out,
        l.width / 2.0,
        22.0,
        "middle",
        r#" font-size="14" font-weight="bold""#,
        title,
    );
}

/// The y axis: grid lines at each tick, labels, the rotated axis title.
pub(crate) fn y_axis(out: &mut String, l: &Layout, f: &Fitted, label: &str) {
    for (v, s) in &f.ticks {
        let y = f.map(*v, l.bottom, l.top);
        let _ = writeln!(
            out,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#dddddd" stroke-width="1"/>"##,
            n(l.left),
            n(y),
            n(l.right),
            n(y)
        );
        text(out, l.left - 6.0, y + 4.0, "end", "", s);
    }
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>"##,
        n(l.left),
        n(l.top),
        n(l.left),
        n(l.bottom)
    );
    let cx = 14.0;
    let cy = (l.top + l.bottom) / 2.0;
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle" transform="rotate(-90 {} {})">{}</text>"#,
        n(cx),
        n(cy),
        n(cx),
        n(cy),
        escape(label)
    );
}

/// A numeric x axis: ticks, light vertical grid lines, labels, the axis title.
pub(crate) fn x_axis(out: &mut String, l: &Layout, f: &Fitted, label: &str) {
    for (v, s) in &f.ticks {
        let x = f.map(*v, l.left, l.right);
        let _ = writeln!(
            out,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#eeeeee" stroke-width="1"/>"##,
            n(x),
            n(l.top),
            n(x),
            n(l.bottom)
        );
        text(out, x, l.bottom + 16.0, "middle", "", s);
    }
    baseline(out, l);
    text(
        out,
        (l.left + l.right) / 2.0,
        l.bottom + 36.0,
        "middle",
        "",
        label,
    );
}

/// The line under the plot.
pub(crate) fn baseline(out: &mut String, l: &Layout) {
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>"##,
        n(l.left),
        n(l.bottom),
        n(l.right),
        n(l.bottom)
    );
}

/// Hatch patterns for bar series that repeat a colour (ids prefixed by the chart's id).
pub(crate) fn defs(out: &mut String, id: &str, styles: &[Style]) {
    let hatched: Vec<(usize, &Style)> = styles.iter().enumerate().filter(|s| s.1.hatched).collect();
    if hatched.is_empty() {
        return;
    }
    out.push_str("<defs>\n");
    for (i, s) in hatched {
        let _ = writeln!(
            out,
            r##"<pattern id="{id}-hatch-{i}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="{}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2.5"/></pattern>"##,
            s.colour
        );
    }
    out.push_str("</defs>\n");
}

/// The fill of bar series `i`: its colour, or its hatch pattern.
pub(crate) fn fill(id: &str, i: usize, s: &Style) -> String {
    if s.hatched {
        format!("url(#{id}-hatch-{i})")
    } else {
        s.colour.to_string()
    }
}

pub(crate) fn legend(out: &mut String, l: &Layout, id: &str, entries: &[LegendEntry<'_>]) {
    let x = l.right + 20.0;
    for (i, e) in entries.iter().enumerate() {
        let y = l.top + 4.0 + i as f64 * LEGEND_ROW;
        let shown = truncate(e.name, LEGEND_MAX_CHARS);
        let _ = write!(out, "<g class=\"legend-entry\">");
        if shown != e.name {
            let _ = write!(out, "<title>{}</title>", escape(e.name));
        }
        match e.swatch {
            Swatch::Line => {
                let dash = if e.style.dash.is_empty() {
                    String::new()
                } else {
                    format!(r#" stroke-dasharray="{}""#, e.style.dash)
                };
                let _ = write!(
                    out,
                    r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{dash}/>"#,
                    n(x),
                    n(y + 6.0),
                    n(x + 20.0),
                    n(y + 6.0),
                    e.style.colour
                );
                out.push_str(&e.style.marker_svg(x + 10.0, y + 6.0, ""));
            }
            Swatch::Box => {
                let _ = write!(
                    out,
                    r##"<rect x="{}" y="{}" width="16" height="12" fill="{}" stroke="#333333" stroke-width="0.5"/>"##,
                    n(x + 2.0),
                    n(y),
                    fill(id, i, &e.style)
                );
            }
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}">{}</text></g>"#,
            n(x + 26.0),
            n(y + 10.0),
            escape(&shown)
        );
    }
}
