//! The closing line that says what a later comparison of this run with another stored run of the
//! machine adds to the run's own intervals: the between-run drift `compare` learns from the
//! store's history (`cryptospeed_compare::run_noise`). A run's ±x% holds only what varied inside
//! it; a reader comparing it with yesterday's run needs the other part too.

/// The drift a later comparison adds: the root mean square of compare's between-run sd over the
/// run's cells (`None` when no cell has learnt one) and how many stored runs it was learnt from.
pub struct Drift {
    pub sd: Option<f64>,
    pub runs: usize,
}

/// The run's [`Drift`]; `None` when the run is not in the store.
pub fn drift(db: &str, run_id: i64) -> Option<Drift> {
    let store = cryptospeed_store::open(db).ok()?;
    let record = store.load_run(&run_id.to_string()).ok()?;
    let mut side = cryptospeed_compare::SideInput::default();
    side.add_run(&record, None);
    let history = cryptospeed_query::history(store.as_ref(), &[side]).ok()?;
    let noise = cryptospeed_compare::run_noise(&history);
    let vars: Vec<f64> = record
        .measurements
        .iter()
        .map(|vm| &vm.measurement.cell)
        .map(|c| cryptospeed_compare::cell_key(&c.primitive, c.op, c.bytes))
        .map(|k| noise.get(&k).map_or(0.0, |n| n.var))
        .collect();
    let sd = (!noise.is_empty() && !vars.is_empty())
        .then(|| (vars.iter().sum::<f64>() / vars.len() as f64).sqrt());
    Some(Drift {
        sd,
        runs: history.len(),
    })
}

/// The run's JSON with `across_runs` (`drift_sd`, `history_runs`) beside its fields; other text
/// as it is.
pub fn into_json(text: String, d: &Drift) -> String {
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(mut map)) => {
            let across = serde_json::json!({ "drift_sd": d.sd, "history_runs": d.runs });
            map.insert("across_runs".into(), across);
            serde_json::to_string_pretty(&map).unwrap_or(text) + "\n"
        }
        _ => text,
    }
}

/// "against another run of this machine: ±x% more (between-run drift learnt from N runs)".
pub fn closing_line(d: &Drift) -> String {
    line(d.sd, d.runs)
}

fn line(sd: Option<f64>, runs: usize) -> String {
    match sd {
        None => format!(
            "against another run of this machine: the between-run drift is not learnt yet (stored runs: {runs}; compare needs three); its intervals then hold only each run's own spread"
        ),
        Some(sd) => format!(
            "against another run of this machine: ±{:.2}% more (between-run drift learnt from {runs} runs)",
            100.0 * sd
        ),
    }
}
