//! The run loop's stopping rules, pinned at their thresholds: a cell's variant is precise only
//! with `min_bouts` bouts and its interval within the target; a paired ratio only with its
//! interval within the target; a cell stops when both hold, or when its time (and the pool that
//! precise cells left) is spent.

use super::stopping::{left_unused, may_stop, paired_precise, round_stops, MAX_BUDGET_FACTOR};
use super::*;

// Eight bouts of a baseline and a candidate, as in crates/stats' SciPy fixtures: the baseline's
// interval is ±2.8793% (SciPy 1.17.1: (97.76500093844372, 103.55925187268339) around
// 100.62042713344752), the paired ratio 1.108716717810681 with upper bound 1.1373038281743602.
const BASE8: [f64; 8] = [100.0, 103.0, 98.0, 101.0, 99.5, 120.0, 97.0, 102.0];
const CAND8: [f64; 8] = [90.0, 91.5, 89.0, 92.0, 90.5, 80.0, 93.0, 90.8];
const REL_CI8: f64 = (103.55925187268339 - 97.76500093844372) / 2.0 / 100.62042713344752;

fn paired_half() -> f64 {
    (1.1373038281743602f64 / 1.108716717810681).ln()
}

fn bouts_of(ns: &[f64], spent_s: f64) -> Bouts {
    Bouts {
        samples: ns
            .iter()
            .enumerate()
            .map(|(i, t)| Sample {
                iters: 1000,
                wall_ns: (t * 1000.0) as u64,
                cpu_ns: (t * 1000.0) as u64,
                tsc: 0,
                bout: i as u32,
            })
            .collect(),
        bouts: ns.len() as u32,
        iters: 1000,
        spent_s,
        ..Default::default()
    }
}

fn cell() -> CellSpec {
    CellSpec {
        primitive: "sha256".into(),
        op: cryptospeed_model::Op::Hash,
        bytes: Some(64),
        misalign: 0,
    }
}

fn config(precision: f64, min_bouts: u32) -> MeasureConfig {
    MeasureConfig {
        precision,
        min_bouts,
        max_time_s: 1.0,
        ..Default::default()
    }
}

#[test]
fn a_variant_is_precise_with_min_bouts_and_its_interval_within_the_target() {
    let b = bouts_of(&BASE8, 0.1);
    assert!(b.precise(&cell(), &config(REL_CI8 * 1.001, 8)));
    assert!(!b.precise(&cell(), &config(REL_CI8 * 0.999, 8)));
    assert!(!b.precise(&cell(), &config(0.05, 9)));
    // Never fewer than two bouts, whatever --min-bouts says.
    assert!(!bouts_of(&BASE8[..1], 0.1).precise(&cell(), &config(1.0, 0)));
}

#[test]
fn a_paired_ratio_is_precise_when_its_interval_is_within_the_target() {
    let row = [bouts_of(&BASE8, 0.1), bouts_of(&CAND8, 0.1)];
    assert!((paired_half() - 0.025455).abs() < 1e-5);
    assert!(paired_precise(&row, &config(paired_half() * 1.001, 2)));
    assert!(!paired_precise(&row, &config(paired_half() * 0.999, 2)));
    // One variant has nothing to pair.
    assert!(paired_precise(&row[..1], &config(0.0, 2)));
}

#[test]
fn a_cell_stops_when_every_variant_and_every_ratio_is_precise() {
    let wide = REL_CI8.max(paired_half()) * 1.001;
    let mut tally = Tally::default();
    let mut row = [bouts_of(&BASE8, 0.25), bouts_of(&CAND8, 0.5)];
    assert!(may_stop(&mut row, &cell(), &config(wide, 8), &mut tally));
    // Both leave their unused budget (1 s each) to the pool.
    assert!(
        (tally.unused_s - (0.75 + 0.5)).abs() < 1e-12,
        "{}",
        tally.unused_s
    );
    // Each variant precise (the same bouts in another order have the same interval) but their
    // paired ratio not: go on while there is time.
    let target = REL_CI8 * 1.001;
    let reversed: Vec<f64> = BASE8.iter().rev().copied().collect();
    let mut row = [bouts_of(&BASE8, 0.25), bouts_of(&reversed, 0.25)];
    assert!(row[1].precise(&cell(), &config(target, 8)));
    assert!(!paired_precise(&row, &config(target, 8)));
    let mut tally = Tally::default();
    assert!(!may_stop(&mut row, &cell(), &config(target, 8), &mut tally));
    // The same bouts 10% faster in every round pair up exactly: precise, stop.
    let faster: Vec<f64> = BASE8.iter().map(|t| t * 0.9).collect();
    let mut row = [bouts_of(&BASE8, 0.25), bouts_of(&faster, 0.25)];
    assert!(may_stop(&mut row, &cell(), &config(target, 8), &mut tally));
}

