//! Comparison pages: each run against the previous run of its configuration, the variants of a
//! run against its first (a sweep), each release of an implementation against the one before it
//! on a machine, and each variant across machines per GHz. A page carries what
//! `cryptospeed compare` prints for the same arguments, computed by the same library calls (sides
//! named by cryptospeed-query, the comparison by cryptospeed-compare with the machine's
//! run-to-run noise, the text by cryptospeed-report), and the command that prints it.

use crate::build::{Build, Linked, Noise};
use crate::page::{link, page};
use crate::state::ComparisonState;
use crate::Deviations;
use anyhow::{bail, Result};
use cryptospeed_chart::escape;
use cryptospeed_compare::{compare_with_noise, Comparison, Filter, SideInput};
use cryptospeed_model::RunRecord;
use cryptospeed_query::{SideOptions, StoredSide};
use cryptospeed_report::compare::{self as render, Layout, Mode, Normalize, View};
use std::collections::BTreeMap;
use std::sync::Arc;

/// compare's defaults: significance level, smallest effect, resolution.
const ALPHA: f64 = 0.05;
const MIN_EFFECT: f64 = 0.0;

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
            path: previous_path(run),
            title: format!("Run {run} against run {previous}"),
            about: format!("Run {run} against the previous run of the same configuration (machine and variants), run {previous}, as the baseline."),
            args: vec![previous.to_string(), run.to_string()],
            per_ghz: false,
        }
    }

    pub fn sweep(run: i64) -> Spec {
        Spec {
            path: sweep_path(run),
            title: format!("Run {run}: its variants against the first"),
            about: format!("Every variant of run {run} against the first one it measured (the baseline), paired bout by bout: they ran in the same rounds."),
            args: vec![run.to_string()],
            per_ghz: false,
        }
    }

    /// The run ids its arguments name.
    fn runs(&self) -> Vec<i64> {
        self.args
            .iter()
            .filter_map(|a| a.split('@').next()?.parse().ok())
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

/// `text` quoted for a POSIX shell when it needs it.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

pub fn previous_path(run: i64) -> String {
    format!("compare/previous-{run}.html")
}

pub fn sweep_path(run: i64) -> String {
    format!("compare/variants-{run}.html")
}

/// A comparison to compute: everything it needs, held so that it can be computed on another
/// thread (the store stays on the building one).
pub struct Pending {
    pub spec: Spec,
    inputs: String,
    history: String,
    work: Work,
}

enum Work {
    /// Computed already (an error, or sides that had to be named through the store).
    Ready(Result<(String, Comparison), String>),
    /// The runs its arguments name, with the variant each keeps, and the machines' noise.
    Runs(Vec<(Arc<RunRecord>, Option<String>)>, Arc<Noise>),
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
        let (text, uses_history) = match result {
            Ok(done) => done,
            Err(e) => (format!("cryptospeed: error: {e}\n"), false),
        };
        let state = ComparisonState {
            inputs: self.inputs.clone(),
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
    records: &[(Arc<RunRecord>, Option<String>)],
    noise: &Noise,
    deviations: &Deviations,
) -> Result<(String, Comparison)> {
    let single = spec.args.len() == 1;
    let mut stored = Vec::new();
    for (i, (arg, (record, variant))) in spec.args.iter().zip(records).enumerate() {
        let selector = arg.split('@').next().unwrap_or(arg);
        let records = vec![((**record).clone(), variant.clone())];
        let description = format!("run {selector}");
        stored.extend(cryptospeed_query::sides_of_records(
            arg,
            i,
            &description,
            records,
            single,
        )?);
    }
    compared(spec, &stored, noise, deviations)
}

/// What `cryptospeed compare` prints for these sides (baseline first, its default settings).
fn compared(
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

impl Build<'_> {
    /// What the page of `spec` needs, read from the store; `None` when the runs it names, and
    /// the noise it used, are as they were at the last build (the page is kept).
    pub fn prepare(&mut self, spec: &Spec) -> Option<Pending> {
        let runs = spec.runs();
        let mut inputs = format!("{:?} {}", spec.args, spec.per_ghz);
        for r in &runs {
            inputs.push_str(self.new.runs.get(r).map_or("?", String::as_str));
        }
        let mut machines: Vec<i64> = runs
            .iter()
            .filter_map(|r| self.machine_of.get(r).copied())
            .collect();
        machines.sort_unstable();
        machines.dedup();
        let ids = self.history_ids(&machines, &runs);
        let history = format!("{ids:?}");
        if let Some(old) = self.old.comparisons.get(&spec.path) {
            let same = old.inputs == inputs && (!old.uses_history || old.history == history);
            if same && self.pages.keep(&spec.path) {
                let old = old.clone();
                self.new.comparisons.insert(spec.path.clone(), old);
                return None;
            }
        }
        let work = match self.work(spec, &machines, &ids) {
            Ok(work) => work,
            Err(e) => Work::Ready(Err(format!("{e:#}"))),
        };
        Some(Pending {
            spec: spec.clone(),
            inputs,
            history,
            work,
        })
    }

    fn work(&mut self, spec: &Spec, machines: &[i64], history: &[i64]) -> Result<Work> {
        let noise = self.noise(machines, history)?;
        if spec
            .args
            .iter()
            .any(|a| self.labels.contains(a.split('@').next().unwrap_or(a)))
        {
            // An argument that is also some run's label: named through the store, as compare
            // would name it.
            let options = SideOptions {
                per_ghz: spec.per_ghz,
                single_argument: spec.args.len() == 1,
                ..SideOptions::default()
            };
            let stored = cryptospeed_query::stored_sides(&spec.args, self.store, &options)?;
            let done = compared(spec, &stored, &noise, &self.options.deviations);
            return Ok(Work::Ready(done.map_err(|e| format!("{e:#}"))));
        }
        let mut records = Vec::new();
        for arg in &spec.args {
            let (selector, variant) = match arg.rsplit_once('@') {
                Some((s, v)) => (s, Some(v.to_string())),
                None => (arg.as_str(), None),
            };
            records.push((self.record(selector.parse()?)?, variant));
        }
        Ok(Work::Runs(records, noise))
    }

    /// Puts a computed comparison's page.
    pub fn settle(&mut self, path: &str, html: &str, state: ComparisonState) -> Result<()> {
        self.computed += 1;
        self.pages.put(path, html)?;
        self.new.comparisons.insert(path.to_string(), state);
        Ok(())
    }

    /// The runs `compare` learns the machines' run-to-run noise from (the newest measured runs
    /// on them), worked out once per set of machines.
    fn history_ids(&mut self, machines: &[i64], runs: &[i64]) -> Vec<i64> {
        if let Some((ids, _)) = self.history.get(machines) {
            return ids.clone();
        }
        let side = SideInput {
            runs: runs.to_vec(),
            ..SideInput::default()
        };
        let ids = cryptospeed_query::history_ids(&self.rows, &[side]);
        self.history.insert(machines.to_vec(), (ids.clone(), None));
        ids
    }

    fn noise(&mut self, machines: &[i64], history: &[i64]) -> Result<Arc<Noise>> {
        if let Some((_, Some(noise))) = self.history.get(machines) {
            return Ok(noise.clone());
        }
        let mut records = Vec::with_capacity(history.len());
        for id in history {
            records.push((*self.record(*id)?).clone());
        }
        let noise = Arc::new(cryptospeed_compare::run_noise(&records));
        self.history
            .insert(machines.to_vec(), (history.to_vec(), Some(noise.clone())));
        Ok(noise)
    }
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

impl Build<'_> {
    /// The comparisons across runs: releases of an implementation on a machine, and each
    /// variant measured on several machines, per GHz.
    pub fn cross_comparisons(&mut self) -> Result<()> {
        let specs = crate::comparisons::releases(self)
            .into_iter()
            .chain(crate::comparisons::across_machines(self));
        for (spec, machines) in specs.collect::<Vec<_>>() {
            if let Some(p) = self.prepare(&spec) {
                let (html, state) = p.compute(&self.options.deviations);
                self.settle(&spec.path, &html, state)?;
            }
            self.linked.push(Linked {
                path: spec.path.clone(),
                title: spec.title.clone(),
                machines,
            });
        }
        Ok(())
    }
}

/// Version strings in natural order (`3.0.9` before `3.0.19`).
fn version_order(v: &str) -> Vec<(u64, String)> {
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

/// Per machine and implementation, each version against the one before it: the newest run of
/// each version's newest variant.
fn releases(b: &Build<'_>) -> Vec<(Spec, Vec<i64>)> {
    // (machine, implementation) → version → (newest run, variant label)
    let mut by: BTreeMap<(i64, String), BTreeMap<String, (i64, String)>> = BTreeMap::new();
    for (label, seen) in &b.new.figures.variants {
        if seen.version.is_empty() || label.contains('@') {
            continue;
        }
        for (&machine, &run) in &seen.newest {
            let versions = by
                .entry((machine, seen.implementation.clone()))
                .or_default();
            let slot = versions
                .entry(seen.version.clone())
                .or_insert((run, label.clone()));
            if run > slot.0 {
                *slot = (run, label.clone());
            }
        }
    }
    let mut specs = Vec::new();
    for ((machine, implementation), versions) in by {
        let mut ordered: Vec<(String, (i64, String))> = versions.into_iter().collect();
        ordered.sort_by_key(|(v, _)| version_order(v));
        let key = b
            .machine(machine)
            .map_or(machine.to_string(), |m| m.key.clone());
        for pair in ordered.windows(2) {
            let ((old_v, (old_run, old_label)), (new_v, (new_run, new_label))) =
                (&pair[0], &pair[1]);
            specs.push((
                Spec {
                    path: format!(
                        "compare/release-{key}-{}-{}.html",
                        crate::page::slug(&implementation),
                        crate::page::slug(new_v)
                    ),
                    title: format!("{implementation} {new_v} against {old_v} on machine {key}"),
                    about: format!("The newest run of {implementation} {new_v} ({new_label}) against the newest of the release before it, {old_v} ({old_label}), on the same machine."),
                    args: vec![format!("{old_run}@{old_label}"), format!("{new_run}@{new_label}")],
                    per_ghz: false,
                },
                vec![machine],
            ));
        }
    }
    specs
}

/// Each variant measured on several machines (with a known TSC): the newest run on each, per
/// GHz, the machine first stored as the baseline.
fn across_machines(b: &Build<'_>) -> Vec<(Spec, Vec<i64>)> {
    let mut specs = Vec::new();
    for (label, seen) in &b.new.figures.variants {
        if seen.imported || label.contains('@') {
            continue;
        }
        let on: Vec<(i64, i64)> = seen
            .newest
            .iter()
            .filter(|(m, _)| b.machine(**m).is_some_and(|m| m.tsc_hz > 0.0))
            .map(|(m, r)| (*m, *r))
            .collect();
        if on.len() < 2 {
            continue;
        }
        specs.push((
            Spec {
                path: format!("compare/machines-{}.html", crate::page::slug(label)),
                title: format!("{label} across {} machines, per GHz", on.len()),
                about: format!("The newest run of {label} on each machine that measured it, rates divided by each machine's TSC frequency (per GHz), the first machine stored as the baseline."),
                args: on.iter().map(|(_, r)| format!("{r}@{label}")).collect(),
                per_ghz: true,
            },
            on.iter().map(|(m, _)| *m).collect(),
        ));
    }
    specs
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
