//! `cryptospeed run`, `runs` and `show`: measure cells in a worker, store each as it completes,
//! and print the run in the chosen format. A worker that dies costs only the cell it was on (it
//! is restarted for the rest); Ctrl-C keeps every finished cell and marks the run interrupted.

use crate::args;
use crate::session::{db_location, emit, interrupt_flag, ImplChoice};
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::worker_client::WorkerError;
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, RunStatus, Status};
use cryptospeed_report::{Format, Options};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct StoreArgs {
    /// Results store: a SQLite file, or a postgres://USER@HOST/DB URL (password from $PGPASSWORD or the URL, never printed). Default: $CRYPTOSPEED_DB, else ~/.local/share/cryptospeed/results.db.
    #[arg(long)]
    pub db: Option<String>,
}

#[derive(Args)]
pub struct OutputArgs {
    /// Output format: openssl, mr, json, csv, markdown, matrix (default: openssl for one
    /// implementation, matrix for several).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(Format::NAMES))]
    pub format: Option<String>,
    /// Write the output to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Show the 95% confidence interval (±% of the median) beside each number.
    #[arg(long)]
    pub ci: bool,
    /// Show TSC reference cycles per byte (per operation for public key).
    #[arg(long)]
    pub cycles: bool,
}

impl OutputArgs {
    /// Renders a run; without `--format`, a run of several variants is shown as the matrix.
    pub fn render_for(&self, record: &cryptospeed_model::RunRecord, variants: usize) -> String {
        let default = if variants > 1 { "matrix" } else { "openssl" };
        let name = self.format.as_deref().unwrap_or(default);
        let format = Format::parse(name).expect("clap checked the format");
        cryptospeed_report::render(
            record,
            format,
            Options {
                ci: self.ci,
                cycles: self.cycles,
            },
        )
    }
}

#[derive(Args)]
pub struct RunArgs {
    /// Primitives or groups, comma-separated, in any openssl speed spelling (default: all).
    #[arg(long, short, value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Message sizes, comma-separated, 1 B to 16 MiB (k and MiB suffixes accepted).
    #[arg(long, short, value_name = "LIST")]
    pub bytes: Vec<String>,
    /// Exact cells instead of -a × -b: PRIMITIVE@SIZE (or PRIMITIVE for public-key ones),
    /// comma-separated, e.g. `md5@64,aes-128-cbc@16k,rsa2048` (sweep shards use this).
    #[arg(long, value_name = "LIST", conflicts_with_all = ["algorithms", "bytes"])]
    pub cells: Vec<String>,
    /// Operations to time (hash, mac, encrypt, decrypt, sign, verify, derive, all); default: each
    /// primitive's openssl speed operations.
    #[arg(long, value_name = "LIST")]
    pub ops: Vec<String>,
    /// Start message buffers this many bytes past a 64-byte boundary.
    #[arg(long, default_value_t = 0)]
    pub misalign: u32,
    /// Target half-width of the 95% CI of the median, as a fraction (0.01 = ±1%).
    #[arg(long, default_value_t = 0.01)]
    pub precision: f64,
    /// Seconds per cell at most, precise or not.
    #[arg(long, default_value_t = 2.0)]
    pub max_time: f64,
    /// Minimum samples per cell.
    #[arg(long, default_value_t = 10)]
    pub min_samples: u32,
    /// Target duration of one sample, seconds.
    #[arg(long, default_value_t = 0.01)]
    pub sample_time: f64,
    /// Pin the worker to this CPU.
    #[arg(long, conflicts_with = "multi")]
    pub pin: Option<usize>,
    /// Scaling: run each cell alone, then on N workers pinned to N distinct CPUs at once, and
    /// report per-worker and aggregate throughput and the scaling efficiency (like `openssl
    /// speed -multi N`, with intervals). Every cell then runs exactly --max-time seconds.
    #[arg(long, value_name = "N")]
    pub multi: Option<usize>,
    /// Implementations, comma-separated, or `all`: NAME or NAME:LIBRARY (e.g.
    /// openssl:/opt/ssl/lib/libcrypto.so.3, openssl-cli:/usr/bin/openssl).
    /// (default: openssl, unless --variant is given).
    #[arg(long = "impl")]
    pub implementation: Option<String>,
    /// Built variants (`cryptospeed variant build`), comma-separated labels or keys; `system`
    /// is the system libcrypto. Each runs in its own worker with its own libcrypto, interleaved
    /// cell by cell so machine drift hits all alike.
    #[arg(long, value_name = "LIST")]
    pub variant: Option<String>,
    /// A name for the run, to refer to it later.
    #[arg(long)]
    pub label: Option<String>,
    /// Hide CPU features from the implementation: no-aesni, no-pclmul, no-ssse3, no-avx,
    /// no-avx2, no-avx512, no-shani, no-vaes (combine with commas), `baseline` (all of them) or
    /// `none`. Repeat the option to measure several masks side by side in one interleaved run
    /// (`--mask none --mask no-aesni`); each mask is its own variant.
    #[arg(long, value_name = "LIST")]
    pub mask: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Args)]
