//! `compare RUN --pair-cells A:B`: two primitives (or sizes) of one column compared with the
//! paired test, e.g. the cost of a post-quantum key exchange over the classical one per library.
//! A run already interleaves every cell of every variant in rounds, each round in fresh worker
//! processes pinned to one CPU, and a bout's id is its round; so cell A's and cell B's bouts of
//! one variant in the same round are paired exactly as two variants' bouts of one cell are
//! (Yuen's paired test on log bout means, [`stats::paired_ratio`]). Several runs pool pair by
//! pair within each run ([`crate::pooled_pairs`]). Unlike two variants' bouts of one cell, which
//! run one right after the other and are paired over every bout
//! ([`crate::paired_bout_means`]), two cells' bouts of a round can lie seconds apart, long
//! enough for a host at two speeds to change state between them, so a bout the canary set aside
//! is left out here ([`crate::bout_means`]).

use crate::{bout_means, pooled_pairs, Bouts, Verdict, Versus, POWER};
use anyhow::{bail, Result};
use cryptospeed_model::{Measurement, Op, RunRecord};
use cryptospeed_stats as stats;
use serde::Serialize;

/// One side of a pair: a primitive, optionally at one message size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellSel {
    pub primitive: String,
    pub bytes: Option<u64>,
}

/// Reads `A:B`, each `PRIMITIVE` or `PRIMITIVE@BYTES`.
pub fn parse_pair(spec: &str) -> Result<(CellSel, CellSel)> {
    let Some((a, b)) = spec.split_once(':') else {
        bail!("--pair-cells wants A:B (e.g. tls13-x25519-ecdsa-p256:tls13-x25519mlkem768-ecdsa-p256 or sha256@16:sha256@64), got '{spec}'");
    };
    Ok((sel(a)?, sel(b)?))
}

fn sel(s: &str) -> Result<CellSel> {
    let (primitive, bytes) = match s.split_once('@') {
        Some((p, n)) => match n.parse() {
            Ok(n) => (p, Some(n)),
            Err(_) => bail!("--pair-cells: '{n}' in '{s}' is not a message size in bytes"),
        },
        None => (s, None),
    };
    if primitive.is_empty() {
        bail!("--pair-cells: empty primitive in '{s}'");
    }
    Ok(CellSel {
        primitive: primitive.to_string(),
        bytes,
    })
}

/// B against A in one column for one operation (and size).
#[derive(Debug, Clone, Serialize)]
pub struct CellPair {
    pub variant: String,
    pub op: Op,
    pub bytes_a: Option<u64>,
    pub bytes_b: Option<u64>,
    /// Rates (ops/s or bytes/s) of A and B, the first run's figures.
    pub rate_a: f64,
    pub rate_b: f64,
    /// Rounds that held a bout of both cells.
    pub pairs: usize,
    /// The paired test: `ratio` is B's rate over A's (below 1: B slower), as `compare` prints.
    pub versus: Versus,
    /// B's time per operation over A's (the cost of B), with its interval: 1 / `versus.ratio`.
    pub cost: f64,
    pub cost_ci: (f64, f64),
}

fn matches(m: &Measurement, s: &CellSel) -> bool {
    m.status.has_numbers()
        && m.cell.misalign == 0
        && m.cell.primitive == s.primitive
        && s.bytes.is_none_or(|b| m.cell.bytes == Some(b))
}

