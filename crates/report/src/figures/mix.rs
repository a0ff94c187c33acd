//! The instruction mix of each stored profile as a 100% stacked bar: loads, stores, integer ALU,
//! branches, SIMD, crypto extensions… of the measured calls.

use super::{slug, Figure, FigureKind};
use crate::data::ReportData;
use cryptospeed_chart::{Axis, Bar, BarChart, BarSeries, TickFormat};
use cryptospeed_sim::decode::Class;

pub const KIND: FigureKind = FigureKind {
    name: "mix",
    section: "Instruction mix (profiles)",
    about: "Share of each instruction class in the measured calls of each stored profile (cryptospeed profile), decoded by its instruction set's decoder (iced-x86 for x86-64); instructions per byte beside each cell's name.",
    build,
};

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    if data.profiles.is_empty() {
        return Vec::new();
    }
    let mut chart = BarChart::new(
        "mix",
        KIND.name,
        "instruction mix of the measured calls",
        "profiled cell (instructions per byte)",
        Axis::linear("share of instructions (%)", TickFormat::Percent),
    );
    chart.stacked = true;
    chart.categories = data
        .profiles
        .iter()
        .map(|p| format!("{} ({:.1} instr/B)", p.name, p.doc.instructions_per_byte))
        .collect();
    for class in Class::ALL {
        let values: Vec<Option<Bar>> = data
            .profiles
            .iter()
            .map(|p| {
                let n = *p.doc.mix.by_class.get(&class).unwrap_or(&0);
                let total = p.doc.mix.instructions.max(1);
                (n > 0).then(|| {
                    let mut b = Bar::new(100.0 * n as f64 / total as f64);
                    b.note = Some(format!("{n} instructions"));
                    b
                })
            })
            .collect();
        if values.iter().any(|v| v.is_some()) {
            chart.series.push(BarSeries {
                name: class.name().to_string(),
                values,
            });
        }
    }
    vec![Figure {
        id: slug(&["mix"]),
        kind: KIND.name,
        title: chart.title.clone(),
        svg: chart.svg(),
        caption: format!("{} profiled cell(s).", data.profiles.len()),
    }]
}
