//! `list` and `verify` as text (and `list --json`): what [`crate::verify`] found, written the
//! way the commands print it, for any front end that shows it.

use crate::verify::{Agreement, Check, Column};
use cryptospeed_catalog::definition::Conformance;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::protocol::AvailabilityEntry;
use cryptospeed_impls::declared;
use std::fmt::Write;

/// Each operation's definition, by operation name (catalog definitions.rs).
fn definitions_json(p: &Primitive) -> serde_json::Value {
    let by_op: serde_json::Map<String, serde_json::Value> = p
        .ops()
        .iter()
        .filter_map(|&op| {
            Some((
                op.to_string(),
                serde_json::to_value(p.definition(op)?).ok()?,
            ))
        })
        .collect();
    serde_json::Value::Object(by_op)
}

/// Column `name`'s conformance per operation of `p`: `"conforms"`, `{"deviates": why}` or
/// `{"not-offered": why}`.
fn conformance_json(name: &str, p: &Primitive) -> serde_json::Value {
    let by_op: serde_json::Map<String, serde_json::Value> = p
        .ops()
        .iter()
        .filter_map(|&op| {
            let c = declared::of(name, p, op)?;
            Some((op.to_string(), serde_json::to_value(c).ok()?))
        })
        .collect();
    serde_json::Value::Object(by_op)
}

/// The operations of `p` where column `name` departs from the definition: `(op, text)`.
pub fn departures(name: &str, p: &Primitive) -> Vec<(String, String)> {
    p.ops()
        .iter()
        .filter_map(|&op| match declared::of(name, p, op)? {
            Conformance::Conforms => None,
            Conformance::Deviates(why) | Conformance::Departs(_, why) => {
                Some((op.to_string(), why.to_string()))
            }
            Conformance::NotOffered(why) => Some((op.to_string(), format!("not timed: {why}"))),
        })
        .collect()
}

/// The deviations of the available primitives of one column, one line each.
fn deviation_lines(
    out: &mut String,
    all: &[&Primitive],
    name: &str,
    entries: &[AvailabilityEntry],
) {
    let mut n = 0;
    for (p, _) in all.iter().zip(entries).filter(|(_, e)| e.available) {
        for (op, why) in departures(name, p) {
            let _ = writeln!(out, "  {name} {} {op}: {why}", p.id);
            n += 1;
        }
    }
    if n == 0 {
        let _ = writeln!(out, "  {name}: every operation conforms to its definition");
    }
}

fn table(header: &[&str]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    t.set_header(header.to_vec());
    t
}

fn ops_text(p: &Primitive) -> String {
    let ops: Vec<&str> = p.ops().iter().map(|o| o.as_str()).collect();
    ops.join(",")
}

