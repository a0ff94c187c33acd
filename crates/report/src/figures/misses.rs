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

/// The values held fixed while one parameter varies: 64 B, 8 ways, LRU when simulated, else the
/// first value simulated.
struct Held {
    line: String,
    ways: String,
    policy: String,
}

impl Held {
    fn of(results: &[&CacheResult]) -> Option<Held> {
        let pick = |f: &dyn Fn(&CacheResult) -> String, want: &str| -> Option<String> {
            if results.iter().any(|r| f(r) == want) {
                return Some(want.to_string());
            }
            results.first().map(|r| f(r))
        };
        Some(Held {
            line: pick(&|r| r.config.line.to_string(), "64")?,
            ways: pick(&|r| r.config.assoc.to_string(), "8")?,
            policy: pick(&|r| r.config.policy.clone(), "lru")?,
        })
    }

    /// True for the results of the chart that varies `by`.
    fn keeps(&self, by: By, r: &CacheResult) -> bool {
        let line = r.config.line.to_string() == self.line;
        let ways = r.config.assoc.to_string() == self.ways;
        let policy = r.config.policy == self.policy;
        match by {
            By::Line => ways && policy,
            By::Ways => line && policy,
            By::Policy => line && ways,
        }
    }

    /// `8 ways, LRU`: what the chart that varies `by` holds.
    fn describe(&self, by: By) -> String {
        let (line, ways, policy) = (&self.line, &self.ways, policy_name(&self.policy));
        match by {
            By::Line => format!("{ways} ways, {policy}"),
            By::Ways => format!("{line} B lines, {policy}"),
            By::Policy => format!("{line} B lines, {ways} ways"),
        }
    }
}

/// One line per value of the varied parameter: miss rate (%) against cache size.
fn series_of(results: &[&CacheResult], by: By, held: &Held) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for r in results.iter().filter(|r| held.keeps(by, r)) {
        let name = series_name(by, r);
        let point = Point::new(r.config.size as f64, 100.0 * r.miss_rate);
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                name,
                points: vec![point],
            }),
        }
    }
    series
}

fn figure(p: &Profiled, level: Level, by: By) -> Option<Figure> {
    let results: Vec<&CacheResult> = p
        .doc
        .analysis
        .caches
        .iter()
        .filter(|c| c.level == level)
        .collect();
    let held = Held::of(&results)?;
    let series = series_of(&results, by, &held);
    if series.iter().all(|s| s.points.len() < 2) {
        return None;
    }
    let id = slug(&[
        "misses",
        &p.run.to_string(),
        &p.doc.primitive,
        &p.variant,
        level.name(),
        by.name(),
    ]);
    let title = format!(
        "{} {} miss rate by {} ({})",
        p.doc.primitive,
        level.name(),
        by.label(),
        held.describe(by)
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
    let warning = match p.doc.path_warning {
        Some(_) => " Traced code path differs from the native one (see the profile).",
        None => "",
    };
    Some(Figure {
        id,
        kind: KIND.name,
        title,
        svg: chart.svg(),
        caption: format!(
            "{} · {accesses} {} accesses in the measured calls.{warning}",
            p.name,
            level.name(),
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
