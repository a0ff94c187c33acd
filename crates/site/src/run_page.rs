//! A run's page: what it is (when, how, on which machine, imported or measured), its variants
//! with their build information, its tables as `cryptospeed show --ci --cycles` prints them, the
//! report's throughput and cycles charts, and links to the comparison with the previous run of
//! the same configuration, to its variants' comparison, and to the pages of its primitives.

use crate::page::{link, page, row, table};
use crate::Options;
use cryptospeed_chart::escape;
use cryptospeed_model::RunRecord;
use cryptospeed_report::data::{ReportData, ReportInput};
use cryptospeed_report::run::Options as TableOptions;
use cryptospeed_store::MachineRow;
use std::fmt::Write as _;

/// The chart kinds a run page draws (throughput by size is on the primitive pages, across runs).
const CHARTS: &[&str] = &["cycles"];

pub fn render(
    options: &Options,
    record: &RunRecord,
    machine: Option<&MachineRow>,
    previous: Option<i64>,
) -> String {
    let r = &record.run;
    let title = match &r.label {
        Some(l) => format!("Run {} · {l}", r.id),
        None => format!("Run {}", r.id),
    };
    let mut body = String::new();
    if let Some(i) = &r.imported {
        let _ = write!(
            body,
            r#"<p class="imported" data-imported>Imported: single figures read from <code>{}</code> (lines {}–{}, {}), one figure per cell as the log printed it, without samples or intervals.</p>"#,
            escape(&i.file),
            i.first_line,
            i.last_line,
            escape(&i.format)
        );
    }
    body.push_str(&links(record, machine, previous));
    body.push_str(&metadata(record, machine));
    body.push_str(&variants(record));
    body.push_str(&charts(record));
    let text = cryptospeed_report::render(
        record,
        cryptospeed_report::Format::parse("openssl").expect("the openssl format is registered"),
        &TableOptions {
            ci: true,
            cycles: true,
            percentiles: false,
            footnotes: (options.deviations.of_run)(record),
        },
    );
    let _ = writeln!(
        body,
        "<section id=\"tables\"><h2>Tables</h2><p>As <code>cryptospeed show {} --ci --cycles --format openssl</code> prints them.</p><pre data-show>{}</pre></section>",
        r.id,
        escape(&text)
    );
    let lead = format!(
        "{} run of {} cell(s), {}.",
        if r.imported.is_some() {
            "An imported"
        } else {
            "A measured"
        },
        record.measurements.len(),
        r.status.as_str()
    );
    page(&title, 1, &lead, &body)
}

fn links(record: &RunRecord, machine: Option<&MachineRow>, previous: Option<i64>) -> String {
    let r = &record.run;
    let mut items = Vec::new();
    if let Some(m) = machine {
        items.push(link(
            &format!("../{}", crate::page::machine_path(m)),
            "its machine",
        ));
    }
    if let Some(p) = previous {
        items.push(link(
            &format!("{p}.html"),
            &format!("previous run of this configuration (run {p})"),
        ));
        items.push(link(
            &format!("../{}", crate::page::previous_path(r.id)),
            &format!("compared with run {p}"),
        ));
    }
    if record.variants.len() > 1 {
        items.push(link(
            &format!("../{}", crate::page::sweep_path(r.id)),
            "its variants compared",
        ));
    }
    let mut primitives: Vec<&str> = record
        .measurements
        .iter()
        .filter(|m| m.measurement.status.has_numbers() && m.measurement.cell.misalign == 0)
        .map(|m| m.measurement.cell.primitive.as_str())
        .collect();
    primitives.dedup();
    let prims: Vec<String> = primitives
        .iter()
        .map(|p| link(&format!("../{}", crate::page::primitive_path(p)), p))
        .collect();
    format!(
        "<nav class=\"run\">{}</nav>\n<p>Primitives: {}</p>\n",
        items.join(" "),
        prims.join(", ")
    )
}

fn metadata(record: &RunRecord, machine: Option<&MachineRow>) -> String {
    let r = &record.run;
    let m = &record.machine;
    let source = match &r.imported {
        Some(i) => format!(
            "imported from {} lines {}–{}",
            i.file, i.first_line, i.last_line
        ),
        None => r.command.clone(),
    };
    let tsc = if m.tsc_hz > 0.0 {
        format!(
            "{:.3} GHz{}",
            m.tsc_hz / 1e9,
            if m.constant_tsc { ", constant" } else { "" }
        )
    } else {
        "unknown".into()
    };
    let mut rows = vec![
        ("started", r.started_at.clone()),
        ("finished", r.finished_at.clone().unwrap_or_default()),
        ("status", r.status.as_str().to_string()),
        ("command or source", source),
        ("tool", r.tool_version.clone()),
        ("CPU", m.cpu_model.clone()),
        ("cores / threads", format!("{} / {}", m.cores, m.threads)),
        ("TSC", tsc),
        ("caches", m.caches.join(", ")),
        ("OS / kernel", format!("{} / {}", m.os, m.kernel)),
        ("host", m.hostname.clone()),
        (
            "machine key",
            machine.map(|m| m.key.clone()).unwrap_or_default(),
        ),
    ];
    if let Some(c) = &r.conditions {
        rows.push(("conditions", serde_json::to_string(c).unwrap_or_default()));
    }
    if r.imported.is_none() {
        rows.push((
            "settings",
            serde_json::to_string(&r.config).unwrap_or_default(),
        ));
    }
    if let Some(i) = &r.imported {
        for (k, v) in &i.header {
            rows.push(("log header", format!("{k}: {v}")));
        }
    }
    let rows: Vec<String> = rows
        .iter()
        .map(|(k, v)| format!("<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v)))
        .collect();
    format!(
        "<section id=\"run\"><h2>Run and machine</h2><table class=\"meta\">{}</table></section>\n",
        rows.join("")
    )
}

fn variants(record: &RunRecord) -> String {
    let rows: Vec<String> = record
        .variants
        .iter()
        .map(|v| {
            row(&[
                escape(&v.label),
                escape(&v.implementation),
                escape(&v.version),
                escape(&v.library),
                v.build_info
                    .iter()
                    .map(|s| escape(s))
                    .collect::<Vec<_>>()
                    .join("<br>"),
                format!("<code>{}</code>", escape(&v.capabilities)),
                escape(&v.feature_mask),
            ])
        })
        .collect();
    format!(
        "<section id=\"variants\"><h2>Variants and builds</h2>{}</section>\n",
        table(
            "meta",
            &[
                "label",
                "implementation",
                "version",
                "library",
                "build",
                "capabilities",
                "feature mask"
            ],
            &rows
        )
    )
}

/// The report's throughput and cycles charts of this run.
fn charts(record: &RunRecord) -> String {
    let input = ReportInput {
        title: String::new(),
        records: vec![record.clone()],
        ..ReportInput::default()
    };
    let Ok(data) = ReportData::new(&input) else {
        return String::new();
    };
    let mut out = String::from("<section id=\"charts\"><h2>Charts</h2><div class=\"figures\">\n");
    let mut any = false;
    for name in CHARTS {
        let Some(kind) = cryptospeed_report::figures::kind(name) else {
            continue;
        };
        for f in (kind.build)(&data) {
            any = true;
            let _ = writeln!(
                out,
                "<figure id=\"fig-{}\">\n{}<figcaption>{}</figcaption></figure>",
                escape(&f.id),
                f.svg,
                escape(&f.caption)
            );
        }
    }
    out.push_str("</div></section>\n");
    if any {
        out
    } else {
        String::new()
    }
}
