//! The index (machines, implementations and variants, primitives, comparisons across runs, the
//! latest runs) and a page per machine (what it is, every run measured or imported on it, the
//! primitives it has figures for, the comparisons that name it).

use crate::context::Context;
use crate::figures::Figures;
use crate::page::{link, machine_name, machine_path, page, row, table};
use cryptospeed_chart::escape;
use cryptospeed_store::{MachineRow, RunRow};
use std::fmt::Write as _;

/// Runs the index lists (the machine pages list them all).
const LATEST: usize = 50;

fn tsc(m: &MachineRow) -> String {
    if m.tsc_hz > 0.0 {
        format!("{:.3} GHz", m.tsc_hz / 1e9)
    } else {
        "unknown".into()
    }
}

/// The table of runs, newest first; `root` is the way from the page to the site's root.
fn runs_table(rows: &[&RunRow], root: &str) -> String {
    let body: Vec<String> = rows
        .iter()
        .rev()
        .map(|r| {
            row(&[
                link(
                    &format!("{root}runs/{}.html", r.id),
                    &format!("run {}", r.id),
                ),
                escape(r.label.as_deref().unwrap_or("")),
                escape(&r.started_at),
                escape(r.status.as_str()),
                if r.source.is_empty() {
                    "measured".into()
                } else {
                    format!(
                        "<span class=\"imported\">imported single figures</span> ({})",
                        escape(&r.source)
                    )
                },
                escape(&r.variants),
                r.measurements.to_string(),
            ])
        })
        .collect();
    table(
        "data",
        &[
            "run", "label", "started", "status", "kind", "variants", "cells",
        ],
        &body,
    )
}

pub fn machine_page(b: &Context<'_>, figures: &Figures, m: &MachineRow) -> String {
    let mut body = String::new();
    let meta = [
        ("CPU", m.cpu_model.clone()),
        ("cores / threads", format!("{} / {}", m.cores, m.threads)),
        ("TSC", tsc(m)),
        ("architecture", m.arch.clone()),
        ("OS / kernel", format!("{} / {}", m.os, m.kernel)),
        ("host", m.hostname.clone()),
        ("key", m.key.clone()),
        ("runs", m.runs.to_string()),
    ];
    let meta: Vec<String> = meta
        .iter()
        .map(|(k, v)| format!("<tr><th>{k}</th><td>{}</td></tr>", escape(v)))
        .collect();
    let _ = writeln!(
        body,
        "<section><table class=\"meta\">{}</table></section>",
        meta.join("")
    );
    let mut primitives: Vec<String> = figures
        .best
        .values()
        .filter(|x| x.machine == m.id)
        .map(|x| x.primitive.clone())
        .collect();
    primitives.dedup();
    primitives.sort_by_key(|p| {
        (
            cryptospeed_compare::cell_key(p, cryptospeed_model::Op::Hash, None).order,
            p.clone(),
        )
    });
    primitives.dedup();
    let links: Vec<String> = primitives
        .iter()
        .map(|p| link(&format!("../{}", crate::page::primitive_path(p)), p))
        .collect();
    let _ = writeln!(
        body,
        "<section id=\"primitives\"><h2>Primitives</h2><p>{}</p></section>",
        links.join(", ")
    );
    body.push_str(&history_links(b, "../", Some(m.id)));
    let compared: Vec<String> = b
        .linked
        .iter()
        .filter(|l| l.machines.contains(&m.id))
        .map(|l| format!("<li>{}</li>", link(&format!("../{}", l.path), &l.title)))
        .collect();
    if !compared.is_empty() {
        let _ = writeln!(
            body,
            "<section id=\"comparisons\"><h2>Comparisons</h2><ul>{}</ul></section>",
            compared.join("")
        );
    }
    let runs: Vec<&RunRow> = b.rows.iter().filter(|r| r.machine_id == m.id).collect();
    let _ = writeln!(
        body,
        "<section id=\"runs\"><h2>Runs</h2>{}</section>",
        runs_table(&runs, "../")
    );
    page(
        &machine_name(m),
        1,
        "A machine and every run stored from it.",
        &body,
    )
}

