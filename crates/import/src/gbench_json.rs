//! Google Benchmark `--benchmark_format=json` (or `--benchmark_out_format=json`) output:
//! `{"context": {…, "mhz_per_cpu"}, "benchmarks": [{"name", "run_type", "aggregate_name",
//! "real_time", "time_unit", …}]}`. The same rows as the console form (gbench.rs maps the names
//! and assembles repetitions), at full precision, so a run's JSON and console outputs import to
//! the same figures up to the console's three digits.

use crate::gbench::{assemble, split_aggregate, Row};
use crate::{ImportError, ImportOptions, LogFormat, ParsedLog, CLOCK_GHZ};
use serde::Deserialize;

pub struct GbenchJson;

#[derive(Deserialize)]
struct Report {
    #[serde(default)]
    context: Context,
    benchmarks: Vec<Bench>,
}

#[derive(Deserialize, Default)]
struct Context {
    date: Option<String>,
    host_name: Option<String>,
    executable: Option<String>,
    num_cpus: Option<u64>,
    mhz_per_cpu: Option<f64>,
    library_version: Option<String>,
}

#[derive(Deserialize)]
struct Bench {
    name: String,
    /// `iteration` or `aggregate` (absent before Google Benchmark 1.5: the name's suffix says).
    run_type: Option<String>,
    run_name: Option<String>,
    aggregate_name: Option<String>,
    real_time: Option<f64>,
    time_unit: Option<String>,
    #[serde(default)]
    error_occurred: bool,
}

impl LogFormat for GbenchJson {
    fn name(&self) -> &'static str {
        "google-benchmark-json"
    }

    fn sniff(&self, text: &str) -> bool {
        text.trim_start().starts_with('{') && text.contains("\"benchmarks\"")
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let report: Report = serde_json::from_str(text).map_err(|e| {
            ImportError::at(
                e.line(),
                format!("not Google Benchmark JSON output: {e} (expected {{\"context\", \"benchmarks\": [...]}})"),
            )
        })?;
        let mut log = ParsedLog::default();
        let mut rows = Vec::new();
        let mut at = 1;
        for b in report.benchmarks {
            at = line_of(text, &b.name, at);
            if b.error_occurred {
                log.skipped
                    .push((at, format!("{} (error occurred)", b.name)));
                continue;
            }
            rows.push(row(b, at)?);
        }
        log.runs = assemble(
            "google-benchmark-json",
            rows,
            &context(&report.context),
            1e-6,
        )?;
        Ok(log)
    }
}

/// serde_json gives no positions per element: the line of the next `"name": "…"` holding it.
fn line_of(text: &str, name: &str, from: usize) -> usize {
    let quoted = serde_json::to_string(name).unwrap_or_default();
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains("\"name\"") && l.contains(&quoted))
        .map(|(i, _)| i + 1)
        .unwrap_or(from)
}

fn row(b: Bench, line: usize) -> Result<Row, ImportError> {
    let per = match b.time_unit.as_deref().unwrap_or("ns") {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            return Err(ImportError::at(
                line,
                format!("'{}': unknown time_unit '{other}'", b.name),
            ))
        }
    };
    let real = b
        .real_time
        .ok_or_else(|| ImportError::at(line, format!("'{}' has no real_time", b.name)))?;
    let (name, aggregate) = match (b.run_type.as_deref(), b.aggregate_name) {
        (Some("aggregate"), Some(agg)) => (b.run_name.unwrap_or(b.name), Some(agg)),
        (Some(_), _) => (b.name, None),
        (None, _) => split_aggregate(&b.name),
    };
    Ok(Row {
        name,
        line,
        real_ns: real * per,
        aggregate,
    })
}

fn context(c: &Context) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, val: Option<String>| {
        if let Some(val) = val {
            v.push((k.to_string(), val));
        }
    };
    put("date", c.date.clone());
    put("host", c.host_name.clone());
    put("executable", c.executable.clone());
    put("num_cpus", c.num_cpus.map(|n| n.to_string()));
    put(CLOCK_GHZ, c.mhz_per_cpu.map(|m| format!("{}", m / 1000.0)));
    put("google benchmark", c.library_version.clone());
    v
}