#[test]
fn an_imprecise_cell_stops_when_its_time_and_the_pool_are_spent() {
    let tight = config(0.001, 8);
    // Within its own time: go on.
    let mut tally = Tally::default();
    let mut row = [bouts_of(&BASE8, 0.5)];
    assert!(!may_stop(&mut row, &cell(), &tight, &mut tally));
    // Out of time and no pool: stop.
    let mut row = [bouts_of(&BASE8, 1.0)];
    assert!(may_stop(&mut row, &cell(), &tight, &mut tally));
    // Out of time with a pool holding one more bout (1/8 s): one more round (until 1.125 s of
    // wall time), granted from it.
    let mut tally = Tally {
        unused_s: 0.2,
        ..Default::default()
    };
    let mut row = [bouts_of(&BASE8, 1.0)];
    assert!(!may_stop(&mut row, &cell(), &tight, &mut tally));
    assert!((tally.unused_s - (0.2 - 0.125)).abs() < 1e-12);
    assert!((row[0].granted_until_s - 1.125).abs() < 1e-12);
    assert!(!row[0].out_of_time(&tight));
    // A pool smaller than a bout: stop.
    let mut tally = Tally {
        unused_s: 0.1,
        ..Default::default()
    };
    let mut row = [bouts_of(&BASE8, 1.0)];
    assert!(may_stop(&mut row, &cell(), &tight, &mut tally));
    // Never past four times its budget in wall time (MAX_BUDGET_FACTOR), however full the pool:
    // at 2.5 s of a 1 s budget it may go on, at 3.9 s (a bout is 3.9/8 s) it stops.
    let full = || Tally {
        unused_s: 100.0,
        ..Default::default()
    };
    let mut row = [bouts_of(&BASE8, 2.5)];
    row[0].granted_until_s = 2.5;
    assert!(!may_stop(&mut row, &cell(), &tight, &mut full()));
    let mut row = [bouts_of(&BASE8, 3.9)];
    row[0].granted_until_s = 3.9;
    assert!(may_stop(&mut row, &cell(), &tight, &mut full()));
}

/// The bouts of `bouts_of`, each with a canary record: the ones in `slow` ran 10% slow.
fn with_canaries(mut b: Bouts, slow: &[u32]) -> Bouts {
    b.disturbances = (0..b.bouts)
        .map(|bout| cryptospeed_model::BoutDisturbance {
            bout,
            canary_ns: [1000, if slow.contains(&bout) { 1100 } else { 1000 }],
            ..Default::default()
        })
        .collect();
    b
}

