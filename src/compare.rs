//! `cryptospeed compare A B [C …]`: the speedup / percent tables people publish, from stored runs,
//! run labels, variant labels or log files (read on the fly), several runs per side pooled; with
//! `--remeasure`, from a new run that times the sides' builds again together (src/remeasure.rs).

use crate::deviations::changed_in_runs;
use crate::session::{db_location, emit};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use cryptospeed_compare::gate::drive::Budget;
use cryptospeed_compare::{compare_with_noise as build, Comparison, Filter, SideInput};
use cryptospeed_query::SideOptions;
use cryptospeed_report::compare::{self as render, Layout, Mode, Normalize, View};
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
    /// The change a `~` promises would have been seen (80% power), as a fraction: a cell not
    /// significant whose detectable change is larger prints `?` (can't tell) instead of `~`.
    #[arg(long, default_value_t = cryptospeed_compare::DEFAULT_RESOLUTION)]
    pub resolution: f64,
    /// Layout: `sides` (rows are cells, columns are sides) or `sizes` (rows are primitives,
    /// columns are message sizes, one table per candidate).
    #[arg(long, default_value = "sides", value_parser = ["sides", "sizes"])]
    pub layout: String,
    /// Show the 95% confidence interval and the p-value beside each figure.
    #[arg(long)]
    pub detail: bool,
    /// After the table, percentiles (1st to 99th) of TSC cycles per call of the public-key and
    /// KEM rows, per side, each with a 95% interval (text format; docs/import-and-compare.md).
    #[arg(long, conflicts_with = "remeasure")]
    pub percentiles: bool,
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
    /// Time the sides' builds again now, together in one new run (stored, labelled
    /// `remeasure-…`), and compare that run's paired figures; the stored runs stay as they were.
    /// Each side must still load here: the same library, build and mask on the same machine.
    #[arg(long, conflicts_with_all = ["normalize", "machines"])]
    pub remeasure: bool,
    /// With --remeasure: passes over the cells still undecided (`?`) after the first, each a run
    /// of those cells alone with twice the time per cell of the one before (as `gate`'s).
    #[arg(long, default_value_t = 6, requires = "remeasure")]
    pub extra_passes: usize,
    /// With --remeasure: no further pass starts after this many seconds.
    #[arg(long, value_name = "SECONDS", requires = "remeasure")]
    pub budget: Option<f64>,
    /// Compare two primitives (or sizes) within each column of the runs given, paired by round:
    /// `A:B`, each `PRIMITIVE` or `PRIMITIVE@BYTES`; prints B's time per operation over A's with
    /// its interval and the paired test's verdict, per column and operation.
    #[arg(long, value_name = "A:B", conflicts_with_all = ["remeasure", "percentiles", "machines"])]
    pub pair_cells: Option<String>,
    /// Compare runs across runs on each run's own interval alone, leaving out the drift between
    /// runs the store has seen on the machine: what a run's ± covers. For calibrating A/A checks
    /// (docs/measuring.md), not for verdicts: it calls the same build different too often.
    #[arg(long)]
    pub within_runs_only: bool,
    #[command(flatten)]
    pub db: crate::session::StoreArgs,
}

pub fn compare(a: CompareArgs) -> Result<i32> {
    check_ranges(&a)?;
    let mut store = cryptospeed_store::open(&db_location(&a.db.db))?;
    let mut args = a.sides.clone();
    args.extend(a.machines.iter().map(|m| format!("machine:{m}")));
    let options = SideOptions {
        decrypt: a.decrypt,
        store_logs: a.store,
        per_ghz: a.normalize != "none",
        single_argument: args.len() == 1,
    };
    let stored = cryptospeed_query::stored_sides(&args, store.as_mut(), &options)?;
    let arg_of_side: Vec<usize> = stored.iter().map(|s| s.arg).collect();
    let sides = stored
        .iter()
        .map(|s| s.input(options.per_ghz))
        .collect::<Result<Vec<_>>>()?;
    if let Some(spec) = &a.pair_cells {
        return pair_cells(spec, &stored, &a);
    }
    if sides.len() < 2 {
        bail!(
            "nothing to compare: give at least two sides (or one run that holds several variants)"
        );
    }
    let baseline = cryptospeed_query::baseline(a.baseline.as_deref(), &sides, &args, &arg_of_side)?;
    let filter = filter(&a)?;
    let mut comparison = compared(&sides, baseline, &a, a.alpha, &filter, store.as_ref())?;
    let mut code = 0;
    let mut closing = Vec::new();
    if a.remeasure {
        let budget = Budget {
            extra_passes: a.extra_passes,
            seconds: a.budget,
            confirm: false,
        };
        let judge = |s: &[SideInput], b: usize, divisor: f64| {
            compared(s, b, &a, a.alpha / divisor, &filter, store.as_ref())
        };
        let r = crate::remeasure::remeasure(&stored, baseline, &filter, &a.db.db, &budget, &judge)?;
        closing = crate::remeasure::closing(&r, &stored, &comparison);
        (comparison, code) = (r.comparison, r.code);
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
        footnotes: crate::deviations::of_comparison(&comparison, &stored),
    };
    let text = render::render(&comparison, &a.format, &view)
        .ok_or_else(|| anyhow!("unknown format {}", a.format))?;
    emit(
        &(text + &percentile_section(&a, &comparison, &stored)),
        &a.output,
    )?;
    let records = stored.iter().flat_map(|s| &s.records);
    for line in closing
        .into_iter()
        .chain(changed_in_runs(store.as_ref(), records)?)
    {
        eprintln!("cryptospeed: {line}");
    }
    Ok(code)
}

