//! The figures the history pages are drawn from, merged run by run: for each machine, cell and
//! variant, the newest [`WINDOW`] measured runs' figures, each taken by the function
//! `cryptospeed history` takes them with (`cryptospeed_compare::history::series::point`) and
//! kept by run id, so merging a run twice, or runs in any order, gives the same series and a
//! rebuild that merges only the new runs equals a full build. The manifest holds them; which
//! pages a build must draw again is noted as it merges.

use cryptospeed_compare::history::series::{point, HistoryPoint};
use cryptospeed_model::{Op, RunRecord};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The most runs of a series the site keeps and shows (`cryptospeed history --last 100`).
pub const WINDOW: usize = 100;

/// Machine, primitive, operation, size, variant.
pub type Key = (i64, String, Op, Option<u64>, String);

/// A series' figures by run id.
pub type Points = BTreeMap<i64, HistoryPoint>;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "Vec<Stored>", into = "Vec<Stored>")]
pub struct Histories {
    pub series: BTreeMap<Key, Points>,
    /// The (machine, primitive) pages whose series this build changed (not kept between builds).
    pub changed: BTreeSet<(i64, String)>,
}

/// One series as the manifest holds it (JSON maps want string keys).
#[derive(Serialize, Deserialize)]
struct Stored {
    machine: i64,
    primitive: String,
    op: Op,
    bytes: Option<u64>,
    variant: String,
    points: Vec<HistoryPoint>,
}

impl From<Vec<Stored>> for Histories {
    fn from(v: Vec<Stored>) -> Histories {
        let series = v
            .into_iter()
            .map(|s| {
                let key = (s.machine, s.primitive, s.op, s.bytes, s.variant);
                (key, s.points.into_iter().map(|p| (p.run, p)).collect())
            })
            .collect();
        Histories {
            series,
            changed: BTreeSet::new(),
        }
    }
}

impl From<Histories> for Vec<Stored> {
    fn from(h: Histories) -> Vec<Stored> {
        h.series
            .into_iter()
            .map(
                |((machine, primitive, op, bytes, variant), points)| Stored {
                    machine,
                    primitive,
                    op,
                    bytes,
                    variant,
                    points: points.into_values().collect(),
                },
            )
            .collect()
    }
}

impl Histories {
    /// Merges a run measured on machine `machine`; imported runs have no history (as in
    /// `cryptospeed history`).
    pub fn merge(&mut self, record: &RunRecord, machine: i64) {
        if record.run.imported.is_some() {
            return;
        }
        let mut cells: Vec<(&str, Op, Option<u64>, &str)> = record
            .measurements
            .iter()
            .filter(|vm| vm.measurement.cell.misalign == 0 && vm.measurement.status.has_numbers())
            .map(|vm| {
                let c = &vm.measurement.cell;
                (c.primitive.as_str(), c.op, c.bytes, vm.variant.as_str())
            })
            .collect();
        cells.sort_unstable();
        cells.dedup();
        for (primitive, op, bytes, variant) in cells {
            let Some(p) = point(record, (primitive, op, bytes), Some(variant)) else {
                continue;
            };
            let key = (
                machine,
                primitive.to_string(),
                op,
                bytes,
                variant.to_string(),
            );
            let series = self.series.entry(key).or_default();
            if series.get(&p.run) == Some(&p) {
                continue;
            }
            series.insert(p.run, p);
            while series.len() > WINDOW {
                series.pop_first();
            }
            self.changed.insert((machine, primitive.to_string()));
        }
    }

    /// Every (machine, primitive) page and its series, in key order.
    pub fn pages(&self) -> BTreeMap<(i64, &str), Vec<(&Key, &Points)>> {
        let mut out: BTreeMap<(i64, &str), Vec<(&Key, &Points)>> = BTreeMap::new();
        for (key, points) in &self.series {
            out.entry((key.0, key.1.as_str()))
                .or_default()
                .push((key, points));
        }
        out
    }
}
