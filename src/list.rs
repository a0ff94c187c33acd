//! `cryptospeed list` and `verify`: print what `cryptospeed_runner::verify` finds — each
//! implementation's primitives, known-answer results and agreement across implementations.

use crate::session::interrupt_flag;
use anyhow::Result;
use clap::Args;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::protocol::AvailabilityEntry;
use cryptospeed_runner::verify::{self, Check, Column};

#[derive(Args)]
pub struct ListArgs {
    /// Implementation to ask (NAME or NAME:LIBRARY).
    #[arg(long = "impl", default_value = "openssl")]
    implementation: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Primitives or groups to verify (default: all).
    #[arg(long, short, value_name = "LIST")]
    algorithms: Vec<String>,
    /// Implementation to verify (NAME or NAME:LIBRARY).
    #[arg(long = "impl", default_value = "openssl")]
    implementation: String,
}

fn ops_text(p: &Primitive) -> String {
    let ops: Vec<&str> = p.ops().iter().map(|o| o.as_str()).collect();
    ops.join(",")
}

pub fn list(a: ListArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let all: Vec<&Primitive> = cryptospeed_catalog::all().iter().collect();
    let mut columns = verify::start(&a.implementation, &cancel)?;
    let entries = verify::availability_matrix(&mut columns, &all, &cancel);
    let names: Vec<(String, String)> = columns
        .iter()
        .map(|c| (c.label.clone(), c.name.clone()))
        .collect();
    columns.into_iter().for_each(Column::quit);
    if a.json {
        print_list_json(&all, &names, &entries)?;
    } else if names.len() == 1 {
        print_one_column(&all, &names[0], &entries[0]);
    } else {
        print_matrix(&all, &names, &entries);
    }
    Ok(0)
}

fn print_list_json(
    all: &[&Primitive],
    names: &[(String, String)],
    entries: &[Vec<AvailabilityEntry>],
) -> Result<()> {
    let rows: Vec<_> = all
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let by_impl: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .zip(entries)
                .map(|((_, name), e)| {
                    let cell = serde_json::json!({"available": e[i].available, "reason": e[i].reason});
                    (name.clone(), cell)
                })
                .collect();
            serde_json::json!({"primitive": p.id, "aliases": p.aliases, "ops": p.ops(), "groups": p.groups, "implementations": by_impl})
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

fn print_one_column(
    all: &[&Primitive],
    (label, name): &(String, String),
    entries: &[AvailabilityEntry],
) {
    println!("{label}");
    let mut table = crate::session::table(&["primitive", "operations", "aliases", name.as_str()]);
    for (p, e) in all.iter().zip(entries) {
        let status = match &e.reason {
            _ if e.available => "available".to_string(),
            reason => format!("unavailable: {}", reason.clone().unwrap_or_default()),
        };
        table.add_row([p.id.to_string(), ops_text(p), p.aliases.join(", "), status]);
    }
    println!("{table}");
    let available = entries.iter().filter(|e| e.available).count();
    println!("{available} of {} primitives available", entries.len());
}

fn print_matrix(
    all: &[&Primitive],
    names: &[(String, String)],
    entries: &[Vec<AvailabilityEntry>],
) {
    let mut header = vec!["primitive"];
    header.extend(names.iter().map(|(_, name)| name.as_str()));
    let mut table = crate::session::table(&header);
    for (i, p) in all.iter().enumerate() {
        let mut row = vec![p.id.to_string()];
        row.extend(
            entries
                .iter()
                .map(|e| if e[i].available { "yes" } else { "n/a" }.to_string()),
        );
        table.add_row(row);
    }
    println!("{table}");
    for ((label, name), entries) in names.iter().zip(entries) {
        let n = entries.iter().filter(|e| e.available).count();
        let cannot_start = |e: &&AvailabilityEntry| {
            !e.available
                && e.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("cannot start"))
        };
        match entries
            .iter()
            .find(cannot_start)
            .and_then(|e| e.reason.clone())
        {
            Some(w) if n == 0 => println!("{name}: not available: {w}"),
            _ => println!("{name}: {n} of {} primitives ({label})", entries.len()),
        }
    }
    println!("`cryptospeed list --impl NAME` gives each unavailable primitive's reason");
}

pub fn verify(a: VerifyArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let primitives = cryptospeed_catalog::plan::select_list(&a.algorithms)?;
    let mut columns = verify::start(&a.implementation, &cancel)?;
    for c in &columns {
        if let Err(e) = &c.worker {
            eprintln!("cryptospeed: {}: {e}", c.selector);
        }
    }
    verify::known_answers(&mut columns, &primitives, &cancel)?;
    let ok = if columns.len() == 1 {
        print_known_answers(&columns[0], &primitives)
    } else {
        let agreement = verify::agreement(&mut columns, &primitives, &cancel);
        print_agreement(&columns, &primitives, &agreement)
    };
    columns.into_iter().for_each(Column::quit);
    Ok(if ok { 0 } else { 1 })
}

/// One implementation: each primitive's known-answer result. True when none failed.
fn print_known_answers(c: &Column, primitives: &[&Primitive]) -> bool {
    let mut table = crate::session::table(&["primitive", "result", "vectors / reason"]);
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
    println!("{}", c.label);
    println!("{table}");
    let unavailable = primitives.len() - passed - failed;
    println!("{passed} passed, {failed} failed, {unavailable} unavailable");
    failed == 0
}

/// Several implementations: the agreement matrix and its problems. True when there are none.
fn print_agreement(
    columns: &[Column],
    primitives: &[&Primitive],
    agreement: &verify::Agreement,
) -> bool {
    let mut header = vec!["primitive"];
    header.extend(columns.iter().map(|c| c.name.as_str()));
    let mut table = crate::session::table(&header);
    for (p, row) in primitives.iter().zip(&agreement.rows) {
        let mut r = vec![p.id];
        r.extend(row.iter().map(|c| c.as_str()));
        table.add_row(r);
    }
    println!("{table}");
    println!(
        "agrees: known-answer tests pass and the output equals the other implementations' on the \
         same inputs (ECDSA: its signature verifies in every other one); alone: known-answer tests \
         pass, no second implementation to compare with; kat: no cross-library output to compare \
         (DSA, FFDH); n/a: not offered"
    );
    for c in columns {
        println!("{}: {}", c.name, c.label);
    }
    for problem in &agreement.problems {
        println!("problem: {problem}");
    }
    let checks = agreement
        .rows
        .iter()
        .flatten()
        .filter(|c| **c != Check::NotOffered)
        .count();
    println!(
        "{checks} checks, {} problems across {} implementations",
        agreement.problems.len(),
        columns.len()
    );
    agreement.problems.is_empty()
}
