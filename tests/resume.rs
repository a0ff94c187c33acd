//! Nothing measured is lost when a run stops (issue 48), tested with real signals on a real run:
//! SIGKILL partway keeps every bout finished before the last round (as `partial` cells), and
//! `run --resume` completes the run with those bouts; SIGTERM stops a run within seconds with
//! exit status 143, resumable; a resume whose machine, builds or settings changed is refused
//! with the reason and leaves the store as it was; a PostgreSQL store that goes away mid-run
//! gets the bouts it missed when it is back, and the killed run resumes there; `sweep run` goes
//! on with a pre-empted shard's run; a resumed run whose store goes away leaves a spool that
//! holds the whole run.

mod common;

use common::{bin, spawn};
use cryptospeed_testkit::PgServer;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A run of four cells that never reach their (tiny) precision target, so each runs its whole
/// budget in many short bouts: a few seconds in all. Spools (should the store fail) go under
/// `dir`.
fn start(db: impl AsRef<std::ffi::OsStr>, dir: &Path) -> cryptospeed_testkit::KillOnDrop {
    start_for(db, dir, "0.6")
}

/// [`start`] with `max_time` seconds per cell.
fn start_for(
    db: impl AsRef<std::ffi::OsStr>,
    dir: &Path,
    max_time: &str,
) -> cryptospeed_testkit::KillOnDrop {
    spawn(
        common::command()
            .args(["run", "-a", "md5,sha1", "-b", "16,1024", "--db"])
            .arg(db)
            .env("CRYPTOSPEED_SPOOL", dir.join("spool"))
            .args(["--max-time", max_time, "--sample-time", "0.002"])
            .args(["--precision", "0.0001"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    )
}

fn query(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .and_then(|c| c.query_row(sql, [], |r| r.get(0)))
        .unwrap_or(0)
}

/// Bouts the store holds, over every cell.
fn bouts(db: &Path) -> i64 {
    query(
        db,
        "SELECT COUNT(*) FROM (SELECT DISTINCT measurement_id, bout FROM sample)",
    )
}

fn partial_cells(db: &Path) -> i64 {
    query(
        db,
        "SELECT COUNT(*) FROM measurement WHERE status = 'partial'",
    )
}

fn run_status(db: &Path) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("SELECT status FROM run", [], |r| r.get(0))
        .unwrap()
}

/// Waits until the store holds at least `n` bouts, with some cells still partial.
fn wait_for_bouts(db: &Path, n: i64) {
    let start = Instant::now();
    while bouts(db) < n || partial_cells(db) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "{} bouts stored after 90 s",
            bouts(db)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("results.db")
}

fn resume(db: impl AsRef<std::ffi::OsStr>) -> std::process::Output {
    bin()
        .args(["run", "--resume", "1", "--db"])
        .arg(db)
        .output()
        .unwrap()
}

#[test]
fn sigkill_keeps_the_bouts_finished_and_resume_completes_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut child = start(&db, dir.path());
    wait_for_bouts(&db, 12);
    let seen = bouts(&db);
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.child().wait().unwrap();
    let kept = bouts(&db);
    assert!(
        kept >= seen,
        "{kept} bouts kept, {seen} seen before the kill"
    );
    assert!(partial_cells(&db) > 0);
    let shown = common::ok(
        bin()
            .args(["show", "1", "--format", "csv", "--db"])
            .arg(&db),
    );
    assert!(shown.contains("partial"), "{shown}");
    let out = resume(&db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(run_status(&db), "complete");
    assert_eq!(partial_cells(&db), 0);
    assert_eq!(query(&db, "SELECT COUNT(*) FROM measurement"), 4);
    // The earlier bouts are bouts of the finished cells: nothing measured was lost.
    assert!(bouts(&db) > kept, "{} bouts after resuming", bouts(&db));
}

#[test]
fn sigterm_stops_within_seconds_and_a_changed_resume_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let mut child = start(&db, dir.path());
    wait_for_bouts(&db, 8);
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let sent = Instant::now();
    let status = child.child().wait().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(143));
    assert_eq!(run_status(&db), "interrupted");
    assert!(partial_cells(&db) > 0);
    assert_eq!(
        query(
            &db,
            "SELECT COUNT(*) FROM measurement WHERE status = 'failed'"
        ),
        0
    );
    refused_resumes(&db);
    let out = resume(&db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(run_status(&db), "complete");
    let again = resume(&db);
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to resume"));
}

