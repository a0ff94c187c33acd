//! A stored figure keeps the definition of what it timed: `run` stores each measured cell with
//! the catalog's `kind/operation vVERSION` (the one `list --json` prints), and `show` and
//! `compare` say so when a stored run's definition is no longer the catalog's; a copy of a run
//! (`sync`, a spool's replay) keeps the definitions it was stored under. The first test makes the
//! change of definition the way an older build would have left it (the stored label rewritten in
//! the SQLite file); the second writes an older build's copy through the store API.

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

/// A run copied between stores (`sync`, which is also how a spool is replayed) keeps the
/// definition each figure was measured under, never the copying build's. The run is one
/// measured here, arriving in a store through the store API as an older build's copy would: one
/// cell under the definition's version 0, one stored before definitions were kept. Synced from
/// that SQLite file into PostgreSQL and on into a new SQLite file, both keep what it had.
#[test]
fn a_copied_run_keeps_the_definitions_it_was_measured_under() {
    use cryptospeed_store::{SqliteStore, Store, SyncOutcome};
    let dir = tempfile::tempdir().unwrap();
    let (measured, older, back) = (
        dir.path().join("measured.db"),
        dir.path().join("older.db"),
        dir.path().join("back.db"),
    );
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
    .args(["--label", "older"])
    .args(quick(&measured));
    ok(&mut run);
    let mut record = SqliteStore::open(&measured)
        .unwrap()
        .load_run("older")
        .unwrap();
    // Read back with the definition it was stored under: this build's.
    let now = record.measurements[0].definition.clone().unwrap();
    assert_eq!(record.measurements[1].definition.as_deref(), Some(&*now));
    let old = now.replace(" v1", " v0");
    assert_ne!(old, now, "the catalog's sha256 hash is at version 1");
    record.measurements[0].definition = Some(old.clone());
    record.measurements[1].definition = None;
    let uid = "0000000000000000000000000000a034";
    let copied = SqliteStore::open(&older)
        .unwrap()
        .copy_run(uid, &record, &[])
        .unwrap();
    assert!(matches!(copied, SyncOutcome::Copied(_)), "{copied:?}");

    let server = cryptospeed_testkit::PgServer::start().unwrap();
    let url = server.database("shared").unwrap();
    ok(bin()
        .args(["sync", "--from"])
        .arg(&older)
        .args(["--to", &url]));
    ok(bin().args(["sync", "--from", &url, "--to"]).arg(&back));
    let want = [Some(old.clone()), None];
    for location in [older.to_str().unwrap(), &url, back.to_str().unwrap()] {
        let store = cryptospeed_store::open(location).unwrap();
        let id = store.load_run("older").unwrap().run.id;
        let stored: Vec<_> = store
            .definitions(id)
            .unwrap()
            .into_iter()
            .map(|d| d.definition)
            .collect();
        assert_eq!(stored, want, "{}", cryptospeed_store::redact(location));
    }
    // And the copy says so where its figures are shown.
    let shown = stderr_of(&["show", "older", "--db", back.to_str().unwrap()]);
    assert!(shown.contains(&format!("measured under {old}")), "{shown}");
}
