//! `compare BASE NEW --remeasure`: a stored baseline made comparable by timing both sides'
//! builds again in one new run. The effect is real: the replica `openssl#slow` under
//! `CRYPTOSPEED_FAULT=slow:0.05@slow` (every timed batch 5% longer, in the worker) must come out
//! slower in the re-measured, paired comparison, and by about 5% (the ratio's intervals hold
//! 1/1.05). Sides that cannot be timed again (an imported log, a run from another machine, a
//! build that changed, a library that is gone) are refused naming the side and the reason, and
//! the stored runs are never touched.

mod common;

use common::{bin, ok};
use cryptospeed_model::RunRecord;
use cryptospeed_store::{SqliteStore, Store};
use serde_json::Value;
use std::path::Path;

/// The worker's test fault: the replica tagged `slow` takes 5% longer per timed batch.
const SLOW: (&str, &str) = ("CRYPTOSPEED_FAULT", "slow:0.05@slow");

/// A quick stored run of `implementation` under `label`.
fn stored_run(db: &Path, implementation: &str, label: &str, cells: &[&str]) {
    ok(bin()
        .env(SLOW.0, SLOW.1)
        .args(["run", "--impl", implementation, "--label", label])
        .args(cells)
        .args(["--max-time", "0.3", "--db"])
        .arg(db));
}

/// Every stored run, whole (samples included), as JSON: what must not change.
fn snapshot(db: &Path) -> Vec<String> {
    let store = SqliteStore::open(db).unwrap();
    let mut runs: Vec<String> = Vec::new();
    for row in store.runs().unwrap() {
        let record = store.load_run(&row.id.to_string()).unwrap();
        runs.push(serde_json::to_string(&record).unwrap());
    }
    runs
}

const CELLS: [&str; 4] = ["-a", "md5,sha256", "-b", "16,8192"];

#[test]
fn a_stored_slow_replica_is_found_slower_when_both_sides_are_timed_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    stored_run(&db, "openssl", "base", &CELLS);
    stored_run(&db, "openssl#slow", "new", &CELLS);
    let before = snapshot(&db);

    // One re-measurement decides: its rounds pin both sides to one CPU and keep only the
    // samples nothing interrupted, so 5% shows even with a build beside it.
    let c = remeasured(&db, 3);
    replica_found_slower(&c).unwrap();
    effect_held(&c).unwrap();

    // The new run is stored, labelled after the runs they re-measure, with the command that
    // made them; the stored runs are as they were.
    let store = SqliteStore::open(&db).unwrap();
    let new = store.load_run("3").unwrap();
    assert_eq!(new.run.label.as_deref(), Some("remeasure-1-2"));
    assert!(
        new.run.command.contains("--remeasure"),
        "{}",
        new.run.command
    );
    assert_eq!(new.variants.len(), 2);
    assert_eq!(new.measurements.len(), 8, "the 4 shared cells, twice");
    assert_eq!(snapshot(&db)[..2], before[..]);
}

/// `compare base new --remeasure --format json` under the fault, expected to store run `run`:
/// the comparison, checked to be that run's.
fn remeasured(db: &Path, run: i64) -> Value {
    let out = bin()
        .env(SLOW.0, SLOW.1)
        .args(["compare", "base", "new", "--remeasure", "--format", "json"])
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Both sides from the new run, the baseline the stored baseline's build, the candidate its
    // slow replica.
    let sides = c["sides"].as_array().unwrap();
    assert_eq!(sides.len(), 2, "{c}");
    for side in sides {
        // The first run re-measures every cell; later ones (if any) the undecided cells.
        assert_eq!(side["runs"][0], serde_json::json!(run), "{side}");
    }
    assert!(sides[1]["name"].as_str().unwrap().ends_with("#slow"));
    let description = sides[0]["description"].as_str().unwrap();
    let said = format!("run {run}, re-measuring label 'base'");
    assert!(description.contains(&said), "{description}");
    let said = format!("run {run} holds the re-measurement of base");
    assert!(stderr.contains(&said), "{stderr}");
    c
}

