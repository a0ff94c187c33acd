//! Comparing across machines: `compare --machine` picks every run of a machine by key, hostname or
//! CPU model; `--normalize ghz` divides each run's rates by its machine's TSC frequency, and
//! `--normalize cycles --raw` prints cycles per byte that must agree with the TSC cycles the
//! worker counted itself (rdtsc around the samples), an oracle independent of the rate.
//!
//! The second machine is this machine's real run copied under a machine record whose TSC runs at
//! twice the clock (same rates): per GHz it must come out at exactly half.

mod common;

use common::{bin, ok};
use cryptospeed_store::{SqliteStore, Store, SyncOutcome};

#[test]
fn machines_compare_per_ghz_and_in_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    ok(bin()
        .args(["run", "-a", "md5,sha256", "-b", "8192", "--max-time", "0.3"])
        .args(["--label", "here", "--db"])
        .arg(&db));
    let (here_key, tsc) = store_twin(&db);
    let dbs = db.to_str().unwrap();
    same_rates_and_half_per_ghz(dbs, &here_key);
    cycles_agree_with_rdtsc(dbs, &here_key, tsc);
    selectors_name_one_machine(dbs);
}

/// Copies run `here` under a machine whose TSC runs at twice the clock; returns this machine's
/// key and TSC frequency.
fn store_twin(db: &std::path::Path) -> (String, f64) {
    let mut store = SqliteStore::open(db).unwrap();
    let mut record = store.load_run("here").unwrap();
    let tsc = record.machine.tsc_hz;
    assert!(tsc > 1e8);
    record.machine.hostname = "twin-at-double-clock".into();
    record.machine.tsc_hz = 2.0 * tsc;
    record.run.label = Some("twin".into());
    let outcome = store
        .copy_run("00000000000000000000000000000002", &record, &[])
        .unwrap();
    assert!(matches!(outcome, SyncOutcome::Copied(_)));
    let machines = store.machines().unwrap();
    assert_eq!(machines.len(), 2);
    (machines[0].key.clone(), tsc)
}

/// Plain: the same rates, 1.00x. Per GHz: the twin at half.
fn same_rates_and_half_per_ghz(dbs: &str, here_key: &str) {
    let plain = ok(bin().args([
        "compare",
        "--machine",
        &here_key[..6],
        "--machine",
        "twin-at-double-clock",
        "--db",
        dbs,
    ]));
    assert!(plain.contains(&format!("machine {here_key}")), "{plain}");
    assert_eq!(
        plain
            .lines()
            .filter(|l| l.matches("1.00x").count() == 2)
            .count(),
        3,
        "two rows and the geomean, baseline and twin at 1.00x: {plain}"
    );
    let per_ghz = ok(bin().args([
        "compare",
        "--machine",
        here_key,
        "--machine",
        "twin-at-double-clock",
        "--normalize",
        "ghz",
        "--db",
        dbs,
    ]));
    assert_eq!(per_ghz.matches("0.50x").count(), 3, "{per_ghz}");
    assert!(per_ghz.contains("normalised"), "{per_ghz}");
}

/// Cycles per byte from rate and TSC frequency vs the TSC cycles the worker counted.
fn cycles_agree_with_rdtsc(dbs: &str, here_key: &str, tsc: f64) {
    let json = ok(bin().args(["show", "here", "--format", "json", "--db", dbs]));
    let cells: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    let raw = ok(bin().args([
        "compare",
        "--machine",
        here_key,
        "--machine",
        "twin-at-double-clock",
        "--normalize",
        "cycles",
        "--raw",
        "--db",
        dbs,
    ]));
    for cell in &cells {
        let primitive = cell["primitive"].as_str().unwrap();
        let counted = cell["cycles_per_byte"].as_f64().unwrap();
        let line = raw
            .lines()
            .find(|l| l.trim_start().starts_with(primitive))
            .unwrap_or_else(|| panic!("{primitive} row in {raw}"));
        let shown: Vec<f64> = line
            .split_whitespace()
            .zip(line.split_whitespace().skip(1))
            .filter(|(_, unit)| *unit == "c/B")
            .map(|(v, _)| v.parse().unwrap())
            .collect();
        assert_eq!(shown.len(), 2, "{line}");
        let from_rate = tsc / cell["median"].as_f64().unwrap();
        assert!(
            (shown[0] - from_rate).abs() / from_rate < 0.001,
            "{line} vs {from_rate}"
        );
        assert!(
            (shown[0] - counted).abs() / counted < 0.05,
            "{primitive}: {} c/B from the rate, {counted} counted by rdtsc",
            shown[0]
        );
        assert!(
            (shown[1] / shown[0] - 2.0).abs() < 0.01,
            "twin: twice the cycles: {line}"
        );
    }
}

/// Selectors that do not name exactly one machine.
fn selectors_name_one_machine(dbs: &str) {
    let out = bin()
        .args([
            "compare",
            "--machine",
            "no-such-box",
            "--machine",
            "twin-at-double-clock",
            "--db",
            dbs,
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no stored machine matches"));
    let model = ok(bin().args(["machines", "--json", "--db", dbs]));
    let machines: Vec<serde_json::Value> = serde_json::from_str(&model).unwrap();
    let cpu_model = machines[0]["cpu_model"].as_str().unwrap();
    let out = bin()
        .args([
            "compare",
            "--machine",
            cpu_model,
            "--machine",
            "twin-at-double-clock",
            "--db",
            dbs,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("matches 2 machines"), "{err}");
}
