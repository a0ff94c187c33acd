//! `cryptospeed list` and `verify`: print what `cryptospeed_runner::verify` finds — each
//! implementation's primitives, known-answer results and agreement across implementations.

use crate::session::interrupt_flag;
use anyhow::Result;
use clap::Args;
use cryptospeed_catalog::Primitive;
use cryptospeed_runner::verify::{self, Column};
use cryptospeed_runner::verify_text as text;

#[derive(Args)]
pub struct ListArgs {
    /// Implementation to ask (NAME or NAME:LIBRARY).
    #[arg(long = "impl", default_value = "openssl")]
    implementation: String,
    /// Print JSON instead of a table (with every operation's definition and each column's
    /// conformance to it).
    #[arg(long)]
    json: bool,
    /// With several implementations: list where each departs from the definitions.
    #[arg(long)]
    reasons: bool,
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

pub fn list(a: ListArgs) -> Result<i32> {
    let cancel = interrupt_flag();
    let all: Vec<&Primitive> = cryptospeed_catalog::all().iter().collect();
    let mut columns = verify::start(&a.implementation, &cancel)?;
    let entries = verify::availability_matrix(&mut columns, &all, &cancel);
    let names: Vec<(String, String)> = columns
        .iter()
        .map(|c| (c.label.clone(), c.name.clone()))
        .collect();
    let declaring: Vec<String> = columns.iter().map(|c| c.declaring.clone()).collect();
    columns.into_iter().for_each(Column::quit);
    let mut out = String::new();
    if a.json {
        text::list_json(&mut out, &all, &names, &declaring, &entries)?;
    } else if names.len() == 1 {
        text::list_one_column(&mut out, &all, &names[0], &entries[0]);
    } else {
        text::list_matrix(&mut out, &all, &names, &entries, a.reasons);
    }
    print!("{out}");
    Ok(0)
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
    let mut out = String::new();
    let ok = if columns.len() == 1 {
        text::known_answers(&mut out, &columns[0], &primitives)
    } else {
        let agreement = verify::agreement(&mut columns, &primitives, &cancel);
        text::agreement(&mut out, &columns, &primitives, &agreement)
    };
    print!("{out}");
    columns.into_iter().for_each(Column::quit);
    Ok(if ok { 0 } else { 1 })
}
