//! `cryptospeed history … --remeasure`: each change point checked by timing the builds either
//! side of it again, paired in one run, through the code `compare --remeasure` runs
//! (src/remeasure.rs). A change the two builds still show now is confirmed; one they do not
//! show came from the host or from something outside the build; where there is no build
//! difference (the same library, version, build record and mask on both sides) or a build
//! cannot be loaded again, it says why instead of measuring.

use crate::session::StoreArgs;
use anyhow::Result;
use cryptospeed_compare::gate::drive::Budget;
use cryptospeed_compare::history::series::History;
use cryptospeed_compare::{compare_with_noise, Comparison, Filter, SideInput, Verdict, Versus};
use cryptospeed_model::RunRecord;
use cryptospeed_query::SideOptions;
use cryptospeed_store::Store;
use serde::Serialize;

/// What the re-measurement of one change point found.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    /// The change point's position among the history's runs.
    pub index: usize,
    /// The runs whose builds were (or would have been) timed again: before and after the change.
    pub before: Option<i64>,
    pub after: Option<i64>,
    /// `confirmed`, `not confirmed`, `undecided` or `not re-measured`.
    pub outcome: &'static str,
    /// The paired ratio now (after over before), its interval and p-value.
    pub ratio: Option<f64>,
    pub ratio_ci: Option<(f64, f64)>,
    pub p: Option<f64>,
    /// The runs that hold the re-measurement.
    pub runs: Vec<i64>,
    pub why: String,
}

/// Re-measures every change point of `h` (a history over `records`).
pub fn check_all(
    h: &History,
    records: &[RunRecord],
    store: &mut dyn Store,
    db: &StoreArgs,
    min_change: f64,
) -> Result<(Vec<Checked>, i32)> {
    let mut out = Vec::new();
    let mut code = 0;
    for j in 0..h.change_points.len() {
        let (c, run_code) = check(h, j, records, store, db, min_change)?;
        code = if code == 0 { run_code } else { code };
        out.push(c);
    }
    Ok((out, code))
}

/// The build (its fingerprint) a point's run measured the point's variant with.
fn build_of(records: &[RunRecord], h: &History, k: usize) -> Option<String> {
    let p = &h.points[k];
    let r = records.iter().find(|r| r.run.id == p.run)?;
    let v = r.variants.iter().find(|v| v.label == p.variant)?;
    Some(v.fingerprint())
}

/// The two runs to time again for change `j`: the nearest undisturbed runs either side whose
/// builds differ (looking back through the segment before, then forward through the one after,
/// so a change found a run off the build's own change still finds it), or why there are none.
fn pick(h: &History, j: usize, records: &[RunRecord]) -> Result<(usize, usize), String> {
    let i = h.change_points[j].index;
    let start = j.checked_sub(1).map_or(0, |p| h.change_points[p].index);
    let end = h
        .change_points
        .get(j + 1)
        .map_or(h.points.len(), |c| c.index);
    let kept = |k: &usize| !h.points[*k].disturbed;
    let before: Vec<usize> = (start..i).rev().filter(kept).collect();
    let after: Vec<usize> = (i..end).filter(kept).collect();
    let (Some(&b0), Some(&a0)) = (before.first(), after.first()) else {
        return Err("no undisturbed run on one side of it".into());
    };
    let build = |k: usize| build_of(records, h, k);
    if let Some(&b) = before.iter().find(|k| build(**k) != build(a0)) {
        return Ok((b, a0));
    }
    if let Some(&a) = after.iter().find(|k| build(**k) != build(b0)) {
        return Ok((b0, a));
    }
    let (first, last) = (before[before.len() - 1], after[after.len() - 1]);
    Err(format!(
        "runs {} to {} all hold the same build of {} (the same library, version, build record and CPU-feature mask): the change is no difference of builds, so there is nothing to time again; the host, or a setting runs do not record (an environment variable, a test fault), moved the figure",
        h.points[first].run, h.points[last].run, h.points[b0].variant
    ))
}