/// Whether the slow replica reads slower (5% in the worker): no cell faster, three of four
/// below 1.00x, two called significant, the geomean below 0.99x; every cell says what change it
/// could have seen.
fn replica_found_slower(c: &Value) -> Result<(), String> {
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{c}");
    let versus: Vec<&Value> = rows.iter().map(|r| &r["versus"][1]).collect();
    assert!(versus.iter().all(|v| v["detectable"].is_number()), "{c}");
    let slower = versus.iter().filter(|v| v["ratio"].as_f64().unwrap() < 1.0);
    let significant = versus
        .iter()
        .filter(|v| v["significant"] == Value::Bool(true));
    let faster = versus.iter().any(|v| v["verdict"] == "faster");
    let geomean = c["sides"][1]["geomean"].as_f64().unwrap();
    match (faster, slower.count(), significant.count(), geomean < 0.99) {
        (false, 3.., 2.., true) => Ok(()),
        _ => Err(format!("not found slower: {c}")),
    }
}

/// The true ratio of the replica's rate to the baseline's: every timed batch takes 1.05 times
/// as long.
const TRUE_RATIO: f64 = 1.0 / 1.05;

/// Whether the re-measurement estimates the injected effect, not only its sign: each cell's 95%
/// interval of the ratio must hold the true ratio, in at least three of the four cells (with
/// honest intervals all four hold in 81% of runs, three or more in 98.6%). A 5% slowdown read as
/// 1.5% with an interval that excludes 5%, or intervals too narrow for their noise, fail.
fn effect_held(c: &Value) -> Result<(), String> {
    let rows = c["rows"].as_array().unwrap();
    let held = rows
        .iter()
        .filter(|r| {
            let ci = &r["versus"][1]["ratio_ci"];
            let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
            lo <= TRUE_RATIO && TRUE_RATIO <= hi
        })
        .count();
    match held + 1 >= rows.len() {
        true => Ok(()),
        false => Err(format!(
            "the true ratio {TRUE_RATIO:.4} is inside {held} of {} intervals: {c}",
            rows.len()
        )),
    }
}