pub fn index(b: &Context<'_>, figures: &Figures) -> String {
    let mut body = String::new();
    let machines: Vec<String> = b
        .machines
        .iter()
        .map(|m| {
            row(&[
                link(&machine_path(m), &m.key),
                escape(&m.cpu_model),
                format!("{} / {}", m.cores, m.threads),
                tsc(m),
                escape(&m.hostname),
                m.runs.to_string(),
            ])
        })
        .collect();
    let _ = writeln!(
        body,
        "<section id=\"machines\"><h2>Machines</h2>{}</section>",
        table(
            "data",
            &["machine", "CPU", "cores / threads", "TSC", "host", "runs"],
            &machines
        )
    );
    body.push_str(&variants(b, figures));
    let primitives: Vec<String> = figures
        .primitives()
        .iter()
        .map(|p| link(&crate::page::primitive_path(p), p))
        .collect();
    let _ = writeln!(
        body,
        "<section id=\"primitives\"><h2>Primitives</h2><p>{}</p></section>",
        primitives.join(", ")
    );
    body.push_str(&history_links(b, "", None));
    let compared: Vec<String> = b
        .linked
        .iter()
        .map(|l| format!("<li>{}</li>", link(&l.path, &l.title)))
        .collect();
    let _ = writeln!(
        body,
        "<section id=\"comparisons\"><h2>Comparisons</h2><p>Releases against the one before, and variants across machines per GHz. Each run's page links to its comparison with the previous run of its configuration and between its variants.</p><ul>{}</ul></section>",
        compared.join("")
    );
    let start = b.rows.len().saturating_sub(LATEST);
    let latest: Vec<&RunRow> = b.rows[start..].iter().collect();
    let _ = writeln!(body, "<section id=\"runs\"><h2>Latest runs</h2><p>Every run is listed on its machine's page.</p>{}</section>", runs_table(&latest, ""));
    let lead = format!(
        "{} run(s) on {} machine(s), {} primitive(s). Written by {}.",
        b.rows.len(),
        b.machines.len(),
        figures.primitives().len(),
        escape(&b.options.tool)
    );
    page("cryptospeed results", 0, &lead, &body)
}

/// The history pages (of one machine, or all), linked from `root`.
fn history_links(b: &Context<'_>, root: &str, machine: Option<i64>) -> String {
    let links: Vec<String> = b
        .histories
        .iter()
        .filter(|l| machine.is_none_or(|m| l.machines.contains(&m)))
        .map(|l| link(&format!("{root}{}", l.path), &l.title))
        .collect();
    if links.is_empty() {
        return String::new();
    }
    format!(
        "<section id=\"history\"><h2>History</h2><p>Each run's figure of a primitive on one machine, the run-to-run noise and the change points, as <code>cryptospeed history</code> finds them.</p><p>{}</p></section>\n",
        links.join(", ")
    )
}

fn variants(b: &Context<'_>, figures: &Figures) -> String {
    let rows: Vec<String> = figures
        .variants
        .iter()
        .filter(|(_, v)| !v.runs.is_empty())
        .map(|(label, v)| {
            let machines: Vec<String> = v
                .newest
                .keys()
                .filter_map(|id| b.machine(*id))
                .map(|m| link(&machine_path(m), &m.key))
                .collect();
            row(&[
                escape(&v.implementation),
                escape(label),
                escape(&v.version),
                if v.imported {
                    "imported".into()
                } else {
                    "measured".into()
                },
                v.runs.len().to_string(),
                machines.join(", "),
            ])
        })
        .collect();
    format!(
        "<section id=\"variants\"><h2>Implementations and variants</h2>{}</section>\n",
        table(
            "data",
            &[
                "implementation",
                "variant",
                "version",
                "kind",
                "runs",
                "machines"
            ],
            &rows
        )
    )
}
