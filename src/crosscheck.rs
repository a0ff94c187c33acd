//! `cryptospeed crosscheck`: a column beside its own library's benchmark program (the logic is
//! crates/crosscheck); this file parses the arguments, prints, and maps verdicts to an exit code:
//! 0 when every cell agrees or is explained, 1 when a cell is unexplained or failed, 3 when
//! neither but a cell is undecided.

use anyhow::{bail, Context, Result};
use clap::Args;
use cryptospeed_crosscheck::report::{render, word, Report, Verdict};
use cryptospeed_crosscheck::{oracle_dir, oracles_for, rounds::Options, saved, wanted};
use cryptospeed_crosscheck::{Oracle, ORACLES};
use std::path::PathBuf;

#[derive(Args)]
pub struct CrosscheckArgs {
    /// Columns to check, comma-separated, or `all` (those with an oracle).
    #[arg(long = "impl", default_value = "all")]
    columns: String,
    /// Only these cells (PRIMITIVE@SIZE or PRIMITIVE, `:OP` for one operation, e.g.
    /// ml-kem-768:encaps), comma-separated; default: the oracle's.
    #[arg(long, value_delimiter = ',')]
    cells: Vec<String>,
    /// Alternating rounds per cell (one oracle run and one cryptospeed run each) before the cell
    /// is first judged; at least 2.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Rounds a cell may get in all while its 95% interval is too wide to decide (it is judged
    /// again at twice the rounds, and so on, up to this); `--max-rounds` = `--rounds` judges once.
    #[arg(long, default_value_t = 20)]
    max_rounds: usize,
    /// The CPU both sides are pinned to.
    #[arg(long, default_value_t = 1)]
    cpu: usize,
    /// `run --max-time` for cryptospeed's side of each round, seconds.
    #[arg(long, default_value_t = 1.0)]
    max_time: f64,
    /// Fetch and build the oracles, then stop.
    #[arg(long)]
    setup_only: bool,
    /// List the oracles and their cells, then stop.
    #[arg(long)]
    list: bool,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// Keep the JSON in FILE as the run goes: the whole file written again after every cell
    /// (to FILE.tmp, synced, renamed over FILE), so a stopped run keeps every finished cell.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Judge a stored crosscheck JSON (`--json`'s or `--out`'s) again from its per-round figures
    /// with the current rule and declared differences; measures nothing (`--json`: the file with
    /// the new verdicts, the old ones as `verdict_as_run`).
    #[arg(long, value_name = "FILE")]
    rejudge: Option<PathBuf>,
    /// Cache for the oracles' sources and programs. Default: $CRYPTOSPEED_CACHE, else
    /// ~/.cache/cryptospeed.
    #[arg(long)]
    cache: Option<PathBuf>,
}

fn cache_dir(a: &CrosscheckArgs) -> PathBuf {
    a.cache
        .clone()
        .or_else(|| std::env::var_os("CRYPTOSPEED_CACHE").map(PathBuf::from))
        .unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap_or_else(|| ".".into())
                .join("cryptospeed")
        })
}

/// `--rounds` at least 2, `--max-rounds` not below it.
fn check_rounds(a: &CrosscheckArgs) -> Result<()> {
    if a.rounds < 2 {
        bail!(
            "--rounds {}: at least 2 (one round has no interval)",
            a.rounds
        );
    }
    if a.max_rounds < a.rounds {
        bail!(
            "--max-rounds {} is below --rounds {}: it is the most rounds a cell may get",
            a.max_rounds,
            a.rounds
        );
    }
    Ok(())
}

fn list() -> Result<i32> {
    for o in ORACLES {
        let cells: Vec<String> = o
            .cells()
            .iter()
            .map(|c| format!("{} {}", c.spec(), c.op))
            .collect();
        println!("{:<10} {:<38} {}", o.column(), o.name(), cells.join(", "));
    }
    Ok(0)
}