/// Runs `compare SIDES --remeasure`; its exit status and stderr.
fn remeasure(db: &Path, sides: &[&str]) -> (bool, String) {
    let out = bin()
        .arg("compare")
        .args(sides)
        .args(["--remeasure", "--db"])
        .arg(db)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Copies run `base` as a run labelled `label`, changed by `change` (another machine, another
/// build).
fn forged_copy(db: &Path, base: &str, label: &str, change: impl FnOnce(&mut RunRecord)) {
    let mut store = SqliteStore::open(db).unwrap();
    let mut record = store.load_run(base).unwrap();
    record.run.label = Some(label.into());
    change(&mut record);
    store
        .copy_run(&format!("forged-{label}"), &record, &[])
        .unwrap();
}

#[test]
fn sides_that_cannot_be_timed_again_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    stored_run(&db, "openssl", "base", &["-a", "sha256", "-b", "16"]);
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/import/tests/fixtures/openssl-3.0.19-human.txt");
    ok(bin()
        .args(["import", "--label", "log"])
        .arg(&log)
        .arg("--db")
        .arg(&db));
    forged_copy(&db, "base", "elsewhere", |r| {
        r.machine.hostname = "elsewhere".into()
    });
    forged_copy(&db, "base", "older", |r| {
        r.variants[0].version = "3.0.0-old".into()
    });
    forged_copy(&db, "base", "gone", |r| {
        r.variants[0].library = "/nowhere/lib/libcrypto.so.3".into()
    });
    let before = snapshot(&db);

    let refusals = [
        ("log", "run 2 is an imported log ("),
        (
            "elsewhere",
            "run 3 was measured on another machine (elsewhere, ",
        ),
        ("older", "the build changed since it was stored (version "),
        ("gone", "its library /nowhere/lib/libcrypto.so.3 is gone"),
    ];
    for (side, reason) in refusals {
        let (success, err) = remeasure(&db, &[side, "base"]);
        assert!(!success, "{side}: {err}");
        let said = format!("side '{side}' cannot be re-measured: {reason}");
        assert!(err.contains(&said), "{said}\n{err}");
        assert!(err.contains("the baseline cannot be timed again"), "{err}");
    }
    let (_, err) = remeasure(&db, &["base", "older"]);
    assert!(err.contains("3.0.0-old stored"), "{err}");
    assert!(
        err.contains("fewer than two sides can be timed again"),
        "{err}"
    );
    assert_eq!(
        snapshot(&db),
        before,
        "a refusal stores nothing and changes nothing"
    );

    // Among three sides, the two that can be timed again are (the same build twice: the second
    // becomes a replica of its own, an A/A pair), and the refused one is named.
    let (success, err) = remeasure(&db, &["base", "log", "base"]);
    assert!(success, "{err}");
    assert!(err.contains("side 'log' cannot be re-measured"), "{err}");
    let store = SqliteStore::open(&db).unwrap();
    let new = store.load_run("remeasure-1-1").unwrap();
    let labels: Vec<&str> = new.variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(labels.len(), 2);
    assert!(labels.iter().any(|l| l.ends_with("#3")), "{labels:?}");
    assert!(labels.iter().any(|l| !l.contains('#')), "{labels:?}");
    assert_eq!(snapshot(&db)[..before.len()], before[..]);
}

/// The system libcrypto's file, where the usual places have it.
fn system_libcrypto() -> Option<&'static str> {
    [
        "/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib64/libcrypto.so.3",
        "/usr/lib/libcrypto.so.3",
    ]
    .into_iter()
    .find(|p| Path::new(p).is_file())
}

#[test]
fn a_library_given_by_path_and_a_feature_mask_are_timed_again_as_stored() {
    let system = system_libcrypto()
        .expect("the system libcrypto.so.3 (Debian's libssl3, which scripts/setup installs)");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let linked = dir.path().join("libcrypto.so.3");
    std::os::unix::fs::symlink(system, &linked).unwrap();
    let cell = ["-a", "sha256", "-b", "16"];
    stored_run(&db, &format!("openssl:{}", linked.display()), "path", &cell);
    let masked = [&cell[..], &["--mask", "no-aesni"]].concat();
    stored_run(&db, "openssl", "masked", &masked);
    let before = snapshot(&db);

    let (success, err) = remeasure(&db, &["masked", "path"]);
    assert!(success, "{err}");
    let store = SqliteStore::open(&db).unwrap();
    let new = store.load_run("remeasure-2-1").unwrap();
    for old in [
        store.load_run("path").unwrap(),
        store.load_run("masked").unwrap(),
    ] {
        let v = &old.variants[0];
        let again = new.variants.iter().find(|n| n.label == v.label).unwrap();
        assert_eq!(
            again.fingerprint(),
            v.fingerprint(),
            "the same build, library and mask"
        );
    }
    assert_eq!(snapshot(&db)[..2], before[..]);
}

/// The stored runs labelled `label` or `label-more-N`, oldest first.
fn runs_labelled(db: &Path, label: &str) -> Vec<RunRecord> {
    let store = SqliteStore::open(db).unwrap();
    let more = format!("{label}-more-");
    let mut runs: Vec<RunRecord> = store
        .runs()
        .unwrap()
        .into_iter()
        .map(|row| store.load_run(&row.id.to_string()).unwrap())
        .filter(|r| {
            let l = r.run.label.as_deref().unwrap_or_default();
            l == label || l.starts_with(&more)
        })
        .collect();
    runs.sort_by_key(|r| r.run.id);
    runs
}

