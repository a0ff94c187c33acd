//! Named cores the timing model can be set to (`cryptospeed profile --core NAME`): the generic
//! default of [`TimingConfig::default`] and a published microarchitecture, so a study can say
//! what a design choice costs on a real core's proportions, not only on a textbook's.

use super::TimingConfig;
use crate::cache::CacheConfig;

/// A named core: its name, how to make it, and one line about where its figures come from.
pub struct Core {
    pub name: &'static str,
    pub make: fn() -> TimingConfig,
    pub about: &'static str,
}

/// Registry: every core `--core` takes (the first is the default).
pub const CORES: &[Core] = &[
    Core {
        name: "generic",
        make: TimingConfig::default,
        about: "a 4-wide core of about 2010 (the model's documented default)",
    },
    Core {
        name: "zen3",
        make: zen3,
        about: "AMD Zen 3 (Ryzen 5000, EPYC 7003) from published figures",
    },
];

pub fn core_names() -> Vec<&'static str> {
    CORES.iter().map(|c| c.name).collect()
}

/// The core of that name ("default" is the generic one).
pub fn core_named(name: &str) -> Result<TimingConfig, String> {
    let name = if name == "default" { "generic" } else { name };
    CORES
        .iter()
        .find(|c| c.name == name)
        .map(|c| (c.make)())
        .ok_or_else(|| format!("unknown core '{name}'; known: {}", core_names().join(", ")))
}

/// AMD Zen 3. Sources:
/// * AnandTech, "AMD Zen 3 Ryzen Deep Dive Review", p. 3, "The New Zen 3 Core: Front-End
///   Updates" (anandtech.com/show/16214/…/3): 32 KB I-cache, 4-wide decode, op cache 8 ops per
///   cycle, L1 BTB 1024 entries and L2 BTB 6.5 K, TAGE-based predictor.
/// * Chips and Cheese, "Measuring Zen 3's Bottlenecks" (chipsandcheese.com/2021/07/23/
///   measuring-zen-3s-bottlenecks/): the rename/allocate (dispatch) stage is 6 wide.
/// * Chips and Cheese's Golden Cove article, its table of Zen 3 capacities (reproduced in
///   techpowerup.com/forums/threads/…299001/page-2): 256-entry ROB, 116-entry load queue,
///   64-entry store queue.
/// * AMD's Zen 3 launch slides as summarised in the press (e.g. the digest at
///   124.237.177.129/p/7073449861): integer issue 10 per cycle (branch and store-data pickers
///   added beside Zen 2's 4 ALUs and 3 AGUs), one load and one store more per cycle than Zen 2
///   (3 loads, 2 stores).
/// * Commonly published cache and pipeline figures, not re-checked here against AMD's Software
///   Optimization Guide for family 19h (publication 56665): 32 KB 8-way L1D with 4-cycle
///   load-to-use, 512 KB 8-way L2 at 12 cycles, 64-byte lines; a branch mispredict costs about
///   13 cycles.
///
/// Not from a source, and said so: the model has no L3, so `memory_latency` stands for Zen 3's
/// 32 MB L3 (about 46 cycles) rather than DRAM, since a cell that leaves the 512 KB L2 stays in
/// it; the predictor is the model's best (tournament) for TAGE; the BTB is one direct-mapped
/// level of 8192 entries for the two levels (1 K + 6.5 K); divide latency, the store-to-load
/// forwarding latency (7) and the fetch-queue depth are estimates.
pub fn zen3() -> TimingConfig {
    let l1 = CacheConfig::new(32768, 64, 8, "lru").expect("a valid cache");
    TimingConfig {
        fetch_width: 6,
        fetch_queue: 32,
        decode_width: 6,
        issue_width: 10,
        commit_width: 8,
        frontend_stages: 4,
        rob: 256,
        lsq: 180,
        int_alus: 4,
        mul_units: 1,
        mem_ports: 3,
        simd_units: 4,
        crypto_units: 2,
        int_latency: 1,
        mul_latency: 3,
        div_latency: 14,
        simd_latency: 1,
        crypto_latency: 4,
        i1: l1.clone(),
        d1: l1,
        l2: CacheConfig::new(512 << 10, 64, 8, "lru").expect("a valid cache"),
        l1_latency: 4,
        store_forward_latency: 7,
        l2_latency: 12,
        memory_latency: 46,
        predictor: "tournament".into(),
        mispredict_penalty: 13,
        btb_entries: 8192,
        btb_miss_penalty: 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_is_valid_and_found_by_name() {
        for c in CORES {
            let core = core_named(c.name).unwrap();
            core.check().unwrap();
            assert_eq!(core, (c.make)());
        }
        assert_eq!(core_named("default").unwrap(), TimingConfig::default());
        let zen3 = core_named("zen3").unwrap();
        assert_eq!((zen3.rob, zen3.int_alus, zen3.decode_width), (256, 4, 6));
        assert!(core_named("pentium").unwrap_err().contains("zen3"));
    }
}