/// Another machine (its stored key edited) and other settings are refused, the store unchanged.
fn refused_resumes(db: &Path) {
    let before = (bouts(db), partial_cells(db));
    let conn = Connection::open(db).unwrap();
    let key: String = conn
        .query_row("SELECT resume_key FROM run", [], |r| r.get(0))
        .unwrap();
    let elsewhere = key.replacen("\"machine\":\"", "\"machine\":\"elsewhere ", 1);
    conn.execute("UPDATE run SET resume_key = ?1", [&elsewhere])
        .unwrap();
    let out = resume(db);
    assert_eq!(out.status.code(), Some(2));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(why.contains("another machine"), "{why}");
    conn.execute("UPDATE run SET resume_key = ?1", [&key])
        .unwrap();
    let other = bin()
        .args(["run", "--resume", "1", "--max-time", "2", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("cannot be used with"));
    assert_eq!((bouts(db), partial_cells(db)), before);
    assert_eq!(run_status(db), "interrupted");
}

/// One number from the PostgreSQL store (0 before the run made its tables).
fn pg(server: &PgServer, sql: &str) -> i64 {
    let text = server.psql("cs", sql).unwrap_or_default();
    text.trim().parse().unwrap_or(0)
}

const PG_BOUTS: &str = "SELECT COUNT(*) FROM (SELECT DISTINCT measurement_id, bout FROM sample) b";
const PG_PARTIAL: &str = "SELECT COUNT(*) FROM measurement WHERE status = 'partial'";

/// Waits (at most 90 s) until `ready` says yes.
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "{what} within 90 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_postgres_store_away_mid_run_gets_the_bouts_back_and_the_killed_run_resumes_there() {
    let server = PgServer::start().unwrap();
    let url = server.database("cs").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = start_for(&url, dir.path(), "2");
    wait_until("a partial cell", || pg(&server, PG_PARTIAL) > 0);
    let at_pause = pg(&server, PG_BOUTS);
    server.pause().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    server.resume().unwrap();
    wait_until("bouts after the store came back", || {
        pg(&server, PG_BOUTS) > at_pause
    });
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.child().wait().unwrap();
    let kept = pg(&server, PG_BOUTS);
    let out = resume(&url);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        server.psql("cs", "SELECT status FROM run").unwrap().trim(),
        "complete"
    );
    assert_eq!(pg(&server, PG_PARTIAL), 0);
    assert_eq!(pg(&server, "SELECT COUNT(*) FROM measurement"), 4);
    assert!(pg(&server, PG_BOUTS) > kept);
}

#[test]
fn sweep_run_goes_on_with_a_preempted_shards_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_in(&dir);
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "name = \"p\"\nprimitives = [\"md5\", \"sha1\"]\nsizes = [16, 1024]\nshards = 1\noptions = [\"--max-time\", \"0.6\", \"--sample-time\", \"0.002\", \"--precision\", \"0.0001\"]\n",
    )
    .unwrap();
    let sweep = |args: &[&str]| {
        let mut c = common::command();
        c.arg("sweep").args(args).arg("--db").arg(&db);
        c
    };
    common::ok(
        bin()
            .args(["sweep", "plan"])
            .arg(&spec)
            .arg("--db")
            .arg(&db),
    );
    let mut child = spawn(
        sweep(&["run", "p", "--all"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    wait_for_bouts(&db, 8);
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(child.child().wait().unwrap().code(), Some(143));
    let shard = || {
        query(
            &db,
            "SELECT COUNT(*) FROM sweep_shard WHERE status = 'done'",
        )
    };
    assert_eq!(shard(), 0);
    let out = sweep(&["run", "p", "--all"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("goes on with its run 1"), "{said}");
    assert_eq!(shard(), 1);
    assert_eq!(query(&db, "SELECT COUNT(*) FROM run"), 1);
    assert_eq!(run_status(&db), "complete");
    assert_eq!(partial_cells(&db), 0);
}

#[test]
fn a_resumed_run_whose_store_goes_away_leaves_a_spool_with_the_whole_run() {
    let server = PgServer::start().unwrap();
    let url = server.database("cs").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = start_for(&url, dir.path(), "2");
    wait_until("a partial cell", || pg(&server, PG_PARTIAL) > 0);
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(child.child().wait().unwrap().code(), Some(143));
    let kept = pg(&server, PG_BOUTS);
    let resumed = spawn(
        bin_command()
            .args(["run", "--resume", "1", "--store-retry", "1", "--db", &url])
            .env("CRYPTOSPEED_SPOOL", dir.path().join("spool"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped()),
    );
    wait_until("the resumed run's first bouts", || {
        pg(&server, PG_BOUTS) > kept
    });
    server.pause().unwrap();
    let out = resumed.wait_with_output().unwrap();
    server.resume().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    let spool = std::fs::read_dir(dir.path().join("spool"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(
        query(&spool, "SELECT COUNT(*) FROM measurement"),
        4,
        "the whole run"
    );
    common::ok(
        bin()
            .args(["sync", "--from"])
            .arg(&spool)
            .args(["--to", &url]),
    );
    assert_eq!(
        server.psql("cs", "SELECT status FROM run").unwrap().trim(),
        "complete"
    );
    assert_eq!(pg(&server, PG_PARTIAL), 0);
    assert_eq!(pg(&server, "SELECT COUNT(*) FROM measurement"), 4);
    assert!(pg(&server, PG_BOUTS) > kept + 1);
}

fn bin_command() -> std::process::Command {
    common::command()
}
