//! The report's comparison table: the series side by side as `cryptospeed compare --detail`
//! prints them, so each cell's verdict (faster, slower, `~` or `?`), interval and the smallest
//! change it could have seen are on the page, not only in the speedup chart's tooltips.

use crate::compare::{Layout, Mode, View};
use crate::data::ReportData;
use cryptospeed_chart::escape;
use std::fmt::Write;

/// The `<section>` with the comparison of every series against the baseline; empty with one series.
pub fn section(data: &ReportData<'_>) -> String {
    if data.series.len() < 2 {
        return String::new();
    }
    let c = data.comparison(None);
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

#[cfg(test)]
mod noise_tests {
    use crate::data::{fixture::report_input, ReportData};
    use cryptospeed_compare::{cell_key, RunNoise};
    use cryptospeed_model::Sample;

    /// Two runs of the same build: their comparison widens by the run-to-run noise the store
    /// knows, as `cryptospeed compare` does; without it the interval is the within-run one.
    #[test]
    fn series_from_two_runs_carry_the_run_to_run_noise() {
        let mut input = report_input();
        // Ten bouts of three samples per cell, 1% apart, so each run has an interval of its own.
        for vm in &mut input.records[0].measurements {
            let ns = vm.measurement.summary.map_or(100.0, |s| s.median);
            vm.measurement.samples = (0..30u32)
                .map(|k| Sample {
                    iters: 1000,
                    wall_ns: (1000.0 * ns * (1.0 + 0.01 * f64::from(k % 3))) as u64,
                    cpu_ns: (1000.0 * ns) as u64,
                    tsc: 0,
                    bout: k / 3,
                })
                .collect();
        }
        let mut second = input.records[0].clone();
        second.run.id = 2;
        second.run.label = Some("again".into());
        input.records.push(second);
        let width = |input: &crate::data::ReportInput| {
            let data = ReportData::new(input).unwrap();
            let c = data.comparison(None);
            let row = &c.rows[0];
            let i = data
                .series
                .iter()
                .rposition(|s| s.record.run.id == 2)
                .unwrap();
            let ci = row.versus[i].as_ref().unwrap().ratio_ci.unwrap();
            (c.rows[0].key.clone(), ci.1 - ci.0)
        };
        let (key, quiet) = width(&input);
        let noise = RunNoise {
            var: 0.05f64.powi(2),
            df: 10.0,
            raw: 0.05f64.powi(2),
        };
        input.noise.insert(key.clone(), noise);
        let (_, noisy) = width(&input);
        assert!(noisy > 2.0 * quiet, "{quiet} {noisy}");
        assert_eq!(key, cell_key(&key.primitive, key.op, key.bytes));
    }
}
