//! The closing line that says what a later comparison of this run with another stored run of the
//! machine adds to the run's own intervals: the between-run drift `compare` learns from the
//! store's history (`cryptospeed_compare::run_noise`). A run's ±x% holds only what varied inside
//! it; a reader comparing it with yesterday's run needs the other part too.

/// "against another run of this machine: ±x% more (between-run drift learnt from N runs)", the
/// drift the root mean square over the run's cells; `None` when the run is not in the store.
pub fn closing_line(db: &str, run_id: i64) -> Option<String> {
    let store = cryptospeed_store::open(db).ok()?;
    let record = store.load_run(&run_id.to_string()).ok()?;
    let mut side = cryptospeed_compare::SideInput::default();
    side.add_run(&record, None);
    let history = cryptospeed_query::history(store.as_ref(), &[side]).ok()?;
    let noise = cryptospeed_compare::run_noise(&history);
    let runs = history.len();
    let sds: Vec<f64> = record
        .measurements
        .iter()
        .map(|vm| &vm.measurement.cell)
        .map(|c| cryptospeed_compare::cell_key(&c.primitive, c.op, c.bytes))
        .map(|k| noise.get(&k).map_or(0.0, |n| n.var))
        .collect();
    Some(line(&sds, runs, noise.is_empty()))
}

fn line(vars: &[f64], runs: usize, unlearnt: bool) -> String {
    if unlearnt || vars.is_empty() {
        return format!(
            "against another run of this machine: the between-run drift is not learnt yet (stored runs: {runs}; compare needs three); its intervals then hold only each run's own spread"
        );
    }
    let rms = (vars.iter().sum::<f64>() / vars.len() as f64).sqrt();
    format!(
        "against another run of this machine: ±{:.2}% more (between-run drift learnt from {runs} runs)",
        100.0 * rms
    )
}
