//! Charts for reports and papers, drawn as standalone SVG strings.
//!
//! Written here rather than with plotters: plotters lays text out with a font backend (system
//! fonts through font-kit, or TTF bytes), so the same chart differs from machine to machine and
//! cannot be snapshot-tested, and it has no place for the `<title>` tooltips and `data-chart`
//! attributes the report and its browser test rely on. The drawing here is plain geometry with a
//! fixed text-width estimate, so the output depends only on the data. PNG goes through resvg.
//!
//! Every piece of user text passes through [`escape`]; a label `<script>` is drawn as text.

mod bar;
mod frame;
mod line;
mod palette;
mod png;
mod scale;
mod svg;

pub use bar::{Bar, BarChart, BarSeries};
pub use line::{LineChart, Point, Series};
pub use palette::{Style, PALETTE};
pub use png::to_png;
pub use scale::{Axis, Scale, TickFormat};
pub use svg::escape;
