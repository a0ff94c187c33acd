//! `cryptospeed list` and `cryptospeed verify`: the catalog against what an implementation
//! offers, and the known-answer tests run on their own.

use crate::session::interrupt_flag;
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_catalog::agreement::AgreementKind;
use cryptospeed_engine::protocol::{AgreementInputs, AvailabilityEntry, Request, Response};
use cryptospeed_engine::worker_client::WorkerClient;
use cryptospeed_runner::ImplChoice;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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

/// Asks a worker which of the primitives it offers.
pub(crate) fn availability(
    worker: &mut WorkerClient,
    primitives: &[&cryptospeed_catalog::Primitive],
    cancel: &AtomicBool,
) -> Result<Vec<AvailabilityEntry>> {
    let ids = primitives.iter().map(|p| p.id.to_string()).collect();
    match worker.request(
        &Request::Availability { primitives: ids },
        Duration::from_secs(300),
        cancel,
    )? {
        Response::Availability { entries } => Ok(entries),
        other => bail!("worker answered the availability request with {other:?}"),
    }
}

fn ops_text(p: &cryptospeed_catalog::Primitive) -> String {
    p.ops()
        .iter()
        .map(|o| o.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Starts a worker per implementation; one that cannot start is reported with its reason.
fn start_all(
    selectors: &str,
    cancel: &AtomicBool,
) -> Result<Vec<(ImplChoice, std::result::Result<WorkerClient, String>)>> {
    Ok(ImplChoice::parse_list(selectors)?
        .into_iter()
        .map(|c| {
            let w = c.start(None, cancel).map_err(|e| format!("{e:#}"));
            (c, w)
        })
        .collect())
}

fn column_name(c: &ImplChoice, w: &std::result::Result<WorkerClient, String>) -> String {
    match w {
        Ok(w) if !w.variant.label.is_empty() => w.variant.label.clone(),
        _ => c.display(),
    }
}

pub fn list(a: ListArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let all: Vec<_> = cryptospeed_catalog::all().iter().collect();
    let mut workers = start_all(&a.implementation, &cancel)?;
    let mut columns = Vec::new();
    for (c, w) in workers.iter_mut() {
        let entries = match w {
            Ok(worker) => availability(worker, &all, &cancel)
                .map_err(|e| format!("{e:#}"))
                .unwrap_or_else(|e| {
                    all.iter()
                        .map(|p| AvailabilityEntry {
                            primitive: p.id.into(),
                            available: false,
                            reason: Some(e.clone()),
                        })
                        .collect()
                }),
            Err(e) => all
                .iter()
                .map(|p| AvailabilityEntry {
                    primitive: p.id.into(),
                    available: false,
                    reason: Some(e.clone()),
                })
                .collect(),
        };
        columns.push((column_name(c, w), c.name.clone(), entries));
    }
    for (_, w) in workers {
        if let Ok(w) = w {
            w.quit();
        }
    }
    if a.json {
        let rows: Vec<_> = all
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let by_impl: serde_json::Map<String, serde_json::Value> = columns
                    .iter()
                    .map(|(_, name, e)| {
                        (
                            name.clone(),
                            serde_json::json!({"available": e[i].available, "reason": e[i].reason}),
                        )
                    })
                    .collect();
                serde_json::json!({"primitive": p.id, "aliases": p.aliases, "ops": p.ops(), "groups": p.groups, "implementations": by_impl})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    if columns.len() == 1 {
        let (label, name, entries) = &columns[0];
        println!("{label}");
        table.set_header(["primitive", "operations", "aliases", name.as_str()]);
        for (p, e) in all.iter().zip(entries) {
            let status = if e.available {
                "available".to_string()
            } else {
                format!("unavailable: {}", e.reason.clone().unwrap_or_default())
            };
            table.add_row([p.id.to_string(), ops_text(p), p.aliases.join(", "), status]);
        }
        println!("{table}");
        let available = entries.iter().filter(|e| e.available).count();
        println!("{available} of {} primitives available", entries.len());
        return Ok(0);
    }
    let mut header = vec!["primitive".to_string()];
    header.extend(columns.iter().map(|(_, name, _)| name.clone()));
    table.set_header(header);
    for (i, p) in all.iter().enumerate() {
        let mut row = vec![p.id.to_string()];
        row.extend(
            columns
                .iter()
                .map(|(_, _, e)| if e[i].available { "yes" } else { "n/a" }.to_string()),
        );
        table.add_row(row);
    }
    println!("{table}");
    for (label, name, entries) in &columns {
        let n = entries.iter().filter(|e| e.available).count();
        let why = entries
            .iter()
            .find(|e| {
                !e.available
                    && e.reason
                        .as_deref()
                        .is_some_and(|r| r.contains("cannot start"))
            })
            .and_then(|e| e.reason.clone());
        match why {
            Some(w) if n == 0 => println!("{name}: not available: {w}"),
            _ => println!("{name}: {n} of {} primitives ({label})", entries.len()),
        }
    }
    println!("`cryptospeed list --impl NAME` gives each unavailable primitive's reason");
    Ok(0)
}

/// One implementation's results in `verify`: KAT outcome per primitive.
struct Verified {
    column: String,
    name: String,
    worker: Option<WorkerClient>,
    kat: std::collections::HashMap<String, std::result::Result<String, String>>,
    unavailable: std::collections::HashSet<String>,
}

pub fn verify(a: VerifyArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let primitives = cryptospeed_catalog::plan::select_list(&a.algorithms)?;
    let mut impls = Vec::new();
    for (c, w) in start_all(&a.implementation, &cancel)? {
        let column = column_name(&c, &w);
        let mut v = Verified {
            column,
            name: c.name.clone(),
            worker: None,
            kat: Default::default(),
            unavailable: Default::default(),
        };
        match w {
            Ok(mut worker) => {
                for e in availability(&mut worker, &primitives, &cancel)? {
                    if !e.available {
                        v.unavailable.insert(e.primitive);
                        continue;
                    }
                    let r = match worker.request(
                        &Request::Verify {
                            primitive: e.primitive.clone(),
                        },
                        Duration::from_secs(600),
                        &cancel,
                    ) {
                        Ok(Response::Verify {
                            ok: true, detail, ..
                        }) => Ok(detail),
                        Ok(Response::Verify { detail, .. }) => Err(detail),
                        Ok(other) => Err(format!("unexpected reply {other:?}")),
                        Err(e) => Err(e.to_string()),
                    };
                    v.kat.insert(e.primitive, r);
                }
                v.worker = Some(worker);
            }
            Err(e) => {
                eprintln!("cryptospeed: {}: {e}", c.display());
                v.unavailable
                    .extend(primitives.iter().map(|p| p.id.to_string()));
            }
        }
        impls.push(v);
    }

    if impls.len() == 1 {
        let v = &impls[0];
        let mut table = comfy_table::Table::new();
        table
            .load_preset(comfy_table::presets::NOTHING)
            .set_header(["primitive", "result", "vectors / reason"]);
        let (mut passed, mut failed) = (0, 0);
        for p in &primitives {
            match v.kat.get(p.id) {
                Some(Ok(d)) => {
                    passed += 1;
                    table.add_row([p.id, "pass", d.as_str()]);
                }
                Some(Err(d)) => {
                    failed += 1;
                    table.add_row([p.id, "FAIL", d.as_str()]);
                }
                None => {
                    table.add_row([p.id, "n/a", "not offered"]);
                }
            }
        }
        println!("{}", v.column);
        println!("{table}");
        println!(
            "{passed} passed, {failed} failed, {} unavailable",
            primitives.len() - passed - failed
        );
        for v in impls {
            if let Some(w) = v.worker {
                w.quit();
            }
        }
        return Ok(if failed > 0 { 1 } else { 0 });
    }

    // Agreement: same inputs everywhere; outputs compared, or signatures cross-verified.
    let mut cells: Vec<Vec<String>> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for p in &primitives {
        let mut row: Vec<String> = Vec::new();
        let case = p.agreement_case();
        let inputs = case.as_ref().map(|c| AgreementInputs {
            key: hex::encode(&c.key),
            iv: hex::encode(&c.iv),
            msg: hex::encode(&c.msg),
            aad: hex::encode(&c.aad),
            peer: hex::encode(&c.peer),
        });
        // Each implementation's output (for those whose KATs pass).
        let mut outputs: Vec<Option<(String, String)>> = Vec::new();
        for v in impls.iter_mut() {
            let out = match (v.kat.get(p.id), &inputs, v.worker.as_mut()) {
                (Some(Ok(_)), Some(inputs), Some(w)) => match w.request(
                    &Request::Agree {
                        primitive: p.id.into(),
                        inputs: inputs.clone(),
                    },
                    Duration::from_secs(600),
                    &cancel,
                ) {
                    Ok(Response::Agreement { output, public, .. }) => Some((output, public)),
                    Ok(Response::Error { message }) => {
                        problems.push(format!("{} {}: agreement: {message}", v.name, p.id));
                        None
                    }
                    other => {
                        problems.push(format!("{} {}: agreement: {other:?}", v.name, p.id));
                        None
                    }
                },
                _ => None,
            };
            outputs.push(out);
        }
        // The reference output: the one most implementations produced.
        let majority = {
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for (o, _) in outputs.iter().flatten() {
                match counts.iter_mut().find(|(x, _)| *x == o.as_str()) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((o.as_str(), 1)),
                }
            }
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
            counts.first().map(|(o, _)| o.to_string())
        };
        let kind = p.agreement_kind();
        let msg = inputs.as_ref().map(|i| i.msg.clone()).unwrap_or_default();
        for i in 0..impls.len() {
            let checkers: Vec<usize> = (0..impls.len())
                .filter(|&j| j != i && matches!(impls[j].kat.get(p.id), Some(Ok(_))))
                .collect();
            let name = impls[i].name.clone();
            let text = match impls[i].kat.get(p.id).cloned() {
                None => "n/a".to_string(),
                Some(Err(e)) => {
                    problems.push(format!("{name} {}: known-answer test failed: {e}", p.id));
                    "KAT FAIL".to_string()
                }
                Some(Ok(_)) => match (outputs[i].clone(), kind) {
                    (_, None) => "kat".to_string(),
                    (None, _) => "KAT ok, no output".to_string(),
                    (Some(_), _) if outputs.iter().flatten().count() < 2 => "alone".to_string(),
                    (Some((out, _)), Some(AgreementKind::SameBytes)) => {
                        if Some(&out) == majority.as_ref() {
                            "agrees".to_string()
                        } else {
                            problems.push(format!(
                                "{name} {}: output differs from the others ({}…)",
                                p.id,
                                &out[..out.len().min(16)]
                            ));
                            "DIFFERS".to_string()
                        }
                    }
                    (Some((sig, public)), Some(AgreementKind::CrossVerify)) => {
                        // Every other implementation whose KATs pass checks this signature.
                        let mut bad = Vec::new();
                        for j in checkers {
                            let ok = impls[j].worker.as_mut().is_some_and(|w| {
                                matches!(
                                    w.request(
                                        &Request::CheckSignature {
                                            primitive: p.id.into(),
                                            public: public.clone(),
                                            msg: msg.clone(),
                                            signature: sig.clone(),
                                        },
                                        Duration::from_secs(600),
                                        &cancel,
                                    ),
                                    Ok(Response::Checked { ok: true, .. })
                                )
                            });
                            if !ok {
                                bad.push(impls[j].name.clone());
                            }
                        }
                        if bad.is_empty() {
                            "agrees".to_string()
                        } else {
                            problems.push(format!(
                                "{name} {}: signature rejected by {}",
                                p.id,
                                bad.join(", ")
                            ));
                            "REJECTED".to_string()
                        }
                    }
                },
            };
            row.push(text);
        }
        cells.push(row);
    }
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    let mut header = vec!["primitive".to_string()];
    header.extend(impls.iter().map(|v| v.name.clone()));
    table.set_header(header);
    for (p, row) in primitives.iter().zip(&cells) {
        let mut r = vec![p.id.to_string()];
        r.extend(row.iter().cloned());
        table.add_row(r);
    }
    println!("{table}");
    println!(
        "agrees: known-answer tests pass and the output equals the other implementations' on the \
         same inputs (ECDSA: its signature verifies in every other one); alone: known-answer tests \
         pass, no second implementation to compare with; kat: no cross-library output to compare \
         (DSA, FFDH); n/a: not offered"
    );
    for v in &impls {
        println!("{}: {}", v.name, v.column);
    }
    for problem in &problems {
        println!("problem: {problem}");
    }
    let checks: usize = cells
        .iter()
        .flatten()
        .filter(|c| c.as_str() != "n/a")
        .count();
    println!(
        "{checks} checks, {} problems across {} implementations",
        problems.len(),
        impls.len()
    );
    for v in impls {
        if let Some(w) = v.worker {
            w.quit();
        }
    }
    Ok(if problems.is_empty() { 0 } else { 1 })
}