/// `declaring[i]` is the registry name whose declarations hold for column `i`'s loaded library
/// (verify.rs `Column::declaring`); a cell says `"declared-as"` where it is not the column's.
pub fn list_json(
    out: &mut String,
    all: &[&Primitive],
    names: &[(String, String)],
    declaring: &[String],
    entries: &[Vec<AvailabilityEntry>],
) -> serde_json::Result<()> {
    let rows: Vec<_> = all
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let by_impl: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .zip(entries)
                .zip(declaring)
                .map(|(((_, name), e), declared_as)| {
                    let mut cell = serde_json::json!({"available": e[i].available, "reason": e[i].reason,
                        "operations": conformance_json(declared_as, p)});
                    if declared_as != name {
                        cell["declared-as"] = declared_as.as_str().into();
                    }
                    if let Some(library) = &e[i].library {
                        cell["library"] = library.as_str().into();
                    }
                    (name.clone(), cell)
                })
                .collect();
            serde_json::json!({"primitive": p.id, "aliases": p.aliases, "ops": p.ops(), "groups": p.groups,
                "definitions": definitions_json(p), "implementations": by_impl})
        })
        .collect();
    let _ = writeln!(out, "{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

pub fn list_one_column(
    out: &mut String,
    all: &[&Primitive],
    (label, name): &(String, String),
    entries: &[AvailabilityEntry],
) {
    let _ = writeln!(out, "{label}");
    let mut table = table(&["primitive", "operations", "aliases", name.as_str()]);
    for (p, e) in all.iter().zip(entries) {
        let status = match &e.reason {
            _ if e.available => match &e.library {
                Some(library) => format!("available: {library}"),
                None => "available".to_string(),
            },
            reason => format!("unavailable: {}", reason.clone().unwrap_or_default()),
        };
        table.add_row([p.id.to_string(), ops_text(p), p.aliases.join(", "), status]);
    }
    let _ = writeln!(out, "{table}");
    let available = entries.iter().filter(|e| e.available).count();
    let _ = writeln!(out, "{available} of {} primitives available", entries.len());
    let _ = writeln!(
        out,
        "\nwhere {name} departs from the definitions (`list --json` has them all):"
    );
    deviation_lines(out, all, name, entries);
}

/// Every column side by side: `yes` where a primitive is available and conforms, `yes*` where
/// it departs from a definition somewhere (`reasons` lists each departure under the table).
pub fn list_matrix(
    out: &mut String,
    all: &[&Primitive],
    names: &[(String, String)],
    entries: &[Vec<AvailabilityEntry>],
    reasons: bool,
) {
    let mut header = vec!["primitive"];
    header.extend(names.iter().map(|(_, name)| name.as_str()));
    let mut table = table(&header);
    for (i, p) in all.iter().enumerate() {
        let mut row = vec![p.id.to_string()];
        row.extend(names.iter().zip(entries).map(|((_, name), e)| {
            match (e[i].available, departures(name, p).is_empty()) {
                (false, _) => "n/a",
                (true, true) => "yes",
                (true, false) => "yes*",
            }
            .to_string()
        }));
        table.add_row(row);
    }
    let _ = writeln!(out, "{table}");
    for ((label, name), entries) in names.iter().zip(entries) {
        let n = entries.iter().filter(|e| e.available).count();
        let cannot_start = |e: &&AvailabilityEntry| {
            !e.available
                && e.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("cannot start"))
        };
        let _ = match entries
            .iter()
            .find(cannot_start)
            .and_then(|e| e.reason.clone())
        {
            Some(w) if n == 0 => writeln!(out, "{name}: not available: {w}"),
            _ => writeln!(out, "{name}: {n} of {} primitives ({label})", entries.len()),
        };
    }
    let _ = writeln!(
        out,
        "`cryptospeed list --impl NAME` gives each unavailable primitive's reason; \
         yes* departs from a definition somewhere ({})",
        if reasons {
            "below"
        } else {
            "`--reasons` says where"
        }
    );
    if reasons {
        for ((_, name), e) in names.iter().zip(entries) {
            deviation_lines(out, all, name, e);
        }
    }
}

/// One implementation: each primitive's known-answer result. True when none failed.
pub fn known_answers(out: &mut String, c: &Column, primitives: &[&Primitive]) -> bool {
    let mut table = table(&["primitive", "result", "vectors / reason"]);
    let (mut passed, mut failed) = (0, 0);
    for p in primitives {
        let (result, detail) = match c.kat.get(p.id) {
            Some(Ok(d)) => ("pass", d.as_str()),
            Some(Err(d)) => ("FAIL", d.as_str()),
            None => ("n/a", "not offered"),
        };
        passed += usize::from(result == "pass");
        failed += usize::from(result == "FAIL");
        table.add_row([p.id, result, detail]);
    }
    let _ = writeln!(out, "{}", c.label);
    let _ = writeln!(out, "{table}");
    let unavailable = primitives.len() - passed - failed;
    let _ = writeln!(
        out,
        "{passed} passed, {failed} failed, {unavailable} unavailable"
    );
    failed == 0
}

/// Several implementations: the agreement matrix and its problems. True when there are none.
pub fn agreement(
    out: &mut String,
    columns: &[Column],
    primitives: &[&Primitive],
    agreement: &Agreement,
) -> bool {
    let mut header = vec!["primitive"];
    header.extend(columns.iter().map(|c| c.name.as_str()));
    let mut table = table(&header);
    for (p, row) in primitives.iter().zip(&agreement.rows) {
        let mut r = vec![p.id];
        r.extend(row.iter().map(|c| c.as_str()));
        table.add_row(r);
    }
    let _ = writeln!(out, "{table}");
    let _ = writeln!(
        out,
        "agrees: known-answer tests pass and the output equals the other implementations' on the \
         same inputs (ECDSA: its signature verifies in every other one); alone: known-answer tests \
         pass, no second implementation to compare with; kat: no cross-library output to compare \
         (DSA, FFDH); n/a: not offered"
    );
    for c in columns {
        let _ = writeln!(out, "{}: {}", c.name, c.label);
    }
    for problem in &agreement.problems {
        let _ = writeln!(out, "problem: {problem}");
    }
    let checks = agreement
        .rows
        .iter()
        .flatten()
        .filter(|c| **c != Check::NotOffered)
        .count();
    let _ = writeln!(
        out,
        "{checks} checks, {} problems across {} implementations",
        agreement.problems.len(),
        columns.len()
    );
    agreement.problems.is_empty()
}