#[test]
fn the_time_the_host_took_is_given_back_down_to_half() {
    let tight = config(0.001, 8);
    let no_pool = Tally::default;
    let close = |x: f64, y: f64| (x - y).abs() < 1e-9;
    // 1 s of a 1 s budget, nothing set aside: out of time, as above.
    let mut row = [with_canaries(bouts_of(&BASE8, 1.0), &[])];
    assert_eq!(row[0].charged_s(), 1.0);
    assert!(may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    // Bouts 2 and 5 set aside by their canary (98 + 120 of the 820.5 ns of samples): charged
    // 602.5/820.5 of its time, so at 1 s it goes on, at 1.35 s too, at 1.37 s it stops.
    let mut row = [with_canaries(bouts_of(&BASE8, 1.0), &[2, 5])];
    assert!(close(row[0].charged_s(), 602.5 / 820.5));
    assert!(!may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    let mut row = [with_canaries(bouts_of(&BASE8, 1.35), &[2, 5])];
    assert!(!may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    let mut row = [with_canaries(bouts_of(&BASE8, 1.37), &[2, 5])];
    assert!(may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    // Every sample descheduled for 40% of it (corrected, kept): charged its CPU time's share.
    let mut b = bouts_of(&BASE8, 1.0);
    b.samples
        .iter_mut()
        .for_each(|s| s.cpu_ns = s.wall_ns * 6 / 10);
    assert!(close(b.charged_s(), 0.6));
    // Six of eight bouts set aside: charged half its time, never less (MIN_CHARGED_SHARE): at
    // 1.9 s it goes on, at 2 s it stops.
    let mut row = [with_canaries(bouts_of(&BASE8, 1.9), &[0, 1, 2, 3, 4, 5])];
    assert!(close(row[0].charged_s(), 0.95));
    assert!(!may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    let mut row = [with_canaries(bouts_of(&BASE8, 2.0), &[0, 1, 2, 3, 4, 5])];
    assert!(may_stop(&mut row, &cell(), &tight, &mut no_pool()));
    // A precise cell leaves the pool the wall time it did not use, not its uncharged time.
    let mut tally = no_pool();
    let mut row = [with_canaries(bouts_of(&BASE8, 0.8), &[7])];
    assert!(may_stop(&mut row, &cell(), &config(0.05, 7), &mut tally));
    assert!(close(tally.unused_s, 0.2), "{}", tally.unused_s);
}

/// `bouts_of` with every sample 60% off the CPU (corrected and kept): charged half its time.
fn off_cpu(ns: &[f64], spent_s: f64) -> Bouts {
    let mut b = bouts_of(ns, spent_s);
    b.samples
        .iter_mut()
        .for_each(|s| s.cpu_ns = s.wall_ns * 4 / 10);
    b
}

#[test]
fn the_pool_is_credited_only_wall_time_left_unused() {
    let close = |x: f64, y: f64| (x - y).abs() < 1e-9;
    let precise = config(0.05, 8);
    // Its whole 1 s budget and more in wall time, charged 0.8 s: nothing left to the pool.
    let mut tally = Tally::default();
    let mut row = [off_cpu(&BASE8, 1.6)];
    assert!(close(row[0].charged_s(), 0.8));
    assert!(may_stop(&mut row, &cell(), &precise, &mut tally));
    assert_eq!(tally.unused_s, 0.0);
    // 0.8 s of wall time, charged 0.4 s: it leaves 0.2 s, not 0.6 s.
    let mut row = [off_cpu(&BASE8, 0.8)];
    assert!(may_stop(&mut row, &cell(), &precise, &mut tally));
    assert!(close(tally.unused_s, 0.2), "{}", tally.unused_s);
    // Stored cells (`run --resume`) count the same way.
    let m = |b: &Bouts, status| Measurement {
        status,
        ..b.summary(&cell(), &precise, "")
    };
    assert_eq!(left_unused(&m(&off_cpu(&BASE8, 1.6), Status::Ok), 1.0), 0.0);
    assert!(close(
        left_unused(&m(&off_cpu(&BASE8, 0.8), Status::Ok), 1.0),
        0.2
    ));
    // An imprecise one charged half its time took from the pool the wall time past 2 s.
    let took = left_unused(&m(&off_cpu(&BASE8, 2.5), Status::Imprecise), 1.0);
    assert!(close(took, -0.5), "{took}");
}

#[test]
fn what_a_cell_was_charged_never_goes_down() {
    let tight = config(0.001, 8);
    let mut tally = Tally {
        unused_s: 0.125,
        ..Default::default()
    };
    let mut row = [with_canaries(bouts_of(&BASE8, 1.0), &[])];
    row[0].settle_charge();
    assert!(!may_stop(&mut row, &cell(), &tight, &mut tally));
    // The granted bout runs, and the canary then finds six bouts slow: counted now, the cell
    // would be charged half of 1.125 s, back within its budget. It stays charged 1 s or more,
    // out of time once the granted round is spent, and with the pool empty it stops.
    row[0].spent_s = 1.125;
    row[0].settle_charge();
    row[0] = with_canaries(std::mem::take(&mut row[0]), &[0, 1, 2, 3, 4, 5]);
    assert!(row[0].charged_s() >= 1.0, "{}", row[0].charged_s());
    assert!(row[0].out_of_time(&tight));
    assert!(may_stop(&mut row, &cell(), &tight, &mut tally));
}

#[test]
fn a_cell_measures_at_most_its_documented_multiple_of_the_budget() {
    // Rounds of 1/8 s of wall time, each charged half (off the CPU): with its own budget only,
    // it stops at twice the budget; with a full pool, before four times it (MAX_BUDGET_FACTOR).
    let tight = config(0.001, 8);
    for (pool, at_most, at_least) in [(0.0, 2.0, 2.0), (100.0, MAX_BUDGET_FACTOR, 3.8)] {
        let mut tally = Tally {
            unused_s: pool,
            ..Default::default()
        };
        let mut row = [off_cpu(&BASE8[..2], 0.25)];
        while !may_stop(&mut row, &cell(), &tight, &mut tally) {
            let b = &mut row[0];
            let next = off_cpu(&[BASE8[b.bouts as usize % 8]], 0.125).samples[0];
            b.samples.push(Sample {
                bout: b.bouts,
                ..next
            });
            b.bouts += 1;
            b.spent_s += 0.125;
            b.settle_charge();
        }
        let spent = row[0].spent_s;
        assert!(
            spent <= at_most + 1e-9 && spent >= at_least - 1e-9,
            "{spent}"
        );
        assert!(pool - tally.unused_s <= (spent - 2.0).max(0.0) + 1e-9);
    }
}

#[test]
fn an_imprecise_cell_gets_the_time_a_cell_precise_in_the_same_round_left() {
    let tight = config(0.001, 8);
    // Cell 0 out of its own time and imprecise (±2.88%); cell 1 steady (an interval of width
    // 0: precise at any target) with 0.75 s of its budget unused.
    let steady = [100.0; 8];
    let rows = || vec![vec![bouts_of(&BASE8, 1.0)], vec![bouts_of(&steady, 0.25)]];
    let cells = [cell(), cell()];
    // Decided right after its own bout, cell 0 (visited first) stops with an empty pool.
    let mut r = rows();
    assert!(may_stop(
        &mut r[0],
        &cells[0],
        &tight,
        &mut Tally::default()
    ));
    // Decided after the round, precise cells first: cell 1 stops and leaves 0.75 s, and cell 0
    // takes one more round (1/8 s) from it.
    let mut r = rows();
    let mut tally = Tally::default();
    let stops = round_stops(&mut r, &cells, vec![0, 1], &tight, &mut tally);
    assert_eq!(stops, [1]);
    assert!((r[0][0].granted_until_s - 1.125).abs() < 1e-12);
    assert!((tally.unused_s - (0.75 - 0.125)).abs() < 1e-12);
}