/// `--pair-cells A:B`: the two cells of each column of the runs given, paired by round.
fn pair_cells(
    spec: &str,
    stored: &[cryptospeed_query::StoredSide],
    a: &CompareArgs,
) -> Result<i32> {
    use cryptospeed_compare::pair_cells as pc;
    let (x, y) = pc::parse_pair(spec)?;
    let mut records: Vec<cryptospeed_model::RunRecord> = Vec::new();
    for r in stored.iter().flat_map(|s| &s.records) {
        if !records.iter().any(|k| k.run.id == r.run.id) {
            records.push(r.clone());
        }
    }
    let pairs = pc::pair_cells(&records, &x, &y, a.alpha, a.resolution);
    if pairs.is_empty() {
        bail!("no column of the runs given holds two rounds in which both {spec}'s cells kept a bout (measure both in one run: `run -a A,B`; where the host disturbed most bouts, measure longer)");
    }
    let text = match a.format.as_str() {
        "json" => serde_json::to_string_pretty(&pairs)? + "\n",
        f => pc::render(&pairs, &x, &y, f == "markdown"),
    };
    emit(&text, &a.output)?;
    Ok(0)
}

/// `--alpha`, `--resolution` and `--min-effect` within their ranges; `--percentiles` only where
/// it prints.
fn check_ranges(a: &CompareArgs) -> Result<()> {
    if a.percentiles && a.format != "text" {
        bail!(
            "--percentiles prints after the text table only (got --format {}); the samples \
             they are computed from are in `show RUN --format json`",
            a.format
        );
    }
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        bail!("--alpha must be between 0 and 1, got {}", a.alpha);
    }
    if !(a.resolution > 0.0 && a.resolution < 1.0) {
        bail!(
            "--resolution must be between 0 and 1 (0.02 means 2%), got {}",
            a.resolution
        );
    }
    if !(0.0..1.0).contains(&a.min_effect) {
        bail!(
            "--min-effect must be a fraction between 0 and 1, got {}",
            a.min_effect
        );
    }
    Ok(())
}

/// `-b` and `-a` as a filter of the rows.
fn filter(a: &CompareArgs) -> Result<Filter> {
    Ok(Filter {
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
    })
}

/// The comparison of `sides`, the run-to-run noise learnt from their machines' history.
fn compared(
    sides: &[SideInput],
    baseline: usize,
    a: &CompareArgs,
    alpha: f64,
    filter: &Filter,
    store: &dyn cryptospeed_store::Store,
) -> Result<Comparison> {
    let noise = match a.within_runs_only {
        true => Default::default(),
        false => cryptospeed_compare::run_noise(&cryptospeed_query::history(store, sides)?),
    };
    let comparison =
        build(sides, baseline, alpha, a.min_effect, filter, &noise).with_resolution(a.resolution);
    if comparison.rows.is_empty() {
        return Err(anyhow!(
            "no cells to compare: the sides share no primitive/size after the filters"
        ));
    }
    Ok(comparison)
}

/// `--percentiles` (text format, stored sides): the public-key rows' cycle percentiles, side by
/// side, after a blank line; empty otherwise.
fn percentile_section(
    a: &CompareArgs,
    c: &Comparison,
    stored: &[cryptospeed_query::StoredSide],
) -> String {
    use cryptospeed_report::percentiles::{compare_rows, table, Side};
    if !a.percentiles || a.format != "text" || a.remeasure {
        return String::new();
    }
    let cells: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.key.bytes.is_none())
        .map(|r| (r.key.primitive.clone(), r.key.op))
        .collect();
    let sides: Vec<Side<'_>> = stored
        .iter()
        .map(|s| Side {
            name: &s.name,
            records: s.records.iter().collect(),
            variant: &s.variant,
        })
        .collect();
    let rows = compare_rows(&cells, &sides);
    if rows.is_empty() {
        return "\nno public-key or KEM row has samples or printed percentiles\n".into();
    }
    format!("\n{}", table(&rows, 0.0))
}
