//! cryptospeed's own `show RUN --format json` (crates/report/src/run/json.rs) and `--format csv`
//! (the same records as rows), read back so an exported run can be stored elsewhere and
//! compared: one record per cell with `impl`, `variant`, `primitive`, `op`, `bytes`, `unit` and
//! `median` (bytes/s or ops/s). Each variant is an output of its own; the figure is the median
//! as written. Cells without figures (failed, unavailable) are listed as skipped; cycles stay
//! behind (the export carries no clock).

use crate::names;
use crate::{ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog};
use cryptospeed_model::Op;
use serde::Deserialize;

pub struct OwnJson;

#[derive(Deserialize)]
struct Record {
    #[serde(rename = "impl")]
    implementation: String,
    variant: String,
    primitive: String,
    op: String,
    bytes: Option<u64>,
    median: Option<f64>,
    status: String,
}

/// The CSV rows of `show --format csv`.
pub struct OwnCsv;

const CSV_HEADER: &str = "run,impl,variant,primitive,op,bytes,unit,median,";

impl LogFormat for OwnCsv {
    fn name(&self) -> &'static str {
        "cryptospeed-csv"
    }

    fn sniff(&self, text: &str) -> bool {
        text.trim_start().starts_with(CSV_HEADER)
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let mut records = Vec::new();
        let mut lines = Vec::new();
        for (n, line) in crate::numbered_lines(text).skip(1) {
            if line.trim().is_empty() {
                continue;
            }
            let f = csv_fields(line);
            if f.len() < 14 {
                return Err(ImportError::at(
                    n,
                    format!("expected a row of 16 fields, found '{line}'"),
                ));
            }
            let number = |s: &str| (!s.is_empty()).then(|| s.parse().ok()).flatten();
            records.push(Record {
                implementation: f[1].clone(),
                variant: f[2].clone(),
                primitive: f[3].clone(),
                op: f[4].clone(),
                bytes: number(&f[5]).map(|b: f64| b as u64),
                median: number(&f[7]),
                status: f[13].clone(),
            });
            lines.push(n);
        }
        to_log(&records, &lines, "cryptospeed-csv")
    }
}

/// A CSV line's fields, `"…"` quoting (with `""` inside) undone.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

impl LogFormat for OwnJson {
    fn name(&self) -> &'static str {
        "cryptospeed-json"
    }

    fn sniff(&self, text: &str) -> bool {
        text.trim_start().starts_with('[') && text.contains("\"cycles_are\"")
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let records: Vec<Record> = serde_json::from_str(text).map_err(|e| {
            ImportError::at(
                e.line(),
                format!("expected cryptospeed's JSON records (show --format json): {e}"),
            )
        })?;
        to_log(&records, &record_lines(text), "cryptospeed-json")
    }
}

/// The runs of the records (one per variant), each at its line.
fn to_log(records: &[Record], lines: &[usize], format: &str) -> Result<ParsedLog, ImportError> {
    let mut log = ParsedLog::default();
    for (i, r) in records.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(0);
        let op = Op::parse(&r.op)
            .ok_or_else(|| ImportError::at(line, format!("unknown operation '{}'", r.op)))?;
        let Some(median) = r.median.filter(|m| *m > 0.0) else {
            let what = format!("{} {} ({}): no figure", r.primitive, r.op, r.status);
            log.skipped.push((line, what));
            continue;
        };
        let run = run_for(&mut log.runs, r, line, format);
        run.last_line = line;
        let m = names::named_scheme(&r.primitive);
        run.results.push(ImportedResult {
            primitive: m.primitive,
            op,
            bytes: r.bytes,
            rate: median,
            printed_name: r.primitive.clone(),
            mapped: m.mapped,
            line,
            samples: Vec::new(),
            cycles: None,
        });
    }
    Ok(log)
}

/// The line of each record (where its `"run"` key is), in order.
fn record_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("\"run\":"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The output of a record's variant: its implementation, and the rest of its label as the
/// version (`openssl` + `3.0.19` gives back the label `openssl-3.0.19`).
fn run_for<'a>(
    runs: &'a mut Vec<ImportedRun>,
    r: &Record,
    line: usize,
    format: &str,
) -> &'a mut ImportedRun {
    if let Some(i) = runs
        .iter()
        .position(|x| x.field("variant") == Some(&r.variant))
    {
        return &mut runs[i];
    }
    let mut run = ImportedRun {
        format: format.into(),
        implementation: r.implementation.clone(),
        first_line: line,
        ..Default::default()
    };
    run.set("variant", r.variant.clone());
    if let Some(version) = r.variant.strip_prefix(&format!("{}-", r.implementation)) {
        run.set("version", version);
    }
    runs.push(run);
    runs.last_mut().expect("just pushed")
}