pub fn crosscheck(a: CrosscheckArgs) -> Result<i32> {
    if a.list {
        return list();
    }
    if let Some(file) = &a.rejudge {
        return rejudge(file, a.json);
    }
    check_rounds(&a)?;
    let names: Vec<&str> = if a.columns == "all" {
        // `openssl:PATH` stands for any variant's library: named, not implied.
        ORACLES
            .iter()
            .map(|o| o.column())
            .filter(|c| !c.contains(':'))
            .collect()
    } else {
        a.columns.split(',').collect()
    };
    let cache = cache_dir(&a);
    if a.cache.is_some() {
        // The columns' own runs (`run`, the variants and Go worker they load) use it too.
        std::env::set_var("CRYPTOSPEED_CACHE", &cache);
    }
    let opts = Options {
        cryptospeed: std::env::current_exe()?,
        db: cache.join("oracles").join("crosscheck-scratch.db"),
        cpu: a.cpu,
        rounds: a.rounds,
        max_rounds: a.max_rounds,
        max_time: a.max_time,
    };
    let (mut reports, mut unexplained, mut undecided) = (Vec::new(), 0, 0);
    let mut not_set_up = 0;
    for (name, oracle) in chosen(&names, &a.cells)? {
        let dir = oracle_dir(&cache, oracle);
        eprintln!(
            "crosscheck: {name}: setting up {} in {}",
            oracle.name(),
            dir.display()
        );
        let built = match oracle.setup(&dir, &mut |step| eprintln!("crosscheck:   {step}")) {
            Ok(built) => built,
            Err(e) => {
                // One oracle that cannot be built (a variant without libssl, no network for its
                // source) costs only its own cells: the other columns are still checked.
                eprintln!(
                    "crosscheck: {name}: {} could not be set up, its cells are not checked: {e:#}",
                    oracle.name()
                );
                not_set_up += 1;
                continue;
            }
        };
        eprintln!("crosscheck: {name}: {}; {}", built.source, built.library);
        if a.setup_only {
            continue;
        }
        let (mut kept, mut failed) = (Ok(()), 0);
        let report =
            cryptospeed_crosscheck::crosscheck(oracle, built, &a.cells, &opts, &mut |r| {
                progress(name, r, r.failed.len() > failed);
                failed = r.failed.len();
                if let (Some(out), Ok(())) = (&a.out, &kept) {
                    let mut all: Vec<&Report> = reports.iter().collect();
                    all.push(r);
                    kept = saved::write(out, &all);
                }
            })?;
        kept?;
        unexplained += count(&report, Verdict::Unexplained) + report.failed.len();
        undecided += count(&report, Verdict::Undecided);
        if !a.json {
            println!("{}", render(&report));
        }
        reports.push(report);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    if not_set_up > 0 {
        eprintln!("crosscheck: {not_set_up} oracle(s) could not be set up (above); exit status 1");
    }
    Ok(exit_status(unexplained + not_set_up, undecided))
}

/// Each column's oracles (a column may have several: `openssl:PATH`), less those that time none
/// of `--cells`, so that nothing is built for them.
fn chosen<'a>(names: &[&'a str], cells: &[String]) -> Result<Vec<(&'a str, &'static dyn Oracle)>> {
    let mut out = Vec::new();
    for &name in names {
        let oracles = oracles_for(name);
        if oracles.is_empty() {
            bail!("no oracle for column {name} (crosscheck --list names those there are)");
        }
        for oracle in oracles {
            if oracle.cells().iter().any(|c| wanted(c, cells)) {
                out.push((name, oracle));
            } else {
                eprintln!(
                    "crosscheck: {name}: {} times none of --cells",
                    oracle.name()
                );
            }
        }
    }
    Ok(out)
}

/// The line printed when a cell is done (`failed`: the cell just done failed).
fn progress(name: &str, r: &Report, failed: bool) {
    match (r.cells.last(), r.failed.last()) {
        (_, Some((cell, why))) if failed => eprintln!("crosscheck: {name} {cell}: failed: {why}"),
        (Some(c), _) => eprintln!(
            "crosscheck: {name} {} {}: ratio {:.3} ({:.3}-{:.3}) {}",
            c.cell,
            c.op,
            c.ratio,
            c.ratio_ci95[0],
            c.ratio_ci95[1],
            word(c)
        ),
        _ => {}
    }
}

/// `--rejudge FILE`: every verdict of a stored run derived again, the old beside the new.
fn rejudge(file: &std::path::Path, json: bool) -> Result<i32> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    let cells = cryptospeed_crosscheck::rejudge::rejudge(&mut value)
        .with_context(|| format!("judging {} again", file.display()))?;
    let failed: usize = value
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|x| x["failed"].as_array())
                .map(Vec::len)
                .sum()
        })
        .unwrap_or(0);
    if json {
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", rejudged_table(&cells));
    }
    let n = |v: Verdict| cells.iter().filter(|c| c.verdict == v).count();
    Ok(exit_status(
        n(Verdict::Unexplained) + failed,
        n(Verdict::Undecided),
    ))
}

fn rejudged_table(cells: &[cryptospeed_crosscheck::rejudge::Rejudged]) -> String {
    let mut s = format!(
        "{:<12} {:<24} {:<13} {:>6} {:>7} {:>17}  {:<12} now\n",
        "column", "cell", "op", "rounds", "ratio", "interval", "as run"
    );
    for c in cells {
        let column: String = c.column.chars().take(12).collect();
        let mut diff = match c.difference {
            "" => String::new(),
            d => format!(" (difference {d})"),
        };
        if let Some((_, ci)) = c.every_bout {
            diff += &format!(" (over every bout {:.3}–{:.3})", ci[0], ci[1]);
        }
        s += &format!(
            "{column:<12} {:<24} {:<13} {:>6} {:>7.3} {:>8.3}–{:<8.3}  {:<12} {}{diff}\n",
            c.cell,
            c.op,
            c.rounds,
            c.ratio,
            c.ci[0],
            c.ci[1],
            c.as_run,
            serde_json::to_value(c.verdict)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        );
    }
    s
}

fn count(report: &Report, verdict: Verdict) -> usize {
    report.cells.iter().filter(|c| c.verdict == verdict).count()
}

/// 1 when a cell is unexplained or failed, else 3 when a cell is undecided, else 0.
fn exit_status(unexplained: usize, undecided: usize) -> i32 {
    match (unexplained, undecided) {
        (0, 0) => 0,
        (0, _) => 3,
        _ => 1,
    }
}
