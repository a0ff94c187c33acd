//! The comparison's own unit tests: ratios, significance and geomean, missing cells and
//! filters, imported runs averaged, and bouts paired within a run but not across runs.

use super::*;

fn side(name: &str, cells: &[(&str, Option<u64>, Vec<f64>)]) -> SideInput {
    let mut s = SideInput {
        name: name.into(),
        ..Default::default()
    };
    for (p, b, ns) in cells {
        let op = if b.is_some() { Op::Hash } else { Op::Sign };
        let median = stats::median(ns).unwrap();
        s.cells
            .entry(cell_key(p, op, *b))
            .or_default()
            .push(RunValue {
                run: 1,
                rate: b.unwrap_or(1) as f64 * 1e9 / median,
                ns_per_op: ns.clone(),
                bouts: Vec::new(),
                paired: Vec::new(),
            });
    }
    s
}

fn around(center: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| center * (1.0 + 0.001 * ((i * 7 % 11) as f64 - 5.0)))
        .collect()
}

#[test]
fn ratios_significance_and_geomean() {
    let a = side(
        "a",
        &[
            ("md5", Some(8192), around(1000.0, 30)),
            ("rsa-2048", None, around(200_000.0, 30)),
        ],
    );
    let b = side(
        "b",
        &[
            ("md5", Some(8192), around(500.0, 30)),
            ("rsa-2048", None, around(200_000.0, 30)),
        ],
    );
    let c = compare(&[a, b], 0, 0.05, 0.01, &Filter::default());
    assert_eq!(c.rows.len(), 2);
    let md5 = c.rows.iter().find(|r| r.key.primitive == "md5").unwrap();
    let v = md5.versus[1].as_ref().unwrap();
    assert!(
        (v.ratio - 2.0).abs() < 1e-9,
        "half the time is twice the rate: {}",
        v.ratio
    );
    assert_eq!(v.significant, Some(true));
    let rsa = c
        .rows
        .iter()
        .find(|r| r.key.primitive == "rsa-2048")
        .unwrap();
    assert_eq!(rsa.label, "rsa-2048 sign");
    assert_eq!(rsa.versus[1].as_ref().unwrap().significant, Some(false));
    assert!((c.sides[1].geomean.unwrap() - 2f64.sqrt()).abs() < 1e-9);
    assert_eq!(c.sides[0].geomean, Some(1.0));
}

#[test]
fn missing_cells_and_filters() {
    let a = side(
        "a",
        &[
            ("md5", Some(16), around(10.0, 10)),
            ("md5", Some(8192), around(1000.0, 10)),
        ],
    );
    let b = side("b", &[("md5", Some(8192), around(900.0, 10))]);
    let c = compare(&[a.clone(), b.clone()], 0, 0.05, 0.01, &Filter::default());
    let small = c.rows.iter().find(|r| r.key.bytes == Some(16)).unwrap();
    assert!(small.values[1].is_none() && small.versus[1].is_none());
    let c = compare(
        &[a, b],
        0,
        0.05,
        0.01,
        &Filter {
            bytes: Some(8192),
            primitives: None,
        },
    );
    assert_eq!(c.rows.len(), 1);
    assert_eq!(c.sides[1].geomean_rows, 1);
}

#[test]
fn imported_runs_are_averaged_with_their_spread() {
    let mut a = SideInput {
        name: "a".into(),
        ..Default::default()
    };
    let mut b = SideInput {
        name: "b".into(),
        ..Default::default()
    };
    let key = cell_key("sha256", Op::Hash, Some(8192));
    for (i, r) in [100.0, 102.0, 98.0, 101.0, 99.0].iter().enumerate() {
        a.cells.entry(key.clone()).or_default().push(RunValue {
            run: i as i64,
            rate: *r,
            ns_per_op: vec![],
            bouts: vec![],
            paired: vec![],
        });
        b.cells.entry(key.clone()).or_default().push(RunValue {
            run: 10 + i as i64,
            rate: r * 1.2,
            ns_per_op: vec![],
            bouts: vec![],
            paired: vec![],
        });
    }
    let c = compare(&[a, b], 0, 0.05, 0.01, &Filter::default());
    let v = c.rows[0].values[0].as_ref().unwrap();
    assert_eq!(v.basis, Basis::Averaged);
    assert_eq!(v.rate, 100.0);
    assert_eq!(v.spread, Some((98.0, 102.0)));
    let vs = c.rows[0].versus[1].as_ref().unwrap();
    assert!((vs.ratio - 1.2).abs() < 1e-12);
    // Five runs against five, all higher: exact p = 2/252.
    assert!((vs.p.unwrap() - 2.0 / 252.0).abs() < 1e-12);
}

/// One run's cell measured in bouts that drift together from round to round.
fn in_bouts(run: i64, factor: f64) -> RunValue {
    let drift = [1.0, 1.08, 0.93, 1.04, 0.97, 1.06, 0.95, 1.02];
    let bouts: Vec<(u32, f64)> = drift
        .iter()
        .enumerate()
        .map(|(i, d)| (i as u32, 1000.0 * d * factor))
        .collect();
    RunValue {
        run,
        rate: 8192.0 * 1e9 / (1000.0 * factor),
        ns_per_op: bouts.iter().map(|(_, v)| *v).collect(),
        paired: bouts.clone(),
        bouts,
    }
}

