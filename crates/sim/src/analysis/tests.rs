//! The grid's shortcuts (block streams, caches that never evict, LRU stack passes, streams
//! filtered per set count) against the straightforward simulation: one `Cache` per
//! configuration fed every access of a made-up trace, counts compared field by field.

use super::*;
use crate::cache::Cache;

const INSTR: u64 = 1 << 63;

/// A trace of `n` steps: instructions of varied lengths in a loop body with jumps, loads and
/// stores to a hot table, a sliding buffer, the stack and far addresses, some straddling lines.
fn trace(d: &mut Decoded, n: usize) -> Vec<u64> {
    const NOP: &[u8] = &[0x90];
    const ADD: &[u8] = &[0x48, 0x01, 0xd8];
    const MOV: &[u8] = &[0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut ev = Vec::new();
    for k in 0..n as u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let pc = 0x40_0000 + (k % 97) * 11 + (x % 3) * 0x2000;
        let code = [NOP, ADD, MOV][(k % 3) as usize];
        ev.push(INSTR | d.intern(pc, code) as u64);
        let (addr, size) = match k % 4 {
            0 => (0x60_0000 + x % 2048, 4),
            1 => (0x70_0000 + (k * 8) % 8192, 8),
            2 => (0x7ff0_0000 + x % 256, [1, 8, 16][(x % 3) as usize]),
            _ => (x % (1 << 22), 32),
        };
        ev.push(addr | (size << 48) | (((x >> 40) & 1) << 56));
    }
    ev
}

/// Every access of `events` through `cache`, counting those in `measured`.
fn straight(cache: &mut Cache, accesses: &[(u64, u32, bool)]) -> (u64, u64) {
    let (mut a, mut m) = (0, 0);
    for (addr, size, counted) in accesses {
        let miss = cache.access_is_miss(*addr, *size);
        if *counted {
            a += 1;
            m += miss as u64;
        }
    }
    (a, m)
}

fn small_grid() -> Grid {
    Grid {
        l1_sizes: vec![256, 1024, 4096],
        l2_sizes: vec![2048, 8192],
        lines: vec![8, 16, 64],
        assocs: vec![1, 2, 4, 8, 16],
        l2_front_i1: CacheConfig::new(512, 16, 2, "lru").unwrap(),
        l2_front_d1: CacheConfig::new(1024, 16, 2, "fifo").unwrap(),
        windows: vec![],
        predictors: vec![],
        timing: vec![],
        ..Grid::full()
    }
}

#[test]
fn the_grid_equals_one_cache_per_configuration_fed_every_access() {
    let mut d = Decoded::default();
    let events = trace(&mut d, 60_000);
    let measured = 30_001..events.len() - 2_000;
    let grid = small_grid();
    let a = analyse(&events, measured.clone(), &d, &grid);
    let mut by_level: [Vec<(u64, u32, bool)>; 3] = Default::default();
    for (k, w) in events.iter().enumerate() {
        let counted = measured.contains(&k);
        match unpack(*w) {
            Event::Instr(ix) => {
                let i = d.info(ix);
                by_level[0].push((i.addr, i.len as u32, counted));
            }
            Event::Data(x) => by_level[1].push((x.addr, x.size, counted)),
        }
    }
    let l2 = l2_stream(&events, &d, &measured, &grid.l2_front_i1, &grid.l2_front_d1);
    by_level[2] = l2.iter().map(|(x, c)| (x.addr, x.size, *c)).collect();
    let configs = grid.cache_configs();
    assert_eq!(a.caches.len(), configs.len());
    let mut evicting = 0;
    for (got, (level, config)) in a.caches.iter().zip(&configs) {
        assert_eq!((got.level, &got.config), (*level, config));
        let mut cache = Cache::new(config);
        let (accesses, misses) = straight(&mut cache, &by_level[*level as usize]);
        let label = format!("{} {}", level.name(), config.label());
        assert_eq!((got.accesses, got.misses), (accesses, misses), "{label}");
        assert_eq!(got.miss_rate, misses as f64 / accesses as f64, "{label}");
        evicting += (misses > 0 && config.size <= 1024) as usize;
    }
    assert!(evicting > 100, "the trace makes small caches evict");
}

/// The study's 53 timing points as the grid runs them (caches warmed once per memory system,
/// branch units once per predictor, a core that recurs in several sweeps timed once) give what
/// each point simulated on its own from scratch gives (`timing::simulate`: its own warm-up of
/// caches and predictor, then the timed part).
#[test]
fn the_timing_sweeps_equal_each_core_simulated_on_its_own() {
    let mut d = Decoded::default();
    let events = trace(&mut d, 30_000);
    let measured = 20_001..events.len();
    let grid = Grid {
        lines: vec![],
        windows: vec![],
        predictors: vec![],
        timing_limit: 4_000,
        ..Grid::full()
    };
    assert_eq!(grid.timing.len(), 53);
    let a = analyse(&events, measured.clone(), &d, &grid);
    assert_eq!(a.timing.len(), grid.timing.len());
    let mut distinct = 0;
    for (k, (got, point)) in a.timing.iter().zip(&grid.timing).enumerate() {
        assert_eq!((&got.sweep, &got.x), (&point.sweep, &point.x));
        let want = timing::simulate(&events, measured.clone(), &d, &point.config, 4_000).unwrap();
        assert_eq!(
            serde_json::to_string(&got.result).unwrap(),
            serde_json::to_string(&want).unwrap(),
            "{} {}",
            point.sweep,
            point.x
        );
        assert_eq!(want.instructions, 4_000);
        distinct += !grid.timing[..k].iter().any(|p| p.config == point.config) as usize;
    }
    assert_eq!(distinct, 45, "the sweeps cross at the base core");
    let cycles: std::collections::BTreeSet<u64> =
        a.timing.iter().map(|t| t.result.cycles).collect();
    assert!(cycles.len() >= 5, "the points differ: {cycles:?}");
}
