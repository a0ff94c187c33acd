//! A primitive's page: its definition (what one timed operation is), the deviations the
//! implementations declare for it, and per operation the best figure of every implementation on
//! every machine at every message size (as `cryptospeed show` prints it, with its interval and a
//! link to the run it came from), TSC cycles per byte, and throughput against message size.

use crate::context::Context;
use crate::figures::{Best, Figures};
use crate::page::{link, page, slug, table};
use cryptospeed_chart::{escape, Axis, LineChart, Point, Series, TickFormat};
use cryptospeed_model::Op;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Rows of one operation's table: (implementation, machine) → size → best figure.
type Grid<'a> = BTreeMap<(String, i64), BTreeMap<Option<u64>, &'a Best>>;

pub fn render(b: &Context<'_>, figures: &Figures, primitive: &str) -> String {
    let all: Vec<&Best> = figures.of_primitive(primitive).collect();
    let mut ops: Vec<Op> = all.iter().map(|x| x.op).collect();
    ops.sort_by_key(|o| Op::ALL.iter().position(|a| a == o));
    ops.dedup();
    let mut body = definition(primitive, &ops);
    body.push_str(&deviations(b, primitive, &all, &ops));
    for op in &ops {
        let mut grid: Grid<'_> = BTreeMap::new();
        for x in all.iter().filter(|x| x.op == *op) {
            grid.entry((x.implementation.clone(), x.machine))
                .or_default()
                .insert(x.bytes, x);
        }
        let _ = write!(body, "<section id=\"op-{op}\"><h2>{primitive} {op}</h2>");
        body.push_str(&figure_table(b, &grid, false));
        body.push_str("<h3>TSC reference cycles per byte (per operation for public key)</h3>");
        body.push_str(&figure_table(b, &grid, true));
        body.push_str(&chart(b, primitive, *op, &grid));
        body.push_str("</section>\n");
    }
    let machines: std::collections::BTreeSet<i64> = all.iter().map(|x| x.machine).collect();
    let implementations: std::collections::BTreeSet<&str> =
        all.iter().map(|x| x.implementation.as_str()).collect();
    let lead = format!(
        "{} implementation(s) on {} machine(s). Each figure is the best any run gave for that implementation on that machine; it links to the run it came from.",
        implementations.len(),
        machines.len()
    );
    page(primitive, 1, &lead, &body)
}

fn definition(primitive: &str, ops: &[Op]) -> String {
    let Some(p) = cryptospeed_catalog::lookup(primitive) else {
        return "<p class=\"empty\">Not in this catalog (an imported name): no definition.</p>\n"
            .into();
    };
    let mut rows = Vec::new();
    for op in ops {
        let Some(d) = p.definition(*op) else {
            continue;
        };
        rows.push(format!(
            "<tr><td>{op}</td><td><code>{}</code> v{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>",
            escape(&d.id),
            d.version,
            escape(d.prepared),
            escape(d.timed),
            escape(&d.lengths),
            escape(&format!("{:?}", d.randomness).to_lowercase()),
            if d.source.is_empty() { String::new() } else { format!(": {}", escape(d.source)) }
        ));
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<section id=\"definition\"><h2>Definition</h2><p>What one timed operation is, in every column.</p>{}</section>\n",
        table("data", &["operation", "definition", "prepared before timing", "timed", "lengths", "randomness"], &rows)
    )
}

fn deviations(b: &Context<'_>, primitive: &str, all: &[&Best], ops: &[Op]) -> String {
    let mut implementations: Vec<&str> = all.iter().map(|x| x.implementation.as_str()).collect();
    implementations.sort_unstable();
    implementations.dedup();
    let mut rows = Vec::new();
    for i in implementations {
        for op in ops {
            if let Some(text) = (b.options.deviations.of_cell)(i, primitive, *op) {
                rows.push(format!(
                    "<tr data-deviation><td>{}</td><td>{op}</td><td>{}</td></tr>",
                    escape(i),
                    escape(text)
                ));
            }
        }
    }
    if rows.is_empty() {
        return "<p>Every column times the definition as written (no deviation declared).</p>\n"
            .into();
    }
    format!(
        "<section id=\"deviations\"><h2>Deviations</h2><p>Where a column cannot follow the definition, in its own words.</p>{}</section>\n",
        table("data", &["implementation", "operation", "deviation"], &rows)
    )
}

