//! When the store fails mid-run, on the real thing: a PostgreSQL server of the test kit stopped
//! for seconds during a run (every cell lands exactly once, the run ends complete), stopped for
//! longer than the retry window (the run still finishes and prints; its spool completes the store
//! through `sync --from`), a SQLite store on a filesystem that fills up (a clear error, the table
//! printed, finished cells kept, the run not left `running`), and runs and sweep shards whose
//! process is killed (read as `abandoned`, and the shard is run again by `--all`).

mod common;

use common::{bin, ok};
use cryptospeed_testkit::KillOnDrop;
use cryptospeed_testkit::PgServer;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A run of 18 cells that takes several seconds, its table as JSON in `out`; killed with its
/// workers when the test ends, also when an assertion fails first.
fn start_run(db: &str, out: &Path, spool: &Path, extra: &[&str]) -> KillOnDrop {
    common::spawn(
        common::command()
            .args([
                "run",
                "--db",
                db,
                "-a",
                "md5,sha1,sha256,sha512,aes-128-cbc,rc4",
            ])
            .args([
                "-b",
                "16,256,8192",
                "--max-time",
                "0.6",
                "--sample-time",
                "0.002",
            ])
            .args([
                "--min-bouts",
                "6",
                "--precision",
                "0.05",
                "--format",
                "json",
                "-o",
            ])
            .arg(out)
            .args(extra)
            .env("CRYPTOSPEED_SPOOL", spool)
            .env("CRYPTOSPEED_HEARTBEAT_S", "0.3")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
}

/// Waits (at most 60 s) until `ready` says yes.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn finish(child: KillOnDrop) -> (Output, String) {
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

/// What the run printed: (variant, primitive, op, bytes) → (samples, ns per op).
type Cells = BTreeMap<(String, String, String, i64), (i64, f64)>;

fn printed(out: &Path) -> Cells {
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    rows.iter()
        .map(|r| {
            (
                (
                    r["variant"].as_str().unwrap().to_string(),
                    r["primitive"].as_str().unwrap().to_string(),
                    r["op"].as_str().unwrap().to_string(),
                    r["bytes"].as_i64().unwrap_or(-1),
                ),
                (r["n"].as_i64().unwrap(), r["ns_per_op"].as_f64().unwrap()),
            )
        })
        .collect()
}

/// The cells PostgreSQL holds for run `run`, asserting that each is there once and that it
/// holds as many sample rows as its count says.
fn stored(server: &PgServer, run: i64) -> Cells {
    let text = server
        .psql(
            "cs",
            &format!(
                "SELECT v.label, m.primitive, m.op, COALESCE(m.bytes, -1), m.n, m.median_ns,
                        (SELECT COUNT(*) FROM sample s WHERE s.measurement_id = m.id)
                 FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE m.run_id = {run}"
            ),
        )
        .unwrap();
    let mut cells = Cells::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('|').collect();
        let n: i64 = f[4].parse().unwrap();
        assert_eq!(n, f[6].parse::<i64>().unwrap(), "sample rows of {line}");
        let key = (f[0].into(), f[1].into(), f[2].into(), f[3].parse().unwrap());
        let old = cells.insert(key, (n, f[5].parse().unwrap()));
        assert!(old.is_none(), "stored twice: {line}");
    }
    cells
}

fn assert_same(printed: &Cells, stored: &Cells) {
    assert_eq!(printed.len(), 18);
    assert_eq!(
        printed.keys().collect::<Vec<_>>(),
        stored.keys().collect::<Vec<_>>()
    );
    for (k, (n, ns)) in printed {
        let (sn, sns) = stored[k];
        assert_eq!(*n, sn, "{k:?}");
        assert!(
            (ns - sns).abs() <= 1e-9 * ns,
            "{k:?}: printed {ns}, stored {sns}"
        );
    }
}

/// Whether the run is stored (the schema may not exist yet).
fn run_begun(server: &PgServer) -> bool {
    server
        .psql("cs", "SELECT COUNT(*) FROM run")
        .is_ok_and(|n| n.trim() == "1")
}

fn pg_one(server: &PgServer, sql: &str) -> String {
    server.psql("cs", sql).unwrap().trim().to_string()
}

