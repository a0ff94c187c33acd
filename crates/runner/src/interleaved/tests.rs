//! The run loop's own unit tests: each round's order and CPU, calibration carried between
//! bouts, layouts per round, and a resumed cell's bouts stamped as this run's.

use super::*;

#[test]
fn every_round_orders_every_cell_once_and_rounds_differ() {
    let a = order(24, 0);
    let b = order(24, 1);
    let mut sorted = a.clone();
    sorted.sort();
    assert_eq!(sorted, (0..24).collect::<Vec<_>>());
    assert_ne!(a, b);
    assert_eq!(order(1, 3), [0]);
    assert!(order(0, 0).is_empty());
}

#[test]
fn every_worker_of_a_round_shares_one_cpu_and_rounds_take_the_cpus_in_turn() {
    let two: Vec<_> = (0..8)
        .map(|r| round_cpu(None, &[0, 1], r).unwrap())
        .collect();
    assert_eq!(two, [0, 0, 1, 1, 0, 0, 1, 1]);
    assert_eq!(round_cpu(None, &[2, 5, 7], 5), Some(7));
    // The user's --pin wins; no CPU known, no pinning.
    assert_eq!(round_cpu(Some(3), &[0, 1], 1), Some(3));
    assert_eq!(round_cpu(None, &[], 1), None);
}

#[test]
fn a_batch_size_that_left_the_samples_short_is_calibrated_again_in_the_next_bout() {
    let config = MeasureConfig {
        sample_time_s: 0.005,
        ..Default::default()
    };
    let cell = CellSpec {
        primitive: "ml-kem-768".into(),
        op: cryptospeed_model::Op::Keygen,
        bytes: None,
        misalign: 0,
    };
    let bout = |iters: u64, wall_ns: u64| Measurement {
        samples: vec![
            Sample {
                iters,
                wall_ns,
                cpu_ns: wall_ns,
                tsc: wall_ns,
                bout: 0,
            };
            3
        ],
        ..Measurement::not_timed(cell.clone(), Status::Imprecise, "")
    };
    let mut b = Bouts::default();
    // One 20 µs call per sample (calibrated on a slow first call): not kept.
    assert!(b.add(bout(1, 20_000), 0, &config).is_none());
    assert_eq!(b.request(&config).batch_iters, 0);
    // Calibrated again to 5 ms samples: kept, with a one-batch warm-up.
    b.add(bout(256, 5_200_000), 1, &config);
    let next = b.request(&config);
    assert_eq!((next.batch_iters, next.warmup_s), (256, 0.005));
    // A call longer than the sample time is timed alone, and that is kept.
    let mut slow = Bouts::default();
    slow.add(bout(1, 30_000_000), 0, &config);
    assert_eq!(slow.request(&config).batch_iters, 1);
}

#[test]
fn a_resumed_cells_earlier_bouts_are_judged_against_this_runs_stamps() {
    use crate::quiet_canary::Stamps;
    let stamped = BoutDisturbance {
        canary_ns: [70_000, 71_000],
        canary_quiet_ns: 66_000,
        canary_floor_ns: 65_000,
        ..BoutDisturbance::default()
    };
    let cell = CellSpec {
        primitive: "md5".into(),
        op: cryptospeed_model::Op::Hash,
        bytes: Some(16),
        misalign: 0,
    };
    let m = Measurement {
        disturbances: vec![stamped, BoutDisturbance::default()],
        ..Measurement::not_timed(cell, Status::Partial, "")
    };
    // Resumed with the quiet canary switched off: no stamps, on every bout.
    let off = Bouts::resumed(&m, Stamps::default());
    assert!(off
        .disturbances
        .iter()
        .all(|d| d.canary_quiet_ns == 0 && d.canary_floor_ns == 0));
    // Resumed with a reference learnt since: the new one, only where a canary was timed.
    let now = Stamps {
        quiet_ns: 67_000,
        floor_ns: 64_000,
    };
    let on = Bouts::resumed(&m, now);
    assert_eq!(
        (
            on.disturbances[0].canary_quiet_ns,
            on.disturbances[0].canary_floor_ns
        ),
        (67_000, 64_000)
    );
    assert_eq!(on.disturbances[1].canary_floor_ns, 0);
    assert_eq!(on.stamps, now);
}

#[test]
fn layouts_differ_between_rounds() {
    let c = MeasureConfig::default();
    assert_ne!(layout_for(7, 0, &c), layout_for(7, 1, &c));
}
