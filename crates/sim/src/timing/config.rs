//! The timing model's parameters, in one serde struct with documented defaults, so a profile
//! records exactly what machine it modelled and a sweep is a list of edited copies.

use crate::cache::CacheConfig;
use serde::{Deserialize, Serialize};

/// An out-of-order core in the spirit of SimpleScalar's `sim-outorder`. Defaults: a 4-wide core
/// of about 2010 (fetch/decode/issue/commit 4 per cycle, 16-entry fetch queue, 128-entry reorder
/// window, 64-entry load/store queue, 4 integer ALUs, 1 multiplier/divider, 2 memory ports, 2
/// SIMD units, 1 crypto unit; 32 KB 8-way L1s, a 1 MB 16-way L2, 4/14/200-cycle load-to-use
/// latencies, store-to-load forwarding in 4; a tournament predictor, 14-cycle mispredict
/// penalty, 4096-entry BTB).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimingConfig {
    /// Instructions fetched per cycle (a taken branch ends the cycle's fetch).
    pub fetch_width: u32,
    /// Instruction fetch queue: fetched but not yet dispatched instructions.
    pub fetch_queue: u32,
    /// Instructions decoded and dispatched into the window per cycle.
    pub decode_width: u32,
    /// Instructions sent to functional units per cycle.
    pub issue_width: u32,
    /// Instructions retired per cycle, in order.
    pub commit_width: u32,
    /// Cycles from fetch to dispatch (the front end's depth).
    pub frontend_stages: u32,
    /// Reorder window (RUU/ROB) entries.
    pub rob: u32,
    /// Load/store queue entries (memory instructions in flight).
    pub lsq: u32,
    /// Integer ALUs (also resolve branches).
    pub int_alus: u32,
    /// Integer multiply/divide units (divides are not pipelined).
    pub mul_units: u32,
    /// Data-cache ports (loads and stores).
    pub mem_ports: u32,
    pub simd_units: u32,
    /// AES/CLMUL/SHA units.
    pub crypto_units: u32,
    pub int_latency: u32,
    pub mul_latency: u32,
    pub div_latency: u32,
    pub simd_latency: u32,
    pub crypto_latency: u32,
    pub i1: CacheConfig,
    pub d1: CacheConfig,
    pub l2: CacheConfig,
    /// Load-to-use cycles of an L1 hit (an I1 hit costs nothing beyond the front end).
    pub l1_latency: u32,
    /// Cycles from an in-flight (not yet committed) store's data to a later load of the same
    /// bytes that takes it from the store queue instead of the cache.
    pub store_forward_latency: u32,
    pub l2_latency: u32,
    pub memory_latency: u32,
    /// Conditional branch predictor (predict::PREDICTORS); indirect targets use cachegrind's
    /// table, returns a perfect return stack.
    pub predictor: String,
    /// Cycles from a mispredicted branch's resolution to fetch on the right path.
    pub mispredict_penalty: u32,
    /// Branch target buffer entries (direct-mapped); 0 = perfect.
    pub btb_entries: u32,
    /// Fetch bubble of a taken branch whose target the BTB did not hold (decode redirects).
    pub btb_miss_penalty: u32,
}

impl Default for TimingConfig {
    fn default() -> TimingConfig {
        let l1 = CacheConfig::new(32768, 64, 8, "lru").expect("a valid cache");
        TimingConfig {
            fetch_width: 4,
            fetch_queue: 16,
            decode_width: 4,
            issue_width: 4,
            commit_width: 4,
            frontend_stages: 3,
            rob: 128,
            lsq: 64,
            int_alus: 4,
            mul_units: 1,
            mem_ports: 2,
            simd_units: 2,
            crypto_units: 1,
            int_latency: 1,
            mul_latency: 3,
            div_latency: 24,
            simd_latency: 1,
            crypto_latency: 4,
            i1: l1.clone(),
            d1: l1,
            l2: CacheConfig::new(1 << 20, 64, 16, "lru").expect("a valid cache"),
            l1_latency: 4,
            store_forward_latency: 4,
            l2_latency: 14,
            memory_latency: 200,
            predictor: "tournament".into(),
            mispredict_penalty: 14,
            btb_entries: 4096,
            btb_miss_penalty: 2,
        }
    }
}

impl TimingConfig {
    /// What the warm-up part's state depends on: cores with equal keys can share one warm-up.
    pub fn warm_key(&self) -> (CacheConfig, CacheConfig, CacheConfig, String, u32) {
        (
            self.i1.clone(),
            self.d1.clone(),
            self.l2.clone(),
            self.predictor.clone(),
            self.btb_entries,
        )
    }

    /// What the warm-up's caches depend on (part of [`TimingConfig::warm_key`]).
    pub fn memory_key(&self) -> (CacheConfig, CacheConfig, CacheConfig) {
        (self.i1.clone(), self.d1.clone(), self.l2.clone())
    }

    /// What the warm-up's branch unit depends on (part of [`TimingConfig::warm_key`]).
    pub fn branch_key(&self) -> (String, u32) {
        (self.predictor.clone(), self.btb_entries)
    }

    pub fn check(&self) -> Result<(), String> {
        let widths = [
            ("fetch_width", self.fetch_width),
            ("fetch_queue", self.fetch_queue),
            ("decode_width", self.decode_width),
            ("issue_width", self.issue_width),
            ("commit_width", self.commit_width),
            ("rob", self.rob),
            ("lsq", self.lsq),
            ("int_alus", self.int_alus),
            ("mul_units", self.mul_units),
            ("mem_ports", self.mem_ports),
            ("simd_units", self.simd_units),
            ("crypto_units", self.crypto_units),
        ];
        if let Some((name, _)) = widths.iter().find(|(_, v)| *v == 0) {
            return Err(format!("timing model: {name} must be at least 1"));
        }
        crate::predict::create(&self.predictor)?;
        Ok(())
    }
}