#[test]
fn a_postgres_restart_mid_run_loses_nothing() {
    let server = PgServer::start().unwrap();
    let url = server.database("cs").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (out, spool) = (dir.path().join("out.json"), dir.path().join("spool"));
    let child = start_run(&url, &out, &spool, &[]);
    wait_for("the run to begin", || run_begun(&server));
    server.pause().unwrap();
    std::thread::sleep(Duration::from_secs(4));
    server.resume().unwrap();
    let (output, stderr) = finish(child);
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{}", server.log());
    assert!(stderr.contains("the store stopped answering"), "{stderr}");
    assert!(stderr.contains("the store answers again"), "{stderr}");
    assert!(
        stderr.contains("the spool") && stderr.contains("was removed"),
        "{stderr}"
    );
    assert_eq!(pg_one(&server, "SELECT status FROM run"), "complete");
    let run: i64 = pg_one(&server, "SELECT id FROM run").parse().unwrap();
    assert_same(&printed(&out), &stored(&server, run));
    assert_eq!(
        std::fs::read_dir(&spool).unwrap().count(),
        0,
        "the spool is gone"
    );
}

#[test]
fn a_store_away_past_the_retry_window_leaves_a_spool_that_sync_completes() {
    let server = PgServer::start().unwrap();
    let url = server.database("cs").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (out, spool) = (dir.path().join("out.json"), dir.path().join("spool"));
    let child = start_run(&url, &out, &spool, &["--store-retry", "2"]);
    wait_for("the run to begin", || run_begun(&server));
    server.pause().unwrap();
    let (output, stderr) = finish(child);
    server.resume().unwrap();
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("the store did not answer for"), "{stderr}");
    let file = std::fs::read_dir(&spool)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = file.to_str().unwrap();
    assert!(
        stderr.contains(&format!("cryptospeed sync --from {file} --to postgres://")),
        "{stderr}"
    );
    assert!(!stderr.contains(&url), "the password is not shown");
    let printed = printed(&out);
    assert_eq!(printed.len(), 18, "every cell was measured and printed");
    let before: usize = pg_one(&server, "SELECT COUNT(*) FROM measurement")
        .parse()
        .unwrap();
    assert!(before < 18, "the store missed part of the run");
    // Its process is gone and it did not finish: not `running` for anyone reading it.
    let runs = ok(bin().args(["runs", "--db", &url]));
    assert!(
        runs.contains("abandoned") && !runs.contains("running"),
        "{runs}"
    );

    let synced = ok(bin().args(["sync", "--from", file, "--to", &url]));
    assert!(synced.contains("completed run 1 there"), "{synced}");
    assert_eq!(pg_one(&server, "SELECT status FROM run"), "complete");
    assert_same(&printed, &stored(&server, 1));
    let again = ok(bin().args(["sync", "--from", file, "--to", &url]));
    assert!(again.contains("already there"), "{again}");
    assert_eq!(pg_one(&server, "SELECT COUNT(*) FROM measurement"), "18");
}

#[test]
fn a_killed_run_reads_as_abandoned() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let db = db.to_str().unwrap();
    let (out, spool) = (dir.path().join("out.json"), dir.path().join("spool"));
    let mut child = start_run(db, &out, &spool, &[]);
    let runs = || ok(bin().args(["runs", "--db", db]));
    wait_for("the run to begin", || runs().contains("running"));
    // Seen from another machine, only the heartbeat tells: first alive, then overdue.
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute("UPDATE machine SET hostname = 'elsewhere'", [])
        .unwrap();
    child.child().kill().unwrap();
    child.child().wait().unwrap();
    let killed = Instant::now();
    let seen = runs();
    if killed.elapsed() < Duration::from_millis(1500) {
        assert!(seen.contains("running"), "{seen}");
    }
    // 3 × 0.3 s + 1 s after the last beat.
    std::thread::sleep(Duration::from_millis(2200));
    assert!(runs().contains("abandoned"), "{}", runs());
    // On its own machine the missing process says so at once.
    conn.execute("UPDATE run SET heartbeat_at = ?1", [chrono_now()])
        .unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    conn.execute("UPDATE machine SET hostname = ?1", [host.trim()])
        .unwrap();
    assert!(runs().contains("abandoned"), "{}", runs());
    let record = ok(bin().args(["show", "1", "--db", db, "--format", "json"]));
    assert!(
        record.starts_with('['),
        "the finished cells are kept: {record}"
    );
}

