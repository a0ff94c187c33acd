//! Line charts: one line per series over a numeric x axis (log scales for sizes), a marker at
//! every point with a tooltip, and a whisker from `lo` to `hi` where the point has an interval.

use crate::frame::{self, Swatch};
use crate::scale::{label, Axis, Fitted};
use crate::svg::{escape, id_part, n, open};
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Interval drawn as a whisker (a 95% confidence interval, in the y unit).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point {
            x,
            y,
            lo: None,
            hi: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

#[derive(Debug, Clone)]
pub struct LineChart {
    /// Unique in a document (pattern ids derive from it).
    pub id: String,
    /// What the chart shows (`throughput`, `miss-rate`), for `data-chart`.
    pub kind: String,
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub plot_width: f64,
    pub plot_height: f64,
}

impl LineChart {
    pub fn new(id: &str, kind: &str, title: &str, x: Axis, y: Axis) -> LineChart {
        LineChart {
            id: id.to_string(),
            kind: kind.to_string(),
            title: title.to_string(),
            x,
            y,
            series: Vec::new(),
            plot_width: 520.0,
            plot_height: 300.0,
        }
    }

    pub fn svg(&self) -> String {
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let fx = Fitted::new(&self.x, points().map(|p| p.x));
        let fy = Fitted::new(
            &self.y,
            points().flat_map(|p| [Some(p.y), p.lo, p.hi]).flatten(),
        );
        let (styles, legend) =
            frame::entries(self.series.iter().map(|s| s.name.as_str()), Swatch::Line);
        let l = frame::layout(&fy.ticks, &legend, self.plot_width, self.plot_height, 48.0);
        let id = id_part(&self.id);
        let mut out = String::new();
        open(&mut out, &self.kind, &self.title, l.width, l.height);
        frame::title(&mut out, &l, &self.title);
        frame::y_axis(&mut out, &l, &fy, &self.y.label);
        frame::x_axis(&mut out, &l, &fx, &self.x.label);
        for (i, (s, st)) in self.series.iter().zip(&styles).enumerate() {
            let _ = writeln!(
                out,
                r#"<g class="series" data-series="{}" id="{id}-s{i}">"#,
                escape(&s.name)
            );
            let mut pts: Vec<&Point> = s.points.iter().filter(|p| p.y.is_finite()).collect();
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            let xy = |p: &Point| (fx.map(p.x, l.left, l.right), fy.map(p.y, l.bottom, l.top));
            if pts.len() > 1 {
                let d: Vec<String> = pts
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        let (x, y) = xy(p);
                        format!("{}{} {}", if k == 0 { "M" } else { "L" }, n(x), n(y))
                    })
                    .collect();
                let dash = if st.dash.is_empty() {
                    String::new()
                } else {
                    format!(r#" stroke-dasharray="{}""#, st.dash)
                };
                let _ = writeln!(
                    out,
                    r#"<path d="{}" fill="none" stroke="{}" stroke-width="2"{dash}/>"#,
                    d.join(""),
                    st.colour
                );
            }
            for p in pts {
                let (x, y) = xy(p);
                if let (Some(lo), Some(hi)) = (p.lo, p.hi) {
                    let (y0, y1) = (fy.map(lo, l.bottom, l.top), fy.map(hi, l.bottom, l.top));
                    whisker(&mut out, x, y0, y1, st.colour);
                }
                let tip = self.tooltip(&s.name, p);
                out.push_str(&st.marker_svg(x, y, &tip));
                out.push('\n');
            }
            out.push_str("</g>\n");
        }
        frame::legend(&mut out, &l, &id, &legend);
        out.push_str("</svg>\n");
        out
    }

    /// A point's tooltip: the series, the value (with its interval, when it has one) and where.
    fn tooltip(&self, series: &str, p: &Point) -> String {
        let interval = match (p.lo, p.hi) {
            (Some(lo), Some(hi)) => format!(
                " (95% CI {}–{})",
                label(lo, self.y.format, precision(p.y)),
                label(hi, self.y.format, precision(p.y))
            ),
            _ => String::new(),
        };
        format!(
            "<title>{}: {} at {}{}</title>",
            escape(series),
            escape(&label(p.y, self.y.format, precision(p.y))),
            escape(&label(p.x, self.x.format, precision(p.x))),
            escape(&interval)
        )
    }
}

/// The whisker of a point's interval: a vertical line from `y0` to `y1` at `x`, capped both ends.
fn whisker(out: &mut String, x: f64, y0: f64, y1: f64, colour: &str) {
    let _ = writeln!(
        out,
        r#"<path class="whisker" d="M{} {}L{} {}M{} {}L{} {}M{} {}L{} {}" stroke="{}" stroke-width="1.2" fill="none"/>"#,
        n(x),
        n(y0),
        n(x),
        n(y1),
        n(x - 4.0),
        n(y0),
        n(x + 4.0),
        n(y0),
        n(x - 4.0),
        n(y1),
        n(x + 4.0),
        n(y1),
        colour
    );
}

/// A step giving three or four significant digits for a tooltip value.
pub(crate) fn precision(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return 1.0;
    }
    10f64.powf(v.abs().log10().floor() - 2.0).min(1.0)
}
