//! `cryptospeed import`: reads `openssl speed` / `bssl speed` logs and stores each output in them
//! as an imported run. Every file is read completely before anything is stored, so a truncated or
//! garbled file (an error naming its line) leaves the store unchanged.

use crate::session::db_location;
use anyhow::{bail, Context, Result};
use clap::Args;
use cryptospeed_import::{ImportOptions, ImportedRun};
use cryptospeed_model::{
    CellSpec, ImportSource, Machine, MeasureConfig, Measurement, RunInfo, RunRecord, RunStatus,
    Status, Variant, VariantMeasurement,
};
use std::io::Read;

#[derive(Args)]
pub struct ImportArgs {
    /// Log files to import (`-` reads standard input).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Label for the imported runs (default: the file name without its extension). Every output
    /// of a file gets the same label, so `compare LABEL …` pools them.
    #[arg(long)]
    pub label: Option<String>,
    /// Log format instead of guessing: openssl-speed, bssl-speed, bssl-speed-json.
    #[arg(long)]
    pub format: Option<String>,
    /// The log is from `openssl speed -decrypt`: its cipher rows time decryption.
    #[arg(long)]
    pub decrypt: bool,
    /// Read and check the files, print what would be stored, store nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Results store: a SQLite file, or a postgres://USER@HOST/DB URL (password from $PGPASSWORD or the URL, never printed). Default: $CRYPTOSPEED_DB, else ~/.local/share/cryptospeed/results.db.
    #[arg(long)]
    pub db: Option<String>,
}

/// Reads a log file (or stdin for `-`) and parses every output in it.
pub fn read_log(
    file: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Result<cryptospeed_import::ParsedLog> {
    let bytes = if file == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("cannot read standard input")?;
        b
    } else {
        std::fs::read(file).with_context(|| format!("cannot read {file}"))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!("{file}: line {line}: not UTF-8 text (a binary file?)")
    })?;
    cryptospeed_import::read(&text, format, options).map_err(|e| anyhow::anyhow!("{file}: {e}"))
}

/// The default label of a file: its name without directory and extension.
pub fn file_label(file: &str) -> String {
    if file == "-" {
        return "stdin".into();
    }
    let p = std::path::Path::new(file);
    p.file_stem()
        .or(p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

/// The run record an imported output becomes: an unknown machine, a variant named after the
/// version it printed, one measurement per figure with the printed rate kept exactly.
pub fn record(run: &ImportedRun, file: &str, label: &str, id: i64) -> RunRecord {
    let version = run.field("version").unwrap_or("").to_string();
    let short = version
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or("")
        .to_string();
    let variant_label = if short.is_empty() {
        run.implementation.clone()
    } else {
        format!("{}-{short}", run.implementation)
    };
    let build_info: Vec<String> = ["built on", "options", "compiler", "platform", "timing"]
        .iter()
        .filter_map(|k| run.field(k).map(|v| format!("{k}: {v}")))
        .collect();
    let variant = Variant {
        label: variant_label.clone(),
        implementation: run.implementation.clone(),
        version,
        library: format!("imported from {}", file_label(file)),
        build_info,
        capabilities: run.field("CPUINFO").unwrap_or("").to_string(),
        feature_mask: String::new(),
    };
    let machine = Machine {
        cpu_model: "unknown (imported log)".into(),
        arch: run.field("platform").unwrap_or("").to_string(),
        ..Default::default()
    };
    let measurements = run
        .results
        .iter()
        .map(|r| VariantMeasurement {
            variant: variant_label.clone(),
            implementation: run.implementation.clone(),
            measurement: {
                let cell = CellSpec {
                    primitive: r.primitive.clone(),
                    op: r.op,
                    bytes: r.bytes,
                    misalign: 0,
                };
                if r.rate > 0.0 {
                    Measurement::imported(cell, r.rate)
                } else {
                    // openssl speed prints 0.00 for a cell it did not run: n/a, never 0.
                    let why = format!("the log prints 0 at line {}: not run", r.line);
                    Measurement::not_timed(cell, Status::Unavailable, why)
                }
            },
        })
        .collect();
    RunRecord {
        run: RunInfo {
            id,
            label: Some(label.to_string()),
            started_at: String::new(),
            finished_at: None,
            command: format!("cryptospeed import {file}"),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            status: RunStatus::Complete,
            config: MeasureConfig::default(),
            imported: Some(ImportSource {
                file: file.to_string(),
                first_line: run.first_line,
                last_line: run.last_line,
                format: run.format.clone(),
                header: run.header.clone(),
            }),
            uid: None,
            conditions: None,
        },
        machine,
        variants: vec![variant],
        measurements,
    }
}

pub fn import(a: ImportArgs) -> Result<i32> {
    let options = ImportOptions { decrypt: a.decrypt };
    // Read everything first: one bad file stores nothing.
    let mut parsed = Vec::new();
    for file in &a.files {
        let log = read_log(file, a.format.as_deref(), &options).context("nothing was stored")?;
        parsed.push((file.clone(), log));
    }
    if parsed.iter().filter(|(f, _)| f == "-").count() > 1 {
        bail!("'-' (standard input) given more than once");
    }
    let mut store = if a.dry_run {
        None
    } else {
        Some(cryptospeed_store::open(&db_location(&a.db))?)
    };
    for (file, log) in &parsed {
        let label = a.label.clone().unwrap_or_else(|| file_label(file));
        for run in &log.runs {
            let rec = record(run, file, &label, 0);
            let what = format!(
                "{file} lines {}–{} ({}, {}{}): {} cells",
                run.first_line,
                run.last_line,
                run.format,
                rec.variants[0].label,
                run.field("multi")
                    .map(|m| format!(", -multi {m}"))
                    .unwrap_or_default(),
                run.results.len()
            );
            match store.as_mut() {
                Some(s) => {
                    let id = s
                        .import_run(&rec)
                        .with_context(|| format!("storing {file}"))?;
                    println!("imported {what} as run {id}, label '{label}'");
                }
                None => println!("would import {what}, label '{label}'"),
            }
            let unmapped = run.unmapped_names();
            if !unmapped.is_empty() {
                println!(
                    "  not in the catalog, kept under their own names: {}",
                    unmapped.join(", ")
                );
            }
        }
        print_skipped(file, &log.skipped, a.dry_run);
    }
    Ok(0)
}

/// Lines of a file that are not part of any speed output (prompts, stderr, other tools): all of
/// them with `--dry-run`, else how many.
fn print_skipped(file: &str, skipped: &[(usize, String)], all: bool) {
    if skipped.is_empty() {
        return;
    }
    println!(
        "{file}: skipped (not part of a speed output): {} line(s){}",
        skipped.len(),
        if all { "" } else { " (--dry-run lists them)" }
    );
    if all {
        for (line, text) in skipped {
            println!("  line {line}: {text}");
        }
    }
}
