//! The HTML report: one self-contained file (inline CSS and SVG, no script, a Content Security
//! Policy that forbids every fetch) with the runs' machines and variants, every chart kind in
//! [`crate::figures::KINDS`], and each run's `openssl speed` table. All user text is escaped.

use crate::figures::{Figure, KINDS};
use crate::{render, Format, Options};
use anyhow::Result;
use cryptospeed_chart::escape;
use cryptospeed_compare::{cell_key, CellKey};
use cryptospeed_model::{Measurement, Op, ProfileRecord, RunRecord};
use cryptospeed_sim::analysis::Analysis;
use cryptospeed_sim::region::Mix;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// What a report is drawn from.
#[derive(Debug, Clone, Default)]
pub struct ReportInput {
    pub title: String,
    pub records: Vec<RunRecord>,
    /// Stored profiles with the id of the run that holds them.
    pub profiles: Vec<(i64, ProfileRecord)>,
    /// The series the speedup chart divides by (a series name or a variant label); default the
    /// first series.
    pub baseline: Option<String>,
    /// Message size of the speedup and cycles/byte charts; default 8192 when every series has
    /// it, else the largest size they share.
    pub bytes: Option<u64>,
    /// "cryptospeed 0.1.0, 2026-11-21 10:00 UTC": the footer (fixed in tests).
    pub generated_by: String,
}

/// The fields of a stored profile document the charts use (`profile --format json`).
#[derive(Debug, Clone, Deserialize)]
pub struct StoredProfile {
    pub primitive: String,
    pub implementation: String,
    pub bytes: u64,
    #[serde(default)]
    pub iters: u64,
    pub instructions: u64,
    pub instructions_per_byte: f64,
    pub tsc_cycles_per_byte: Option<f64>,
    pub path_warning: Option<String>,
    pub mix: Mix,
    pub analysis: Analysis,
}

/// One line of the throughput charts: a variant of a run.
pub struct SeriesRef<'a> {
    pub name: String,
    pub record: &'a RunRecord,
    pub variant: &'a str,
}

impl SeriesRef<'_> {
    pub fn measurements(&self) -> impl Iterator<Item = &Measurement> {
        self.record
            .measurements
            .iter()
            .filter(|m| m.variant == self.variant)
            .map(|m| &m.measurement)
            .filter(|m| m.status.has_numbers() && m.cell.misalign == 0)
    }

    pub fn find(&self, primitive: &str, op: Op, bytes: Option<u64>) -> Option<&Measurement> {
        self.measurements()
            .find(|m| m.cell.primitive == primitive && m.cell.op == op && m.cell.bytes == bytes)
    }
}

pub struct Profiled {
    /// `aes-128-cbc · openssl-3.0.19 (run 12)`.
    pub name: String,
    pub run: i64,
    pub variant: String,
    pub doc: StoredProfile,
}

/// The input, arranged for the charts.
pub struct ReportData<'a> {
    pub input: &'a ReportInput,
    pub series: Vec<SeriesRef<'a>>,
    pub baseline: usize,
    pub profiles: Vec<Profiled>,
    /// Size of the speedup and cycles/byte charts.
    pub size: Option<u64>,
}