/// The cells a run measured, as `primitive@bytes`.
fn cells_of(r: &RunRecord) -> std::collections::BTreeSet<String> {
    r.measurements
        .iter()
        .map(|vm| {
            format!(
                "{}@{:?}",
                vm.measurement.cell.primitive, vm.measurement.cell.bytes
            )
        })
        .collect()
}

/// Decisive: cells the re-measurement's first run leaves `?` are timed again in runs of their
/// own (the gate's passes: twice the time per cell each, up to 8×), labelled `-more-N`, each over
/// a subset of the one before, pooled pair by pair within runs, until decided or the passes run
/// out; what stays undecided is named, and the JSON's `unknown` cells are exactly those. An A/A
/// pair (a replica) judged at α 0.001 and a 0.1% resolution cannot be decided from 0.05 s
/// stored settings, so the passes are sure to be taken.
#[test]
fn undecided_cells_are_timed_again_until_decided_or_the_budget_is_spent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let short = [
        "--cells",
        "md5@16,sha256@16",
        "--max-time",
        "0.05",
        "--min-bouts",
        "2",
    ];
    for (implementation, label) in [("openssl", "base"), ("openssl#b", "new")] {
        ok(bin()
            .args(["run", "--impl", implementation, "--label", label])
            .args(short)
            .arg("--db")
            .arg(&db));
    }
    let out = bin()
        .args([
            "compare",
            "base",
            "new",
            "--remeasure",
            "--extra-passes",
            "2",
        ])
        .args(["--alpha", "0.001", "--resolution", "0.001"])
        .args(["--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();

    let runs = runs_labelled(&db, "remeasure-1-2");
    let ids: Vec<i64> = runs.iter().map(|r| r.run.id).collect();
    assert!(
        runs.len() >= 2,
        "A/A cells decided at 0.1% from 0.05 s: {stderr}"
    );
    assert!(
        runs.len() <= 3,
        "more passes than --extra-passes 2: {ids:?}"
    );
    for side in c["sides"].as_array().unwrap() {
        assert_eq!(side["runs"], serde_json::json!(ids), "{side}");
    }
    let first = runs[0].run.config.max_time_s;
    for (k, pair) in runs.windows(2).enumerate() {
        let (before, after) = (cells_of(&pair[0]), cells_of(&pair[1]));
        assert!(
            after.is_subset(&before) && !after.is_empty(),
            "{before:?} {after:?}"
        );
        assert_eq!(
            pair[1].run.label.as_deref(),
            Some(format!("remeasure-1-2-more-{}", k + 1).as_str())
        );
        let doubled = first * f64::from(1u32 << (k + 1).min(3));
        assert!((pair[1].run.config.max_time_s - doubled).abs() < 1e-9);
    }

    undecided_named(&c, &stderr, runs.len() - 1, 2);
}

/// The re-measured comparison `c` after `passes` of at most `extra` further passes: cells
/// undecided only when the passes ran out, and stderr naming exactly the `unknown` cells.
fn undecided_named(c: &Value, stderr: &str, passes: usize, extra: usize) {
    let rows = c["rows"].as_array().unwrap();
    let verdicts: Vec<&str> = rows
        .iter()
        .map(|r| r["versus"][1]["verdict"].as_str().unwrap())
        .collect();
    let open = verdicts.iter().filter(|v| **v == "unknown").count();
    if passes < extra {
        assert_eq!(open, 0, "passes stopped with cells still undecided: {c}");
    }
    let said = match open {
        0 => "every cell decided".to_string(),
        n => format!("{n} cell(s) stayed undecided (?) after {passes} more pass(es)"),
    };
    assert!(stderr.contains(&said), "{said}\n{stderr}");
    for r in rows
        .iter()
        .filter(|r| r["versus"][1]["verdict"] == "unknown")
    {
        let named = format!("{} @", r["label"].as_str().unwrap());
        assert!(stderr.contains(&named), "{named}\n{stderr}");
    }
}
