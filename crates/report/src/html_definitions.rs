//! The report's definitions: what each operation on the page times (the catalog's definition,
//! written once for every column) and where a column departs from it (its declared deviation),
//! so a figure in a chart or table is never read as more like-for-like than it is. The deviations
//! are the same data and numbered the same way as the text footnotes under `run` and `compare`
//! (crate::footnotes); the binary passes them in with the report's input.

use crate::data::ReportInput;
use crate::footnotes::Footnotes;
use cryptospeed_chart::escape;
use cryptospeed_model::{Op, RunRecord};
use std::fmt::Write;

/// One (primitive, operation) shown with figures, and the implementations that time it.
struct Row {
    primitive: &'static cryptospeed_catalog::Primitive,
    op: Op,
    implementations: Vec<String>,
}

/// The (primitive, operation) pairs with figures cryptospeed measured in the runs, in catalog
/// order.
fn rows(records: &[RunRecord]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for p in cryptospeed_catalog::all() {
        for op in p.ops() {
            let mut implementations: Vec<String> = Vec::new();
            // Imported figures come from the logging tool's own loop, which no definition here
            // describes.
            let measured = records.iter().filter(|r| r.run.imported.is_none());
            let cells = measured.flat_map(|r| &r.measurements);
            for vm in cells.filter(|vm| {
                let m = &vm.measurement;
                m.status.has_numbers() && m.cell.primitive == p.id && m.cell.op == *op
            }) {
                if !implementations.contains(&vm.implementation) {
                    implementations.push(vm.implementation.clone());
                }
            }
            if !implementations.is_empty() {
                rows.push(Row {
                    primitive: p,
                    op: *op,
                    implementations,
                });
            }
        }
    }
    rows
}

/// The deviations of `all` that concern a cell of `record` with figures: what the run's
/// `openssl speed` table lists under each variant.
pub fn of_record(all: &Footnotes, record: &RunRecord) -> Footnotes {
    let shown = |d: &&crate::Deviation| {
        record.measurements.iter().any(|vm| {
            let c = &vm.measurement.cell;
            vm.measurement.status.has_numbers()
                && vm.implementation == d.column
                && c.primitive == d.primitive
                && c.op == d.op
        })
    };
    Footnotes::new(all.list.iter().filter(shown).cloned().collect())
}

/// The definition's cells of one row: id and version, what is prepared, what is timed, lengths,
/// randomness.
fn definition_cells(row: &Row) -> String {
    match row.primitive.definition(row.op) {
        Some(d) => {
            let randomness = serde_json::to_value(d.randomness)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let source = if d.source.is_empty() {
                String::new()
            } else {
                format!(": {}", escape(d.source))
            };
            format!(
                "<td><code>{}</code> v{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{source}</td>",
                escape(&d.id),
                d.version,
                escape(d.prepared),
                escape(d.timed),
                escape(&d.lengths),
                escape(&randomness),
            )
        }
        None => r#"<td colspan="5" class="empty">no definition in the catalog</td>"#.into(),
    }
}

/// Each implementation of the row: its deviation with the footnote's number, or that it holds
/// to the definition.
fn deviation_cell(row: &Row, notes: &Footnotes) -> String {
    let (p, op) = (row.primitive.id, row.op);
    let mut held: Vec<String> = Vec::new();
    let mut items = String::new();
    for name in &row.implementations {
        match notes.text(name, p, op) {
            Some(text) => {
                let _ = write!(
                    items,
                    r#"<li data-deviates="{}"><b>{}</b>{}: {}</li>"#,
                    escape(name),
                    escape(name),
                    escape(&notes.marker(name, p, op)),
                    escape(text)
                );
            }
            None => held.push(escape(name)),
        }
    }
    if !held.is_empty() {
        let _ = write!(
            items,
            r#"<li data-conforms="{}">{}: as defined</li>"#,
            held.join(" "),
            held.join(", ")
        );
    }
    format!("<td><ul class=\"deviations\">{items}</ul></td>")
}

/// The `<section>` of definitions and deviations; says so when no cell has figures.
pub fn section(input: &ReportInput) -> String {
    let mut out = String::from(
        r#"<section id="definitions"><h2>Definitions</h2><p>What each operation on this page times: the catalog's definition, the same for every column (<code>cryptospeed list --json</code>), and each implementation that departs from it, numbered as the footnotes under <code>cryptospeed run</code> and <code>compare</code> tables.</p>"#,
    );
    let rows = rows(&input.records);
    if rows.is_empty() {
        out.push_str(
            "<p class=\"empty\">No cell with figures in the selected runs.</p></section>\n",
        );
        return out;
    }
    out.push_str(r#"<table class="meta definitions"><tr><th>primitive</th><th>operation</th><th>definition</th><th>before the clock</th><th>the timed call</th><th>lengths (bytes)</th><th>randomness</th><th>columns</th></tr>"#);
    for row in &rows {
        let _ = writeln!(
            out,
            r#"<tr data-definition="{} {}"><td>{}</td><td>{}</td>{}{}</tr>"#,
            escape(row.primitive.id),
            row.op,
            escape(row.primitive.id),
            row.op,
            definition_cells(row),
            deviation_cell(row, &input.deviations)
        );
    }
    out.push_str("</table>\n");
    let lines = input.deviations.lines();
    if !lines.is_empty() {
        out.push_str("<div class=\"footnotes\">");
        for (i, line) in lines.iter().enumerate() {
            let _ = write!(
                out,
                r#"<p class="footnote" id="deviation-{}">{}</p>"#,
                i + 1,
                escape(line)
            );
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::report_input;

    #[test]
    fn each_shown_operation_has_its_definition_and_each_column_its_deviation() {
        let mut input = report_input();
        input.deviations = crate::footnotes::tests::sample(["openssl", "openssl"]);
        let html = section(&input);
        // md5 hash, rsa-2048 sign and verify, x25519 derive have figures; md2 does not.
        assert_eq!(html.matches("<tr data-definition=").count(), 4, "{html}");
        assert!(!html.contains("md2"), "{html}");
        let rsa = cryptospeed_catalog::lookup("rsa-2048").unwrap();
        let d = rsa.definition(Op::Sign).unwrap();
        assert!(html.contains(&escape(d.timed)), "{html}");
        let sign = html.lines().find(|l| l.contains("rsa-2048 sign")).unwrap();
        assert!(
            sign.contains("<b>openssl</b> ¹: the input is hashed first"),
            "{sign}"
        );
        let verify = html
            .lines()
            .find(|l| l.contains("rsa-2048 verify"))
            .unwrap();
        assert!(verify.contains("openssl: as defined"), "{verify}");
        assert!(
            html.contains(r#"<p class="footnote" id="deviation-2">² openssl: the peer key is parsed per call</p>"#),
            "{html}"
        );
    }

    #[test]
    fn a_record_keeps_only_the_deviations_of_its_own_cells() {
        let mut input = report_input();
        let mut all = crate::footnotes::tests::sample(["openssl", "openssl"]);
        all.list[0].primitive = "ml-kem-768".into();
        let record = &mut input.records[0];
        let kept = of_record(&all, record);
        let kept: Vec<&str> = kept.list.iter().map(|d| d.primitive.as_str()).collect();
        assert_eq!(kept, ["rsa-2048", "x25519"]);
        record.measurements.clear();
        assert!(of_record(&all, record).list.is_empty());
        assert!(section(&input).contains("No cell with figures"));
    }
}
