//! `cryptospeed history` end to end: twenty short real runs of one cell, the last ten with every
//! timed batch made twice as long (the worker's `slow` test fault), show one change of that size,
//! at the eleventh run (±1), with the figure's drop; the JSON carries every run and the text
//! marks the change. A host that runs at two speeds moved md5@8192 by up to 40% between runs
//! (570k against 800k KB/s), so a smaller change the host made is allowed beside it; a fault
//! of 1.3x could not be told from it.

mod common;

use common::bin;

#[test]
fn a_step_in_stored_runs_is_a_change_point_at_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let db = db.to_str().unwrap();
    for i in 0..20 {
        let mut run = bin();
        run.args([
            "run",
            "--cells",
            "md5@8192",
            "--max-time",
            "0.2",
            "--db",
            db,
        ]);
        if i >= 10 {
            run.env("CRYPTOSPEED_FAULT", "slow:1.0");
        }
        common::ok(&mut run);
    }
    let history = || {
        let mut c = bin();
        c.args(["history", "md5", "-b", "8192", "--db", db]);
        c
    };
    let v: serde_json::Value = serde_json::from_str(&common::ok(history().arg("--json"))).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), 20, "{v}");
    let cps: Vec<&serde_json::Value> = v["change_points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ratio"].as_f64().unwrap() < 1.0 / 1.5)
        .collect();
    assert_eq!(cps.len(), 1, "one change of 1.5x or more: {v}");
    assert!((9..=11).contains(&cps[0]["index"].as_u64().unwrap()), "{v}");
    let ratio = cps[0]["ratio"].as_f64().unwrap();
    assert!((0.4..0.6).contains(&ratio), "{v}");
    for c in v["change_points"].as_array().unwrap() {
        assert!(c["ratio"].as_f64().unwrap() < 1.5, "no change upward: {v}");
    }
    let text = common::ok(&mut history());
    assert!(text.contains("---- change: -"), "{text}");
}
