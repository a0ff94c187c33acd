//! The figures the primitive, machine and index pages are drawn from, merged run by run: for
//! every cell (primitive, operation, size), implementation and machine, the best figure any run
//! gave and the run and variant it came from; for every variant, what it is and where it ran.
//! Merging is a maximum and a union, so merging a run twice, or runs in any order, gives the same
//! figures: a rebuild merges only the runs that changed and still equals a full build.

use cryptospeed_model::{Op, RunRecord};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The best figure of a cell for one implementation on one machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Best {
    pub primitive: String,
    pub op: Op,
    pub bytes: Option<u64>,
    pub implementation: String,
    pub machine: i64,
    pub variant: String,
    pub run: i64,
    /// Bytes per second with a size, operations per second without.
    pub rate: f64,
    /// Half-width of the 95% interval as a fraction of the median (none for imported figures).
    pub rel_ci: Option<f64>,
    /// The 95% interval of the rate.
    pub ci: Option<(f64, f64)>,
    /// TSC cycles per byte (per operation for public key).
    pub cycles: Option<f64>,
    /// An imported single figure (an `openssl speed` log, …): no interval, no samples.
    pub imported: bool,
}

impl Best {
    /// The figure as `cryptospeed show` prints it: 1000s of bytes per second with a `k` (as
    /// `openssl speed`) for bulk cells, operations per second for public key.
    pub fn figure(&self) -> String {
        figure(self.rate, self.bytes.is_some())
    }

    /// The interval as `show --ci` prints it.
    pub fn interval(&self) -> String {
        self.rel_ci
            .map(|c| format!("±{:.1}%", c * 100.0))
            .unwrap_or_default()
    }

    /// Cycles as `show --cycles` prints them.
    pub fn cycles_text(&self) -> String {
        match (self.cycles, self.bytes.is_some()) {
            (Some(c), true) => format!("{c:.2}"),
            (Some(c), false) => format!("{c:.0}"),
            (None, _) => String::new(),
        }
    }

    /// True when this figure should replace `other` (faster; on a tie the older run, then the
    /// variant first in order), so the choice does not depend on the order runs are merged in.
    fn beats(&self, other: &Best) -> bool {
        (
            self.rate,
            std::cmp::Reverse(self.run),
            std::cmp::Reverse(&self.variant),
        ) > (
            other.rate,
            std::cmp::Reverse(other.run),
            std::cmp::Reverse(&other.variant),
        )
    }
}

/// A rate as `show` prints it (see [`Best::figure`]).
pub fn figure(rate: f64, bulk: bool) -> String {
    if !bulk {
        format!("{rate:.1}")
    } else if rate > 10000.0 {
        format!("{:.2}k", rate / 1e3)
    } else {
        format!("{rate:.2}")
    }
}

/// What a variant is and where it ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VariantSeen {
    pub implementation: String,
    pub version: String,
    pub imported: bool,
    pub runs: BTreeSet<i64>,
    /// Machine id → the newest run on it that holds the variant.
    pub newest: BTreeMap<i64, i64>,
}

type Key = (String, Op, Option<u64>, String, i64);

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "Stored", into = "Stored")]
pub struct Figures {
    pub best: BTreeMap<Key, Best>,
    pub variants: BTreeMap<String, VariantSeen>,
}

/// [`Figures`] as the manifest holds it (JSON maps want string keys).
#[derive(Serialize, Deserialize)]
struct Stored {
    best: Vec<Best>,
    variants: BTreeMap<String, VariantSeen>,
}

impl From<Stored> for Figures {
    fn from(s: Stored) -> Figures {
        let best = s.best.into_iter().map(|b| (key(&b), b)).collect();
        Figures {
            best,
            variants: s.variants,
        }
    }
}

impl From<Figures> for Stored {
    fn from(f: Figures) -> Stored {
        Stored {
            best: f.best.into_values().collect(),
            variants: f.variants,
        }
    }
}

fn key(b: &Best) -> Key {
    (
        b.primitive.clone(),
        b.op,
        b.bytes,
        b.implementation.clone(),
        b.machine,
    )
}

