//! A handshake figure explained by its primitives: for each TLS handshake cell of a run, the
//! sum of the primitive operations each side computes (the catalog's `tls::work` list, priced
//! with the same run's figures from the column of the library the TLS stack calls for its
//! cryptography) and the residual, the record layer, parsing and the state machine; with the
//! bytes each flight put on the wire. `run` and `show` print it after the table.

use cryptospeed_catalog::tls::work::{self, End, Work};
use cryptospeed_catalog::{lookup, Algorithm, Primitive};
use cryptospeed_model::{Measurement, Op, RunRecord, VariantMeasurement};
use std::fmt::Write;

/// The library whose primitive cells price a TLS column's work: rustls calls its provider
/// (`rustls-aws-lc-rs` → `aws-lc-rs`); every other TLS column is its own library's column.
pub fn primitive_library(tls_implementation: &str) -> &str {
    tls_implementation
        .strip_prefix("rustls-")
        .unwrap_or(tls_implementation)
}

/// What tells apart builds of one library in a run's labels: a feature mask (`+MASK`), a
/// replica or duplicate tag (`#TAG`); empty when none.
fn label_suffix(label: &str) -> &str {
    label.find(['+', '#']).map_or("", |i| &label[i..])
}

/// The one variant of a run whose primitive cells price `vm`'s handshake: for a rustls column,
/// its provider's variant with the same mask/tag suffix; for every other column, the very same
/// variant. `Err` says why none is used: none in the run, or more than one (ambiguous), so two
/// builds of one library are never priced from each other's cells.
pub fn primitive_column(
    ms: &[VariantMeasurement],
    vm: &VariantMeasurement,
) -> Result<String, String> {
    let library = primitive_library(&vm.implementation);
    if library == vm.implementation {
        return Ok(vm.variant.clone());
    }
    let suffix = label_suffix(&vm.variant);
    let mut found: Vec<&str> = Vec::new();
    for m in ms {
        if m.implementation == library
            && label_suffix(&m.variant) == suffix
            && !found.contains(&m.variant.as_str())
        {
            found.push(&m.variant);
        }
    }
    match found.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(format!("no {library}{suffix} column in this run")),
        many => Err(format!(
            "ambiguous: {} all match {library}{suffix}; not priced",
            many.join(", ")
        )),
    }
}

/// A time per operation with its 95% interval's half-width, microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Micros {
    pub us: f64,
    pub half: f64,
}

impl Micros {
    fn of(m: &Measurement) -> Option<Micros> {
        let s = m.summary.filter(|_| m.status.has_numbers())?;
        Some(Micros {
            us: s.median / 1e3,
            half: (s.ci_hi - s.ci_lo) / 2.0 / 1e3,
        })
    }
}

/// One line of a side's sum: the work, its cell's time per call, or `None` when the run has no
/// such cell.
pub struct Priced {
    pub work: Work,
    pub each: Option<Micros>,
}

/// One side (or both) of one handshake cell: measured, the primitives' sum, their lines, and
/// the variant they were priced from (`Err`: why none was).
pub struct Explained {
    pub measured: Option<Micros>,
    pub priced_from: Result<String, String>,
    pub lines: Vec<Priced>,
}

impl Explained {
    /// The priced lines' sum (its half-width from independent intervals) and whether every
    /// line was priced.
    pub fn sum(&self) -> (Micros, bool) {
        let mut us = 0.0;
        let mut var = 0.0;
        for l in &self.lines {
            if let Some(e) = l.each {
                us += e.us * l.work.count as f64;
                var += (e.half * l.work.count as f64).powi(2);
            }
        }
        let complete = self.lines.iter().all(|l| l.each.is_some());
        (
            Micros {
                us,
                half: var.sqrt(),
            },
            complete,
        )
    }
}

fn find<'a>(
    ms: &'a [VariantMeasurement],
    variant: &str,
    w: &Work,
) -> Option<&'a VariantMeasurement> {
    ms.iter().find(|vm| {
        let c = &vm.measurement.cell;
        vm.variant == variant
            && c.op == w.op
            && c.bytes == w.bytes.map(u64::from)
            && lookup(&c.primitive).map(|p| p.id) == Some(w.primitive)
    })
}

/// One side of `vm`'s handshake (its column and primitive), priced from a run's cells `ms`.
pub fn explain_side(
    ms: &[VariantMeasurement],
    vm: &VariantMeasurement,
    end: End,
    wire_bytes: u64,
) -> Option<Explained> {
    let p = lookup(&vm.measurement.cell.primitive)?;
    let Algorithm::Tls13Handshake { group, cert } = p.algorithm else {
        return None;
    };
    let op = match end {
        End::Client => Op::HandshakeClient,
        End::Server => Op::HandshakeServer,
    };
    let measured = ms
        .iter()
        .find(|m| {
            m.variant == vm.variant
                && m.measurement.cell.primitive == vm.measurement.cell.primitive
                && m.measurement.cell.op == op
        })
        .and_then(|m| Micros::of(&m.measurement));
    let priced_from = primitive_column(ms, vm);
    let lines = work::side(group, cert, end, wire_bytes)?
        .into_iter()
        .map(|w| Priced {
            each: priced_from
                .as_deref()
                .ok()
                .and_then(|v| find(ms, v, &w))
                .and_then(|m| Micros::of(&m.measurement)),
            work: w,
        })
        .collect();
    Some(Explained {
        measured,
        priced_from,
        lines,
    })
}

