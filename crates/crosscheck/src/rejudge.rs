//! `crosscheck --rejudge FILE`: every verdict of a stored crosscheck (its `--json` or `--out`
//! file) derived again from the per-round figures it kept (`our_figures`, `oracle_figures`) with
//! the current rule (rule.rs) and the differences the oracles declare now (the stored one where
//! the column or cell is no longer known). Nothing is measured: the file's rounds are judged as
//! one look at the rounds they hold. The verdict and interval the run printed stay beside the
//! new ones (`verdict_as_run`, `ratio_ci95_as_run`). A file that kept our every-bout figures
//! (`our_every_bout_figures`) is judged over them too, as a run now is (`judge_rounds`), and gets
//! `every_bout_ratio` and `every_bout_ratio_ci95` written; an older file has none.

use crate::rounds::Pairs;
use crate::rule::{judge_rounds, Judged, Verdict};
use crate::{oracles_for, Difference, Kind};
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// One cell judged again.
#[derive(Debug, Clone)]
pub struct Rejudged {
    pub column: String,
    pub cell: String,
    pub op: String,
    pub rounds: usize,
    pub ratio: f64,
    pub ci: [f64; 2],
    /// ours over every bout / oracle and its interval, where the file kept those figures.
    pub every_bout: Option<(f64, [f64; 2])>,
    pub as_run: String,
    pub verdict: Verdict,
    /// Where the named difference came from: "declared now", "as run", or "" for none.
    pub difference: &'static str,
}

/// Judges every cell of the reports in `json` again, rewriting their verdicts in place.
pub fn rejudge(json: &mut Value) -> Result<Vec<Rejudged>> {
    let reports = json
        .as_array_mut()
        .context("a crosscheck JSON file is a list of columns' reports")?;
    let mut out = Vec::new();
    for report in reports {
        let column = report["column"].as_str().unwrap_or("?").to_string();
        let Some(cells) = report["cells"].as_array_mut() else {
            bail!("column {column}: no cells list");
        };
        for cell in cells {
            out.push(cell_again(&column, cell)?);
        }
    }
    Ok(out)
}

fn figures(cell: &Value, key: &str) -> Result<Vec<f64>> {
    cell[key]
        .as_array()
        .with_context(|| format!("{}: no {key}", cell["cell"]))?
        .iter()
        .map(|x| {
            x.as_f64()
                .with_context(|| format!("{key}: {x} is no number"))
        })
        .collect()
}

fn cell_again(column: &str, cell: &mut Value) -> Result<Rejudged> {
    let pairs = Pairs {
        ours: figures(cell, "our_figures")?,
        oracle: figures(cell, "oracle_figures")?,
        // Kept since the every-bout figure was added; older files judge without it.
        ours_every_bout: match cell.get("our_every_bout_figures") {
            None => Vec::new(),
            Some(_) => figures(cell, "our_every_bout_figures")?,
        },
        oracle_cpu_share: vec![],
        ours_host_slowed: match cell.get("our_host_slowed") {
            Some(Value::Array(v)) => v.iter().map(|x| x.as_bool() == Some(true)).collect(),
            _ => Vec::new(),
        },
    };
    if pairs.ours.len() != pairs.oracle.len() {
        bail!("{}: the two sides hold different rounds", cell["cell"]);
    }
    let name = cell["cell"].as_str().unwrap_or("?").to_string();
    let op = cell["op"].as_str().unwrap_or("?").to_string();
    let (difference, source) = match declared_now(column, &name, &op) {
        Some(d) => (d, "declared now"),
        None => (stored(&cell["difference"]), "as run"),
    };
    let Judged {
        ratio,
        ci,
        verdict: v,
        every_bout,
    } = judge_rounds(&pairs, difference.as_ref());
    let as_run = cell["verdict"].as_str().unwrap_or("?").to_string();
    cell["verdict_as_run"] = cell["verdict"].clone();
    cell["ratio_ci95_as_run"] = cell["ratio_ci95"].clone();
    cell["verdict"] = serde_json::to_value(v)?;
    cell["ratio"] = json!(ratio);
    cell["ratio_ci95"] = json!(ci);
    cell["difference"] = serde_json::to_value(difference)?;
    if let Some((r, ci)) = every_bout {
        cell["every_bout_ratio"] = json!(r);
        cell["every_bout_ratio_ci95"] = json!(ci);
    }
    Ok(Rejudged {
        column: column.to_string(),
        cell: name,
        op,
        rounds: pairs.len(),
        ratio,
        ci,
        every_bout,
        as_run,
        verdict: v,
        difference: if difference.is_some() { source } else { "" },
    })
}

