//! `cryptospeed compare A B [C …]`: the speedup / percent tables people publish, from stored runs,
//! run labels, variant labels or log files (read on the fly), several runs per side pooled.

use crate::session::{db_location, emit};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use cryptospeed_compare::{compare_with_noise as build, Filter, SideInput};
use cryptospeed_import::file::{file_label, read_file, record};
use cryptospeed_import::ImportOptions;
use cryptospeed_model::RunRecord;
use cryptospeed_report::compare::{self as render, Layout, Mode, Normalize, View};
use cryptospeed_store::Store;
use std::path::PathBuf;

#[derive(Args)]
pub struct CompareArgs {
    /// Sides to compare, baseline first. Each is a run id, a run label (every run with that label
    /// is pooled), a variant label, or an `openssl speed`/`bssl speed` log file; join several with
    /// commas to pool them (`A1,A2,A3`); add `@VARIANT` to keep one variant of a multi-variant run.
    #[arg(required_unless_present = "machines", num_args = 1..)]
    pub sides: Vec<String>,
    /// The baseline: a side as written on the command line, or its position (1-based). Default:
    /// the first.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Show `new/old*100-100` instead of ratios.
    #[arg(long, conflicts_with = "raw")]
    pub percent: bool,
    /// Show the rates themselves instead of ratios.
    #[arg(long)]
    pub raw: bool,
    /// Keep one message size (e.g. 8192, the classic column); public-key rows are kept.
    #[arg(long, short)]
    pub bytes: Option<String>,
    /// Keep these primitives (comma-separated names or aliases).
    #[arg(long, short, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Significance level of each cell's test (between bouts; see docs/import-and-compare.md);
    /// `~` marks cells above it.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Your threshold of practical interest: changes smaller than this fraction are never marked
    /// significant, however certain. 0 (every real difference counts) by default.
    #[arg(long, default_value_t = 0.0)]
    pub min_effect: f64,
    /// Layout: `sides` (rows are cells, columns are sides) or `sizes` (rows are primitives,
    /// columns are message sizes, one table per candidate).
    #[arg(long, default_value = "sides", value_parser = ["sides", "sizes"])]
    pub layout: String,
    /// Show the 95% confidence interval and the p-value beside each figure.
    #[arg(long)]
    pub detail: bool,
    /// Output format: text, markdown, csv, json.
    #[arg(long, default_value = "text", value_parser = clap::builder::PossibleValuesParser::new(
        cryptospeed_report::registry::spellings(render::FORMATS)
    ))]
    pub format: String,
    /// Write the output to this file instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Also store log files given as sides (default: read them without storing).
    #[arg(long)]
    pub store: bool,
    /// Log files given as sides come from `openssl speed -decrypt`.
    #[arg(long)]
    pub decrypt: bool,
    /// Add a side per machine: every stored run measured on it, pooled (split by variant as
    /// usual). SEL is a machine key (a prefix will do), a hostname, or part of the CPU model;
    /// `cryptospeed machines` lists them. A side written `machine:SEL` is the same.
    #[arg(long = "machine", value_name = "SEL")]
    pub machines: Vec<String>,
    /// Make machines of different clocks comparable: `ghz` divides each run's rates by its
    /// machine's TSC frequency (rate per GHz; the per-architecture coefficient), `cycles` does the
    /// same and shows --raw figures as TSC cycles per byte. Ratios are the same under both.
    #[arg(long, default_value = "none", value_parser = ["none", "ghz", "cycles"])]
    pub normalize: String,
    /// Results store: a SQLite file, or a postgres://USER@HOST/DB URL (password from $PGPASSWORD or the URL, never printed). Default: $CRYPTOSPEED_DB, else ~/.local/share/cryptospeed/results.db.
    #[arg(long)]
    pub db: Option<String>,
}

/// One item of a side argument, resolved to runs (and the variant to keep, if any).
struct Resolved {
    records: Vec<(RunRecord, Option<String>)>,
    description: String,
}