pub struct ShowArgs {
    /// Run id or label.
    pub run: String,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

fn cells(
    primitives: &[&'static cryptospeed_catalog::Primitive],
    sizes: &[u64],
    ops: &Option<Vec<cryptospeed_model::Op>>,
    misalign: u32,
) -> Vec<CellSpec> {
    let mut out = Vec::new();
    for p in primitives {
        let chosen: Vec<_> = match ops {
            Some(list) => p
                .ops()
                .iter()
                .copied()
                .filter(|o| list.contains(o))
                .collect(),
            None => p.default_ops().to_vec(),
        };
        for op in chosen {
            if p.has_bytes() {
                out.extend(sizes.iter().map(|b| CellSpec {
                    primitive: p.id.into(),
                    op,
                    bytes: Some(*b),
                    misalign,
                }));
            } else {
                out.push(CellSpec {
                    primitive: p.id.into(),
                    op,
                    bytes: None,
                    misalign: 0,
                });
            }
        }
    }
    out
}

pub fn run(a: RunArgs) -> Result<i32> {
    run_stored(a).map(|(code, _)| code)
}

/// The cells `--cells` names, each primitive with its operations and the one size given.
fn explicit_cells(
    list: &[String],
    ops: &Option<Vec<cryptospeed_model::Op>>,
    misalign: u32,
) -> Result<Vec<CellSpec>> {
    let mut out = Vec::new();
    for item in list.iter().flat_map(|l| l.split(',')).map(str::trim) {
        if item.is_empty() {
            continue;
        }
        let (name, size) = match item.split_once('@') {
            Some((n, s)) => (n, Some(args::parse_size(s)?)),
            None => (item, None),
        };
        let primitive = args::select(&[name.to_string()])?;
        let sizes: Vec<u64> = size.into_iter().collect();
        if primitive.iter().any(|p| p.has_bytes()) && sizes.is_empty() {
            bail!("--cells: '{item}' needs a size (PRIMITIVE@SIZE)");
        }
        out.extend(cells(&primitive, &sizes, ops, misalign));
    }
    Ok(out)
}

/// `run`, also returning the id of the stored run (none for `--multi`, which reports its own).
pub fn run_stored(a: RunArgs) -> Result<(i32, Option<i64>)> {
    let primitives = args::select(&a.algorithms)?;
    let sizes = args::parse_sizes(&a.bytes)?;
    let ops = args::parse_ops(&a.ops)?;
    if !(a.precision > 0.0 && a.precision < 1.0) {
        bail!("--precision must be between 0 and 1 (0.01 means ±1%)");
    }
    if a.max_time <= 0.0 || a.sample_time <= 0.0 {
        bail!("--max-time and --sample-time must be positive");
    }
    let plan = if a.cells.is_empty() {
        cells(&primitives, &sizes, &ops, a.misalign)
    } else {
        explicit_cells(&a.cells, &ops, a.misalign)?
    };
    if plan.is_empty() {
        bail!("nothing to measure: none of the selected primitives has the requested operations");
    }
    let config = MeasureConfig {
        precision: a.precision,
        max_time_s: a.max_time,
        min_samples: a.min_samples.max(1),
        sample_time_s: a.sample_time,
        warmup_s: (a.sample_time * 2.0).min(0.1),
        fixed_duration: a.multi.is_some(),
    };
    let cancel = interrupt_flag();
    let masks = if a.mask.is_empty() {
        vec![FeatureMask::default()]
    } else {
        a.mask
            .iter()
            .map(|m| FeatureMask::parse(m).map_err(|e| anyhow::anyhow!("--mask: {e}")))
            .collect::<Result<Vec<_>>>()?
    };
    // Every implementation under every mask: each pair is its own worker and variant.
    let mut selected = match (&a.implementation, &a.variant) {
        (Some(list), _) => ImplChoice::parse_list(list)?,
        (None, None) => ImplChoice::parse_list("openssl")?,
        (None, Some(_)) => Vec::new(),
    };
    if let Some(list) = &a.variant {
        selected.extend(crate::variant::choices(list)?);
    }
    let choices: Vec<ImplChoice> = selected
        .into_iter()
        .flat_map(|c| {
            masks.iter().map(move |m| ImplChoice {
                mask: m.clone(),
                ..c.clone()
            })
        })
        .collect();

    if let Some(n) = a.multi {
        return crate::multi::run(&a, n, plan, &config, &choices, &cancel).map(|code| (code, None));
    }
    let db = db_location(&a.store.db);
    let mut store = cryptospeed_store::open(&db)?;
    let machine = cryptospeed_engine::machine::probe();
    // Start every worker before the run is stored: a single implementation that cannot start is
    // an error; among several, it is reported and its cells are stored as unavailable.
    let mut workers: Vec<Slot> = Vec::new();
    for choice in &choices {
        match choice.start(a.pin, &cancel) {
            Ok(w) => {
                let variant = variant_of(choice, &w);
                workers.push(Slot {
                    choice: choice.clone(),
                    variant,
                    worker: Some(w),
                    broken: None,
                })
            }
            Err(e) if choices.len() > 1 => {
                eprintln!("cryptospeed: {e:#}; its cells are marked unavailable");
                workers.push(Slot {
                    choice: choice.clone(),
                    variant: cryptospeed_model::Variant {
                        label: choice.display(),
                        implementation: choice.name.clone(),
                        ..Default::default()
                    },
                    worker: None,
                    broken: Some(format!("{e:#}")),
                });
            }
            Err(e) => return Err(e),
        }
    }
    let command = crate::session::command_line();
    let run_id = store.begin_run(
        &machine,
        a.label.as_deref(),
        &command,
        env!("CARGO_PKG_VERSION"),
        &config,
    )?;
    let mut variant_ids = Vec::new();
    for slot in &workers {
        variant_ids.push(store.variant_id(&slot.variant)?);
    }

    let bar = ProgressBar::new((plan.len() * workers.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap(),
    );
    let deadline = Duration::from_secs_f64(120.0 + 3.0 * config.max_time_s);
    let mut status = RunStatus::Complete;
    let mut failed_cells = 0;
    // Cells outer, implementations inner: machine drift over the run hits every implementation
    // alike.
    'cells: for cell in plan {
        for (slot, variant_id) in workers.iter_mut().zip(&variant_ids) {
            bar.set_message(format!(
                "{} {} {}{}",
                slot.choice.display(),
                cell.primitive,
                cell.op,
                cell.bytes.map(|b| format!(" {b} B")).unwrap_or_default()
            ));
            let measurement = match (&mut slot.worker, &slot.broken) {
                (None, why) => Measurement::not_timed(
                    cell.clone(),
                    Status::Unavailable,
                    format!("worker unavailable: {}", why.clone().unwrap_or_default()),
                ),
                (Some(worker), _) => match worker.measure(cell.clone(), &config, deadline, &cancel)
                {
                    Ok(m) => m,
                    Err(WorkerError::Interrupted) => {
                        status = RunStatus::Interrupted;
                        break 'cells;
                    }
                    Err(e) => {
                        // The library crashed or hung: this cell fails, a fresh worker takes the
                        // rest.
                        let m = Measurement::not_timed(cell.clone(), Status::Failed, e.to_string());
                        bar.suspend(|| {
                            eprintln!(
                                "cryptospeed: {} {}: {e}; restarting the worker",
                                slot.choice.display(),
                                m.cell.primitive
                            )
                        });
                        match slot.choice.start(a.pin, &cancel) {
                            Ok(w) => slot.worker = Some(w),
                            Err(err) => {
                                bar.suspend(|| {
                                    eprintln!(
                                        "cryptospeed: {} could not be restarted: {err:#}",
                                        slot.choice.display()
                                    )
                                });
                                slot.worker = None;
                                slot.broken = Some(format!("could not be restarted: {err:#}"));
                            }
                        }
                        m
                    }
                },
            };
            if measurement.status == Status::Failed {
                failed_cells += 1;
            }
            store.add_measurement(run_id, *variant_id, &measurement)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    for slot in workers {
        if let Some(w) = slot.worker {
            w.quit();
        }
    }
    store.finish_run(run_id, status)?;
    let record = store.load_run(&run_id.to_string())?;
    emit(
        &a.output.render_for(&record, choices.len()),
        &a.output.output,
    )?;
    eprintln!(
        "cryptospeed: run {run_id}{} {} ({} cells, {failed_cells} failed) stored in {}",
        a.label
            .as_deref()
            .map(|l| format!(" '{l}'"))
            .unwrap_or_default(),
        status.as_str(),
        record.measurements.len(),
        cryptospeed_store::redact(&db)
    );
    let code = match status {
        RunStatus::Interrupted => 130,
        _ if failed_cells > 0 => 1,
        _ => 0,
    };
    Ok((code, Some(run_id)))
}

/// The variant a started worker stands for: what the library says of itself, with a built
/// variant's label and build record, and the feature mask in the label.
pub fn variant_of(
    choice: &ImplChoice,
    w: &cryptospeed_engine::worker_client::WorkerClient,
) -> cryptospeed_model::Variant {
    let mut variant = w.variant.clone();
    if let Some(built) = &choice.built {
        // A built variant is known by its label; its build record (source hash, compiler,
        // flags, Configure line) joins what the library says of itself.
        variant.label = built.label.clone();
        variant.build_info.extend(built.build_info.iter().cloned());
    }
    if let Some(cap) = choice.mask.openssl_ia32cap() {
        // The openssl worker records the OPENSSL_ia32cap it ran under and the capability vector
        // the library ended up with; the label says which mask, and the mask is part of the
        // variant's identity for every implementation.
        variant.label = format!("{}+{}", variant.label, choice.mask.label());
        if variant.feature_mask.is_empty() {
            variant.feature_mask = format!("OPENSSL_ia32cap={cap}");
        }
    }
    variant
}

/// One implementation's worker during a run.
struct Slot {
    choice: ImplChoice,
    variant: cryptospeed_model::Variant,
    worker: Option<cryptospeed_engine::worker_client::WorkerClient>,
    /// Why the worker is gone, once it cannot be (re)started.
    broken: Option<String>,
}

pub fn runs(a: StoreArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.db))?;
    let rows = store.runs()?;
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header([
            "id", "label", "started", "status", "cells", "variants", "cpu",
        ]);
    for r in rows {
        table.add_row([
            r.id.to_string(),
            r.label.unwrap_or_default(),
            r.started_at,
            if r.source.is_empty() {
                r.status.as_str().to_string()
            } else {
                "imported".to_string()
            },
            r.measurements.to_string(),
            r.variants,
            r.cpu_model,
        ]);
    }
    println!("{table}");
    Ok(0)
}

/// `cryptospeed machines`: every machine the store has runs from.
pub fn machines(a: MachinesArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let rows = store.machines()?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header([
            "id",
            "key",
            "host",
            "cpu",
            "cores/threads",
            "TSC GHz",
            "arch",
            "os",
            "runs",
            "first run",
            "last run",
        ]);
    for m in rows {
        table.add_row([
            m.id.to_string(),
            m.key,
            m.hostname,
            m.cpu_model,
            format!("{}/{}", m.cores, m.threads),
            if m.tsc_hz > 0.0 {
                format!("{:.3}", m.tsc_hz / 1e9)
            } else {
                "unknown".into()
            },
            m.arch,
            m.os,
            m.runs.to_string(),
            m.first_run.unwrap_or_default(),
            m.last_run.unwrap_or_default(),
        ]);
    }
    println!("{table}");
    Ok(0)
}

#[derive(Args)]
pub struct MachinesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn show(a: ShowArgs) -> Result<i32> {
    let store = cryptospeed_store::open(&db_location(&a.store.db))?;
    let record = store.load_run(&a.run)?;
    emit(
        &a.output.render_for(&record, record.variants.len()),
        &a.output.output,
    )?;
    Ok(0)
}
