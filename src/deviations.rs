//! The declared deviations (`DECLARED` beside each implementation in crates/impls) of the cells a
//! document shows, handed to the report crate as plain data: the report cannot see the
//! implementations, and numbers and places what it is given (crates/report footnotes.rs). And
//! the other way a stored figure can differ from a new one: the catalog's definition of its
//! operation changed after it was measured.

use cryptospeed_compare::Comparison;
use cryptospeed_model::{Op, RunRecord};
use cryptospeed_query::StoredSide;
use cryptospeed_report::{Deviation, Footnotes};

/// The deviation `implementation` declares for `op` of `primitive`, if any.
pub fn declared(implementation: &str, primitive: &str, op: Op) -> Option<&'static str> {
    let p = cryptospeed_catalog::lookup(primitive)?;
    cryptospeed_impls::declared::of(implementation, p, op)?.deviation()
}

/// Adds `column`'s deviation for the cell, once.
fn add(list: &mut Vec<Deviation>, column: &str, implementation: &str, primitive: &str, op: Op) {
    let Some(text) = declared(implementation, primitive, op) else {
        return;
    };
    let d = Deviation {
        column: column.to_string(),
        primitive: primitive.to_string(),
        op,
        text: text.to_string(),
    };
    if !list.contains(&d) {
        list.push(d);
    }
}

/// An imported run's `read as` note (`import --as FROM=TO`) as the deviation of its TO cells:
/// their figures are another primitive's.
fn add_read_as(
    list: &mut Vec<Deviation>,
    column: &str,
    header: &[(String, String)],
    primitive: &str,
    op: Op,
) {
    let stored_as = format!(" stored as {primitive} ");
    let notes = header
        .iter()
        .filter(|(k, v)| k == "read as" && v.contains(&stored_as));
    for (_, text) in notes {
        let d = Deviation {
            column: column.to_string(),
            primitive: primitive.to_string(),
            op,
            text: text.clone(),
        };
        if !list.contains(&d) {
            list.push(d);
        }
    }
}

/// `VARIANT PRIMITIVE OP was measured under ml-kem/decaps v1; the catalog now defines … v2`, once
/// per cell of stored run `run` whose definition is not the one this build's catalog gives.
pub fn changed_definitions(
    store: &dyn cryptospeed_store::Store,
    run: i64,
) -> anyhow::Result<Vec<String>> {
    let mut lines = Vec::new();
    for s in store.definitions(run)? {
        let Some(then) = s.definition else { continue };
        let p = cryptospeed_catalog::lookup(&s.primitive);
        let now = p.and_then(|p| p.definition(s.op));
        let now = now.map(|d| format!("{} v{}", d.id, d.version));
        if now.as_deref() == Some(then.as_str()) {
            continue;
        }
        let now = now.unwrap_or_else(|| "none".into());
        let line = format!(
            "{} {} {} was measured under {then}; the catalog now defines {now}",
            s.variant, s.primitive, s.op
        );
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    Ok(lines)
}

/// [`changed_definitions`] of every stored run among `records`, each run once, as notes.
pub fn changed_in_runs<'a>(
    store: &dyn cryptospeed_store::Store,
    records: impl Iterator<Item = &'a RunRecord>,
) -> anyhow::Result<Vec<String>> {
    let mut ids: Vec<i64> = records.map(|r| r.run.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut notes = Vec::new();
    for id in ids {
        for line in changed_definitions(store, id)? {
            notes.push(format!(
                "note: run {id}: {line} (`cryptospeed list --json` prints it)"
            ));
        }
    }
    Ok(notes)
}

/// A run's footnotes: every cell with figures whose implementation declares a deviation. An
/// imported run's figures come from the logging tool's own loop, so it has none of those; its
/// cells stored under another primitive's name (`import --as`) say so.
pub fn of_run(record: &RunRecord) -> Footnotes {
    let mut list = Vec::new();
    if let Some(imported) = &record.run.imported {
        for m in record.measurements.iter().map(|vm| &vm.measurement) {
            let column = &record.variants[0].label;
            add_read_as(
                &mut list,
                column,
                &imported.header,
                &m.cell.primitive,
                m.cell.op,
            );
        }
        return Footnotes::new(list);
    }
    for vm in &record.measurements {
        let (m, name) = (&vm.measurement, vm.implementation.as_str());
        // Declared by the library the variant loaded (an `openssl:PATH` that is AWS-LC: AWS-LC's).
        let variant = record.variants.iter().find(|v| v.label == vm.variant);
        let declaring = variant.map_or(name, cryptospeed_impls::declared::declaring_name);
        if m.status.has_numbers() {
            add(&mut list, name, declaring, &m.cell.primitive, m.cell.op);
        }
    }
    Footnotes::new(list)
}

/// The footnotes of several runs (the HTML report's), each deviation once.
pub fn of_runs(records: &[RunRecord]) -> Footnotes {
    let mut list = Vec::new();
    for d in records.iter().flat_map(|r| of_run(r).list) {
        if !list.contains(&d) {
            list.push(d);
        }
    }
    Footnotes::new(list)
}

/// A comparison's footnotes, row by row: each side's figures whose implementation (that of the
/// variant the side keeps) declares a deviation.
pub fn of_comparison(c: &Comparison, stored: &[StoredSide]) -> Footnotes {
    let implementations: Vec<Option<&str>> = c
        .sides
        .iter()
        .map(|s| implementation_of(stored, &s.name))
        .collect();
    let mut list = Vec::new();
    for r in &c.rows {
        for (i, side) in c.sides.iter().enumerate() {
            if let (Some(_), Some(name)) = (&r.values[i], implementations[i]) {
                add(&mut list, &side.name, name, &r.key.primitive, r.key.op);
            }
            if r.values[i].is_some() {
                let imported = stored.iter().filter(|s| s.name == side.name);
                let headers = imported
                    .flat_map(|s| &s.records)
                    .filter_map(|r| r.run.imported.as_ref());
                for h in headers {
                    add_read_as(&mut list, &side.name, &h.header, &r.key.primitive, r.key.op);
                }
            }
        }
    }
    Footnotes::new(list)
}

/// The implementation of the stored side called `name` whose declarations hold: its variant's,
/// as its runs recorded it, or the library that variant loaded (declared.rs `declaring_name`).
fn implementation_of<'a>(stored: &'a [StoredSide], name: &str) -> Option<&'a str> {
    let side = stored.iter().find(|s| s.name == name)?;
    let mut variants = side.records.iter().flat_map(|r| &r.variants);
    let variant = variants.find(|v| v.label == side.variant)?;
    Some(cryptospeed_impls::declared::declaring_name(variant))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_deviation_is_found_and_a_conforming_cell_is_not() {
        assert!(declared("aws-lc", "ml-kem-768", Op::Decaps).is_some());
        assert!(declared("ring", "rsa-2048", Op::Sign).is_some());
        assert_eq!(declared("openssl", "sha256", Op::Hash), None);
        assert_eq!(declared("no-such-column", "ml-kem-768", Op::Decaps), None);
    }
}