/// The difference the column's oracle declares now for the cell; `None` when the oracle or the
/// cell is not known now (the stored one is taken then).
fn declared_now(column: &str, cell: &str, op: &str) -> Option<Option<Difference>> {
    let c = oracles_for(column).into_iter().find_map(|o| {
        o.cells()
            .iter()
            .find(|c| c.spec() == cell && c.op.to_string() == op)
    })?;
    Some(c.difference)
}

/// A stored difference's kind and band (its words are not needed to judge).
fn stored(d: &Value) -> Option<Difference> {
    let band = d["band"].as_array()?;
    let kind = match d["kind"].as_str()? {
        "layout" => Kind::Layout,
        _ => Kind::Definition,
    };
    Some(Difference {
        kind,
        what: "(as run)",
        band: (band.first()?.as_f64()?, band.get(1)?.as_f64()?),
        measured: "(as run)",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five cells of the 18:23 UTC idle run (tests/data/README.md). Expected intervals from
    /// SciPy 1.17.1 on each cell's ratios our_figures / oracle_figures (Yuen, 25% trimmed, at
    /// 96.5%; three rounds trim nothing), as in rule_tests.rs.
    const RUN: &str = include_str!("../tests/data/crosscheck-2026-11-28-1823.json");

    #[test]
    fn a_stored_run_is_judged_again_from_its_rounds() {
        let mut json: Value = serde_json::from_str(RUN).unwrap();
        let cells = rejudge(&mut json).unwrap();
        let want = [
            (
                "sha256@10240",
                "agrees",
                Verdict::Agrees,
                [0.9825667599498414, 0.9951099053057165],
            ),
            // Unexplained then; declared since as the worker binary's code layout (band
            // 0.89-0.97, measured at 23:13-23:29 UTC), which holds its whole interval.
            (
                "hmac-sha256@64",
                "unexplained",
                Verdict::Layout,
                [0.892280494222281, 0.938446980048209],
            ),
            // The median rule called it agrees; its interval cannot tell.
            (
                "rsa-2048",
                "agrees",
                Verdict::Undecided,
                [0.815340387641319, 1.340863636113593],
            ),
            (
                "rsa-2048",
                "layout",
                Verdict::Layout,
                [0.9097103909823079, 0.9170652372094944],
            ),
            // Unexplained then; its difference (band 0.94-0.99) was declared at 19:24 UTC, and
            // the interval reaches both into and out of it.
            (
                "ml-dsa-65",
                "unexplained",
                Verdict::Undecided,
                [0.8549982665780755, 1.0134966981279134],
            ),
        ];
        assert_eq!(cells.len(), want.len());
        for (c, (cell, as_run, now, ci)) in cells.iter().zip(want) {
            assert_eq!(
                (c.cell.as_str(), c.as_run.as_str(), c.verdict),
                (cell, as_run, now)
            );
            assert!(
                (c.ci[0] - ci[0]).abs() < 1e-9 && (c.ci[1] - ci[1]).abs() < 1e-9,
                "{c:?}"
            );
            assert_eq!(c.rounds, 3);
        }
        assert_eq!(cells[4].difference, "declared now");
        // The file keeps the run's verdict beside the new one.
        let keygen = &json[1]["cells"][1];
        assert_eq!(keygen["verdict_as_run"], "unexplained");
        assert_eq!(keygen["verdict"], "undecided");
        assert_eq!(
            keygen["difference"]["band"],
            serde_json::json!([0.94, 0.99])
        );
    }

    #[test]
    fn a_file_that_is_no_crosscheck_is_refused() {
        assert!(rejudge(&mut serde_json::json!({"cells": []})).is_err());
        let mut no_figures = serde_json::json!([{"column": "nettle", "cells": [{"cell": "x"}]}]);
        assert!(rejudge(&mut no_figures).is_err());
    }
}
