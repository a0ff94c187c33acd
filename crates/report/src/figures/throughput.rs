//! Throughput against message size, one chart per symmetric primitive and operation, one line
//! per series, whiskers at the 95% confidence interval of each cell's median.

use super::{slug, Figure, FigureKind};
use crate::data::ReportData;
use cryptospeed_chart::{Axis, LineChart, Point, Series, TickFormat};

pub const KIND: FigureKind = FigureKind {
    name: "throughput",
    section: "Throughput by message size",
    about: "Bytes processed per second (10⁶ bytes/s, as openssl speed's 'k' is 1000 bytes) against the message size on a log scale; whiskers are the 95% confidence interval of the median. Small messages show per-call overhead, large ones the steady-state speed.",
    build,
};

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    let mut out = Vec::new();
    for key in data.symmetric_cells() {
        let label = key.label();
        let mut chart = LineChart::new(
            &slug(&["throughput", &label]),
            KIND.name,
            &format!("{label}: throughput by message size"),
            Axis::log2("message size (bytes, log scale)", TickFormat::Bytes),
            Axis::linear("throughput (MB/s, 10⁶ bytes/s)", TickFormat::Number),
        );
        for s in &data.series {
            let points: Vec<Point> = s
                .measurements()
                .filter(|m| m.cell.primitive == key.primitive && m.cell.op == key.op)
                .filter_map(|m| {
                    let bytes = m.cell.bytes?;
                    let rate = m.bytes_per_s()?;
                    let ci = m.rate_ci().filter(|_| m.reported_rate.is_none());
                    Some(Point {
                        x: bytes as f64,
                        y: rate / 1e6,
                        lo: ci.map(|c| c.0 / 1e6),
                        hi: ci.map(|c| c.1 / 1e6),
                    })
                })
                .collect();
            if !points.is_empty() {
                chart.series.push(Series {
                    name: s.name.clone(),
                    points,
                });
            }
        }
        // A line needs two sizes; a single size is in the tables and the bar charts.
        if chart.series.iter().all(|s| s.points.len() < 2) {
            continue;
        }
        let imported = data.series.iter().any(|s| {
            s.measurements().any(|m| {
                m.cell.primitive == key.primitive
                    && m.cell.op == key.op
                    && m.reported_rate.is_some()
            })
        });
        out.push(Figure {
            id: chart.id.clone(),
            kind: KIND.name,
            title: chart.title.clone(),
            svg: chart.svg(),
            caption: format!(
                "{label}: {} series; whiskers are 95% confidence intervals{}.",
                chart.series.len(),
                if imported {
                    " (imported figures have none)"
                } else {
                    ""
                }
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::report_input as input;

    #[test]
    fn throughput_figure_snapshot() {
        let input = input();
        let data = ReportData::new(&input).unwrap();
        let figures = build(&data);
        assert_eq!(figures.len(), 1, "md5 is the only symmetric primitive");
        insta::assert_snapshot!("report_throughput_md5", figures[0].svg);
    }
}