fn resolve_item(
    item: &str,
    store: &mut dyn Store,
    a: &CompareArgs,
    next_file_id: &mut i64,
) -> Result<Resolved> {
    let (selector, variant) = match item.rsplit_once('@') {
        Some((s, v)) if !s.is_empty() && !std::path::Path::new(item).exists() => {
            (s, Some(v.to_string()))
        }
        _ => (item, None),
    };
    if std::path::Path::new(selector).is_file() || selector == "-" {
        let options = ImportOptions { decrypt: a.decrypt };
        let runs = read_file(selector, None, &options)
            .map_err(anyhow::Error::msg)?
            .runs;
        let label = file_label(selector);
        let mut records = Vec::new();
        for run in &runs {
            let mut rec = record(run, selector, &label, 0);
            rec.run.id = if a.store {
                store.import_run(&rec)?
            } else {
                *next_file_id -= 1;
                *next_file_id
            };
            records.push((rec, variant.clone()));
        }
        return Ok(Resolved {
            description: format!(
                "{selector} ({} output{} read{})",
                runs.len(),
                if runs.len() == 1 { "" } else { "s" },
                if a.store { " and stored" } else { "" }
            ),
            records,
        });
    }
    if let Some(sel) = selector.strip_prefix("machine:") {
        return resolve_machine(sel, store, variant);
    }
    // Every run with this label (pooled), else a run id, else the newest run of a variant label.
    let labelled: Vec<i64> = store
        .runs()?
        .into_iter()
        .filter(|r| r.label.as_deref() == Some(selector))
        .map(|r| r.id)
        .collect();
    if !labelled.is_empty() {
        let mut records = Vec::new();
        for id in &labelled {
            records.push((store.load_run(&id.to_string())?, variant.clone()));
        }
        return Ok(Resolved {
            description: format!(
                "label '{selector}': run{} {}",
                if labelled.len() == 1 { "" } else { "s" },
                labelled
                    .iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            records,
        });
    }
    if selector.parse::<i64>().is_ok() {
        if let Ok(rec) = store.load_run(selector) {
            return Ok(Resolved {
                description: format!("run {selector}"),
                records: vec![(rec, variant)],
            });
        }
    }
    if let Some(id) = store.latest_run_with_variant(selector)? {
        let rec = store.load_run(&id.to_string())?;
        return Ok(Resolved {
            description: format!("variant {selector} of run {id}"),
            records: vec![(rec, Some(variant.unwrap_or_else(|| selector.to_string())))],
        });
    }
    bail!("'{item}' is not a run id, a run label, a variant label or a readable log file ('cryptospeed runs' lists the stored runs)")
}

/// Every run of the one machine `sel` names (key prefix, hostname, or part of the CPU model).
fn resolve_machine(sel: &str, store: &mut dyn Store, variant: Option<String>) -> Result<Resolved> {
    let machines = store.machines()?;
    let lower = sel.to_lowercase();
    let by_key: Vec<_> = machines
        .iter()
        .filter(|m| m.key.starts_with(&lower))
        .collect();
    let by_host: Vec<_> = machines.iter().filter(|m| m.hostname == sel).collect();
    let by_cpu: Vec<_> = machines
        .iter()
        .filter(|m| m.cpu_model.to_lowercase().contains(&lower))
        .collect();
    let matches = [by_key, by_host, by_cpu]
        .into_iter()
        .find(|m| !m.is_empty())
        .unwrap_or_default();
    let machine = match matches.as_slice() {
        [one] => *one,
        [] => bail!(
            "no stored machine matches '{sel}' (by key, hostname or CPU model); `cryptospeed machines` lists them"
        ),
        many => bail!(
            "'{sel}' matches {} machines: {}; give more of the key",
            many.len(),
            many.iter()
                .map(|m| format!("{} ({}, {})", m.key, m.hostname, m.cpu_model))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    let ids: Vec<i64> = store
        .runs()?
        .into_iter()
        .filter(|r| r.machine_id == machine.id)
        .map(|r| r.id)
        .collect();
    let mut records = Vec::new();
    for id in &ids {
        records.push((store.load_run(&id.to_string())?, variant.clone()));
    }
    Ok(Resolved {
        description: format!(
            "machine {} ({}, {}): run{} {}",
            machine.key,
            machine.hostname,
            machine.cpu_model,
            if ids.len() == 1 { "" } else { "s" },
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        records,
    })
}

/// Turns one command-line argument into one or more sides (one per variant it holds).
fn sides_of(
    arg: &str,
    store: &mut dyn Store,
    a: &CompareArgs,
    next_file_id: &mut i64,
) -> Result<Vec<SideInput>> {
    let mut resolved = Vec::new();
    for item in arg.split(',').filter(|s| !s.is_empty()) {
        resolved.push(resolve_item(item, store, a, next_file_id)?);
    }
    let description = resolved
        .iter()
        .map(|r| r.description.clone())
        .collect::<Vec<_>>()
        .join(" + ");
    let records: Vec<(RunRecord, Option<String>)> =
        resolved.into_iter().flat_map(|r| r.records).collect();
    // Variant labels present, in order of first appearance.
    let mut variants: Vec<String> = Vec::new();
    for (rec, keep) in &records {
        for v in &rec.variants {
            if keep.as_ref().is_none_or(|k| *k == v.label) && !variants.contains(&v.label) {
                variants.push(v.label.clone());
            }
        }
    }
    if variants.is_empty() {
        let kept: Vec<&String> = records.iter().filter_map(|(_, k)| k.as_ref()).collect();
        bail!(
            "'{arg}' holds no measurements{}",
            kept.first()
                .map(|k| format!(" of variant '{k}'"))
                .unwrap_or_default()
        );
    }
    let pooled_runs = records.len() > 1;
    let mut sides = Vec::new();
    for v in &variants {
        let mut side = SideInput {
            name: if variants.len() == 1 {
                display_name(arg, &records)
            } else if a.sides.len() == 1 {
                // One argument holding several variants: the variants are the columns.
                v.clone()
            } else {
                format!("{}/{v}", display_name(arg, &records))
            },
            description: format!(
                "{description}; {v}{}",
                if pooled_runs { ", runs pooled" } else { "" }
            ),
            ..Default::default()
        };
        for (rec, _) in &records {
            if a.normalize == "none" {
                side.add_run(rec, Some(v));
            } else if rec.machine.tsc_hz > 0.0 {
                side.add_run_scaled(rec, Some(v), 1e9 / rec.machine.tsc_hz);
            } else {
                bail!(
                    "--normalize {}: run {} has no TSC frequency recorded (imported logs carry none), so its rates cannot be put per GHz",
                    a.normalize,
                    rec.run.id
                );
            }
        }
        sides.push(side);
    }
    Ok(sides)
}

fn display_name(arg: &str, records: &[(RunRecord, Option<String>)]) -> String {
    if arg.parse::<i64>().is_ok() {
        return format!("run {arg}");
    }
    if records.len() == 1 && std::path::Path::new(arg).is_file() {
        return file_label(arg);
    }
    arg.to_string()
}

/// The most runs of a machine read to learn its run-to-run noise.
const HISTORY_RUNS: usize = 100;

/// Measured runs on the machines of the sides' runs, newest first: what the store has seen of how
/// each cell moves from run to run there.
fn history(
    store: &dyn cryptospeed_store::Store,
    sides: &[SideInput],
) -> Result<Vec<cryptospeed_model::RunRecord>> {
    let rows = store.runs()?;
    let ids: Vec<i64> = sides.iter().flat_map(|s| s.runs.iter().copied()).collect();
    let machines: Vec<i64> = rows
        .iter()
        .filter(|r| ids.contains(&r.id))
        .map(|r| r.machine_id)
        .collect();
    let mut measured: Vec<&cryptospeed_store::RunRow> = rows
        .iter()
        .filter(|r| r.source.is_empty() && machines.contains(&r.machine_id))
        .collect();
    measured.sort_by_key(|r| std::cmp::Reverse(r.id));
    measured
        .iter()
        .take(HISTORY_RUNS)
        .map(|r| store.load_run(&r.id.to_string()))
        .collect()
}

pub fn compare(a: CompareArgs) -> Result<i32> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        bail!("--alpha must be between 0 and 1, got {}", a.alpha);
    }
    let mut store = cryptospeed_store::open(&db_location(&a.db))?;
    let mut next_file_id = 0;
    let mut sides = Vec::new();
    let mut arg_of_side = Vec::new();
    let mut a = a;
    a.sides
        .extend(a.machines.iter().map(|m| format!("machine:{m}")));
    let a = a;
    for (i, arg) in a.sides.iter().enumerate() {
        for s in sides_of(arg, store.as_mut(), &a, &mut next_file_id)? {
            sides.push(s);
            arg_of_side.push(i);
        }
    }
    if sides.len() < 2 {
        bail!(
            "nothing to compare: give at least two sides (or one run that holds several variants)"
        );
    }
    let baseline = match &a.baseline {
        None => 0,
        Some(b) => {
            if let Some(i) = sides.iter().position(|s| s.name == *b) {
                i
            } else if let Some(i) = a.sides.iter().position(|s| s == b) {
                arg_of_side.iter().position(|&x| x == i).unwrap_or(0)
            } else if let Ok(k) = b.parse::<usize>() {
                if k == 0 || k > sides.len() {
                    bail!("--baseline {k}: there are {} sides", sides.len());
                }
                k - 1
            } else {
                bail!(
                    "--baseline '{b}' names no side; the sides are: {}",
                    sides
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
    };
    let filter = Filter {
        bytes: a
            .bytes
            .as_deref()
            .map(crate::args::parse_size)
            .transpose()?,
        primitives: if a.algorithms.is_empty() {
            None
        } else {
            Some(
                a.algorithms
                    .iter()
                    .map(|n| {
                        cryptospeed_catalog::lookup(n)
                            .map(|p| p.id.to_string())
                            .unwrap_or_else(|| cryptospeed_import::names::slug(n))
                    })
                    .collect(),
            )
        },
    };
    if !(0.0..1.0).contains(&a.min_effect) {
        bail!(
            "--min-effect must be a fraction between 0 and 1, got {}",
            a.min_effect
        );
    }
    let noise = cryptospeed_compare::run_noise(&history(store.as_ref(), &sides)?);
    let comparison = build(&sides, baseline, a.alpha, a.min_effect, &filter, &noise);
    if comparison.rows.is_empty() {
        return Err(anyhow!(
            "no cells to compare: the sides share no primitive/size after the filters"
        ));
    }
    let view = View {
        mode: if a.percent {
            Mode::Percent
        } else if a.raw {
            Mode::Raw
        } else {
            Mode::Ratio
        },
        layout: if a.layout == "sizes" {
            Layout::Sizes
        } else {
            Layout::Sides
        },
        detail: a.detail,
        normalize: match a.normalize.as_str() {
            "ghz" => Normalize::PerGhz,
            "cycles" => Normalize::Cycles,
            _ => Normalize::None,
        },
    };
    let text = render::render(&comparison, &a.format, &view)
        .ok_or_else(|| anyhow!("unknown format {}", a.format))?;
    emit(&text, &a.output)?;
    Ok(0)
}
