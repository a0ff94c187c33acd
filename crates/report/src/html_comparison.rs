//! The report's comparison table: the series side by side as `cryptospeed compare --detail`
//! prints them, so each cell's verdict (faster, slower, `~` or `?`), interval and the smallest
//! change it could have seen are on the page, not only in the speedup chart's tooltips.

use crate::compare::{Layout, Mode, View};
use crate::data::ReportData;
use cryptospeed_chart::escape;
use cryptospeed_compare::{compare, Filter, SideInput};
use std::fmt::Write;

/// Significance level and smallest effect the report's comparisons use (as the speedup chart).
const ALPHA: f64 = 0.05;
const MIN_EFFECT: f64 = 0.01;

/// The `<section>` with the comparison of every series against the baseline; empty with one series.
pub fn section(data: &ReportData<'_>) -> String {
    if data.series.len() < 2 {
        return String::new();
    }
    let sides: Vec<SideInput> = data
        .series
        .iter()
        .map(|s| {
            let mut side = SideInput {
                name: s.name.clone(),
                ..Default::default()
            };
            side.add_run(s.record, Some(s.variant));
            side
        })
        .collect();
    let filter = Filter {
        bytes: None,
        primitives: None,
    };
    let c = compare(&sides, data.baseline, ALPHA, MIN_EFFECT, &filter);
    let view = View {
        mode: Mode::Ratio,
        layout: Layout::default(),
        detail: true,
        ..View::default()
    };
    let mut out = String::from(
        r#"<section id="comparison"><h2>Comparison</h2><p>Every series against the baseline, as <code>cryptospeed compare --detail</code> prints it: ratio (higher is faster), its 95% interval, p-value, and the smallest change the cell would have seen. A cell marked <code>~</code> saw no change as large as the resolution; <code>?</code> cannot tell.</p>"#,
    );
    let _ = writeln!(
        out,
        "<pre>{}</pre></section>",
        escape(&crate::compare::render(&c, "text", &view).unwrap_or_default())
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::report_input;

    #[test]
    fn the_section_shows_the_compare_table_escaped() {
        let input = report_input();
        let data = ReportData::new(&input).unwrap();
        let html = section(&data);
        assert!(html.starts_with(r#"<section id="comparison">"#), "{html}");
        // The second series times 0.8 of the baseline's time per call: 1.25x, not hidden.
        assert!(html.contains("1.25x"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn one_series_has_no_comparison() {
        let mut input = report_input();
        let record = &mut input.records[0];
        let first = record.variants[0].label.clone();
        record.measurements.retain(|m| m.variant == first);
        record.variants.truncate(1);
        assert_eq!(section(&ReportData::new(&input).unwrap()), "");
    }
}
