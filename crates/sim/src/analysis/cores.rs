//! The timing sweeps' share of an analysis: what the cores start from (branch units warmed once
//! per predictor and BTB, first-level caches once per configuration) and the runs of one
//! memory group, each distinct core timed once.

use super::Grid;
use crate::cache::CacheConfig;
use crate::decode::Decoded;
use crate::spans::span;
use crate::timing::{
    self,
    sweeps::{TimingPoint, TimingRun},
    warm::{self, Side, WarmL1},
};
use std::collections::HashMap;
use std::sync::Mutex;

/// The timing cores with distinct branch units (predictor and BTB): the study's 26 memory
/// systems share 6, each warmed once from the warm-up part's branches gathered once.
pub(super) fn branch_cores(grid: &Grid) -> Vec<&timing::TimingConfig> {
    let mut cores: Vec<&timing::TimingConfig> = Vec::new();
    for p in &grid.timing {
        if !cores
            .iter()
            .any(|c| c.branch_key() == p.config.branch_key())
        {
            cores.push(&p.config);
        }
    }
    cores
}

/// One core's branch unit after the warm-up part's branches `list`.
pub(super) fn warm_branch_unit(
    list: &timing::WarmupBranches,
    decoded: &Decoded,
    core: &timing::TimingConfig,
) -> timing::WarmBranches {
    timing::warm_branches_from(list, decoded, core).expect("sweep points are valid cores")
}

/// Distinct first-level caches per walk of the warm-up part in [`warm_l1s`]: enough walks to
/// spread over the CPUs, few enough that each walk feeds several caches.
const L1_PER_WALK: usize = 8;

/// The timing cores' distinct I1s and D1s, a few per walk of the warm-up part.
pub(super) fn l1_walks(grid: &Grid) -> Vec<Vec<(Side, CacheConfig)>> {
    let mut caches: Vec<(Side, CacheConfig)> = Vec::new();
    for p in &grid.timing {
        for (side, c) in [
            (Side::Instructions, &p.config.i1),
            (Side::Data, &p.config.d1),
        ] {
            if !caches.iter().any(|(s, k)| *s == side && k == c) {
                caches.push((side, c.clone()));
            }
        }
    }
    caches.chunks(L1_PER_WALK).map(<[_]>::to_vec).collect()
}

/// The caches of one walk after the warm-up part, each with the misses its L2 sees
/// (timing/warm.rs).
pub(super) fn warm_l1s(
    walk: &[(Side, CacheConfig)],
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
) -> Vec<WarmL1> {
    warm::warm_l1s(events, measured, decoded, walk)
}

/// What the timing cores start from: branch units by predictor and BTB, first-level caches.
pub(super) type WarmParts<'a> = (
    &'a HashMap<(String, u32), Mutex<timing::WarmBranches>>,
    &'a [WarmL1],
);

/// The points of one memory group (`model_work`): the L2 warmed once from the warmed I1's
/// and D1's misses, each branch unit taken from `branches` (warmed once per predictor and
/// BTB), and each distinct core timed once; a point whose core equals an earlier one's (the
/// sweeps cross at the base core) gets that result, which the model, deterministic, would give
/// again.
pub(super) fn timing_runs(
    points: &[TimingPoint],
    events: &[u64],
    measured: &std::ops::Range<usize>,
    decoded: &Decoded,
    limit: usize,
    (branches, l1s): WarmParts,
) -> Vec<TimingRun> {
    // A copy of a branch unit, made in a statement of its own so the lock is not held while
    // the group runs: a predictor is not shared between threads.
    let branches_of = |c: &timing::TimingConfig| branches[&c.branch_key()].lock().unwrap().clone();
    let first = &points[0].config;
    let memory = span(
        || "timing L2 warm-up".into(),
        || warm::warm_from(l1s, first, &branches_of(first)),
    );
    let mut runs: Vec<TimingRun> = Vec::with_capacity(points.len());
    for p in points {
        let result = match runs.iter().find(|r| r.config == p.config) {
            Some(same) => same.result.clone(),
            None => {
                let warmed = memory.with_branches(&branches_of(&p.config));
                timing::time(
                    events,
                    measured.clone(),
                    decoded,
                    &p.config,
                    &warmed,
                    limit.max(1),
                )
                .expect("sweep points are valid cores")
            }
        };
        runs.push(TimingRun {
            sweep: p.sweep.clone(),
            x: p.x.clone(),
            config: p.config.clone(),
            result,
        });
    }
    runs
}
