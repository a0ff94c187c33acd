//! Speedup over a baseline series per primitive at one message size: the compiler table of the
//! published studies as a chart. Ratios and their intervals come from the compare crate (pooled
//! samples, Mann-Whitney U); bars the test does not support are drawn pale.

use super::{slug, Figure, FigureKind};
use crate::data::ReportData;
use cryptospeed_chart::{Axis, Bar, BarChart, BarSeries, TickFormat};
use cryptospeed_compare::{Comparison, Row};

pub const KIND: FigureKind = FigureKind {
    name: "speedup",
    section: "Speedup over the baseline",
    about: "Each series' rate divided by the baseline's, per primitive, at one message size (public-key operations per second). Whiskers: 95% interval of the ratio; pale bars: not significant (p ≥ 0.05). Each bar's tooltip gives its verdict: faster, slower, ~ (no change of 2% or more, which it would have seen 80% of the time) or ? (can't tell: a 2% change could have gone unseen), and the smallest change it would have seen.",
    build,
};

/// One bar per row for series `i`: its ratio over the baseline, interval and verdict.
fn bars(rows: &[&Row], i: usize) -> Vec<Option<Bar>> {
    rows.iter()
        .map(|r| {
            r.versus[i].as_ref().map(|v| Bar {
                value: v.ratio,
                lo: v.ratio_ci.map(|c| c.0),
                hi: v.ratio_ci.map(|c| c.1),
                faded: v.significant == Some(false),
                note: Some(note(v)),
            })
        })
        .collect()
}

/// `Baseline: B. Geometric mean over the cells both have: S 1.250×.`
fn caption(c: &Comparison, baseline: usize, base: &str) -> String {
    let geomeans: Vec<String> = c
        .sides
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != baseline)
        .filter_map(|(_, s)| s.geomean.map(|g| format!("{} {g:.3}×", s.name)))
        .collect();
    let geomeans = if geomeans.is_empty() {
        "none".to_string()
    } else {
        geomeans.join(", ")
    };
    format!("Baseline: {base}. Geometric mean over the cells both have: {geomeans}.")
}

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    if data.series.len() < 2 {
        return Vec::new();
    }
    let c = data.comparison(data.size);
    let rows: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.versus.iter().any(|v| v.is_some()))
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let base = &data.series[data.baseline].name;
    let size = data
        .size
        .map(|b| format!(" at {} bytes", b))
        .unwrap_or_default();
    let mut chart = BarChart::new(
        "speedup",
        KIND.name,
        &format!("speedup over {base}{size}"),
        "primitive",
        Axis::linear("speedup (× baseline, higher is faster)", TickFormat::Ratio),
    );
    chart.categories = rows.iter().map(|r| r.label.clone()).collect();
    chart.reference = Some((1.0, "1× = baseline".to_string()));
    for (i, s) in data.series.iter().enumerate() {
        let values = bars(&rows, i);
        if i != data.baseline && values.iter().any(|v| v.is_some()) {
            chart.series.push(BarSeries {
                name: s.name.clone(),
                values,
            });
        }
    }
    vec![Figure {
        id: slug(&["speedup", base]),
        kind: KIND.name,
        title: chart.title.clone(),
        svg: chart.svg(),
        caption: caption(&c, data.baseline, base),
    }]
}

/// The tooltip of a bar: its verdict, p-value and detectable change.
fn note(v: &cryptospeed_compare::Versus) -> String {
    use cryptospeed_compare::Verdict;
    let mut parts = vec![match v.verdict {
        Verdict::Faster => "faster".to_string(),
        Verdict::Slower => "slower".to_string(),
        Verdict::Same => "~ no change as large as 2%".to_string(),
        Verdict::Unknown => "? can't tell".to_string(),
    }];
    if let Some(p) = v.p {
        parts.push(format!("p = {p:.3}"));
    }
    if let Some(d) = v.detectable.filter(|d| d.is_finite()) {
        parts.push(format!("would see ≥ {:.1}% (80% power)", d * 100.0));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::report_input as input;

    #[test]
    fn speedup_is_the_second_variant_over_the_first() {
        let input = input();
        let data = ReportData::new(&input).unwrap();
        assert_eq!(data.size, Some(8192));
        let f = build(&data);
        assert_eq!(f.len(), 1);
        // 0.8 × the time is 1.25 × the rate, for md5 and the public-key rows alike.
        assert!(f[0].caption.contains("1.250×"), "{}", f[0].caption);
    }
}
