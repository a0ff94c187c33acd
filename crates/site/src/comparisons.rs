//! Comparison pages: each run against the previous run of its configuration, the variants of a
//! run against its first (a sweep), each release of an implementation against the one before it
//! on a machine, and each variant across machines per GHz. A page carries what
//! `cryptospeed compare` prints for the same arguments, computed by the same library calls (sides
//! named by cryptospeed-query, the comparison by cryptospeed-compare with the machine's
//! run-to-run noise, the text by cryptospeed-report), and the command that prints it.

use crate::page::{link, page};
use crate::state::ComparisonState;
use crate::Deviations;
use anyhow::{bail, Result};
use cryptospeed_chart::escape;
use cryptospeed_compare::{compare_with_noise, Comparison, Filter};
use cryptospeed_compare::{CellKey, RunNoise};
use cryptospeed_model::RunRecord;
use cryptospeed_query::StoredSide;
use cryptospeed_report::compare::{self as render, Layout, Mode, Normalize, View};
use std::collections::BTreeMap;
use std::sync::Arc;

/// compare's defaults: significance level, smallest effect, resolution.
const ALPHA: f64 = 0.05;
const MIN_EFFECT: f64 = 0.0;

/// A machine's run-to-run noise per cell, as `compare` learns it.
pub type Noise = BTreeMap<CellKey, RunNoise>;

/// One comparison page: `cryptospeed compare ARGS` (with `--normalize ghz` when `per_ghz`).
#[derive(Debug, Clone)]
pub struct Spec {
    pub path: String,
    pub title: String,
    pub about: String,
    /// Each a run id, with `@VARIANT` to keep one variant.
    pub args: Vec<String>,
    pub per_ghz: bool,
}

impl Spec {
    pub fn previous(previous: i64, run: i64) -> Spec {
        Spec {
            path: crate::page::previous_path(run),
            title: format!("Run {run} against run {previous}"),
            about: format!("Run {run} against the previous run of the same configuration (machine and variants), run {previous}, as the baseline."),
            args: vec![previous.to_string(), run.to_string()],
            per_ghz: false,
        }
    }

    /// A stored sweep: every variant pooled over the runs of its shards, against the first.
    pub fn of_sweep(name: &str, runs: &[i64]) -> Spec {
        let ids: Vec<String> = runs.iter().map(i64::to_string).collect();
        Spec {
            path: format!("compare/sweep-{}.html", crate::page::slug(name)),
            title: format!("Sweep {name}: its variants against the first"),
            about: format!("Every variant of the sweep {name}, pooled over the runs of its {} finished shard(s), against the first variant (the baseline).", runs.len()),
            args: vec![ids.join(",")],
            per_ghz: false,
        }
    }

    pub fn sweep(run: i64) -> Spec {
        Spec {
            path: crate::page::sweep_path(run),
            title: format!("Run {run}: its variants against the first"),
            about: format!("Every variant of run {run} against the first one it measured (the baseline), paired bout by bout: they ran in the same rounds."),
            args: vec![run.to_string()],
            per_ghz: false,
        }
    }

    /// The run ids its arguments name.
    pub fn runs(&self) -> Vec<i64> {
        self.args
            .iter()
            .flat_map(|a| items(a))
            .filter_map(|(selector, _)| selector.parse().ok())
            .collect()
    }

    /// The command that prints the same table.
    pub fn command(&self) -> String {
        let mut c = String::from("cryptospeed compare");
        for a in &self.args {
            c.push(' ');
            c.push_str(&shell_word(a));
        }
        if self.per_ghz {
            c.push_str(" --normalize ghz");
        }
        c
    }
}