fn chrono_now() -> String {
    let out = Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%S.000Z"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_killed_sweep_shard_is_run_again_by_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "name = \"k\"\nprimitives = [\"md5\", \"sha1\", \"sha256\", \"sha512\"]\nsizes = [16, 256, 8192]\nshards = 2\noptions = [\"--max-time\", \"2\", \"--sample-time\", \"0.002\", \"--precision\", \"0.001\"]\n",
    )
    .unwrap();
    ok(bin().args(["sweep", "plan"]).arg(&spec).args(["--db", db]));
    let status = || -> Vec<serde_json::Value> {
        serde_json::from_str(&ok(
            bin().args(["sweep", "status", "k", "--json", "--db", db])
        ))
        .unwrap()
    };
    let mut child = common::spawn(
        common::command()
            .args(["sweep", "run", "k", "--shard", "0/2", "--db", db])
            .env("CRYPTOSPEED_HEARTBEAT_S", "0.3")
            .stderr(Stdio::null()),
    );
    wait_for("shard 0 to name its run", || status()[0]["run_id"].is_i64());
    // While it runs, another runner leaves it alone.
    let out = bin()
        .args(["sweep", "run", "k", "--shard", "0/2", "--db", db])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("is running on") && text.contains("left to it"),
        "{text}"
    );
    child.child().kill().unwrap();
    child.child().wait().unwrap();
    assert_eq!(status()[0]["status"], "abandoned");
    let out = bin()
        .args(["sweep", "run", "k", "--all", "--db", db])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shards = status();
    assert!(shards.iter().all(|s| s["status"] == "done"), "{shards:?}");
    assert_eq!(shards[0]["attempts"], 2, "{shards:?}");
    assert_eq!(shards[1]["attempts"], 1, "{shards:?}");
}

/// The size of the small filesystem the full-disk test fills.
const TMPFS: &str = "size=192k";

#[test]
#[ignore = "needs unshare -rm (a private mount namespace) to mount a small tmpfs; scripts/test runs it where that works"]
fn a_full_disk_is_said_clearly_and_loses_nothing_printed() {
    let dir = tempfile::tempdir().unwrap();
    let (mnt, keep) = (dir.path().join("mnt"), dir.path().join("keep"));
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&keep).unwrap();
    let exe = env!("CARGO_BIN_EXE_cryptospeed");
    // Everything that reads the full filesystem runs inside the namespace that mounted it.
    let script = format!(
        r#"set -u
mount -t tmpfs -o {TMPFS} tmpfs "$MNT" || exit 90
"$EXE" run --db "$MNT/s.db" -a md5,sha1,sha256,sha512,aes-128-cbc,rc4 -b 16,256,8192 \
    --max-time 0.6 --sample-time 0.002 --min-bouts 6 --precision 0.05 --format json \
    -o "$KEEP/out.json" 2> "$KEEP/stderr"
echo $? > "$KEEP/code"
"$EXE" runs --db "$MNT/s.db" > "$KEEP/runs" 2>&1
cp "$MNT"/s.db* "$KEEP/"
"#
    );
    let status = Command::new("unshare")
        .args(["-rm", "sh", "-c", &script])
        .env("MNT", &mnt)
        .env("KEEP", &keep)
        .env("EXE", exe)
        .env("CRYPTOSPEED_SPOOL", mnt.join("spool"))
        .status()
        .unwrap();
    assert!(status.success(), "the namespace script failed ({status})");
    let read = |f: &str| std::fs::read_to_string(keep.join(f)).unwrap();
    let stderr = read("stderr");
    assert_eq!(read("code").trim(), "3", "{stderr}");
    assert!(stderr.contains("database or disk is full"), "{stderr}");
    assert!(
        stderr.contains("the run exists only in this command's output"),
        "{stderr}"
    );
    let printed = printed(&keep.join("out.json"));
    assert_eq!(printed.len(), 18, "every cell printed: {stderr}");
    let runs = read("runs");
    assert!(
        !runs.contains("running") && !runs.contains("complete"),
        "{runs}"
    );
    let conn = rusqlite::Connection::open(keep.join("s.db")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let kept: i64 = conn
        .query_row("SELECT COUNT(*) FROM measurement", [], |r| r.get(0))
        .unwrap();
    assert!(
        (1..18).contains(&kept),
        "cells stored before the disk filled: {kept}"
    );
}
