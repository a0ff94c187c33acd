//! The timing model's sweeps as the classic study drew them: IPC against integer ALUs, fetch
//! queue size and both together ("ILP"), and modelled cycles per byte against I1, D1 and L2
//! size; one line per profiled cell.

use super::{slug, Figure, FigureKind};
use crate::data::{Profiled, ReportData};
use cryptospeed_chart::{Axis, LineChart, Point, Series, TickFormat};
use cryptospeed_sim::timing::sweeps::TimingRun;

pub const KIND: FigureKind = FigureKind {
    name: "timing",
    section: "Timing model (profiles)",
    about: "The out-of-order timing model (docs/profile.md) on the traced code: IPC as integer ALUs, the fetch queue, or both with the machine's width grow, and modelled cycles per byte as one cache grows; every other parameter at the default core's value.",
    build,
};

/// (sweep, chart title, x-axis label, IPC or cycles/byte, x as bytes)
const SWEEPS: &[(&str, &str, &str, bool, bool)] = &[
    (
        "int-alus",
        "IPC by integer ALUs (fetch queue 32)",
        "integer ALUs",
        true,
        false,
    ),
    (
        "fetch-queue",
        "IPC by fetch queue size (8 ALUs)",
        "fetch queue entries",
        true,
        false,
    ),
    (
        "ilp",
        "IPC by \"ILP\" (N ALUs, N-entry fetch queue, N-wide)",
        "N",
        true,
        false,
    ),
    (
        "i1-size",
        "modelled cycles/byte by I1 size (64 B lines, 8-way LRU)",
        "I1 size (bytes, log scale)",
        false,
        true,
    ),
    (
        "d1-size",
        "modelled cycles/byte by D1 size (64 B lines, 8-way LRU)",
        "D1 size (bytes, log scale)",
        false,
        true,
    ),
    (
        "l2-size",
        "modelled cycles/byte by L2 size (64 B lines, 16-way LRU)",
        "L2 size (bytes, log scale)",
        false,
        true,
    ),
];

fn x_of(t: &TimingRun, bytes: bool) -> Option<f64> {
    if !bytes {
        return t.x.parse().ok();
    }
    Some(match t.sweep.as_str() {
        "i1-size" => t.config.i1.size,
        "d1-size" => t.config.d1.size,
        _ => t.config.l2.size,
    } as f64)
}

fn series(p: &Profiled, sweep: &str, ipc: bool, bytes: bool) -> Option<Series> {
    let points: Vec<Point> = p
        .doc
        .analysis
        .timing
        .iter()
        .filter(|t| t.sweep == sweep)
        .filter_map(|t| {
            let y = if ipc {
                t.result.ipc
            } else {
                p.doc.model_cycles_per_byte(&t.result)
            };
            Some(Point::new(x_of(t, bytes)?, y))
        })
        .collect();
    (points.len() >= 2).then(|| Series {
        name: p.name.clone(),
        points,
    })
}

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    let mut out = Vec::new();
    for (sweep, title, x_label, ipc, bytes) in SWEEPS {
        let lines: Vec<Series> = data
            .profiles
            .iter()
            .filter_map(|p| series(p, sweep, *ipc, *bytes))
            .collect();
        if lines.is_empty() {
            continue;
        }
        let id = slug(&["timing", sweep]);
        let x = Axis::log2(
            *x_label,
            if *bytes {
                TickFormat::Bytes
            } else {
                TickFormat::Number
            },
        );
        let y = if *ipc {
            Axis::linear("IPC (instructions per core cycle)", TickFormat::Number)
        } else {
            Axis::log2(
                "modelled core cycles per byte (log scale)",
                TickFormat::Number,
            )
        };
        let mut chart = LineChart::new(&id, KIND.name, title, x, y);
        chart.plot_width = 420.0;
        chart.plot_height = 240.0;
        chart.series = lines;
        out.push(Figure {
            id,
            kind: KIND.name,
            title: title.to_string(),
            svg: chart.svg(),
            caption: format!(
                "{} profiled cell(s). Core cycles of the model, timed on the first measured instructions after the warm-up call warmed its caches and predictor (see each profile's timing table); not TSC cycles.",
                chart.series.len()
            ),
        });
    }
    out
}