/// The items of an argument (`A1,A2@V`), each a selector and the variant it keeps, as
/// cryptospeed-query splits them.
pub fn items(arg: &str) -> Vec<(&str, Option<&str>)> {
    arg.split(',')
        .filter(|s| !s.is_empty())
        .map(|item| match item.rsplit_once('@') {
            Some((s, v)) if !s.is_empty() => (s, Some(v)),
            _ => (item, None),
        })
        .collect()
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// A comparison to compute: everything it needs, held so that it can be computed on another
/// thread (the store stays on the building one).
pub struct Pending {
    pub spec: Spec,
    pub inputs: String,
    pub history: String,
    pub work: Work,
}

pub enum Work {
    /// Computed already (an error, or sides that had to be named through the store).
    Ready(Result<(String, Comparison), String>),
    /// The runs its arguments name, with the variant each keeps, and the machines' noise.
    Runs(Vec<Vec<(Arc<RunRecord>, Option<String>)>>, Arc<Noise>),
}

impl Pending {
    /// The page and what it was computed from.
    pub fn compute(&self, deviations: &Deviations) -> (String, ComparisonState) {
        let result = match &self.work {
            Work::Ready(Ok((text, c))) => Ok((text.clone(), uses_history(c))),
            Work::Ready(Err(e)) => Err(e.clone()),
            Work::Runs(records, noise) => from_runs(&self.spec, records, noise, deviations)
                .map(|(text, c)| (text, uses_history(&c)))
                .map_err(|e| format!("{e:#}")),
        };
        let failed = result.is_err();
        let (text, uses_history) = match result {
            Ok(done) => done,
            Err(e) => (format!("cryptospeed: error: {e}\n"), false),
        };
        let state = ComparisonState {
            // An error page (a store that did not answer, say) is drawn again next build: no
            // inputs match an empty record.
            inputs: if failed {
                String::new()
            } else {
                self.inputs.clone()
            },
            uses_history,
            history: if uses_history {
                self.history.clone()
            } else {
                String::new()
            },
        };
        (page_of(&self.spec, &text), state)
    }
}

/// The sides as cryptospeed-query names them, from runs already read, compared.
fn from_runs(
    spec: &Spec,
    records: &[Vec<(Arc<RunRecord>, Option<String>)>],
    noise: &Noise,
    deviations: &Deviations,
) -> Result<(String, Comparison)> {
    let single = spec.args.len() == 1;
    let mut stored = Vec::new();
    for (i, (arg, runs)) in spec.args.iter().zip(records).enumerate() {
        let description = items(arg)
            .iter()
            .map(|(selector, _)| format!("run {selector}"))
            .collect::<Vec<_>>()
            .join(" + ");
        let runs = runs
            .iter()
            .map(|(r, v)| ((**r).clone(), v.clone()))
            .collect();
        stored.extend(cryptospeed_query::sides_of_records(
            arg,
            i,
            &description,
            runs,
            single,
        )?);
    }
    compared(spec, &stored, noise, deviations)
}

/// What `cryptospeed compare` prints for these sides (baseline first, its default settings).
pub fn compared(
    spec: &Spec,
    stored: &[StoredSide],
    noise: &Noise,
    deviations: &Deviations,
) -> Result<(String, Comparison)> {
    let sides = stored
        .iter()
        .map(|s| s.input(spec.per_ghz))
        .collect::<Result<Vec<_>>>()?;
    if sides.len() < 2 {
        bail!(
            "nothing to compare: give at least two sides (or one run that holds several variants)"
        );
    }
    let filter = Filter {
        bytes: None,
        primitives: None,
    };
    let c = compare_with_noise(&sides, 0, ALPHA, MIN_EFFECT, &filter, noise)
        .with_resolution(cryptospeed_compare::DEFAULT_RESOLUTION);
    if c.rows.is_empty() {
        bail!("no cells to compare: the sides share no primitive/size after the filters");
    }
    let view = View {
        mode: Mode::Ratio,
        layout: Layout::Sides,
        detail: false,
        normalize: if spec.per_ghz {
            Normalize::PerGhz
        } else {
            Normalize::None
        },
        footnotes: (deviations.of_comparison)(&c, stored),
    };
    let text = render::render(&c, "text", &view).unwrap_or_default();
    Ok((text, c))
}

/// Whether any cell's test used the machine's run-to-run noise (a single run's bouts against
/// another run's).
fn uses_history(c: &Comparison) -> bool {
    c.rows
        .iter()
        .flat_map(|r| r.versus.iter().flatten())
        .any(|v| matches!(v.test, Some("bouts") | Some("bouts+runs")))
}

fn page_of(spec: &Spec, text: &str) -> String {
    let runs: Vec<String> = spec
        .runs()
        .iter()
        .map(|r| link(&format!("../runs/{r}.html"), &format!("run {r}")))
        .collect();
    let body = format!(
        r#"<section><p>{}</p><p>Runs: {}.</p><p>The same table on the command line: <code data-command>{}</code></p>
<pre data-compare>{}</pre>
<p>Ratios are the candidate's rate over the baseline's (higher is faster); <code>~</code> marks a cell whose change is not significant at α = 0.05 and below the smallest change it could have seen; <code>?</code> a cell that cannot tell.</p></section>
"#,
        escape(&spec.about),
        runs.join(", "),
        escape(&spec.command()),
        escape(text)
    );
    page(
        &spec.title,
        1,
        "A comparison, as cryptospeed compare prints it.",
        &body,
    )
}

/// Version strings in natural order (`3.0.9` before `3.0.19`).
pub fn version_order(v: &str) -> Vec<(u64, String)> {
    let mut parts = Vec::new();
    let mut digits = String::new();
    let mut text = String::new();
    for c in v.chars().chain(std::iter::once('\u{0}')) {
        if c.is_ascii_digit() {
            if !text.is_empty() {
                parts.push((0, std::mem::take(&mut text)));
            }
            digits.push(c);
        } else {
            if !digits.is_empty() {
                parts.push((digits.parse().unwrap_or(u64::MAX), String::new()));
                digits.clear();
            }
            if c != '\u{0}' {
                text.push(c);
            }
        }
    }
    if !text.is_empty() {
        parts.push((0, text));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_naturally() {
        let mut v = vec!["3.0.19", "3.0.9", "1.1.1w", "3.5.0", "1.1.1"];
        v.sort_by_key(|s| version_order(s));
        assert_eq!(v, ["1.1.1", "1.1.1w", "3.0.9", "3.0.19", "3.5.0"]);
    }

    #[test]
    fn commands_are_quoted_for_the_shell() {
        let s = Spec {
            path: String::new(),
            title: String::new(),
            about: String::new(),
            args: vec!["12@openssl-3.0".into(), "13@gcc's build".into()],
            per_ghz: true,
        };
        assert_eq!(
            s.command(),
            r"cryptospeed compare 12@openssl-3.0 '13@gcc'\''s build' --normalize ghz"
        );
    }
}