/// Every (variant, operation, size) that holds both A and B in the first run, compared on the
/// paired bouts of all `records`; a B without an explicit size pairs with A's size. Sorted by
/// variant as the run lists them, then operation.
pub fn pair_cells(
    records: &[RunRecord],
    a: &CellSel,
    b: &CellSel,
    alpha: f64,
    resolution: f64,
) -> Vec<CellPair> {
    let Some(first) = records.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for va in first.measurements.iter() {
        let ma = &va.measurement;
        if !matches(ma, a) {
            continue;
        }
        let b_bytes = b.bytes.or(ma.cell.bytes);
        let find_b = |r: &RunRecord, variant: &str| -> Option<Measurement> {
            r.measurements
                .iter()
                .find(|vb| {
                    vb.variant == variant
                        && vb.measurement.cell.op == ma.cell.op
                        && vb.measurement.cell.bytes == b_bytes
                        && matches(&vb.measurement, b)
                })
                .map(|vb| vb.measurement.clone())
        };
        let Some(mb) = find_b(first, &va.variant) else {
            continue;
        };
        let find_a = |r: &RunRecord| -> Option<Measurement> {
            r.measurements
                .iter()
                .find(|x| {
                    x.variant == va.variant
                        && x.measurement.cell == ma.cell
                        && x.measurement.status.has_numbers()
                })
                .map(|x| x.measurement.clone())
        };
        let bouts: Vec<(Bouts, Bouts)> = records
            .iter()
            .filter_map(|r| {
                let xa = find_a(r)?;
                let xb = find_b(r, &va.variant)?;
                Some((bout_means(&xa, 1.0), bout_means(&xb, 1.0)))
            })
            .collect();
        let (ba, bb) = pooled_pairs(bouts.iter().map(|(x, y)| (&x[..], &y[..])));
        // paired_ratio(base, cand) is base time / cand time: A's over B's, B's rate over A's.
        let Some(r) = stats::paired_ratio(&ba, &bb, 1.0 - alpha) else {
            continue;
        };
        let pairs = ba
            .iter()
            .filter(|(id, _)| bb.iter().any(|(j, _)| j == id))
            .count();
        let versus = paired_versus(&r, alpha, resolution);
        out.push(CellPair {
            variant: va.variant.clone(),
            op: ma.cell.op,
            bytes_a: ma.cell.bytes,
            bytes_b: b_bytes,
            rate_a: ma.rate().unwrap_or(f64::NAN),
            rate_b: mb.rate().unwrap_or(f64::NAN),
            pairs,
            versus,
            cost: 1.0 / r.ratio,
            cost_ci: (1.0 / r.ci.1, 1.0 / r.ci.0),
        });
    }
    out
}

/// The paired test's outcome as `compare` states it (rate of B over A), judged at `resolution`.
fn paired_versus(r: &stats::RatioEstimate, alpha: f64, resolution: f64) -> Versus {
    let mut versus = Versus {
        ratio: r.ratio,
        ratio_ci: Some(r.ci),
        p: Some(r.p),
        test: Some("paired bouts"),
        significant: Some(r.p < alpha),
        detectable: Some(r.detectable(alpha, POWER)),
        verdict: Verdict::Unknown,
    };
    versus.verdict = versus.judge(resolution);
    versus
}

/// The verdict about B, in words: `slower`/`faster` (significant), `same` (`~`: no change of
/// the resolution went unseen) or `?` (can't tell).
pub fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::Same => "same",
        Verdict::Unknown => "?",
    }
}

/// A text (or markdown) table: one row per column and operation.
pub fn render(pairs: &[CellPair], a: &CellSel, b: &CellSel, markdown: bool) -> String {
    let name = |s: &CellSel| match s.bytes {
        Some(n) => format!("{}@{n}", s.primitive),
        None => s.primitive.clone(),
    };
    let head = [
        "column",
        "op",
        &format!("A {}/s", name(a)),
        &format!("B {}/s", name(b)),
        "time B/A",
        "95% interval",
        "p",
        "pairs",
        "B is",
    ]
    .map(str::to_string);
    let rows: Vec<[String; 9]> = pairs
        .iter()
        .map(|p| {
            [
                p.variant.clone(),
                p.op.to_string(),
                format!("{:.1}", p.rate_a),
                format!("{:.1}", p.rate_b),
                format!("{:.3}x", p.cost),
                format!("{:.3}-{:.3}", p.cost_ci.0, p.cost_ci.1),
                format!("{:.3}", p.versus.p.unwrap_or(f64::NAN)),
                p.pairs.to_string(),
                verdict_word(p.versus.verdict).to_string(),
            ]
        })
        .collect();
    table(&head, &rows, markdown)
}

fn table(head: &[String; 9], rows: &[[String; 9]], markdown: bool) -> String {
    let mut width = head.clone().map(|h| h.len());
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &[String; 9]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(width)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        match markdown {
            true => format!("| {} |", padded.join(" | ")),
            false => padded.join("  ").trim_end().to_string(),
        }
    };
    let mut out = vec![line(head)];
    if markdown {
        out.push(format!("|{}|", width.map(|w| "-".repeat(w + 2)).join("|")));
    }
    out.extend(rows.iter().map(line));
    out.join("\n") + "\n"
}