impl Figures {
    /// Merges a run measured on machine `machine` (its row id in the store).
    pub fn merge(&mut self, record: &RunRecord, machine: i64) {
        let imported = record.run.imported.is_some();
        for v in &record.variants {
            let seen = self.variants.entry(v.label.clone()).or_default();
            if seen.runs.is_empty() {
                seen.implementation = v.implementation.clone();
                seen.version = v.version.clone();
                seen.imported = imported;
            }
            if record.measurements.iter().any(|m| m.variant == v.label) {
                seen.runs.insert(record.run.id);
                let newest = seen.newest.entry(machine).or_insert(record.run.id);
                *newest = (*newest).max(record.run.id);
            }
        }
        // A log that prints a cell twice (openssl speed 4's legacy and signature tables) gives
        // the run two figures of it: the first is the run's, as `show` prints it.
        let mut seen = std::collections::HashSet::new();
        for vm in &record.measurements {
            let m = &vm.measurement;
            if !m.status.has_numbers() || m.cell.misalign != 0 {
                continue;
            }
            if !seen.insert((&vm.variant, &m.cell.primitive, m.cell.op, m.cell.bytes)) {
                continue;
            }
            let Some(rate) = m.rate().filter(|r| r.is_finite() && *r > 0.0) else {
                continue;
            };
            let best = Best {
                primitive: m.cell.primitive.clone(),
                op: m.cell.op,
                bytes: m.cell.bytes,
                implementation: vm.implementation.clone(),
                machine,
                variant: vm.variant.clone(),
                run: record.run.id,
                rate,
                rel_ci: m
                    .summary
                    .filter(|_| m.reported_rate.is_none())
                    .map(|s| s.rel_ci()),
                ci: m.rate_ci().filter(|_| m.reported_rate.is_none()),
                cycles: if m.cell.bytes.is_some() {
                    m.cycles_per_byte()
                } else {
                    m.cycles_per_op()
                },
                imported,
            };
            match self.best.get_mut(&key(&best)) {
                Some(old) if !best.beats(old) => {}
                Some(old) => *old = best,
                None => {
                    self.best.insert(key(&best), best);
                }
            }
        }
    }

    /// The primitives with figures, in catalog order.
    pub fn primitives(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.best.keys().map(|k| k.0.clone()).collect();
        ids.dedup();
        ids.sort_by_key(|p| {
            (
                cryptospeed_compare::cell_key(p, Op::Hash, None).order,
                p.clone(),
            )
        });
        ids.dedup();
        ids
    }

    /// Every best figure of a primitive.
    pub fn of_primitive<'a>(&'a self, primitive: &'a str) -> impl Iterator<Item = &'a Best> {
        self.best
            .range(
                (
                    primitive.to_string(),
                    Op::Hash,
                    None,
                    String::new(),
                    i64::MIN,
                )..,
            )
            .take_while(move |(k, _)| k.0 == primitive)
            .map(|(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(rate: f64, run: i64) -> Best {
        Best {
            primitive: "sha256".into(),
            op: Op::Hash,
            bytes: Some(8192),
            implementation: "openssl".into(),
            machine: 1,
            variant: "openssl-3.0.19".into(),
            run,
            rate,
            rel_ci: None,
            ci: None,
            cycles: None,
            imported: false,
        }
    }

    #[test]
    fn the_best_figure_does_not_depend_on_the_order() {
        assert!(best(2.0, 5).beats(&best(1.0, 1)));
        assert!(
            best(1.0, 1).beats(&best(1.0, 5)),
            "a tie keeps the older run"
        );
        assert!(!best(1.0, 5).beats(&best(1.0, 1)));
    }

    #[test]
    fn figures_print_as_show_prints_them() {
        assert_eq!(figure(123_456_789.0, true), "123456.79k");
        assert_eq!(figure(9_999.0, true), "9999.00");
        assert_eq!(figure(4000.04, false), "4000.0");
    }
}