/// The figures (or cycles) of one operation: a row per implementation and machine, a column
/// per message size.
fn figure_table(b: &Context<'_>, grid: &Grid<'_>, cycles: bool) -> String {
    let mut sizes: Vec<Option<u64>> = grid.values().flat_map(|r| r.keys().copied()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut header = vec!["implementation".to_string(), "machine".to_string()];
    header.extend(sizes.iter().map(|s| match s {
        Some(n) => format!("{n} bytes"),
        None if cycles => "cycles/op".into(),
        None => "ops/s".into(),
    }));
    let mut rows = Vec::new();
    for ((implementation, machine), cells) in grid {
        let mut r = format!(
            "<tr><td>{}</td><td>{}</td>",
            escape(implementation),
            machine_link(b, *machine)
        );
        for s in &sizes {
            match cells.get(s) {
                Some(x) if cycles => {
                    let text = x.cycles_text();
                    let text = if text.is_empty() { "–" } else { &text };
                    let _ = write!(r, "<td class=\"n\">{text}</td>");
                }
                Some(x) => r.push_str(&figure_cell(x)),
                None => r.push_str("<td class=\"n\">–</td>"),
            }
        }
        r.push_str("</tr>");
        rows.push(r);
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    table("data", &header, &rows)
}

fn figure_cell(x: &Best) -> String {
    let note = if x.imported {
        "<span class=\"imported\">imported single figure</span>".to_string()
    } else {
        format!("<span class=\"ci\">{}</span>", escape(&x.interval()))
    };
    format!(
        "<td class=\"n\" data-figure data-run=\"{}\" data-variant=\"{}\" data-op=\"{}\" data-bytes=\"{}\"><a href=\"../runs/{}.html\">{}</a><br>{note}<br><span class=\"via\">{} · run {}</span></td>",
        x.run,
        escape(&x.variant),
        x.op,
        x.bytes.map(|b| b.to_string()).unwrap_or_default(),
        x.run,
        x.figure(),
        escape(&x.variant),
        x.run
    )
}

fn machine_link(b: &Context<'_>, machine: i64) -> String {
    match b.machine(machine) {
        Some(m) => link(
            &format!("../{}", crate::page::machine_path(m)),
            &format!("{} ({})", m.cpu_model, m.key),
        ),
        None => format!("machine {machine}"),
    }
}

/// Throughput against message size, a line per implementation and machine, whiskers at the
/// 95% interval; none for public key (a single figure per row).
fn chart(b: &Context<'_>, primitive: &str, op: Op, grid: &Grid<'_>) -> String {
    let mut chart = LineChart::new(
        &format!("site-{}-{op}", slug(primitive)),
        "throughput",
        &format!("{primitive} {op}: best throughput by message size"),
        Axis::log2("message size (bytes, log scale)", TickFormat::Bytes),
        Axis::linear("throughput (MB/s, 10⁶ bytes/s)", TickFormat::Number),
    );
    for ((implementation, machine), cells) in grid {
        let points: Vec<Point> = cells
            .values()
            .filter_map(|x| {
                let bytes = x.bytes?;
                let ci = x.ci;
                Some(Point {
                    x: bytes as f64,
                    y: x.rate / 1e6,
                    lo: ci.map(|c| c.0 / 1e6),
                    hi: ci.map(|c| c.1 / 1e6),
                })
            })
            .collect();
        if points.len() >= 2 {
            let key = b
                .machine(*machine)
                .map_or(machine.to_string(), |m| m.key.clone());
            chart.series.push(Series {
                name: format!("{implementation} · {key}"),
                points,
            });
        }
    }
    if chart.series.is_empty() {
        return String::new();
    }
    format!(
        "<figure>\n{}<figcaption>Best figure per implementation and machine at each size; whiskers are the 95% intervals (imported figures have none).</figcaption></figure>\n",
        chart.svg()
    )
}
