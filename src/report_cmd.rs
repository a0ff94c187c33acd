//! `cryptospeed report RUN|LABEL… -o report.html` (the self-contained HTML report) and
//! `cryptospeed chart KIND RUN|LABEL… -o FILE.svg|FILE.png` (one of its charts, for a paper or a
//! README). Both resolve their selectors the same way and draw with the report crate.

use crate::session::{db_location, write_atomically};
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_report::data::{ReportData, ReportInput};
use cryptospeed_report::figures::{self, Figure};
use cryptospeed_report::html;
use std::path::PathBuf;

#[derive(Args)]
pub struct Selection {
    /// Runs to draw: run ids or run labels (every run with the label); add `@VARIANT` to keep
    /// one variant of a run. Profiles stored in these runs are drawn too.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<String>,
    /// The series speedups are relative to: a series name, variant label, run label or run id.
    /// Default: the first series with the most cells at the chart's size.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Message size of the speedup and cycles/byte charts. Default: 8192 when the most series
    /// have it, else the largest size the most series have.
    #[arg(long, short)]
    pub bytes: Option<String>,
    #[command(flatten)]
    pub store: crate::session::StoreArgs,
}

#[derive(Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// The HTML file to write.
    #[arg(long, short, default_value = "report.html")]
    pub output: PathBuf,
    /// Title of the report. Default: the runs it shows.
    #[arg(long)]
    pub title: Option<String>,
}

#[derive(Args)]
pub struct ChartArgs {
    /// What to draw: throughput, speedup, cycles, mix, predictors, misses (docs/report.md).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(figures::KINDS.iter().map(|k| k.name)))]
    pub kind: String,
    #[command(flatten)]
    pub selection: Selection,
    /// Where the kind draws several charts (one per primitive, per cache level…): the one whose
    /// id contains this text (e.g. `aes-128-cbc`, or `aes-128-cbc-d1-ways`).
    #[arg(long)]
    pub pick: Option<String>,
    /// The file to write: `.svg` or `.png`.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Pixels per SVG unit in a PNG.
    #[arg(long, default_value_t = 2.0)]
    pub scale: f32,
}

/// Loads the selected runs and their profiles.
fn input(sel: &Selection, title: Option<String>) -> Result<ReportInput> {
    let store = cryptospeed_store::open(&db_location(&sel.store.db))?;
    let mut records = cryptospeed_query::runs(store.as_ref(), &sel.runs)?;
    // As `show` orders them, so the tables and footnote numbers read the same.
    records
        .iter_mut()
        .for_each(cryptospeed_query::in_catalog_order);
    let profiles = cryptospeed_query::profiles(store.as_ref(), &records)?;
    let bytes = sel
        .bytes
        .as_deref()
        .map(crate::args::parse_size)
        .transpose()?;
    let title = title.unwrap_or_else(|| cryptospeed_report::data::default_title(&records));
    let deviations = crate::deviations::of_runs(&records);
    let noise = run_noise(store.as_ref(), &records)?;
    Ok(ReportInput {
        title,
        deviations,
        noise,
        records,
        profiles,
        baseline: sel.baseline.clone(),
        bytes,
        generated_by: format!(
            "cryptospeed {} on {}",
            env!("CARGO_PKG_VERSION"),
            chrono::Utc::now().format("%Y-%m-%d %H:%M UTC")
        ),
    })
}

pub fn report(a: ReportArgs) -> Result<i32> {
    let input = input(&a.selection, a.title)?;
    let page = html::html(&input)?;
    write_atomically(&a.output, page.as_bytes())?;
    eprintln!(
        "cryptospeed: wrote {} ({} KB, {} chart(s), {} run(s), {} profile(s))",
        a.output.display(),
        page.len() / 1024,
        page.matches("<svg ").count(),
        input.records.len(),
        input.profiles.len()
    );
    Ok(0)
}

pub fn chart(a: ChartArgs) -> Result<i32> {
    let png = match a.output.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") => true,
        Some(e) if e.eq_ignore_ascii_case("svg") => false,
        _ => bail!(
            "cannot tell the format of {}: name it .svg or .png",
            a.output.display()
        ),
    };
    let input = input(&a.selection, None)?;
    let data = ReportData::new(&input)?;
    let kind = figures::kind(&a.kind).expect("clap checked the kind");
    let all = (kind.build)(&data);
    let chosen: Vec<&Figure> = all
        .iter()
        .filter(|f| {
            a.pick
                .as_deref()
                .is_none_or(|p| f.id.contains(&p.to_lowercase()))
        })
        .collect();
    let figure = match chosen.as_slice() {
        [one] => *one,
        [] if all.is_empty() => bail!(
            "nothing to draw as '{}' from these runs ({})",
            a.kind,
            kind.about
        ),
        [] => bail!(
            "no '{}' chart matches --pick {}; there are: {}",
            a.kind,
            a.pick.unwrap_or_default(),
            all.iter()
                .map(|f| f.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        many => bail!(
            "these runs give {} '{}' charts; choose one with --pick (a part of its id): {}",
            many.len(),
            a.kind,
            many.iter()
                .map(|f| f.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let bytes = if png {
        cryptospeed_chart::to_png(&figure.svg, a.scale)?
    } else {
        figure.svg.clone().into_bytes()
    };
    write_atomically(&a.output, &bytes)?;
    eprintln!(
        "cryptospeed: wrote {} ({}: {})",
        a.output.display(),
        figure.id,
        figure.title
    );
    Ok(0)
}

/// The run-to-run noise of each cell on the runs' machines, learnt from their history as
/// `compare` learns it, so the report's comparisons across runs are as wide as `compare`'s.
fn run_noise(
    store: &dyn cryptospeed_store::Store,
    records: &[cryptospeed_model::RunRecord],
) -> Result<std::collections::BTreeMap<cryptospeed_compare::CellKey, cryptospeed_compare::RunNoise>>
{
    let sides: Vec<cryptospeed_compare::SideInput> = records
        .iter()
        .map(|r| {
            let mut side = cryptospeed_compare::SideInput::default();
            side.add_run(r, None);
            side
        })
        .collect();
    let history = cryptospeed_query::history(store, &sides)?;
    Ok(cryptospeed_compare::run_noise(&history))
}
