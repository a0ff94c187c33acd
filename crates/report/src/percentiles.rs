//! Cycles the way post-quantum benchmarks print them (mlkem-native, eBACS): percentiles of TSC
//! cycles per call of public-key and KEM cells, each with a distribution-free 95% interval from
//! order statistics (the number of samples below a quantile is binomial), read from a cell's
//! stored samples. A sample is a batch of `iters` calls timed together, so a percentile here is a
//! percentile of batch means: with one call per sample (`run --sample-time 0.000001`) it is of
//! single calls; with k calls its tails are narrower than single calls' would be, and the table
//! says which. Imported mlkem-native percentile rows (no samples, no interval) show beside them.

use cryptospeed_model::{Measurement, Op, Sample};
use statrs::distribution::{Binomial, DiscreteCDF};
use std::fmt::Write;

/// The percentiles shown: mlkem-native's 1, 10, 50, 90, 99 and eBACS's quartiles.
pub const LEVELS: [u32; 7] = [1, 10, 25, 50, 75, 90, 99];

/// The `p`-quantile (0 ≤ p ≤ 1) of ascending values by linear interpolation between order
/// statistics (Hyndman & Fan type 7, NumPy's and R's default); `None` when empty.
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(last);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// The order statistics bounding a `confidence` interval for the `p`-quantile of `n` samples:
/// 1-based ranks (l, u) with P(x(l) ≤ ξp ≤ x(u)) = P(l ≤ B ≤ u−1) ≥ confidence for
/// B ~ Binomial(n, p), each tail at most (1 − confidence)/2. `None` on a side where no order
/// statistic is far enough out (too few samples for that tail).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantileRanks {
    pub lower: Option<usize>,
    pub upper: Option<usize>,
    /// P(l ≤ B ≤ u−1), with a missing bound at 1 or n+1.
    pub coverage: f64,
}

pub fn quantile_ci_ranks(n: usize, p: f64, confidence: f64) -> QuantileRanks {
    let tail = (1.0 - confidence) / 2.0;
    let b = Binomial::new(p.clamp(0.0, 1.0), n as u64).expect("p in [0, 1]");
    // cdf(k) = P(B ≤ k−1) = P(x(k) > ξp); sf(k) = P(B ≥ k) = P(x(k) ≤ ξp) (continuous data).
    let cdf = |k: usize| if k == 0 { 0.0 } else { b.cdf(k as u64 - 1) };
    let sf = |k: usize| if k == 0 { 1.0 } else { b.sf(k as u64 - 1) };
    // lower: the largest l in 1..=n with P(B ≤ l−1) ≤ tail (nondecreasing in l).
    let lower = last_true(1, n, |l| cdf(l) <= tail);
    // upper: the smallest u in 1..=n with P(B ≥ u) ≤ tail (nonincreasing in u).
    let upper = match last_true(1, n, |u| sf(u) > tail) {
        None => (n >= 1).then_some(1),
        Some(u) => (u < n).then_some(u + 1),
    };
    let coverage = cdf(upper.unwrap_or(n + 1)) - cdf(lower.unwrap_or(0));
    QuantileRanks {
        lower,
        upper,
        coverage,
    }
}

