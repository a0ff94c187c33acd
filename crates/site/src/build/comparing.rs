//! The comparison pages a build plans: which comparisons exist (each run against the previous
//! run of its configuration, a run's variants, releases, machines per GHz), whether a page can be
//! kept, and what a page to compute needs from the store (its runs, the machines' noise).

use super::Build;
use crate::comparisons::{compared, items, version_order, Noise, Pending, Spec, Work};
use crate::context::Linked;
use crate::state::ComparisonState;
use anyhow::Result;
use cryptospeed_compare::SideInput;
use cryptospeed_query::SideOptions;
use std::collections::BTreeMap;
use std::sync::Arc;

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
            .flat_map(|a| items(a))
            .any(|(selector, _)| self.labels.contains(selector))
        {
            // An argument that is also some run's label: named through the store, as compare
            // would name it.
            let options = SideOptions {
                per_ghz: spec.per_ghz,
                single_argument: spec.args.len() == 1,
                ..SideOptions::default()
            };
            let stored = cryptospeed_query::stored_sides(&spec.args, self.store, &options)?;
            let done = compared(spec, &stored, &noise, &self.ctx.options.deviations);
            return Ok(Work::Ready(done.map_err(|e| format!("{e:#}"))));
        }
        let mut records = Vec::new();
        for arg in &spec.args {
            let mut runs = Vec::new();
            for (selector, variant) in items(arg) {
                runs.push((self.record(selector.parse()?)?, variant.map(str::to_string)));
            }
            records.push(runs);
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
        let ids = cryptospeed_query::history_ids(&self.ctx.rows, &[side]);
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

impl Build<'_> {
    /// The comparisons across runs: releases of an implementation on a machine, and each
    /// variant measured on several machines, per GHz.
    pub fn cross_comparisons(&mut self) -> Result<()> {
        let specs = sweeps(self)?
            .into_iter()
            .chain(releases(self))
            .chain(across_machines(self));
        for (spec, machines) in specs.collect::<Vec<_>>() {
            if let Some(p) = self.prepare(&spec) {
                let (html, state) = p.compute(&self.ctx.options.deviations);
                self.settle(&spec.path, &html, state)?;
            }
            self.ctx.linked.push(Linked {
                path: spec.path.clone(),
                title: spec.title.clone(),
                machines,
            });
        }
        Ok(())
    }
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

/// Each stored sweep with finished shards whose runs hold several variants: its variants pooled
/// over those runs.
fn sweeps(b: &Build<'_>) -> Result<Vec<(Spec, Vec<i64>)>> {
    let mut specs = Vec::new();
    for sweep in b.store.sweeps()? {
        let mut runs: Vec<i64> = b
            .store
            .sweep_shards(&sweep.name)?
            .iter()
            .filter(|s| s.status == "done")
            .filter_map(|s| s.run_id)
            .filter(|id| {
                b.ctx
                    .rows
                    .iter()
                    .any(|r| r.id == *id && r.measurements > 0 && r.variants.contains(','))
            })
            .collect();
        runs.sort_unstable();
        runs.dedup();
        if runs.is_empty() {
            continue;
        }
        let mut machines: Vec<i64> = runs
            .iter()
            .filter_map(|r| b.machine_of.get(r).copied())
            .collect();
        machines.sort_unstable();
        machines.dedup();
        specs.push((Spec::of_sweep(&sweep.name, &runs), machines));
    }
    Ok(specs)
}
