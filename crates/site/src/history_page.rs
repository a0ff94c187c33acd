//! A primitive's history on one machine: per operation, size and variant, the figure of every
//! stored run (the newest [`WINDOW`]) with its 95% interval, drawn and tabled, the run-to-run
//! noise, and the change points, computed by `cryptospeed history`'s own code
//! (`cryptospeed_compare::history::series::of_points`), with the command that prints the same.

use crate::figures::figure;
use crate::histories::{Key, Points, WINDOW};
use crate::page::{link, page, slug, table};
use cryptospeed_chart::{escape, Axis, LineChart, Point, Series, TickFormat};
use cryptospeed_compare::history::series::{of_points, History};
use cryptospeed_compare::history::Search;
use cryptospeed_store::MachineRow;
use std::fmt::Write as _;

/// The page of `primitive`'s history on machine `m`.
pub fn path(m: &MachineRow, primitive: &str) -> String {
    format!("history/{}-{}.html", m.key, slug(primitive))
}

pub fn render(m: &MachineRow, primitive: &str, series: &[(&Key, &Points)]) -> String {
    let mut body = String::new();
    let mut changes = 0;
    for (key, points) in series {
        let cell = (primitive, key.2, key.3);
        let h = of_points(cell, points.values().cloned().collect(), &Search::default());
        changes += h.change_points.len();
        body.push_str(&section(m, key, &h));
    }
    let lead = format!(
        "{} series on {} ({} change point(s)): each run's figure with its 95% interval, the run-to-run noise and the change points as <code>cryptospeed history</code> finds them (rank-based binary segmentation, permutation p &lt; 0.01, changes of 2% or more), over the newest {WINDOW} runs of each series. Machine: {}.",
        series.len(),
        escape(&m.key),
        changes,
        link(
            &format!("../{}", crate::page::machine_path(m)),
            &crate::page::machine_name(m)
        ),
    );
    page(
        &format!("{primitive} history on {}", m.key),
        1,
        &lead,
        &body,
    )
}

/// One series: heading, summary, the command, the change points, the chart and the runs.
fn section(m: &MachineRow, key: &Key, h: &History) -> String {
    let size = key.3.map_or(String::new(), |b| format!(" {b} bytes"));
    let mut out = format!(
        "<section class=\"history\" id=\"{}\"><h2>{} {}{size} · {}</h2>\n",
        slug(&format!("{}-{}-{}", key.2, key.3.unwrap_or(0), key.4)),
        escape(&key.1),
        key.2,
        escape(&key.4)
    );
    let noise = h
        .noise
        .map_or("-".into(), |n| format!("±{:.1}%", n * 100.0));
    let _ = writeln!(
        out,
        "<p>{} runs, run-to-run noise {noise}, {} change point(s). <code>{}</code></p>",
        h.points.len(),
        h.change_points.len(),
        escape(&command(m, key, h))
    );
    out.push_str(&change_list(h));
    out.push_str(&chart(key, h));
    out.push_str(&runs_table(key, h));
    out.push_str("</section>\n");
    out
}

/// The command that prints this series.
fn command(m: &MachineRow, key: &Key, h: &History) -> String {
    let bytes = key.3.map_or(String::new(), |b| format!(" -b {b}"));
    let last = match h.points.len() >= WINDOW {
        true => format!(" --last {WINDOW}"),
        false => String::new(),
    };
    format!(
        "cryptospeed history {}{bytes} --op {} --variant {} --machine {}{last}",
        key.1, key.2, key.4, m.id
    )
}

fn change_list(h: &History) -> String {
    if h.change_points.is_empty() {
        return "<p>No change point.</p>\n".into();
    }
    let items: Vec<String> = h
        .change_points
        .iter()
        .map(|c| {
            let after = h.points[c.index].run;
            let before = h.points[..c.index]
                .iter()
                .rev()
                .find(|p| !p.disturbed)
                .map_or(after, |p| p.run);
            format!(
                "<li data-change-run=\"{after}\" data-change-index=\"{}\">between {} and {}: {:+.1}% (p={:.3})</li>",
                c.index + 1,
                link(&format!("../runs/{before}.html"), &format!("run {before}")),
                link(&format!("../runs/{after}.html"), &format!("run {after}")),
                (c.ratio - 1.0) * 100.0,
                c.p
            )
        })
        .collect();
    format!("<ul class=\"changes\">{}</ul>\n", items.join(""))
}

/// The figure against the run id: a line per stretch between change points, whiskers at the
/// 95% intervals; disturbed runs apart, without whiskers.
fn chart(key: &Key, h: &History) -> String {
    let bulk = key.3.is_some();
    let scale = if bulk { 1e6 } else { 1.0 };
    let unit = match bulk {
        true => "throughput (MB/s, 10⁶ bytes/s)",
        false => "operations per second",
    };
    let mut y = Axis::linear(unit, TickFormat::Number);
    y.include_zero = false;
    let mut x = Axis::linear("run", TickFormat::Number);
    x.include_zero = false;
    let title = format!("{} {}: each run's figure", key.1, key.2);
    let id = format!("history-{}", slug(&format!("{key:?}")));
    let mut chart = LineChart::new(&id, "history", &title, x, y);
    let mut bounds: Vec<usize> = h.change_points.iter().map(|c| c.index).collect();
    bounds.insert(0, 0);
    bounds.push(h.points.len());
    for w in bounds.windows(2) {
        let stretch = &h.points[w[0]..w[1]];
        let points: Vec<Point> = stretch
            .iter()
            .filter(|p| !p.disturbed)
            .map(|p| Point {
                x: p.run as f64,
                y: p.rate / scale,
                lo: p.ci95.map(|c| c.0 / scale),
                hi: p.ci95.map(|c| c.1 / scale),
            })
            .collect();
        if let (Some(first), Some(last)) = (stretch.first(), stretch.last()) {
            chart.series.push(Series {
                name: format!("runs {}–{}", first.run, last.run),
                points,
            });
        }
    }
    let disturbed: Vec<Point> = h
        .points
        .iter()
        .filter(|p| p.disturbed)
        .map(|p| Point::new(p.run as f64, p.rate / scale))
        .collect();
    if !disturbed.is_empty() {
        chart.series.push(Series {
            name: "disturbed, left out".into(),
            points: disturbed,
        });
    }
    format!(
        "<figure>\n{}<figcaption>One line per stretch between change points; whiskers are the 95% intervals.</figcaption></figure>\n",
        chart.svg()
    )
}

fn runs_table(key: &Key, h: &History) -> String {
    let mut rows = Vec::new();
    for (i, p) in h.points.iter().enumerate() {
        if let Some(c) = h.change_points.iter().find(|c| c.index == i) {
            rows.push(format!(
                "<tr class=\"change\"><td colspan=\"5\"><b>change: {:+.1}% (p={:.3})</b></td></tr>",
                (c.ratio - 1.0) * 100.0,
                c.p
            ));
        }
        let ci = p.ci95.map_or(String::new(), |(lo, hi)| {
            format!("±{:.1}%", (hi - lo) / 2.0 / p.rate * 100.0)
        });
        let note = if p.disturbed {
            "disturbed, left out"
        } else {
            ""
        };
        rows.push(format!(
            "<tr data-run=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}<br><span class=\"ci\">{ci}</span></td><td>{note}</td></tr>",
            p.run,
            link(&format!("../runs/{}.html", p.run), &format!("run {}", p.run)),
            escape(&p.started_at),
            escape(p.label.as_deref().unwrap_or("")),
            figure(p.rate, key.3.is_some()),
        ));
    }
    table("data", &["run", "started", "label", "figure", ""], &rows)
}
