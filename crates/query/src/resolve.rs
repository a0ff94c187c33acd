//! One item of a side (`compare`'s arguments): a log file (read, and stored if asked), a
//! `machine:SEL`, a run label (every run with it, pooled), a run id, or a variant label (its
//! newest run); `@VARIANT` keeps one variant of a multi-variant run.

use crate::SideOptions;
use anyhow::{bail, Result};
use cryptospeed_import::file::{file_label, read_file, record};
use cryptospeed_import::ImportOptions;
use cryptospeed_model::RunRecord;
use cryptospeed_store::Store;

/// One item of a side argument, resolved to runs (and the variant to keep, if any).
pub(crate) struct Resolved {
    pub records: Vec<(RunRecord, Option<String>)>,
    pub description: String,
}

pub(crate) fn resolve_item(
    item: &str,
    store: &mut dyn Store,
    a: &SideOptions,
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
            rec.run.id = if a.store_logs {
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
                if a.store_logs { " and stored" } else { "" }
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