#[test]
fn bouts_of_one_run_pair_up_and_bouts_of_two_runs_do_not() {
    let key = cell_key("sha256", Op::Hash, Some(8192));
    let with = |name: &str, v: RunValue| {
        let mut s = SideInput {
            name: name.into(),
            ..Default::default()
        };
        s.cells.insert(key.clone(), vec![v]);
        s
    };
    // The candidate is 2% faster in every round of the same run: the drift cancels.
    let same = compare(
        &[
            with("a", in_bouts(1, 1.0)),
            with("b", in_bouts(1, 1.0 / 1.02)),
        ],
        0,
        0.05,
        0.0,
        &Filter::default(),
    );
    let vs = same.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(vs.test, Some("paired bouts"));
    assert_eq!(same.rows[0].values[0].as_ref().unwrap().basis, Basis::Bouts);
    assert!(
        (vs.ratio - 1.02).abs() < 1e-9 && vs.significant == Some(true),
        "{vs:?}"
    );
    // The same figures from two runs: the drift is noise, 2% is inside it.
    let apart = compare(
        &[
            with("a", in_bouts(1, 1.0)),
            with("b", in_bouts(2, 1.0 / 1.02)),
        ],
        0,
        0.05,
        0.0,
        &Filter::default(),
    );
    let vs = apart.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(vs.test, Some("bouts"));
    assert_eq!(vs.significant, Some(false), "{vs:?}");
    let (lo, hi) = vs.ratio_ci.unwrap();
    assert!(lo < 1.0 && hi > 1.02, "{vs:?}");
}

/// A cell of 40 rounds on a host at two speeds, as the two-state VM ran md5@16 (2026-11-29):
/// each round's state is shared by both variants' bouts, fast (235 ns, canary 66 µs) in one
/// round of eight, slow (1.5x, canary 90-130 µs) otherwise; `factor` scales the variant's time,
/// and each bout has its own noise of up to ±1.5% (`seed` picks it).
fn two_speed_cell(factor: f64, seed: u64) -> cryptospeed_model::Measurement {
    let cell = cryptospeed_model::CellSpec {
        primitive: "md5".into(),
        op: Op::Hash,
        bytes: Some(16),
        misalign: 0,
    };
    let mut m = cryptospeed_model::Measurement::not_timed(cell, cryptospeed_model::Status::Ok, "");
    for round in 0..40u32 {
        let fast = round % 8 == 3;
        let mixed = (seed ^ u64::from(round)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        let jitter = 1.0 + 0.015 * (mixed as f64 / (1u64 << 24) as f64 * 2.0 - 1.0);
        let ns = if fast { 235.0 } else { 352.5 } * jitter * factor;
        m.samples.push(cryptospeed_model::Sample {
            iters: 1000,
            wall_ns: (ns * 1000.0) as u64,
            cpu_ns: (ns * 1000.0) as u64,
            tsc: 0,
            bout: round,
        });
        let canary = if fast {
            66_000
        } else {
            90_000 + 1_000 * u64::from(round)
        };
        m.disturbances.push(cryptospeed_model::BoutDisturbance {
            bout: round,
            canary_ns: [canary, canary],
            ..Default::default()
        });
    }
    m
}

#[test]
fn two_variants_bouts_pair_over_every_bout_as_the_host_state_is_shared() {
    let (base, slow) = (two_speed_cell(1.0, 1), two_speed_cell(1.02, 2));
    // Each variant's figure keeps only the five bouts at the canary's floor...
    assert_eq!(bout_means(&base, 1.0).len(), 5);
    // ...but a pair shares its round's state: every round pairs, and the 2% is found.
    let (b, c) = (paired_bout_means(&base, 1.0), paired_bout_means(&slow, 1.0));
    assert_eq!((b.len(), c.len()), (40, 40));
    let r = stats::paired_ratio(&b, &c, 0.95).unwrap();
    assert!((r.ratio * 1.02 - 1.0).abs() < 0.006, "{r:?}");
    assert!(
        r.ci.0 < 1.0 / 1.02 && 1.0 / 1.02 < r.ci.1 && r.ci.1 < 1.0,
        "{r:?}"
    );
}

#[test]
fn compare_pairs_a_runs_two_variants_over_every_bout() {
    // The same two cells stored as one run's two variants: `compare` of the run pairs all 40
    // rounds and reads the 2% (pairing only the five kept bouts of each reads 3% here).
    let variant = |label: &str, m: cryptospeed_model::Measurement| {
        let mut m = m;
        m.summary = Some(cryptospeed_model::Summary::exact(40, 300.0));
        cryptospeed_model::VariantMeasurement {
            variant: label.into(),
            implementation: "openssl".into(),
            measurement: m,
            definition: None,
        }
    };
    let record = cryptospeed_model::RunRecord {
        run: cryptospeed_model::RunInfo {
            id: 1,
            label: None,
            started_at: String::new(),
            finished_at: None,
            command: String::new(),
            tool_version: String::new(),
            status: cryptospeed_model::RunStatus::Complete,
            config: Default::default(),
            imported: None,
            uid: None,
            conditions: None,
        },
        machine: Default::default(),
        variants: Vec::new(),
        measurements: vec![
            variant("base", two_speed_cell(1.0, 1)),
            variant("slow", two_speed_cell(1.02, 2)),
        ],
    };
    let side = |label: &str| {
        let mut s = SideInput {
            name: label.into(),
            ..Default::default()
        };
        s.add_run(&record, Some(label));
        s
    };
    let c = compare(
        &[side("base"), side("slow")],
        0,
        0.05,
        0.01,
        &Filter::default(),
    );
    let v = c.rows[0].versus[1].as_ref().unwrap();
    assert_eq!(v.test, Some("paired bouts"));
    assert_eq!(v.significant, Some(true));
    assert!((v.ratio * 1.02 - 1.0).abs() < 0.006, "{v:?}");
}
