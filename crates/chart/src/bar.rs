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

    pub fn svg(&self) -> String {
        let values: Vec<f64> = if self.stacked {
            (0..self.categories.len())
                .map(|c| {
                    self.series
                        .iter()
                        .filter_map(|s| s.values.get(c).cloned().flatten())
                        .map(|b| b.value)
                        .sum()
                })
                .collect()
        } else {
            self.bars()
                .flat_map(|b| [Some(b.value), b.lo, b.hi])
                .flatten()
                .chain(self.reference.as_ref().map(|r| r.0))
                .collect()
        };
        let fy = Fitted::new(&self.y, values);
        let (styles, legend) =
            frame::entries(self.series.iter().map(|s| s.name.as_str()), Swatch::Box);
        let per_group = if self.stacked {
            1
        } else {
            self.series.len().max(1)
        };
        let bar_w = if per_group > 6 { 9.0 } else { 14.0 };
        let group_w = per_group as f64 * bar_w + 14.0;
        let plot_w = (self.categories.len() as f64 * group_w).max(360.0);
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
        let zero = fy.map(0f64.clamp(fy.lo, fy.hi), l.bottom, l.top);
        for (c, name) in shown.iter().enumerate() {
            let cx = l.left + slot * (c as f64 + 0.5);
            let y = l.bottom + 14.0;
            let _ = write!(
                out,
                r#"<text x="{}" y="{}" text-anchor="end" transform="rotate(-40 {} {})">"#,
                n(cx + 4.0),
                n(y),
                n(cx + 4.0),
                n(y)
            );
            if *name != self.categories[c] {
                let _ = write!(out, "<title>{}</title>", escape(&self.categories[c]));
            }
            let _ = writeln!(out, "{}</text>", escape(name));
        }
        for (i, (s, st)) in self.series.iter().zip(&styles).enumerate() {
            let _ = writeln!(
                out,
                r#"<g class="series" data-series="{}">"#,
                escape(&s.name)
            );
            let fill = frame::fill(&id, i, st);
            for (c, bar) in s.values.iter().enumerate() {
                let Some(bar) = bar.as_ref().filter(|b| b.value.is_finite()) else {
                    continue;
                };
                let (x, y0, y1) = if self.stacked {
                    let below: f64 = self.series[..i]
                        .iter()
                        .filter_map(|o| o.values.get(c).cloned().flatten())
                        .map(|b| b.value)
                        .sum();
                    let x = l.left + slot * (c as f64 + 0.5) - bar_w;
                    (
                        x,
                        fy.map(below, l.bottom, l.top),
                        fy.map(below + bar.value, l.bottom, l.top),
                    )
                } else {
                    let x = l.left + slot * (c as f64 + 0.5) - per_group as f64 * bar_w / 2.0
                        + i as f64 * bar_w;
                    (x, zero, fy.map(bar.value, l.bottom, l.top))
                };
                let w = if self.stacked {
                    bar_w * 2.0
                } else {
                    bar_w - 1.0
                };
                let (top, h) = (y0.min(y1), (y0 - y1).abs());
                let mut tip = format!(
                    "{} · {}: {}",
                    s.name,
                    self.categories[c],
                    label(bar.value, self.y.format, precision(bar.value))
                );
                if let (Some(lo), Some(hi)) = (bar.lo, bar.hi) {
                    let _ = write!(
                        tip,
                        " (95% CI {}–{})",
                        label(lo, self.y.format, precision(bar.value)),
                        label(hi, self.y.format, precision(bar.value))
                    );
                }
                if let Some(note) = &bar.note {
                    let _ = write!(tip, " · {note}");
                }
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
                    let mx = x + w / 2.0;
                    let (a, b) = (fy.map(lo, l.bottom, l.top), fy.map(hi, l.bottom, l.top));
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
            }
            out.push_str("</g>\n");
        }
        if let Some((v, text)) = &self.reference {
            let y = fy.map(*v, l.bottom, l.top);
            let _ = writeln!(
                out,
                r##"<line class="reference" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#000000" stroke-width="1.2" stroke-dasharray="5 3"/>"##,
                n(l.left),
                n(y),
                n(l.right),
                n(y)
            );
            // A white halo keeps the label readable over bars.
            crate::svg::text(
                &mut out,
                l.right - 4.0,
                y - 5.0,
                "end",
                r##" stroke="#ffffff" stroke-width="3" paint-order="stroke""##,
                text,
            );
        }
        frame::baseline(&mut out, &l);
        crate::svg::text(
            &mut out,
            (l.left + l.right) / 2.0,
            l.height - 8.0,
            "middle",
            "",
            &self.x_label,
        );
        frame::legend(&mut out, &l, &id, &legend);
        out.push_str("</svg>\n");
        out
    }
}
