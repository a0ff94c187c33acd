//! `run --multi N` end to end on the real libcrypto: every cell is stored alone and once per
//! concurrent worker (each worker its own variant, pinned to its own CPU), the printed aggregate
//! is the sum of the stored per-worker rates, and asking for more workers than CPUs is refused.

mod common;

use common::{bin, ok};

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn multi_stores_each_worker_and_prints_the_aggregate() {
    let n = cpus().min(2);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let text = ok(bin()
        .args([
            "run",
            "--multi",
            &n.to_string(),
            "-a",
            "sha256",
            "-b",
            "8192",
        ])
        .args([
            "--max-time",
            "0.4",
            "--sample-time",
            "0.005",
            "--label",
            "m",
        ])
        .arg("--db")
        .arg(&db));
    assert!(text.contains("scaling:"), "{text}");
    assert!(text.contains("efficiency"), "{text}");
    let json = ok(bin()
        .args(["show", "m", "--format", "json", "--db"])
        .arg(&db));
    let cells: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(cells.len(), n + 1, "one cell alone, one per worker");
    for i in 1..=n {
        assert!(
            cells.iter().any(|c| c["variant"]
                .as_str()
                .unwrap()
                .ends_with(&format!("[multi {i}/{n}]"))),
            "{json}"
        );
    }
    // Each worker sampled for the whole --max-time (fixed duration), not until precise: its
    // sampling loop ran until 0.4 s had passed, however slowly a busy machine let it sample.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut stmt = conn
        .prepare("SELECT elapsed_s, (SELECT COUNT(*) FROM sample s WHERE s.measurement_id = m.id) FROM measurement m")
        .unwrap();
    let spans: Vec<(f64, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(spans.len(), n + 1);
    for (elapsed, samples) in spans {
        assert!(elapsed >= 0.4, "a measurement stopped after {elapsed} s");
        assert!(samples >= 1, "a measurement without samples");
    }
    // The aggregate printed is the sum of the stored per-worker rates.
    let sum: f64 = cells
        .iter()
        .filter(|c| c["variant"].as_str().unwrap().contains("[multi"))
        .map(|c| c["median"].as_f64().unwrap())
        .sum();
    let printed = format!("{:.1} MB/s", sum / 1e6);
    assert!(
        text.contains(&printed),
        "aggregate {printed} not in\n{text}"
    );
}

#[test]
fn more_workers_than_cpus_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "--multi", &(cpus() + 1).to_string(), "-a", "md5"])
        .arg("--db")
        .arg(dir.path().join("m.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CPUs"), "{err}");
    let db = dir.path().join("pin.db");
    let out = bin()
        .args(["run", "--multi", "2", "--pin", "0", "-a", "md5"])
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--pin and --multi conflict");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--pin") && err.contains("--multi"),
        "the error names both options: {err}"
    );
    assert!(!db.exists(), "nothing stored for a refused run");
}

#[test]
fn machines_lists_the_machine_of_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    for label in ["a", "b"] {
        ok(bin()
            .args([
                "run",
                "-a",
                "md5",
                "-b",
                "64",
                "--max-time",
                "0.1",
                "--label",
                label,
            ])
            .arg("--db")
            .arg(&db));
    }
    let json = ok(bin().args(["machines", "--json", "--db"]).arg(&db));
    let machines: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(machines.len(), 1, "both runs on this machine");
    assert_eq!(machines[0]["runs"], 2);
    // The CPU model is this machine's, as /proc/cpuinfo names it.
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).trim().to_string());
    if let Some(model) = model {
        assert_eq!(machines[0]["cpu_model"].as_str().unwrap(), model);
    }
    assert!(machines[0]["tsc_hz"].as_f64().unwrap() > 1e8);
    let table = ok(bin().args(["machines", "--db"]).arg(&db));
    assert!(table.contains(" 2 "), "{table}");
}
