//! TSC cycles per byte per symmetric primitive at one message size, one bar per series: the
//! frequency-free figure architecture comparisons use.

use super::{slug, Figure, FigureKind};
use crate::data::ReportData;
use cryptospeed_chart::{Axis, Bar, BarChart, BarSeries, TickFormat};

pub const KIND: FigureKind = FigureKind {
    name: "cycles",
    section: "Cycles per byte",
    about: "Time-stamp-counter cycles per byte (lower is faster) at one message size; whiskers from the 95% confidence interval of the median time. TSC cycles tick at the nominal frequency, not the core's turbo clock.",
    build,
};

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    let Some(size) = data.size else {
        return Vec::new();
    };
    let keys = data.symmetric_cells();
    let mut chart = BarChart::new(
        "cycles",
        KIND.name,
        &format!("TSC cycles per byte at {size} bytes"),
        "primitive",
        Axis::linear("TSC cycles per byte (lower is faster)", TickFormat::Number),
    );
    let mut categories = Vec::new();
    let mut columns: Vec<Vec<Option<Bar>>> = vec![Vec::new(); data.series.len()];
    for key in &keys {
        let bars: Vec<Option<Bar>> = data
            .series
            .iter()
            .map(|s| {
                let m = s.find(&key.primitive, key.op, Some(size))?;
                let cpb = m.cycles_per_byte()?;
                let ci = m
                    .summary
                    .map(|sum| (cpb * sum.ci_lo / sum.median, cpb * sum.ci_hi / sum.median));
                Some(Bar {
                    value: cpb,
                    lo: ci.map(|c| c.0),
                    hi: ci.map(|c| c.1),
                    faded: false,
                    note: None,
                })
            })
            .collect();
        if bars.iter().any(|b| b.is_some()) {
            categories.push(key.label());
            for (col, b) in columns.iter_mut().zip(bars) {
                col.push(b);
            }
        }
    }
    if categories.is_empty() {
        return Vec::new();
    }
    chart.categories = categories;
    for (s, values) in data.series.iter().zip(columns) {
        if values.iter().any(|v| v.is_some()) {
            chart.series.push(BarSeries {
                name: s.name.clone(),
                values,
            });
        }
    }
    vec![Figure {
        id: slug(&["cycles", &size.to_string()]),
        kind: KIND.name,
        title: chart.title.clone(),
        svg: chart.svg(),
        caption: format!(
            "{} primitive(s), {} series, at {size} bytes.",
            chart.categories.len(),
            chart.series.len()
        ),
    }]
}
