//! Bar charts over categories (primitives, profiled cells): grouped bars, one per series, with
//! whiskers and an optional reference line (1× on a speedup chart); or stacked bars whose
//! segments are the series (an instruction mix).

use crate::frame::{self, Swatch};
use crate::line::precision;
use crate::scale::{label, Axis, Fitted};
use crate::svg::{escape, id_part, n, open, text_width, truncate, FONT_SIZE};
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// Drawn pale: e.g. a speedup the significance test does not support.
    pub faded: bool,
    /// Extra tooltip text.
    pub note: Option<String>,
}

impl Bar {
    pub fn new(value: f64) -> Bar {
        Bar {
            value,
            lo: None,
            hi: None,
            faded: false,
            note: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BarSeries {
    pub name: String,
    /// One entry per category; `None` leaves a gap.
    pub values: Vec<Option<Bar>>,
}

#[derive(Debug, Clone)]
pub struct BarChart {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub categories: Vec<String>,
    /// Title under the category labels.
    pub x_label: String,
    pub y: Axis,
    pub series: Vec<BarSeries>,
    /// Series stack on each other instead of standing side by side.
    pub stacked: bool,
    /// A dashed horizontal line at this value, with its label.
    pub reference: Option<(f64, String)>,
    pub plot_height: f64,
}

const CATEGORY_MAX_CHARS: usize = 40;

impl BarChart {
    pub fn new(id: &str, kind: &str, title: &str, x_label: &str, y: Axis) -> BarChart {
        BarChart {
            id: id.to_string(),
            kind: kind.to_string(),
            title: title.to_string(),
            categories: Vec::new(),
            x_label: x_label.to_string(),
            y,
            series: Vec::new(),
            stacked: false,
            reference: None,
            plot_height: 280.0,
        }
    }

    fn bars(&self) -> impl Iterator<Item = &Bar> {
        self.series.iter().flat_map(|s| s.values.iter().flatten())
    }

    /// The values the y axis must hold: stacked totals, or every bar with its whiskers and the
    /// reference line.
    fn axis_values(&self) -> Vec<f64> {
        if !self.stacked {
            let whiskers = self.bars().flat_map(|b| [Some(b.value), b.lo, b.hi]);
            let reference = self.reference.as_ref().map(|r| r.0);
            return whiskers.flatten().chain(reference).collect();
        }
        (0..self.categories.len())
            .map(|c| self.stack_below(self.series.len(), c))
            .collect()
    }

    /// The sum of the first `series` series' values in category `c`.
    fn stack_below(&self, series: usize, c: usize) -> f64 {
        self.series[..series]
            .iter()
            .filter_map(|s| s.values.get(c).cloned().flatten())
            .map(|b| b.value)
            .sum()
    }

    pub fn svg(&self) -> String {
        let fy = Fitted::new(&self.y, self.axis_values());
        let (styles, legend) =
            frame::entries(self.series.iter().map(|s| s.name.as_str()), Swatch::Box);
        let per_group = if self.stacked {
            1
        } else {
            self.series.len().max(1)
        };
        let bar_w = if per_group > 6 { 9.0 } else { 14.0 };
        let plot_w = (self.categories.len() as f64 * (per_group as f64 * bar_w + 14.0)).max(360.0);
        let shown: Vec<String> = self
            .categories
            .iter()
            .map(|c| truncate(c, CATEGORY_MAX_CHARS))
            .collect();
        let longest = shown
            .iter()
            .map(|c| text_width(c, FONT_SIZE))
            .fold(0.0, f64::max);
        // Labels are rotated 40°: their height is about 0.65 of their width.
        let x_room = 18.0 + longest * 0.65 + 22.0;
        let mut l = frame::layout(&fy.ticks, &legend, plot_w, self.plot_height, x_room);
        // The first category's label, rotated 40°, reaches about 0.77 of its width to the left
        // of its slot's centre: move the plot right if it would leave the picture.
        let slot = plot_w / self.categories.len().max(1) as f64;
        let reach = shown
            .first()
            .map(|c| text_width(c, FONT_SIZE) * 0.77 - slot / 2.0 + 8.0)
            .unwrap_or(0.0);
        if reach > l.left {
            let d = reach - l.left;
            l.left += d;
            l.right += d;
            l.width += d;
        }
        let id = id_part(&self.id);
        let mut out = String::new();
        open(&mut out, &self.kind, &self.title, l.width, l.height);
        frame::defs(&mut out, &id, &styles);
        frame::title(&mut out, &l, &self.title);
        frame::y_axis(&mut out, &l, &fy, &self.y.label);
        self.category_labels(&mut out, &shown, &l, slot);
        let geometry = Geometry {
            l: &l,
            fy: &fy,
            slot,
            bar_w,
            per_group,
        };
        for (i, (s, st)) in self.series.iter().zip(&styles).enumerate() {
            let _ = writeln!(
                out,
                r#"<g class="series" data-series="{}">"#,
                escape(&s.name)
            );
            let fill = frame::fill(&id, i, st);
            for (c, bar) in s.values.iter().enumerate() {
                if let Some(bar) = bar.as_ref().filter(|b| b.value.is_finite()) {
                    self.bar(&mut out, &geometry, (i, c), bar, &fill);
                }
            }
            out.push_str("</g>\n");
        }
        if let Some((v, text)) = &self.reference {
            reference_line(&mut out, &l, fy.map(*v, l.bottom, l.top), text);
        }
        frame::baseline(&mut out, &l);
        let x_centre = (l.left + l.right) / 2.0;
        crate::svg::text(
            &mut out,
            x_centre,
            l.height - 8.0,
            "middle",
            "",
            &self.x_label,
        );
        frame::legend(&mut out, &l, &id, &legend);
        out.push_str("</svg>\n");
        out
    }

    /// The category labels under the plot, rotated 40°, with the whole name as a tooltip where
    /// it is shortened.
    fn category_labels(&self, out: &mut String, shown: &[String], l: &frame::Layout, slot: f64) {
        for (c, name) in shown.iter().enumerate() {
            let (x, y) = (l.left + slot * (c as f64 + 0.5) + 4.0, l.bottom + 14.0);
            let _ = write!(
                out,
                r#"<text x="{}" y="{}" text-anchor="end" transform="rotate(-40 {} {})">"#,
                n(x),
                n(y),
                n(x),
                n(y)
            );
            if *name != self.categories[c] {
                let _ = write!(out, "<title>{}</title>", escape(&self.categories[c]));
            }
            let _ = writeln!(out, "{}</text>", escape(name));
        }
    }

    /// Bar `c` of series `i`: its rectangle with a tooltip, and its whisker.
    fn bar(&self, out: &mut String, g: &Geometry, (i, c): (usize, usize), bar: &Bar, fill: &str) {
        let (l, fy) = (g.l, g.fy);
        let centre = l.left + g.slot * (c as f64 + 0.5);
        let (x, y0, y1, w) = if self.stacked {
            let below = self.stack_below(i, c);
            let (y0, y1) = (
                fy.map(below, l.bottom, l.top),
                fy.map(below + bar.value, l.bottom, l.top),
            );
            (centre - g.bar_w, y0, y1, g.bar_w * 2.0)
        } else {
            let x = centre - g.per_group as f64 * g.bar_w / 2.0 + i as f64 * g.bar_w;
            let zero = fy.map(0f64.clamp(fy.lo, fy.hi), l.bottom, l.top);
            (x, zero, fy.map(bar.value, l.bottom, l.top), g.bar_w - 1.0)
        };
        let (top, h) = (y0.min(y1), (y0 - y1).abs());
        let tip = self.tooltip(&self.series[i].name, c, bar);
        let opacity = if bar.faded {
            r#" fill-opacity="0.35""#
        } else {
            ""
        };
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}"{opacity} stroke="#333333" stroke-width="0.4"><title>{}</title></rect>"##,
            n(x),
            n(top),
            n(w),
            n(h.max(0.5)),
            escape(&tip)
        );
        if let (false, Some(lo), Some(hi)) = (self.stacked, bar.lo, bar.hi) {
            let (a, b) = (fy.map(lo, l.bottom, l.top), fy.map(hi, l.bottom, l.top));
            whisker(out, x + w / 2.0, a, b);
        }
    }

    fn tooltip(&self, series: &str, c: usize, bar: &Bar) -> String {
        let shown = |v: f64| label(v, self.y.format, precision(bar.value));
        let mut tip = format!("{series} · {}: {}", self.categories[c], shown(bar.value));
        if let (Some(lo), Some(hi)) = (bar.lo, bar.hi) {
            let _ = write!(tip, " (95% CI {}–{})", shown(lo), shown(hi));
        }
        if let Some(note) = &bar.note {
            let _ = write!(tip, " · {note}");
        }
        tip
    }
}

/// Where bars go: the frame, the fitted y axis, a category's slot width, a bar's width and how
/// many bars stand side by side in a slot.
struct Geometry<'a> {
    l: &'a frame::Layout,
    fy: &'a Fitted,
    slot: f64,
    bar_w: f64,
    per_group: usize,
}

/// A 95% interval whisker at x from y `a` to `b`, with caps.
fn whisker(out: &mut String, mx: f64, a: f64, b: f64) {
    let _ = writeln!(
        out,
        r##"<path class="whisker" d="M{} {}L{} {}M{} {}L{} {}M{} {}L{} {}" stroke="#000000" stroke-width="1" fill="none"/>"##,
        n(mx),
        n(a),
        n(mx),
        n(b),
        n(mx - 3.0),
        n(a),
        n(mx + 3.0),
        n(a),
        n(mx - 3.0),
        n(b),
        n(mx + 3.0),
        n(b)
    );
}

/// The dashed reference line at height `y`, its label on a white halo that keeps it readable
/// over bars.
fn reference_line(out: &mut String, l: &frame::Layout, y: f64, text: &str) {
    let _ = writeln!(
        out,
        r##"<line class="reference" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#000000" stroke-width="1.2" stroke-dasharray="5 3"/>"##,
        n(l.left),
        n(y),
        n(l.right),
        n(y)
    );
    let halo = r##" stroke="#ffffff" stroke-width="3" paint-order="stroke""##;
    crate::svg::text(out, l.right - 4.0, y - 5.0, "end", halo, text);
}