impl<'a> ReportData<'a> {
    pub fn new(input: &'a ReportInput) -> Result<ReportData<'a>> {
        let mut series = Vec::new();
        for record in &input.records {
            let mut seen: Vec<&str> = Vec::new();
            for m in &record.measurements {
                if !seen.contains(&m.variant.as_str()) {
                    seen.push(&m.variant);
                }
            }
            for v in seen {
                series.push(SeriesRef {
                    name: v.to_string(),
                    record,
                    variant: v,
                });
            }
        }
        // A variant measured in several runs gets the run's label or id beside its name.
        let names: Vec<String> = series.iter().map(|s| s.name.clone()).collect();
        for s in &mut series {
            if names.iter().filter(|n| **n == s.name).count() > 1 {
                s.name = match &s.record.run.label {
                    Some(l) => format!("{} · {l} (run {})", s.name, s.record.run.id),
                    None => format!("{} · run {}", s.name, s.record.run.id),
                };
            }
        }
        let size = input.bytes.or_else(|| common_size(&series));
        let baseline = match &input.baseline {
            // The first series with the most cells at the chart size.
            None => {
                let cells = |s: &SeriesRef<'_>| {
                    s.measurements()
                        .filter(|m| m.cell.bytes.is_none() || m.cell.bytes == size)
                        .count()
                };
                let most = series.iter().map(cells).max().unwrap_or(0);
                series.iter().position(|s| cells(s) == most).unwrap_or(0)
            }
            Some(b) => series
                .iter()
                .position(|s| s.name == *b)
                .or_else(|| series.iter().position(|s| s.variant == b))
                .or_else(|| {
                    series
                        .iter()
                        .position(|s| s.record.run.label.as_deref() == Some(b.as_str()))
                })
                .or_else(|| {
                    series
                        .iter()
                        .position(|s| s.record.run.id.to_string() == *b)
                })
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--baseline '{b}' is none of the report's series ({})",
                        series
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?,
        };
        let mut profiles = Vec::new();
        let name_count = |p: &ProfileRecord| {
            input
                .profiles
                .iter()
                .filter(|(_, q)| q.primitive == p.primitive && q.variant == p.variant)
                .count()
        };
        for (run, p) in &input.profiles {
            let doc: StoredProfile = serde_json::from_str(&p.document).map_err(|e| {
                anyhow::anyhow!(
                    "the stored profile of {} in run {run} cannot be read: {e}",
                    p.primitive
                )
            })?;
            profiles.push(Profiled {
                name: if name_count(p) > 1 {
                    format!("{} · {} (run {run})", p.primitive, p.variant)
                } else {
                    format!("{} · {}", p.primitive, p.variant)
                },
                run: *run,
                variant: p.variant.clone(),
                doc,
            });
        }
        Ok(ReportData {
            input,
            series,
            baseline,
            profiles,
            size,
        })
    }

    /// Symmetric (primitive, op) pairs measured at some size, in catalog order.
    pub fn symmetric_cells(&self) -> Vec<CellKey> {
        let mut keys: BTreeSet<CellKey> = BTreeSet::new();
        for s in &self.series {
            for m in s.measurements() {
                if m.cell.bytes.is_some() {
                    keys.insert(cell_key(&m.cell.primitive, m.cell.op, None));
                }
            }
        }
        keys.into_iter().collect()
    }
}