/// The bytes each step of one handshake wrote (ClientHello, server's flight, client's
/// Finished), counted from the in-memory transport of a rustls column; `None` elsewhere.
pub fn flights(tls_column: &str, p: &Primitive) -> Option<Vec<usize>> {
    super::rustls::checked_flights(tls_column, p).ok()
}

/// The flights `vm`'s column counted: those its worker's check carried with any of the run's
/// cells of that variant and primitive (every column that counts them: rustls, the libssls),
/// else a rustls column's counted here (a run stored without them).
pub fn counted_flights(
    ms: &[VariantMeasurement],
    vm: &VariantMeasurement,
    p: &Primitive,
) -> Option<Vec<usize>> {
    ms.iter()
        .find(|m| {
            m.variant == vm.variant
                && m.measurement.cell.primitive == vm.measurement.cell.primitive
                && !m.measurement.flights.is_empty()
        })
        .map(|m| m.measurement.flights.iter().map(|&n| n as usize).collect())
        .or_else(|| flights(&vm.implementation, p))
}

/// The text section `run` and `show` print after the table; empty when the run has no
/// handshake cell.
pub fn section(record: &RunRecord) -> String {
    section_of(&record.measurements)
}

/// [`section`] of a run's cells.
pub fn section_of(ms: &[VariantMeasurement]) -> String {
    let mut out = String::new();
    let mut seen = Vec::new();
    for vm in ms {
        let c = &vm.measurement.cell;
        if !matches!(
            c.op,
            Op::HandshakeClient | Op::HandshakeServer | Op::Handshake
        ) || !vm.measurement.status.has_numbers()
            || seen.contains(&(&vm.variant, &c.primitive))
        {
            continue;
        }
        seen.push((&vm.variant, &c.primitive));
        if out.is_empty() {
            out.push_str(HEADER);
        }
        cell(&mut out, ms, vm);
    }
    out
}

const HEADER: &str =
    "\nTLS handshakes explained: each side's primitive operations priced from this \
run's cells of the library the TLS column calls, and the residual (record layer, parsing, state \
machine); microseconds per handshake, ± the 95% interval\n";

fn cell(out: &mut String, ms: &[VariantMeasurement], vm: &VariantMeasurement) {
    let Some(p) = lookup(&vm.measurement.cell.primitive) else {
        return;
    };
    let fl = counted_flights(ms, vm, p);
    // The transcript's length where this column's bytes are not counted: rustls's handshake's.
    let wire = fl
        .clone()
        .or_else(|| flights("rustls-aws-lc-rs", p))
        .map_or(0, |f| f.iter().sum::<usize>()) as u64;
    let column = primitive_column(ms, vm).unwrap_or_else(|why| why);
    let _ = writeln!(out, "\n{} {} (primitives from {column})", p.id, vm.variant);
    for (end, name) in [(End::Client, "client"), (End::Server, "server")] {
        if let Some(e) = explain_side(ms, vm, end, wire.max(1)) {
            side_lines(out, name, &e);
        }
    }
    match fl {
        Some(f) if f.len() >= 3 => {
            let _ = writeln!(
                out,
                "  bytes on the wire: ClientHello {}, server's flight {}, client's Finished {}; total {wire}",
                f[0], f[1], f[2]
            );
        }
        _ => {
            let _ = writeln!(out, "  bytes on the wire: not counted for this column");
        }
    }
}

fn side_lines(out: &mut String, name: &str, e: &Explained) {
    let (sum, complete) = e.sum();
    let measured = e.measured.map_or("not in this run".to_string(), |m| {
        format!("{:.1} ±{:.1}", m.us, m.half)
    });
    let residual = match e.measured {
        Some(m) if complete => format!(
            "residual {:.1} ({:.0}%)",
            m.us - sum.us,
            100.0 * (m.us - sum.us) / m.us
        ),
        _ => "residual not known (a primitive is missing)".into(),
    };
    let _ = writeln!(
        out,
        "  {name}: measured {measured}; primitives {:.1} ±{:.1}; {residual}",
        sum.us, sum.half
    );
    for l in &e.lines {
        let w = &l.work;
        let size = w.bytes.map(|b| format!("@{b}")).unwrap_or_default();
        let priced = l.each.map_or("not in this run".into(), |m| {
            format!("{:.2} each, {:.1}", m.us, m.us * w.count as f64)
        });
        let note = if w.note.is_empty() {
            String::new()
        } else {
            format!("  ({})", w.note)
        };
        let _ = writeln!(
            out,
            "    {}{size} {} x{}: {priced}{note}",
            w.primitive, w.op, w.count
        );
    }
}
