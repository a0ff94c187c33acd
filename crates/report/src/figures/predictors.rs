//! Branch-predictor hit rates of each stored profile, one bar per predictor model.

use super::{slug, Figure, FigureKind};
use crate::data::ReportData;
use cryptospeed_chart::{Axis, Bar, BarChart, BarSeries, TickFormat};

pub const KIND: FigureKind = FigureKind {
    name: "predictors",
    section: "Branch prediction (profiles)",
    about: "Share of conditional and indirect branches each predictor model gets right in the measured calls, after the warm-up calls trained it.",
    build,
};

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    if data.profiles.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<String> = Vec::new();
    for p in &data.profiles {
        for r in &p.doc.analysis.predictors {
            if !names.contains(&r.predictor) {
                names.push(r.predictor.clone());
            }
        }
    }
    let mut chart = BarChart::new(
        "predictors",
        KIND.name,
        "branch predictor hit rate",
        "profiled cell",
        Axis::linear("hit rate (% of branches)", TickFormat::Percent),
    );
    chart.categories = data.profiles.iter().map(|p| p.name.clone()).collect();
    for name in names {
        chart.series.push(BarSeries {
            values: data
                .profiles
                .iter()
                .map(|p| {
                    let r = p
                        .doc
                        .analysis
                        .predictors
                        .iter()
                        .find(|r| r.predictor == name)?;
                    let mut b = Bar::new(100.0 * r.hit_rate);
                    b.note = Some(format!("{:?}", r.counts));
                    Some(b)
                })
                .collect(),
            name,
        });
    }
    vec![Figure {
        id: slug(&["predictors"]),
        kind: KIND.name,
        title: chart.title.clone(),
        svg: chart.svg(),
        caption: format!(
            "{} profiled cell(s), {} predictor model(s).",
            chart.categories.len(),
            chart.series.len()
        ),
    }]
}