/// The size the most series measured; among those, 8192 (the classic column) when it is one,
/// else the largest.
fn common_size(series: &[SeriesRef<'_>]) -> Option<u64> {
    let mut count: std::collections::BTreeMap<u64, usize> = Default::default();
    for s in series {
        let sizes: BTreeSet<u64> = s.measurements().filter_map(|m| m.cell.bytes).collect();
        for b in sizes {
            *count.entry(b).or_default() += 1;
        }
    }
    let most = *count.values().max()?;
    if count.get(&8192) == Some(&most) {
        return Some(8192);
    }
    count
        .iter()
        .rev()
        .find(|(_, n)| **n == most)
        .map(|(b, _)| *b)
}

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 24px auto; max-width: 1400px; color: #222; padding: 0 16px; }
h1 { font-size: 26px; margin-bottom: 4px; }
h2 { border-bottom: 2px solid #332288; padding-bottom: 4px; margin-top: 40px; }
h3 { margin-top: 28px; }
p.lead { color: #555; margin-top: 0; }
nav a { margin-right: 14px; }
table.meta { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
table.meta th, table.meta td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
table.meta th { background: #f2f2f7; }
.figures { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; border: 1px solid #e2e2e2; padding: 8px; background: #fff; max-width: 100%; overflow-x: auto; }
figcaption { font-size: 12.5px; color: #444; max-width: 760px; margin-top: 4px; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 10px; overflow-x: auto; font-size: 12px; }
.warning { color: #882255; }
.empty { color: #777; font-style: italic; }
"#;

/// The whole report as one HTML document.
pub fn html(input: &ReportInput) -> Result<String> {
    let data = ReportData::new(input)?;
    let mut out = String::new();
    let title = escape(&input.title);
    let _ = writeln!(
        out,
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>{title}</h1>
<p class="lead">{} run(s), {} series, {} profile(s). Generated by {}.</p>"#,
        input.records.len(),
        data.series.len(),
        data.profiles.len(),
        escape(&input.generated_by)
    );
    out.push_str("<nav>");
    out.push_str(r##"<a href="#runs">Runs and machines</a><a href="#variants">Variants</a>"##);
    for k in KINDS {
        let _ = write!(out, r##"<a href="#{}">{}</a>"##, k.name, escape(k.section));
    }
    out.push_str(r##"<a href="#tables">Tables</a></nav>"##);
    out.push_str("\n</header>\n");
    runs_section(&mut out, input);
    variants_section(&mut out, input);
    for k in KINDS {
        let figures = (k.build)(&data);
        let _ = writeln!(
            out,
            r#"<section id="{}" data-section="{}"><h2>{}</h2><p>{}</p>"#,
            k.name,
            k.name,
            escape(k.section),
            escape(k.about)
        );
        figures_html(&mut out, &figures, k.name);
        out.push_str("</section>\n");
    }
    out.push_str(r#"<section id="tables"><h2>Tables</h2><p>Each run as <code>openssl speed</code> prints it, with the 95% confidence interval and TSC cycles per byte (per operation for public key).</p>"#);
    for r in &input.records {
        let _ = writeln!(
            out,
            "<h3>Run {}{}</h3>\n<pre>{}</pre>",
            r.run.id,
            r.run
                .label
                .as_deref()
                .map(|l| format!(" · {}", escape(l)))
                .unwrap_or_default(),
            escape(&render(
                r,
                Format::Openssl,
                Options {
                    ci: true,
                    cycles: true
                }
            ))
        );
    }
    out.push_str("</section>\n</body>\n</html>\n");
    Ok(out)
}

fn figures_html(out: &mut String, figures: &[Figure], kind: &str) {
    if figures.is_empty() {
        let _ = writeln!(
            out,
            r#"<p class="empty">Nothing to draw for this chart from the selected runs.</p>"#
        );
        return;
    }
    out.push_str("<div class=\"figures\">\n");
    for f in figures {
        let _ = writeln!(
            out,
            "<figure id=\"fig-{}\" data-figure=\"{}\">\n{}<figcaption>{}</figcaption></figure>",
            escape(&f.id),
            escape(kind),
            f.svg,
            escape(&f.caption)
        );
    }
    out.push_str("</div>\n");
}

fn runs_section(out: &mut String, input: &ReportInput) {
    out.push_str(r#"<section id="runs"><h2>Runs and machines</h2><table class="meta"><tr><th>run</th><th>label</th><th>started</th><th>status</th><th>command or source</th><th>CPU</th><th>cores / threads</th><th>TSC</th><th>caches</th><th>OS / kernel</th><th>host</th></tr>"#);
    for r in &input.records {
        let m = &r.machine;
        let source = match &r.run.imported {
            Some(i) => format!(
                "imported from {} lines {}–{}",
                i.file, i.first_line, i.last_line
            ),
            None => r.run.command.clone(),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td><td>{} / {}</td><td>{}</td></tr>",
            r.run.id,
            escape(r.run.label.as_deref().unwrap_or("")),
            escape(&r.run.started_at),
            escape(r.run.status.as_str()),
            escape(&source),
            escape(&m.cpu_model),
            m.cores,
            m.threads,
            if m.tsc_hz > 0.0 {
                format!("{:.3} GHz{}", m.tsc_hz / 1e9, if m.constant_tsc { ", constant" } else { "" })
            } else {
                "unknown".into()
            },
            escape(&m.caches.join(", ")),
            escape(&m.os),
            escape(&m.kernel),
            escape(&m.hostname)
        );
    }
    out.push_str("</table></section>\n");
}

fn variants_section(out: &mut String, input: &ReportInput) {
    out.push_str(r#"<section id="variants"><h2>Variants</h2><table class="meta"><tr><th>run</th><th>label</th><th>implementation</th><th>version</th><th>library</th><th>build</th><th>capabilities</th><th>feature mask</th></tr>"#);
    for r in &input.records {
        for v in &r.variants {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                r.run.id,
                escape(&v.label),
                escape(&v.implementation),
                escape(&v.version),
                escape(&v.library),
                v.build_info
                    .iter()
                    .map(|s| escape(s))
                    .collect::<Vec<_>>()
                    .join("<br>"),
                escape(&v.capabilities),
                escape(&v.feature_mask)
            );
        }
    }
    out.push_str("</table></section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use cryptospeed_model::VariantMeasurement;

    /// The fixture run with a second variant, 25% faster, labelled like an attack.
    fn input() -> ReportInput {
        let mut record = fixture::record();
        let evil = "<script>alert('x')</script>";
        let extra: Vec<VariantMeasurement> = record
            .measurements
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.variant = evil.into();
                if let Some(s) = &mut m.measurement.summary {
                    for v in [&mut s.median, &mut s.ci_lo, &mut s.ci_hi] {
                        *v *= 0.8;
                    }
                }
                m.measurement.tsc_per_op = m.measurement.tsc_per_op.map(|t| t * 0.8);
                m
            })
            .collect();
        record.measurements.extend(extra);
        let mut v = record.variants[0].clone();
        v.label = evil.into();
        record.variants.push(v);
        ReportInput {
            title: "fixture <b>report</b>".into(),
            records: vec![record],
            generated_by: "cryptospeed test".into(),
            ..Default::default()
        }
    }

    #[test]
    fn throughput_figure_snapshot() {
        let input = input();
        let data = ReportData::new(&input).unwrap();
        let figures = (crate::figures::kind("throughput").unwrap().build)(&data);
        assert_eq!(figures.len(), 1, "md5 is the only symmetric primitive");
        insta::assert_snapshot!("report_throughput_md5", figures[0].svg);
    }

    #[test]
    fn speedup_is_the_second_variant_over_the_first() {
        let input = input();
        let data = ReportData::new(&input).unwrap();
        assert_eq!(data.size, Some(8192));
        let f = (crate::figures::kind("speedup").unwrap().build)(&data);
        assert_eq!(f.len(), 1);
        // 0.8 × the time is 1.25 × the rate, for md5 and the public-key rows alike.
        assert!(f[0].caption.contains("1.250×"), "{}", f[0].caption);
    }

    #[test]
    fn the_page_escapes_everything_and_fetches_nothing() {
        let page = html(&input()).unwrap();
        assert!(!page.contains("<script"));
        assert!(!page.contains("<b>"));
        assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assert!(page.contains("fixture &lt;b&gt;report&lt;/b&gt;"));
        assert!(page.contains("default-src 'none'"));
        let without_ns = page.replace("http://www.w3.org/2000/svg", "");
        assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
        // Sections without data say so instead of drawing empty charts.
        assert!(page.contains("Nothing to draw"));
    }

    #[test]
    fn an_unknown_baseline_names_the_series() {
        let mut input = input();
        input.baseline = Some("gcc-99".into());
        let err = ReportData::new(&input).err().unwrap().to_string();
        assert!(
            err.contains("gcc-99") && err.contains("openssl-3.0.19"),
            "{err}"
        );
    }

    #[test]
    fn a_corrupt_profile_is_an_error_naming_it() {
        let mut input = input();
        input.profiles.push((
            7,
            ProfileRecord {
                variant: "openssl-3.0.19".into(),
                primitive: "md5".into(),
                bytes: Some(4096),
                document: "{\"primitive\": ".into(),
            },
        ));
        let err = ReportData::new(&input).err().unwrap().to_string();
        assert!(err.contains("md5") && err.contains("run 7"), "{err}");
    }
}
