//! `cryptospeed import`: reads `openssl speed` / `bssl speed` / Google Benchmark / `go test
//! -bench` / liboqs / mlkem-native and mldsa-native / pqm4 / wolfCrypt logs and stores each output in them
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
    /// Log format instead of guessing (every one is also recognised by itself): openssl-speed
    /// (any version, human or -mr, -multi), bssl-speed, bssl-speed-json, google-benchmark,
    /// google-benchmark-json, go-test-bench (`go test -bench`), liboqs-speed,
    /// pq-native-bench (mlkem-native / mldsa-native cycles and percentiles), pq-crystals-speed
    /// (the CRYSTALS reference code's test_speed), pqm4
    /// (benchmarks.md), wolfcrypt-benchmark (wolfCrypt's `benchmark`), supercop-data (SUPERCOP's
    /// `bench/HOST/data`, crypto_hash and crypto_kem cycles), cryptospeed-json and
    /// cryptospeed-csv (`show --format json|csv`; `--format gobench` reads as go-test-bench).
    #[arg(long)]
    pub format: Option<String>,
    /// The log is from `openssl speed -decrypt`: its cipher rows time decryption.
    #[arg(long)]
    pub decrypt: bool,
    /// Refuse a log that lacks part of what it announced (a table cut off at the end, a `+H`
    /// line cut off at the top) instead of importing its complete rows marked partial.
    #[arg(long)]
    pub strict: bool,
    /// The clock of the machine the log came from, in GHz, where the log prints none: lets
    /// `compare --normalize ghz|cycles` put its figures per GHz.
    #[arg(long, value_name = "GHZ")]
    pub clock_ghz: Option<f64>,
    /// The CPU model of the machine the log came from, where the log prints none.
    #[arg(long, value_name = "MODEL")]
    pub cpu: Option<String>,
    /// Store the cells of primitive FROM under the catalog primitive TO, at your word (repeat for
    /// several): e.g. `kyber-768=ml-kem-768` to read a round-3 Kyber768 table (SUPERCOP's
    /// `kyber768`) in one row with ML-KEM-768. The run keeps a `read as` note; the two are not
    /// the same work (docs/import-and-compare.md).
    #[arg(long = "as", value_name = "FROM=TO")]
    pub read_as: Vec<String>,
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
        let mut log = read_file(file, a.format.as_deref(), &options)
            .map_err(anyhow::Error::msg)
            .context("nothing was stored")?;
        if a.strict {
            if let Some(first) = log.missing().first() {
                bail!("{file}: {first} (--strict); nothing was stored");
            }
        }
        if let Some(ghz) = a.clock_ghz {
            if !(ghz.is_finite() && ghz > 0.0) {
                bail!("--clock-ghz {ghz}: give the clock in GHz, e.g. 2.4");
            }
        }
        for run in &mut log.runs {
            set_machine(run, a.clock_ghz, a.cpu.as_deref());
        }
        parsed.push((file.clone(), log));
    }
    if parsed.iter().filter(|(f, _)| f == "-").count() > 1 {
        bail!("'-' (standard input) given more than once");
    }
    read_as(&a.read_as, &mut parsed)?;
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
            for m in &run.missing {
                eprintln!("warning: {file}: partial output: {m}");
            }
            for key in ["side-by-side", "read as"] {
                if let Some(note) = run.field(key) {
                    println!("  {key}: {note}");
                }
            }
            let unmapped = run.unmapped_names();
            if !unmapped.is_empty() {
                println!(
                    "  not in the catalog, kept under their own names: {}",
                    unmapped.join(", ")
                );
            }
        }
        for w in &log.warnings {
            eprintln!("warning: {file}: {w}");
        }
        print_skipped(file, &log.skipped, a.dry_run);
    }
    Ok(0)
}

/// `--as FROM=TO` on every file read; one that renames nothing anywhere stores nothing.
fn read_as(specs: &[String], parsed: &mut [(String, cryptospeed_import::ParsedLog)]) -> Result<()> {
    for spec in specs {
        let (from, to) = cryptospeed_import::read_as::parse(spec).map_err(anyhow::Error::msg)?;
        let renamed: usize = parsed
            .iter_mut()
            .map(|(_, log)| cryptospeed_import::read_as::apply(log, &from, &to))
            .sum();
        if renamed == 0 {
            bail!("--as {spec}: no cell of '{from}' in the files; nothing was stored");
        }
    }
    Ok(())
}

/// The clock and CPU given on the command line, for a run whose log printed none (a clock the
/// log printed wins, so a file of several machines keeps each its own).
fn set_machine(run: &mut cryptospeed_import::ImportedRun, ghz: Option<f64>, cpu: Option<&str>) {
    if let Some(ghz) = ghz {
        // A clock the importer worked out (liboqs's cycles over time) gives way to the user's.
        if run.field("clock from").is_some() {
            let k = cryptospeed_import::CLOCK_GHZ;
            run.header
                .retain(|(key, _)| key != k && key != "clock from");
        }
        if run.field(cryptospeed_import::CLOCK_GHZ).is_none() {
            run.header
                .push((cryptospeed_import::CLOCK_GHZ.into(), format!("{ghz}")));
        }
    }
    if let Some(cpu) = cpu {
        if run.field(cryptospeed_import::CPU_MODEL).is_none() {
            run.header
                .push((cryptospeed_import::CPU_MODEL.into(), cpu.to_string()));
        }
    }
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
