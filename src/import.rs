//! `cryptospeed import`: reads `openssl speed` / `bssl speed` logs and stores each output in them
//! as an imported run. Every file is read completely before anything is stored, so a truncated or
//! garbled file (an error naming its line) leaves the store unchanged.

use crate::session::db_location;
use anyhow::{bail, Context, Result};
use clap::Args;
use cryptospeed_import::file::{file_label, read_file, record};
use cryptospeed_import::ImportOptions;

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
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

pub fn import(a: ImportArgs) -> Result<i32> {
    let options = ImportOptions { decrypt: a.decrypt };
    // Read everything first: one bad file stores nothing.
    let mut parsed = Vec::new();
    for file in &a.files {
        let log = read_file(file, a.format.as_deref(), &options)
            .map_err(anyhow::Error::msg)
            .context("nothing was stored")?;
        parsed.push((file.clone(), log));
    }
    if parsed.iter().filter(|(f, _)| f == "-").count() > 1 {
        bail!("'-' (standard input) given more than once");
    }
    let mut store = if a.dry_run {
        None
    } else {
        Some(cryptospeed_store::open(&db_location(&a.store.db))?)
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
