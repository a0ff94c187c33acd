//! `cryptospeed gate` end to end on real builds: the system OpenSSL against itself passes (exit
//! 0), and against itself with AES-NI masked off (OPENSSL_ia32cap, a real and large slowdown of
//! aes-128-cbc only, the cheapest slower build of the same library) fails (exit 1) naming that
//! cell and no other, also when the two sides are stored runs (`--stored`); a bad option is an
//! error (exit 2). The gates run in one test so no two measure at once.

mod common;

use common::bin;

const CELLS: &str = "md5@8192,sha256@8192,aes-128-cbc@8192";

fn gate(db: &std::path::Path, new: &str) -> (i32, serde_json::Value, String) {
    let out = bin()
        .args([
            "gate",
            "openssl",
            new,
            "--cells",
            CELLS,
            "--max-time",
            "0.3",
        ])
        .args(["--json", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (out.status.code().unwrap(), json, stderr)
}

fn verdicts(v: &serde_json::Value) -> Vec<(String, String)> {
    v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["label"].as_str().unwrap().to_string(),
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn openssl_against_itself_passes_and_without_aes_ni_fails() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let (code, v, stderr) = gate(&db, "openssl");
    assert_eq!(code, 0, "A/A: {:?}\n{stderr}", verdicts(&v));
    assert_eq!(v["outcome"], "pass");
    assert_eq!(v["cells"].as_array().unwrap().len(), 3);
    let (code, v, stderr) = gate(&db, "openssl+no-aesni");
    let found = verdicts(&v);
    assert_eq!(code, 1, "{found:?}\n{stderr}");
    assert_eq!(v["outcome"], "regression");
    for (label, verdict) in &found {
        assert_eq!(verdict == "regression", label == "aes-128-cbc", "{found:?}");
    }
    let aes = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "aes-128-cbc")
        .unwrap();
    assert!(aes["ratio"].as_f64().unwrap() < 0.5, "{aes}");
    assert!(
        aes["confirmation"].is_array(),
        "re-measured before failing: {aes}"
    );
    assert!(
        v["runs"].as_array().unwrap().len() >= 2,
        "a confirming run: {v}"
    );
    stored_runs_are_gated_by_their_builds(&db);
}

/// `--stored`: two stored runs (the second under the AES-NI mask) are gated by loading their
/// builds again.
fn stored_runs_are_gated_by_their_builds(db: &std::path::Path) {
    let db = db.to_str().unwrap();
    for (label, mask) in [("base", "none"), ("head", "no-aesni")] {
        common::ok(
            bin()
                .args(["run", "--cells", CELLS, "--max-time", "0.3", "--mask", mask])
                .args(["--label", label, "--db", db]),
        );
    }
    let out = bin()
        .args([
            "gate",
            "base",
            "head",
            "--stored",
            "--json",
            "--max-time",
            "0.3",
            "--db",
            db,
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = verdicts(&v);
    assert_eq!(out.status.code(), Some(1), "{found:?}");
    assert_eq!(found.len(), 3, "the cells both runs measured: {found:?}");
    for (label, verdict) in &found {
        assert_eq!(verdict == "regression", label == "aes-128-cbc", "{found:?}");
    }
}

#[test]
fn a_bad_threshold_is_an_error() {
    let out = bin()
        .args(["gate", "openssl", "openssl", "--fail-above", "150%"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fail-above"));
}
