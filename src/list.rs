//! `cryptospeed list` and `cryptospeed verify`: the catalog against what an implementation
//! offers, and the known-answer tests run on their own.

use crate::args;
use crate::session::{interrupt_flag, ImplChoice};
use anyhow::{bail, Result};
use clap::Args;
use cryptospeed_engine::protocol::{AvailabilityEntry, Request, Response};
use cryptospeed_engine::worker_client::WorkerClient;
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
fn availability(
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

pub fn list(a: ListArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let mut worker = ImplChoice::parse(&a.implementation).start(None, &cancel)?;
    let all: Vec<_> = cryptospeed_catalog::all().iter().collect();
    let entries = availability(&mut worker, &all, &cancel)?;
    if a.json {
        let rows: Vec<_> = cryptospeed_catalog::all()
            .iter()
            .zip(&entries)
            .map(|(p, e)| serde_json::json!({"primitive": p.id, "aliases": p.aliases, "ops": p.ops(), "groups": p.groups, "impl": worker.variant.implementation, "available": e.available, "reason": e.reason}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    println!("{} ({})", worker.variant.label, worker.variant.library);
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header([
            "primitive",
            "operations",
            "aliases",
            worker.variant.implementation.as_str(),
        ]);
    for (p, e) in cryptospeed_catalog::all().iter().zip(&entries) {
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
    worker.quit();
    Ok(0)
}

pub fn verify(a: VerifyArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let primitives = args::select(&a.algorithms)?;
    let mut worker = ImplChoice::parse(&a.implementation).start(None, &cancel)?;
    let entries = availability(&mut worker, &primitives, &cancel)?;
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header(["primitive", "result", "vectors / reason"]);
    let (mut passed, mut failed, mut unavailable) = (0, 0, 0);
    for e in entries {
        if !e.available {
            unavailable += 1;
            table.add_row([e.primitive, "n/a".into(), e.reason.unwrap_or_default()]);
            continue;
        }
        match worker.request(
            &Request::Verify {
                primitive: e.primitive.clone(),
            },
            Duration::from_secs(600),
            &cancel,
        )? {
            Response::Verify {
                ok: true, detail, ..
            } => {
                passed += 1;
                table.add_row([e.primitive, "pass".into(), detail]);
            }
            Response::Verify {
                ok: false, detail, ..
            } => {
                failed += 1;
                table.add_row([e.primitive, "FAIL".into(), detail]);
            }
            other => bail!("unexpected worker reply {other:?}"),
        }
    }
    println!("{} ({})", worker.variant.label, worker.variant.library);
    println!("{table}");
    println!("{passed} passed, {failed} failed, {unavailable} unavailable");
    worker.quit();
    Ok(if failed > 0 { 1 } else { 0 })
}
