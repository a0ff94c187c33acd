//! What a user names, found. `compare` takes run ids, run labels, variant labels, machines and
//! log files, pooled with commas; this crate resolves each into runs from the store (or a log
//! read on the fly) and turns them into the sides `cryptospeed_compare` compares, plus the
//! machine's run history that its run-to-run noise is learnt from. A second front end (a
//! service, a notebook) resolves names the same way.

pub mod listing;
mod resolve;

use anyhow::{bail, Result};
use cryptospeed_compare::SideInput;
use cryptospeed_model::RunRecord;
use cryptospeed_store::Store;

/// How sides are read.
#[derive(Debug, Clone, Default)]
pub struct SideOptions {
    /// Log files come from `openssl speed -decrypt`.
    pub decrypt: bool,
    /// Store log files given as sides (else read them without storing).
    pub store_logs: bool,
    /// Rates per GHz of each run's TSC (`--normalize ghz|cycles`).
    pub per_ghz: bool,
    /// Only one argument was given: the variants it holds are the sides.
    pub single_argument: bool,
}

/// Every argument's sides (one per variant it holds), and for each side the index of its argument.
pub fn sides(
    args: &[String],
    store: &mut dyn Store,
    options: &SideOptions,
) -> Result<(Vec<SideInput>, Vec<usize>)> {
    let stored = stored_sides(args, store, options)?;
    let arg_of_side = stored.iter().map(|s| s.arg).collect();
    let sides = stored
        .iter()
        .map(|s| s.input(options.per_ghz))
        .collect::<Result<_>>()?;
    Ok((sides, arg_of_side))
}

/// One side as the store holds it: the variant it keeps and the runs it pools, before its
/// figures are read (`compare --remeasure` needs the runs themselves: their variant records,
/// machine and settings).
#[derive(Debug, Clone)]
pub struct StoredSide {
    /// Column heading (a label, `run 12`, a file name, `gcc/openssl-3.0.19`…).
    pub name: String,
    pub description: String,
    /// The variant label it keeps.
    pub variant: String,
    /// Every run of its argument (some may lack the variant).
    pub records: Vec<RunRecord>,
    /// The index of the argument it came from.
    pub arg: usize,
}

impl StoredSide {
    /// The side as `cryptospeed_compare` reads it: its variant's figures in every run it pools,
    /// per GHz of each run's TSC when asked.
    pub fn input(&self, per_ghz: bool) -> Result<SideInput> {
        let mut side = SideInput {
            name: self.name.clone(),
            description: self.description.clone(),
            ..Default::default()
        };
        for rec in &self.records {
            if !per_ghz {
                side.add_run(rec, Some(&self.variant));
            } else if rec.machine.tsc_hz > 0.0 {
                side.add_run_scaled(rec, Some(&self.variant), 1e9 / rec.machine.tsc_hz);
            } else {
                bail!(
                    "run {} has no TSC frequency recorded (imported logs carry none), so its rates cannot be put per GHz (--normalize)",
                    rec.run.id
                );
            }
        }
        Ok(side)
    }
}

/// Every argument's sides as stored (one per variant it holds), in order.
pub fn stored_sides(
    args: &[String],
    store: &mut dyn Store,
    options: &SideOptions,
) -> Result<Vec<StoredSide>> {
    let mut next_file_id = 0;
    let mut sides = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        sides.extend(sides_of(arg, i, store, options, &mut next_file_id)?);
    }
    Ok(sides)
}

/// `--baseline`: a side's name, an argument as written, or a 1-based position; default the first.
pub fn baseline(
    name: Option<&str>,
    sides: &[SideInput],
    args: &[String],
    arg_of_side: &[usize],
) -> Result<usize> {
    let Some(b) = name else {
        return Ok(0);
    };
    if let Some(i) = sides.iter().position(|s| s.name == b) {
        return Ok(i);
    }
    if let Some(i) = args.iter().position(|s| s == b) {
        return Ok(arg_of_side.iter().position(|&x| x == i).unwrap_or(0));
    }
    match b.parse::<usize>() {
        Ok(k) if k == 0 || k > sides.len() => {
            bail!("--baseline {k}: there are {} sides", sides.len())
        }
        Ok(k) => Ok(k - 1),
        Err(_) => {
            let names: Vec<&str> = sides.iter().map(|s| s.name.as_str()).collect();
            bail!(
                "--baseline '{b}' names no side; the sides are: {}",
                names.join(", ")
            )
        }
    }
}

/// Turns one command-line argument into one or more sides (one per variant it holds).
fn sides_of(
    arg: &str,
    index: usize,
    store: &mut dyn Store,
    a: &SideOptions,
    next_file_id: &mut i64,
) -> Result<Vec<StoredSide>> {
    let mut resolved = Vec::new();
    for item in arg.split(',').filter(|s| !s.is_empty()) {
        resolved.push(resolve::resolve_item(item, store, a, next_file_id)?);
    }
    let description = resolved
        .iter()
        .map(|r| r.description.clone())
        .collect::<Vec<_>>()
        .join(" + ");
    let records: Vec<(RunRecord, Option<String>)> =
        resolved.into_iter().flat_map(|r| r.records).collect();
    sides_of_records(arg, index, &description, records, a.single_argument)
}

