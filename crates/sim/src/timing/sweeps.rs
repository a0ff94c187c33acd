//! The architecture study's timing sweeps: IPC against integer ALUs, fetch-queue size, both
//! together ("ILP"), and the branch predictor; cycles against I1, D1 and L2 size, line size,
//! associativity and replacement policy. Each point is the base core (the default, or the one
//! `--core` names) with one thing changed.

use super::{TimingConfig, TimingResult};
use crate::cache::{human_size, CacheConfig};
use serde::{Deserialize, Serialize};

/// One point of a sweep: which sweep, the value on its axis, the core it timed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TimingPoint {
    pub sweep: String,
    pub x: String,
    pub config: TimingConfig,
}

/// A point and what the model said.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TimingRun {
    pub sweep: String,
    pub x: String,
    pub config: TimingConfig,
    pub result: TimingResult,
}

fn point(sweep: &str, x: impl ToString, config: TimingConfig) -> TimingPoint {
    TimingPoint {
        sweep: sweep.into(),
        x: x.to_string(),
        config,
    }
}

/// Only the base core (the sweep and point are called "default" whichever core it is).
pub fn default_only(base: &TimingConfig) -> Vec<TimingPoint> {
    vec![point("default", "default", base.clone())]
}

/// Every sweep of the study around `base` (53 points).
pub fn study(base: &TimingConfig) -> Vec<TimingPoint> {
    let mut out = default_only(base);
    out.extend(core_sweeps(base));
    out.extend(memory_sweeps(base));
    out
}

/// ALUs, fetch queue, both with the width ("ILP"), and the predictor.
fn core_sweeps(base: &TimingConfig) -> Vec<TimingPoint> {
    let mut out = Vec::new();
    for alus in [1, 2, 4, 8] {
        let c = TimingConfig {
            int_alus: alus,
            fetch_queue: 32,
            ..base.clone()
        };
        out.push(point("int-alus", alus, c));
    }
    for q in [1, 2, 4, 8, 16, 32] {
        let c = TimingConfig {
            fetch_queue: q,
            int_alus: 8,
            ..base.clone()
        };
        out.push(point("fetch-queue", q, c));
    }
    // "ILP" N: N integer ALUs, an N-entry fetch queue and N-wide fetch, decode, issue, commit.
    for n in [1, 2, 4, 8] {
        let c = TimingConfig {
            int_alus: n,
            fetch_queue: n,
            fetch_width: n,
            decode_width: n,
            issue_width: n,
            commit_width: n,
            ..base.clone()
        };
        out.push(point("ilp", n, c));
    }
    for p in crate::predict::names() {
        let c = TimingConfig {
            predictor: p.into(),
            ..base.clone()
        };
        out.push(point("predictor", p, c));
    }
    out
}

/// I1, D1 and L2 size, line size, L1 associativity and replacement policy.
fn memory_sweeps(base: &TimingConfig) -> Vec<TimingPoint> {
    let mut out = Vec::new();
    let l1 = |size: u64, line: u64, assoc: u64, policy: &str| {
        CacheConfig::new(size, line, assoc, policy).ok()
    };
    for size in (12..=18).map(|b| 1u64 << b) {
        let c = l1(size, 64, 8, "lru").expect("a valid L1");
        out.push(point(
            "i1-size",
            human_size(size),
            TimingConfig {
                i1: c.clone(),
                ..base.clone()
            },
        ));
        out.push(point(
            "d1-size",
            human_size(size),
            TimingConfig {
                d1: c,
                ..base.clone()
            },
        ));
    }
    for size in (17..=21).map(|b| 1u64 << b) {
        let c = CacheConfig::new(size, 64, 16, "lru").expect("a valid L2");
        out.push(point(
            "l2-size",
            human_size(size),
            TimingConfig {
                l2: c,
                ..base.clone()
            },
        ));
    }
    for line in [8, 16, 32, 64] {
        let mut c = base.clone();
        for cache in [&mut c.i1, &mut c.d1, &mut c.l2] {
            cache.line = line;
        }
        out.push(point("line", line, c));
    }
    for assoc in [1, 2, 4, 8, 16] {
        let (Some(i1), Some(d1)) = (l1(32768, 64, assoc, "lru"), l1(32768, 64, assoc, "lru"))
        else {
            continue;
        };
        out.push(point(
            "l1-assoc",
            assoc,
            TimingConfig {
                i1,
                d1,
                ..base.clone()
            },
        ));
    }
    for policy in crate::cache::policy_names() {
        let mut c = base.clone();
        for cache in [&mut c.i1, &mut c.d1, &mut c.l2] {
            cache.policy = policy.into();
        }
        out.push(point("policy", policy, c));
    }
    out
}