/// Re-measures change `j`; the second value is the re-measuring run's exit status.
fn check(
    h: &History,
    j: usize,
    records: &[RunRecord],
    store: &mut dyn Store,
    db: &StoreArgs,
    min_change: f64,
) -> Result<(Checked, i32)> {
    let mut c = Checked {
        index: h.change_points[j].index,
        before: None,
        after: None,
        outcome: "not re-measured",
        ratio: None,
        ratio_ci: None,
        p: None,
        runs: Vec::new(),
        why: String::new(),
    };
    let (b, a) = match pick(h, j, records) {
        Ok(pair) => pair,
        Err(why) => {
            c.why = why;
            return Ok((c, 0));
        }
    };
    let side = |k: usize| format!("{}@{}", h.points[k].run, h.points[k].variant);
    (c.before, c.after) = (Some(h.points[b].run), Some(h.points[a].run));
    let options = SideOptions {
        decrypt: false,
        store_logs: false,
        per_ghz: false,
        single_argument: false,
    };
    let stored = cryptospeed_query::stored_sides(&[side(b), side(a)], store, &options)?;
    let filter = Filter {
        bytes: h.bytes,
        primitives: Some(vec![h.primitive.clone()]),
    };
    let budget = Budget {
        extra_passes: 6,
        seconds: None,
        confirm: false,
    };
    let judge =
        |s: &[SideInput], base: usize, divisor: f64| judged(s, base, divisor, &filter, store);
    let r = match crate::remeasure::remeasure(&stored, 0, &filter, &db.db, &budget, &judge) {
        Ok(r) => r,
        Err(e) => {
            c.why = format!("{e:#}");
            return Ok((c, 0));
        }
    };
    c.runs = r.runs.clone();
    let versus = r
        .comparison
        .rows
        .iter()
        .find(|row| row.key.op == h.op && row.key.bytes == h.bytes)
        .and_then(|row| row.versus.iter().flatten().next().cloned());
    let change = h.change_points[j].ratio;
    c.outcome = verdict(versus.as_ref(), change);
    if let Some(v) = versus {
        (c.ratio, c.ratio_ci, c.p) = (Some(v.ratio), v.ratio_ci, v.p);
        c.why = reason(&v, change, min_change);
    }
    Ok((c, r.code))
}

/// The comparison `compare` would print of the re-measured sides (its default alpha, divided
/// for later looks as `compare --remeasure` divides it).
fn judged(
    sides: &[SideInput],
    baseline: usize,
    divisor: f64,
    filter: &Filter,
    store: &dyn Store,
) -> Result<Comparison> {
    let noise = cryptospeed_compare::run_noise(&cryptospeed_query::history(store, sides)?);
    let alpha = 0.05 / divisor;
    Ok(
        compare_with_noise(sides, baseline, alpha, 0.0, filter, &noise)
            .with_resolution(cryptospeed_compare::DEFAULT_RESOLUTION),
    )
}

/// Confirmed when the builds, timed together now, differ significantly in the change's
/// direction; not confirmed when they do not (no change as large as the resolution, or the
/// other way); undecided when the paired test can tell neither.
fn verdict(v: Option<&Versus>, change: f64) -> &'static str {
    match v.map(|v| v.verdict) {
        Some(Verdict::Slower) if change < 1.0 => "confirmed",
        Some(Verdict::Faster) if change > 1.0 => "confirmed",
        Some(Verdict::Slower | Verdict::Faster | Verdict::Same) => "not confirmed",
        Some(Verdict::Unknown) | None => "undecided",
    }
}

/// The re-measured change in words beside the stored one.
fn reason(v: &Versus, change: f64, min_change: f64) -> String {
    let pct = |r: f64| format!("{:+.1}%", (r - 1.0) * 100.0);
    let ci = v.ratio_ci.map_or(String::new(), |(lo, hi)| {
        format!(", interval {} to {}", pct(lo), pct(hi))
    });
    let p = v.p.map_or(String::new(), |p| format!(", p={p:.3}"));
    let small = match v.ratio.ln().abs() < min_change.ln_1p() {
        true => ", smaller than --min-change now",
        false => "",
    };
    format!(
        "{} paired now{ci}{p}{small}, {} across the stored runs",
        pct(v.ratio),
        pct(change)
    )
}

/// The lines printed after the history's table.
pub fn text(h: &History, checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        let at = h.points[c.index].run;
        let runs = match (c.before, c.after) {
            (Some(b), Some(a)) => format!(": the builds of runs {b} and {a}"),
            _ => String::new(),
        };
        let held = match c.runs.as_slice() {
            [] => String::new(),
            ids => format!(
                " (timed again in run(s) {})",
                ids.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        out.push_str(&format!(
            "change at run {at}{runs}{held}: {}: {}\n",
            c.outcome,
            c.why.replace('\n', "; ")
        ));
    }
    out
}
