//! Correctness across implementations, for `list` and `verify`: which primitives each worker
//! offers, its known-answer tests, and agreement — the same inputs given to every
//! implementation whose known answers pass, outputs compared byte for byte, or each signature
//! checked by every other implementation. The front end only prints what this returns.

use crate::ImplChoice;
use anyhow::{bail, Result};
use cryptospeed_catalog::agreement::AgreementKind;
use cryptospeed_catalog::Primitive;
use cryptospeed_engine::protocol::{AgreementInputs, AvailabilityEntry, Request, Response};
use cryptospeed_engine::worker_client::WorkerClient;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const KAT_TIMEOUT: Duration = Duration::from_secs(600);

/// One implementation's worker (or why it did not start) and what it said so far.
pub struct Column {
    /// What the library says it is (its label), else the selector.
    pub label: String,
    /// The registry name.
    pub name: String,
    /// The registry name whose declarations hold for the library the worker loaded
    /// (`cryptospeed_impls::declared::declaring_name`): `aws-lc` for an `openssl:PATH` that is
    /// AWS-LC, else `name`.
    pub declaring: String,
    /// The selector as given (`NAME:LIBRARY`, mask, replica), for messages.
    pub selector: String,
    pub worker: Result<WorkerClient, String>,
    /// Known-answer outcome of each offered primitive: the vectors' source, or the failure.
    pub kat: HashMap<String, Result<String, String>>,
}

impl Column {
    fn passed(&self, id: &str) -> bool {
        matches!(self.kat.get(id), Some(Ok(_)))
    }

    /// Ends the worker.
    pub fn quit(self) {
        if let Ok(w) = self.worker {
            w.quit();
        }
    }
}

/// Starts a worker per implementation of `selectors`; one that cannot start keeps its reason.
pub fn start(selectors: &str, cancel: &AtomicBool) -> Result<Vec<Column>> {
    Ok(ImplChoice::parse_list(selectors)?
        .into_iter()
        .map(|c| {
            let worker = c.start(None, cancel).map_err(|e| format!("{e:#}"));
            let label = match &worker {
                Ok(w) if !w.variant.label.is_empty() => w.variant.label.clone(),
                _ => c.display(),
            };
            let declaring = match &worker {
                Ok(w) if !w.variant.implementation.is_empty() => {
                    cryptospeed_impls::declared::declaring_name(&w.variant).to_string()
                }
                _ => c.name.clone(),
            };
            Column {
                label,
                name: c.name.clone(),
                declaring,
                selector: c.display(),
                worker,
                kat: HashMap::new(),
            }
        })
        .collect())
}

/// Asks a worker which of the primitives it offers.
pub fn availability(
    worker: &mut WorkerClient,
    primitives: &[&Primitive],
    cancel: &AtomicBool,
) -> Result<Vec<AvailabilityEntry>> {
    let ids = primitives.iter().map(|p| p.id.to_string()).collect();
    let request = Request::Availability { primitives: ids };
    match worker.request(&request, Duration::from_secs(300), cancel)? {
        Response::Availability { entries } => Ok(entries),
        other => bail!("worker answered the availability request with {other:?}"),
    }
}

/// Each column's availability of `primitives`; a column that cannot answer has every primitive
/// unavailable with its reason.
pub fn availability_matrix(
    columns: &mut [Column],
    primitives: &[&Primitive],
    cancel: &AtomicBool,
) -> Vec<Vec<AvailabilityEntry>> {
    let unavailable = |why: &str| -> Vec<AvailabilityEntry> {
        let entry = |p: &&Primitive| AvailabilityEntry {
            primitive: p.id.into(),
            available: false,
            reason: Some(why.to_string()),
            library: None,
        };
        primitives.iter().map(entry).collect()
    };
    columns
        .iter_mut()
        .map(|c| match &mut c.worker {
            Ok(worker) => availability(worker, primitives, cancel)
                .unwrap_or_else(|e| unavailable(&format!("{e:#}"))),
            Err(e) => unavailable(e),
        })
        .collect()
}

/// Runs the known-answer tests of every offered primitive in every column.
pub fn known_answers(
    columns: &mut [Column],
    primitives: &[&Primitive],
    cancel: &AtomicBool,
) -> Result<()> {
    for c in columns.iter_mut() {
        let Ok(worker) = &mut c.worker else {
            continue;
        };
        for e in availability(worker, primitives, cancel)? {
            if !e.available {
                continue;
            }
            let request = Request::Verify {
                primitive: e.primitive.clone(),
            };
            let r = match worker.request(&request, KAT_TIMEOUT, cancel) {
                Ok(Response::Verify {
                    ok: true, detail, ..
                }) => Ok(detail),
                Ok(Response::Verify { detail, .. }) => Err(detail),
                Ok(other) => Err(format!("unexpected reply {other:?}")),
                Err(e) => Err(e.to_string()),
            };
            c.kat.insert(e.primitive, r);
        }
    }
    Ok(())
}

/// One column's verdict on one primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Not offered.
    NotOffered,
    KatFailed,
    /// Known answers pass; the primitive has no cross-library output to compare (DSA, FFDH).
    KatOnly,
    /// Known answers pass, but the agreement output could not be had.
    NoOutput,
    /// Known answers pass; no second implementation to compare with.
    Alone,
    Agrees,
    Differs,
    Rejected,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        match self {
            Check::NotOffered => "n/a",
            Check::KatFailed => "KAT FAIL",
            Check::KatOnly => "kat",
            Check::NoOutput => "KAT ok, no output",
            Check::Alone => "alone",
            Check::Agrees => "agrees",
            Check::Differs => "DIFFERS",
            Check::Rejected => "REJECTED",
        }
    }
}

