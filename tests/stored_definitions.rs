//! A stored figure keeps the definition of what it timed: `run` stores each measured cell with
//! the catalog's `kind/operation vVERSION` (the one `list --json` prints), and `show` and
//! `compare` say so when a stored run's definition is no longer the catalog's. The change of
//! definition is made the way an older build would have left it: the stored label rewritten in
//! the SQLite file.

mod common;

use common::{bin, ok, quick};

fn stderr_of(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_changed_definition_is_named_when_a_stored_run_is_shown_or_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let mut run = bin();
    run.args([
        "run",
        "-a",
        "sha256",
        "-b",
        "64",
        "--impl",
        "rustcrypto,ring",
    ])
    .args(["--label", "defs"])
    .args(quick(&db));
    ok(&mut run);

    // Stored as `list --json` defines the operation now.
    let list: serde_json::Value =
        serde_json::from_str(&ok(bin().args(["list", "--json"]))).unwrap();
    let sha256 = list.as_array().unwrap().iter();
    let sha256 = sha256.clone().find(|p| p["primitive"] == "sha256").unwrap();
    let d = &sha256["definitions"]["hash"];
    let now = format!("{} v{}", d["id"].as_str().unwrap(), d["version"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: Vec<String> = conn
        .prepare("SELECT definition FROM measurement ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored, [now.clone(), now.clone()]);
    let quiet = stderr_of(&["show", "defs", "--db", dbs]);
    assert!(!quiet.contains("note:"), "{quiet}");

    // Measured under an older version of the definition: both commands name it, once per cell.
    let old = now.replace(" v1", " v0");
    assert_ne!(old, now, "the catalog's sha256 hash is at version 1");
    conn.execute("UPDATE measurement SET definition = ?1", [&old])
        .unwrap();
    let shown = stderr_of(&["show", "defs", "--db", dbs]);
    let want =
        format!("rustcrypto sha256 hash was measured under {old}; the catalog now defines {now}");
    assert!(shown.contains(&want), "{shown}");
    assert_eq!(shown.matches("note: run").count(), 2, "{shown}");
    let compared = stderr_of(&["compare", "defs", "--db", dbs]);
    assert!(compared.contains(&want), "{compared}");
    assert_eq!(compared.matches("note: run").count(), 2, "{compared}");
}
