//! Series styles that stay distinguishable for colour-blind readers and past ten series.
//!
//! Colours are Paul Tol's "muted" qualitative scheme (nine colours designed to be told apart
//! under the common colour-vision deficiencies). Beyond nine series the colours repeat with a
//! different dash pattern (lines) or hatching (bars), and every line series also has its own
//! marker shape, so no two series of a chart look alike even in greyscale.

/// Paul Tol's muted scheme, in his recommended order.
pub const PALETTE: [&str; 9] = [
    "#332288", "#88ccee", "#44aa99", "#117733", "#999933", "#ddcc77", "#cc6677", "#882255",
    "#aa4499",
];

const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
];

/// How series `i` is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub colour: &'static str,
    /// `stroke-dasharray` for lines; empty for solid.
    pub dash: &'static str,
    /// Bars of the second and later rounds of the palette are hatched.
    pub hatched: bool,
    pub marker: Marker,
}

impl Style {
    pub fn of(i: usize) -> Style {
        let round = i / PALETTE.len();
        Style {
            colour: PALETTE[i % PALETTE.len()],
            dash: DASHES[round % DASHES.len()],
            hatched: round % 2 == 1,
            marker: MARKERS[i % MARKERS.len()],
        }
    }

    /// The marker at (x, y) as an SVG element, with `inner` (a `<title>`) inside it.
    pub(crate) fn marker_svg(&self, x: f64, y: f64, inner: &str) -> String {
        use crate::svg::n;
        let c = self.colour;
        let r = 3.5;
        match self.marker {
            Marker::Circle => format!(
                r#"<circle cx="{}" cy="{}" r="{}" fill="{c}">{inner}</circle>"#,
                n(x),
                n(y),
                n(r)
            ),
            Marker::Square => format!(
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{c}">{inner}</rect>"#,
                n(x - r),
                n(y - r),
                n(2.0 * r),
                n(2.0 * r)
            ),
            Marker::Triangle => format!(
                r#"<path d="M{} {}L{} {}L{} {}Z" fill="{c}">{inner}</path>"#,
                n(x),
                n(y - r - 1.0),
                n(x + r + 0.5),
                n(y + r),
                n(x - r - 0.5),
                n(y + r)
            ),
            Marker::Diamond => format!(
                r#"<path d="M{} {}L{} {}L{} {}L{} {}Z" fill="{c}">{inner}</path>"#,
                n(x),
                n(y - r - 1.0),
                n(x + r + 1.0),
                n(y),
                n(x),
                n(y + r + 1.0),
                n(x - r - 1.0),
                n(y)
            ),
            Marker::Cross => format!(
                r#"<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{c}" stroke-width="2" fill="none">{inner}</path>"#,
                n(x - r),
                n(y - r),
                n(x + r),
                n(y + r),
                n(x - r),
                n(y + r),
                n(x + r),
                n(y - r)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_series_all_look_different() {
        let styles: Vec<_> = (0..12).map(Style::of).collect();
        for i in 0..styles.len() {
            for j in 0..i {
                let (a, b) = (styles[i], styles[j]);
                assert!(
                    a.colour != b.colour || a.dash != b.dash,
                    "series {i} and {j} share colour and dash"
                );
                assert!(a.colour != b.colour || a.hatched != b.hatched);
            }
        }
    }
}
