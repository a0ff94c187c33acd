//! Miss rate against cache size for each stored profile and cache level, three ways: one line
//! per line size, per associativity, per replacement policy (the other two held at a reference
//! value), as in the cache studies.

use super::{slug, Figure, FigureKind};
use crate::data::{Profiled, ReportData};
use cryptospeed_chart::{Axis, LineChart, Point, Series, TickFormat};
use cryptospeed_sim::analysis::{CacheResult, Level};

pub const KIND: FigureKind = FigureKind {
    name: "misses",
    section: "Miss rate by cache size (profiles)",
    about: "Simulated miss rate (% of accesses) of the measured calls against cache size, for the first-level instruction and data caches and for a unified L2 behind 32 KB 8-way L1s. Each chart varies one parameter; the others stay at 64-byte lines, 8 ways, LRU.",
    build,
};

/// Which parameter a chart varies.
#[derive(Clone, Copy)]
enum By {
    Line,
    Ways,
    Policy,
}

impl By {
    fn label(self) -> &'static str {
        match self {
            By::Line => "line size",
            By::Ways => "associativity",
            By::Policy => "replacement policy",
        }
    }

    fn name(self) -> &'static str {
        match self {
            By::Line => "line",
            By::Ways => "ways",
            By::Policy => "policy",
        }
    }
}

fn build(data: &ReportData<'_>) -> Vec<Figure> {
    let mut out = Vec::new();
    for p in &data.profiles {
        for level in [Level::D1, Level::I1, Level::L2] {
            for by in [By::Line, By::Ways, By::Policy] {
                if let Some(f) = figure(p, level, by) {
                    out.push(f);
                }
            }
        }
    }
    out
}

fn figure(p: &Profiled, level: Level, by: By) -> Option<Figure> {
    let results: Vec<&CacheResult> = p
        .doc
        .analysis
        .caches
        .iter()
        .filter(|c| c.level == level)
        .collect();
    // Reference values: 64 B, 8 ways, LRU when simulated, else the most common value.
    let pick = |values: Vec<String>, want: &str| -> Option<String> {
        if values.iter().any(|v| v == want) {
            Some(want.to_string())
        } else {
            values.first().cloned()
        }
    };
    let distinct = |f: &dyn Fn(&CacheResult) -> String| -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for r in &results {
            let x = f(r);
            if !v.contains(&x) {
                v.push(x);
            }
        }
        v
    };
    let line = pick(distinct(&|r| r.config.line.to_string()), "64")?;
    let ways = pick(distinct(&|r| r.config.assoc.to_string()), "8")?;
    let policy = pick(distinct(&|r| r.config.policy.clone()), "lru")?;
    let (key, label) = (|r: &CacheResult| series_name(by, r), by.label());
    let keep = |r: &CacheResult| match by {
        By::Line => r.config.assoc.to_string() == ways && r.config.policy == policy,
        By::Ways => r.config.line.to_string() == line && r.config.policy == policy,
        By::Policy => r.config.line.to_string() == line && r.config.assoc.to_string() == ways,
    };
    let mut series: Vec<Series> = Vec::new();
    for r in results.iter().filter(|r| keep(r)) {
        let name = key(r);
        let point = Point::new(r.config.size as f64, 100.0 * r.miss_rate);
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    if series.iter().all(|s| s.points.len() < 2) {
        return None;
    }
    let held = match by {
        By::Line => format!("{ways} ways, {}", policy_name(&policy)),
        By::Ways => format!("{line} B lines, {}", policy_name(&policy)),
        By::Policy => format!("{line} B lines, {ways} ways"),
    };
    let id = slug(&[
        "misses",
        &p.run.to_string(),
        &p.doc.primitive,
        &p.variant,
        level.name(),
        by.name(),
    ]);
    let title = format!(
        "{} {} miss rate by {label} ({held})",
        p.doc.primitive,
        level.name()
    );
    let mut chart = LineChart::new(
        &id,
        KIND.name,
        &title,
        Axis::log2("cache size (bytes, log scale)", TickFormat::Bytes),
        Axis::linear("miss rate (% of accesses)", TickFormat::Percent),
    );
    chart.plot_width = 380.0;
    chart.plot_height = 220.0;
    chart.series = series;
    let accesses = results.first().map(|r| r.accesses).unwrap_or(0);
    Some(Figure {
        id,
        kind: KIND.name,
        title,
        svg: chart.svg(),
        caption: format!(
            "{} · {} {} accesses in the measured calls.{}",
            p.name,
            accesses,
            level.name(),
            p.doc
                .path_warning
                .as_ref()
                .map(|_| " Traced code path differs from the native one (see the profile).")
                .unwrap_or("")
        ),
    })
}

/// LRU and FIFO are acronyms; other policies keep their registry name.
fn policy_name(p: &str) -> String {
    match p {
        "lru" | "fifo" => p.to_uppercase(),
        _ => p.to_string(),
    }
}

/// The line a result belongs to when `by` varies.
fn series_name(by: By, r: &CacheResult) -> String {
    match by {
        By::Line => format!("{} B lines", r.config.line),
        By::Ways if r.config.assoc == 1 => "direct-mapped".to_string(),
        By::Ways => format!("{}-way", r.config.assoc),
        By::Policy => policy_name(&r.config.policy),
    }
}
