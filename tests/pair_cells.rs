//! `compare RUN --pair-cells A:B`: two cells of one column compared with the paired test, bouts
//! paired by round. Checked against what is known without us: SHA-256 pads a 16-byte message to
//! one 64-byte block and a 64-byte message to two (FIPS 180-4), so sha256@64 costs more per call
//! than sha256@16 and must be found slower; a cell against itself is `same` at exactly 1; and
//! the worker's fault `slow:0.5,slow-cells:sha256@16` (A's batches 1.5x as long) must move the
//! paired ratio by about 1.5.

mod common;

use common::{bin, ok};
use serde_json::Value;
use std::path::Path;

fn stored_run(db: &Path, fault: &str) {
    ok(bin()
        .env("CRYPTOSPEED_FAULT", fault)
        .args(["run", "--impl", "rustcrypto", "-a", "sha256", "-b", "16,64"])
        // 3 s: at a noisy hour most bouts are set aside, and 0.3 s once left fewer than two
        // rounds with a bout of both cells; 1 s did too on a host at two speeds (75-80% of
        // bouts set aside for their canary).
        .args(["--max-time", "3", "--db"])
        .arg(db));
}

/// The one row (column rustcrypto, op hash) of `compare RUN --pair-cells SPEC`.
fn pair(db: &Path, run: &str, spec: &str) -> Value {
    let out = ok(bin()
        .args([
            "compare",
            run,
            "--pair-cells",
            spec,
            "--format",
            "json",
            "--db",
        ])
        .arg(db));
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.len(), 1, "{out}");
    rows[0].clone()
}

#[test]
fn pair_cells_finds_the_slower_cell_and_the_same_one() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stored_run(&db, "");
    stored_run(&db, "slow:0.5,slow-cells:sha256@16");

    let two_blocks = pair(&db, "1", "sha256@16:sha256@64");
    let (cost, lo) = (
        two_blocks["cost"].as_f64().unwrap(),
        two_blocks["cost_ci"][0].as_f64().unwrap(),
    );
    assert_eq!(two_blocks["versus"]["verdict"], "slower", "{two_blocks}");
    assert!(
        lo > 1.05 && cost < 2.2,
        "two blocks against one: {two_blocks}"
    );

    let itself = pair(&db, "1", "sha256@16:sha256@16");
    assert_eq!(itself["versus"]["verdict"], "same", "{itself}");
    assert!((itself["cost"].as_f64().unwrap() - 1.0).abs() < 1e-12);

    let slowed = pair(&db, "2", "sha256@16:sha256@64")["cost"]
        .as_f64()
        .unwrap();
    let moved = cost / slowed;
    assert!(
        (1.3..1.7).contains(&moved),
        "A slowed 1.5x moved the ratio by {moved}"
    );

    let err = bin()
        .args(["compare", "1", "--pair-cells", "sha256", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!err.status.success());
    assert!(String::from_utf8_lossy(&err.stderr).contains("A:B"));
}