/// The sides of one argument whose runs are already resolved (each with the variant it keeps,
/// if any), `description` saying what they are (`run 12`): one side per variant they hold. A
/// caller that holds the runs (the results site) names sides exactly as `compare` does.
pub fn sides_of_records(
    arg: &str,
    index: usize,
    description: &str,
    records: Vec<(RunRecord, Option<String>)>,
    single_argument: bool,
) -> Result<Vec<StoredSide>> {
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
    let runs: Vec<RunRecord> = records.into_iter().map(|(r, _)| r).collect();
    let sides = variants.iter().map(|v| StoredSide {
        name: if variants.len() == 1 {
            display_name(arg, &runs)
        } else if single_argument {
            // One argument holding several variants: the variants are the columns.
            v.clone()
        } else {
            format!("{}/{v}", display_name(arg, &runs))
        },
        description: format!(
            "{description}; {v}{}",
            if pooled_runs { ", runs pooled" } else { "" }
        ),
        variant: v.clone(),
        records: runs.clone(),
        arg: index,
    });
    Ok(sides.collect())
}

fn display_name(arg: &str, records: &[RunRecord]) -> String {
    if arg.parse::<i64>().is_ok() {
        return format!("run {arg}");
    }
    if records.len() == 1 && std::path::Path::new(arg).is_file() {
        return cryptospeed_import::file::file_label(arg);
    }
    arg.to_string()
}

/// The most runs of a machine read to learn its run-to-run noise.
const HISTORY_RUNS: usize = 100;

/// Measured runs on the machines of the sides' runs, newest first: what the store has seen of how
/// each cell moves from run to run there.
pub fn history(
    store: &dyn cryptospeed_store::Store,
    sides: &[SideInput],
) -> Result<Vec<cryptospeed_model::RunRecord>> {
    history_ids(&store.runs()?, sides)
        .iter()
        .map(|id| store.load_run(&id.to_string()))
        .collect()
}

/// The ids of the runs [`history`] reads, from the store's run list.
pub fn history_ids(rows: &[cryptospeed_store::RunRow], sides: &[SideInput]) -> Vec<i64> {
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
    measured.iter().take(HISTORY_RUNS).map(|r| r.id).collect()
}

/// A stored run's measurements in the catalog's order (primitive, operation, size) rather than
/// the order they finished in, as `show` prints them.
pub fn in_catalog_order(record: &mut RunRecord) {
    record.measurements.sort_by_key(|vm| {
        let c = &vm.measurement.cell;
        let op = cryptospeed_model::Op::ALL.iter().position(|o| *o == c.op);
        (
            cryptospeed_compare::cell_key(&c.primitive, c.op, c.bytes).order,
            op,
            c.bytes,
        )
    });
}

/// Stored runs by id or label (every run with the label), each `@VARIANT` keeping one variant;
/// a run named twice comes once. A label that itself contains '@' wins over the LABEL@VARIANT
/// reading.
pub fn runs(store: &dyn Store, selectors: &[String]) -> Result<Vec<RunRecord>> {
    let rows = store.runs()?;
    let mut records: Vec<RunRecord> = Vec::new();
    for arg in selectors {
        // A label that itself contains '@' wins over the LABEL@VARIANT reading.
        let whole_label = rows
            .iter()
            .any(|r| r.label.as_deref() == Some(arg.as_str()));
        let (selector, variant) = match arg.rsplit_once('@') {
            Some((s, v)) if !s.is_empty() && !whole_label => (s, Some(v)),
            _ => (arg.as_str(), None),
        };
        let mut ids: Vec<i64> = rows
            .iter()
            .filter(|r| r.label.as_deref() == Some(selector))
            .map(|r| r.id)
            .collect();
        if ids.is_empty() {
            match selector.parse::<i64>() {
                Ok(id) if rows.iter().any(|r| r.id == id) => ids.push(id),
                _ => bail!("'{selector}' is neither a run id nor a run label ('cryptospeed runs' lists the stored runs)"),
            }
        }
        for id in ids {
            let mut rec = store.load_run(&id.to_string())?;
            if let Some(v) = variant {
                if !rec.variants.iter().any(|x| x.label == v) {
                    bail!(
                        "run {id} has no variant '{v}' (it has {})",
                        rec.variants
                            .iter()
                            .map(|x| x.label.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
                rec.measurements.retain(|m| m.variant == v);
                rec.variants.retain(|x| x.label == v);
            }
            if !records.iter().any(|r| r.run.id == id) {
                records.push(rec);
            }
        }
    }
    Ok(records)
}

/// The stored profiles of these runs, each with its run's id (only those of variants a run
/// kept after `@VARIANT`).
pub fn profiles(
    store: &dyn Store,
    records: &[RunRecord],
) -> Result<Vec<(i64, cryptospeed_model::ProfileRecord)>> {
    let mut profiles = Vec::new();
    for r in records {
        for p in store.profiles(r.run.id)? {
            if r.variants.iter().any(|v| v.label == p.variant) {
                profiles.push((r.run.id, p));
            }
        }
    }
    Ok(profiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_is_found_by_name_argument_or_position() {
        let side = |name: &str| SideInput {
            name: name.into(),
            ..Default::default()
        };
        let sides = [side("old"), side("new/a"), side("new/b")];
        let args = ["old".to_string(), "new".to_string()];
        let of = [0, 1, 1];
        assert_eq!(baseline(None, &sides, &args, &of).unwrap(), 0);
        assert_eq!(baseline(Some("new/b"), &sides, &args, &of).unwrap(), 2);
        assert_eq!(baseline(Some("new"), &sides, &args, &of).unwrap(), 1);
        assert_eq!(baseline(Some("3"), &sides, &args, &of).unwrap(), 2);
        assert!(baseline(Some("4"), &sides, &args, &of).is_err());
        let err = baseline(Some("nope"), &sides, &args, &of)
            .unwrap_err()
            .to_string();
        assert!(err.contains("old, new/a, new/b"), "{err}");
    }
}