/// The largest k in lo..=hi for which `ok(k)` holds, `ok` being true then false along k.
fn last_true(lo: usize, hi: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
    if hi < lo || !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// One percentile: its estimate and 95% interval (a bound is `None` where samples are too few).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentile {
    pub level: u32,
    pub value: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

/// A cell's cycle percentiles and what they are of.
#[derive(Debug, Clone, PartialEq)]
pub struct CyclePercentiles {
    /// Samples used (undisturbed ones), and how many were set aside as descheduled.
    pub samples: usize,
    pub set_aside: usize,
    /// Calls per sample, least and most: a percentile is of means over this many calls.
    pub calls: (u64, u64),
    pub values: Vec<Percentile>,
}

impl CyclePercentiles {
    /// TSC ticks per call of each sample the thread ran through (CPU time ≥ 90% of wall time),
    /// their percentiles with 95% intervals. Stricter than the run's figures, which correct a
    /// sample descheduled for part of it to its thread's CPU time: a mean can be corrected that
    /// way, one sample's place in a distribution cannot. Callers leave out the bouts the canary
    /// found slowed first, as the figures do. Samples without a TSC reading (an imported
    /// `go test -count` repetition) are no cycles and are left out.
    pub fn of_samples(samples: &[Sample]) -> Option<CyclePercentiles> {
        let kept: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.iters > 0 && s.tsc > 0 && cryptospeed_stats::undisturbed(s))
            .collect();
        let mut per_call: Vec<f64> = kept.iter().map(|s| s.tsc as f64 / s.iters as f64).collect();
        per_call.sort_by(f64::total_cmp);
        let n = per_call.len();
        let values = LEVELS
            .iter()
            .filter(|_| n > 0)
            .map(|&level| {
                let p = f64::from(level) / 100.0;
                let ranks = quantile_ci_ranks(n, p, 0.95);
                Some(Percentile {
                    level,
                    value: quantile(&per_call, p)?,
                    lo: ranks.lower.map(|r| per_call[r - 1]),
                    hi: ranks.upper.map(|r| per_call[r - 1]),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        // Every sample set aside still says how many calls it held.
        let iters = samples.iter().filter(|s| s.iters > 0).map(|s| s.iters);
        Some(CyclePercentiles {
            samples: n,
            set_aside: samples.len() - n,
            calls: (iters.clone().min()?, iters.max()?),
            values,
        })
    }

    /// A measurement's percentiles: public-key and KEM cells (no message size) with samples.
    pub fn of(m: &Measurement) -> Option<CyclePercentiles> {
        if m.cell.bytes.is_some() || !m.status.has_numbers() {
            return None;
        }
        Self::of_samples(&cryptospeed_stats::without_slow_bouts(
            &m.samples,
            &m.disturbances,
        ))
    }
}

/// One row of a percentile table: what it is and where its figures come from.
pub struct Row<'a> {
    /// `ml-kem-768 decaps`, or with a side's name in a comparison.
    pub label: String,
    pub source: Source<'a>,
}

pub enum Source<'a> {
    /// Computed from stored samples.
    Samples(CyclePercentiles),
    /// A percentile row an imported log printed (`p1=… p50=…`, mlkem-native): values only.
    Printed(&'a str),
}

/// Parses an imported `p1=51000 p10=51246 …` row into (level, cycles).
pub fn printed_levels(text: &str) -> Vec<(u32, f64)> {
    text.split_whitespace()
        .filter_map(|w| {
            let (p, v) = w.strip_prefix('p')?.split_once('=')?;
            Some((p.parse().ok()?, v.parse().ok()?))
        })
        .collect()
}

/// The operation an imported percentile row names (mlkem-native's `keypair` is `keygen`).
pub fn printed_op(name: &str) -> Option<Op> {
    match name {
        "keypair" => Some(Op::Keygen),
        other => Op::parse(other),
    }
}

/// Cycles as printed: whole cycles, one decimal below 100.
fn cycles(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// One row's two lines: its percentiles, then (from samples) their 95% intervals.
fn grid_rows(row: &Row<'_>) -> Vec<Vec<String>> {
    match &row.source {
        Source::Samples(c) => {
            let calls = if c.calls.0 == c.calls.1 {
                c.calls.0.to_string()
            } else {
                format!("{}-{}", c.calls.0, c.calls.1)
            };
            let mut line = vec![row.label.clone(), calls, c.samples.to_string()];
            if c.values.is_empty() {
                line.extend(LEVELS.iter().map(|_| "-".to_string()));
                return vec![line];
            }
            line.extend(c.values.iter().map(|p| cycles(p.value)));
            let mut ci = vec!["  95% interval".to_string(), String::new(), String::new()];
            ci.extend(c.values.iter().map(|p| {
                let bound = |b: Option<f64>| b.map_or("?".to_string(), cycles);
                format!("{}-{}", bound(p.lo), bound(p.hi))
            }));
            vec![line, ci]
        }
        Source::Printed(text) => {
            let printed = printed_levels(text);
            let mut line = vec![row.label.clone(), "log".into(), "log".into()];
            line.extend(LEVELS.iter().map(|l| {
                printed
                    .iter()
                    .find(|(p, _)| p == l)
                    .map_or("-".to_string(), |(_, v)| cycles(*v))
            }));
            vec![line]
        }
    }
}

/// The percentile table of `rows` (cycles at a TSC of `tsc_ghz`, 0 when unknown), with the
/// lines that say what the figures are of. Empty when there are no rows.
pub fn table(rows: &[Row<'_>], tsc_ghz: f64) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut header: Vec<String> = ["cycles per call", "calls/sample", "samples"]
        .map(String::from)
        .to_vec();
    header.extend(LEVELS.iter().map(|l| format!("p{l}")));
    let grid = crate::markup::Grid {
        title: String::new(),
        header,
        rows: rows.iter().flat_map(grid_rows).collect(),
    };
    let clock = if tsc_ghz > 0.0 {
        format!(" ({tsc_ghz:.2} GHz)")
    } else {
        String::new()
    };
    let mut out = format!(
        "TSC reference cycles{clock} per call: percentiles of the samples, 95% intervals from order statistics\n"
    );
    out.push_str(&crate::markup::aligned(&grid));
    out.push_str(&notes(rows));
    out
}

/// What the percentiles are of: single calls, or means of batches (narrower tails).
fn notes(rows: &[Row<'_>]) -> String {
    let mut out = String::new();
    let batched = rows.iter().any(|r| match &r.source {
        Source::Samples(c) => c.calls.1 > 1,
        Source::Printed(_) => false,
    });
    if batched {
        out.push_str("# a sample times calls/sample calls back to back: its figure is their mean, so these are percentiles of batch means, not of single calls: the median tends to the mean per call and the tails (p1, p99) are narrower than single calls' (run --sample-time 0.000001 times one call per sample)\n");
    }
    let unbounded = rows.iter().any(|r| match &r.source {
        Source::Samples(c) => c.values.iter().any(|p| p.lo.is_none() || p.hi.is_none()),
        Source::Printed(_) => false,
    });
    if unbounded {
        out.push_str("# ?: too few samples for that side of a 95% interval (p1 and p99 need at least 368 samples)\n");
    }
    if rows.iter().any(|r| matches!(r.source, Source::Printed(_))) {
        out.push_str("# 'log': percentiles as the imported log printed them, no interval (mlkem-native's bench: of batch means, 300 calls per batch unless built otherwise)\n");
    }
    let set_aside: usize = rows
        .iter()
        .map(|r| match &r.source {
            Source::Samples(c) => c.set_aside,
            Source::Printed(_) => 0,
        })
        .sum();
    if set_aside > 0 {
        let _ = writeln!(
            out,
            "# {set_aside} sample(s) set aside: the thread had the CPU for under 90% of their wall time (bouts the canary found slowed are left out before)"
        );
    }
    out
}

/// A comparison side as the percentile table reads it: its name, its runs, the variant it keeps.
pub struct Side<'a> {
    pub name: &'a str,
    pub records: Vec<&'a cryptospeed_model::RunRecord>,
    pub variant: &'a str,
}

/// `compare --percentiles`: for each public-key cell, one row per side: the samples of the cell
/// pooled over the side's runs, or the percentile row an imported log printed for it.
pub fn compare_rows<'a>(cells: &[(String, Op)], sides: &[Side<'a>]) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    for (primitive, op) in cells {
        for side in sides {
            let label = format!("{primitive} {op} {}", side.name);
            let mut samples = Vec::new();
            let mut printed = None;
            for r in &side.records {
                for vm in r
                    .measurements
                    .iter()
                    .filter(|vm| vm.variant == side.variant)
                {
                    let m = &vm.measurement;
                    if m.cell.primitive == *primitive && m.cell.op == *op && m.cell.bytes.is_none()
                    {
                        samples.extend(cryptospeed_stats::without_slow_bouts(
                            &m.samples,
                            &m.disturbances,
                        ));
                    }
                }
                printed = printed.or_else(|| printed_row(r, primitive, *op));
            }
            let source = match CyclePercentiles::of_samples(&samples) {
                Some(c) => Source::Samples(c),
                None => match printed {
                    Some(text) => Source::Printed(text),
                    None => continue,
                },
            };
            rows.push(Row { label, source });
        }
    }
    rows
}

/// The `PRIMITIVE OP percentiles` header field an imported run keeps (pq-native-bench).
pub fn printed_row<'a>(
    r: &'a cryptospeed_model::RunRecord,
    primitive: &str,
    op: Op,
) -> Option<&'a str> {
    let imported = r.run.imported.as_ref()?;
    imported.header.iter().find_map(|(k, v)| {
        let rest = k.strip_prefix(primitive)?.strip_suffix(" percentiles")?;
        (printed_op(rest.trim()) == Some(op)).then_some(v.as_str())
    })
}