/// Every column's verdict on each primitive, and the problems found, in words.
pub struct Agreement {
    pub rows: Vec<Vec<Check>>,
    pub problems: Vec<String>,
}

/// Checks each primitive across the columns (after [`known_answers`]).
pub fn agreement(
    columns: &mut [Column],
    primitives: &[&Primitive],
    cancel: &AtomicBool,
) -> Agreement {
    let mut problems = Vec::new();
    let rows = primitives
        .iter()
        .map(|p| agreement_row(columns, p, cancel, &mut problems))
        .collect();
    Agreement { rows, problems }
}

/// One agreement output: (output, public key), hex.
type Output = (String, String);

fn agreement_row(
    columns: &mut [Column],
    p: &Primitive,
    cancel: &AtomicBool,
    problems: &mut Vec<String>,
) -> Vec<Check> {
    let inputs = p.agreement_case().map(|c| AgreementInputs {
        key: hex::encode(&c.key),
        iv: hex::encode(&c.iv),
        msg: hex::encode(&c.msg),
        aad: hex::encode(&c.aad),
        peer: hex::encode(&c.peer),
    });
    let outputs: Vec<Option<Output>> = columns
        .iter_mut()
        .map(|c| match &inputs {
            Some(inputs) if c.passed(p.id) => agree(c, p, inputs, cancel, problems),
            _ => None,
        })
        .collect();
    let majority = majority(&outputs);
    let msg = inputs.map(|i| i.msg).unwrap_or_default();
    let kind = p.agreement_kind();
    let produced = outputs.iter().flatten().count();
    (0..columns.len())
        .map(|i| {
            let name = columns[i].name.clone();
            match (columns[i].kat.get(p.id), &outputs[i], kind) {
                (None, _, _) => Check::NotOffered,
                (Some(Err(e)), _, _) => {
                    problems.push(format!("{name} {}: known-answer test failed: {e}", p.id));
                    Check::KatFailed
                }
                (Some(Ok(_)), _, None) => Check::KatOnly,
                (Some(Ok(_)), None, _) => Check::NoOutput,
                (Some(Ok(_)), Some(_), _) if produced < 2 => Check::Alone,
                (Some(Ok(_)), Some((out, _)), Some(AgreementKind::SameBytes)) => {
                    if Some(out) == majority.as_ref() {
                        return Check::Agrees;
                    }
                    let head = &out[..out.len().min(16)];
                    problems.push(format!(
                        "{name} {}: output differs from the others ({head}…)",
                        p.id
                    ));
                    Check::Differs
                }
                (Some(Ok(_)), Some((sig, public)), Some(AgreementKind::CrossVerify)) => {
                    let (sig, public) = (sig.clone(), public.clone());
                    cross_verify(columns, i, p, (&sig, &public, &msg), cancel, problems)
                }
            }
        })
        .collect()
}

/// A column's agreement output for the shared inputs.
fn agree(
    c: &mut Column,
    p: &Primitive,
    inputs: &AgreementInputs,
    cancel: &AtomicBool,
    problems: &mut Vec<String>,
) -> Option<Output> {
    let worker = c.worker.as_mut().ok()?;
    let request = Request::Agree {
        primitive: p.id.into(),
        inputs: inputs.clone(),
    };
    match worker.request(&request, KAT_TIMEOUT, cancel) {
        Ok(Response::Agreement { output, public, .. }) => Some((output, public)),
        Ok(Response::Error { message }) => {
            problems.push(format!("{} {}: agreement: {message}", c.name, p.id));
            None
        }
        other => {
            problems.push(format!("{} {}: agreement: {other:?}", c.name, p.id));
            None
        }
    }
}

/// The output most implementations produced.
fn majority(outputs: &[Option<Output>]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (o, _) in outputs.iter().flatten() {
        match counts.iter_mut().find(|(x, _)| *x == o.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((o.as_str(), 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.first().map(|(o, _)| o.to_string())
}

/// Column `i`'s signature (signature, public key, message), checked by every other column whose
/// known answers pass.
fn cross_verify(
    columns: &mut [Column],
    i: usize,
    p: &Primitive,
    (signature, public, msg): (&str, &str, &str),
    cancel: &AtomicBool,
    problems: &mut Vec<String>,
) -> Check {
    let request = Request::CheckSignature {
        primitive: p.id.into(),
        public: public.into(),
        msg: msg.into(),
        signature: signature.into(),
    };
    let mut rejected_by = Vec::new();
    let checkers: Vec<usize> = (0..columns.len())
        .filter(|&j| j != i && columns[j].passed(p.id))
        .collect();
    for j in checkers {
        let ok = columns[j].worker.as_mut().is_ok_and(|w| {
            matches!(
                w.request(&request, KAT_TIMEOUT, cancel),
                Ok(Response::Checked { ok: true, .. })
            )
        });
        if !ok {
            rejected_by.push(columns[j].name.clone());
        }
    }
    if rejected_by.is_empty() {
        return Check::Agrees;
    }
    problems.push(format!(
        "{} {}: signature rejected by {}",
        columns[i].name,
        p.id,
        rejected_by.join(", ")
    ));
    Check::Rejected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_majority_output_is_the_reference() {
        let o = |s: &str| Some((s.to_string(), String::new()));
        assert_eq!(
            majority(&[o("aa"), o("bb"), o("aa"), None]),
            Some("aa".into())
        );
        assert_eq!(majority(&[None, None]), None);
    }
}
