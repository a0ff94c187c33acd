//! The closing line that says what a later comparison of this run with another stored run of the
//! machine adds to the run's own intervals: the between-run drift `compare` learns from the
//! store's history (`cryptospeed_compare::run_noise`). A run's ±x% holds only what varied inside
//! it; a reader comparing it with yesterday's run needs the other part too.

/// A cell as the run's JSON names it: primitive, operation, bytes.
pub type JsonCell = (String, serde_json::Value, Option<u64>);

/// The drift a later comparison adds: each cell's between-run sd as compare learns it (by
/// primitive, operation as JSON names it, bytes), their root mean square (`None` when no cell
/// has learnt one) and how many stored runs it was learnt from; `prior` when the history was too
/// short for any cell to learn its own, so every cell carries the prior drift.
pub struct Drift {
    pub cells: Vec<(JsonCell, f64)>,
    pub sd: Option<f64>,
    pub runs: usize,
    pub prior: bool,
}

/// The run's [`Drift`]; `None` when the run is not in the store.
pub fn drift(db: &str, run_id: i64) -> Option<Drift> {
    let store = cryptospeed_store::open(db).ok()?;
    let record = store.load_run(&run_id.to_string()).ok()?;
    let mut side = cryptospeed_compare::SideInput::default();
    side.add_run(&record, None);
    let history = cryptospeed_query::history(store.as_ref(), &[side]).ok()?;
    let noise = cryptospeed_compare::run_noise(&history);
    let cells: Vec<_> = record
        .measurements
        .iter()
        .map(|vm| &vm.measurement.cell)
        .map(|c| {
            let key = cryptospeed_compare::cell_key(&c.primitive, c.op, c.bytes);
            let op = serde_json::to_value(c.op).unwrap_or_default();
            let var = noise.get(&key).map_or(0.0, |n| n.var);
            ((c.primitive.clone(), op, c.bytes), var.sqrt())
        })
        .collect();
    let sd = (!noise.is_empty() && !cells.is_empty())
        .then(|| (cells.iter().map(|c| c.1 * c.1).sum::<f64>() / cells.len() as f64).sqrt());
    Some(Drift {
        cells,
        sd,
        runs: history.len(),
        prior: cryptospeed_compare::prior_only(&noise),
    })
}

/// The run's JSON cells with `run_noise` (the cell's between-run sd, null when not learnt yet)
/// and `history_runs`, written as each cell's first fields so the rest keeps its order; other
/// text as it is.
pub fn into_json(text: String, d: &Drift) -> String {
    let Ok(serde_json::Value::Array(cells)) = serde_json::from_str(&text) else {
        return text;
    };
    let mut extra = cells.iter().map(|cell| {
        let key = (
            cell["primitive"].as_str().unwrap_or("").to_string(),
            cell["op"].clone(),
            cell["bytes"].as_u64(),
        );
        let sd = d.cells.iter().find(|c| c.0 == key).map(|c| c.1);
        let sd = serde_json::json!(sd.filter(|_| d.sd.is_some()));
        format!(
            "    \"run_noise\": {sd},\n    \"history_runs\": {},",
            d.runs
        )
    });
    let mut out = String::with_capacity(text.len() + 64 * cells.len());
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if line == "  {" {
            out.push_str(&extra.next().unwrap_or_default());
            out.push('\n');
        }
    }
    match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(serde_json::Value::Array(v)) if v.len() == cells.len() => out,
        _ => text,
    }
}

/// "against another run of this machine: ±x% more (between-run drift learnt from N runs)".
pub fn closing_line(d: &Drift) -> String {
    line(d.sd, d.runs, d.prior)
}

fn line(sd: Option<f64>, runs: usize, prior: bool) -> String {
    match sd {
        None => format!(
            "against another run of this machine: the between-run drift is not known (stored runs: {runs}, none measured in bouts); its intervals then hold only each run's own spread"
        ),
        Some(sd) if prior => format!(
            "against another run of this machine: ±{:.2}% more (the prior between-run drift of a shared 2-vCPU cloud VM; this machine's own is learnt from three stored runs, one variant measured twice; stored runs: {runs})",
            100.0 * sd
        ),
        Some(sd) => format!(
            "against another run of this machine: ±{:.2}% more (between-run drift learnt from {runs} runs)",
            100.0 * sd
        ),
    }
}
