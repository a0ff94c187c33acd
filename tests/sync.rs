//! The shared store end to end, on a real PostgreSQL server started on loopback: runs measured
//! into two SQLite files and synced into PostgreSQL appear once each with every sample; syncing
//! again or syncing a copy of a file adds nothing; PostgreSQL syncs back out to a new file intact;
//! a run measured straight into PostgreSQL (`--db` URL and `$CRYPTOSPEED_DB`) works; and the
//! password in the URL appears in no output and no stored row.

mod common;

use common::{bin, quick};
use cryptospeed_testkit::PgServer;
use std::path::Path;

/// Runs the command, asserts success, returns stdout and stderr together.
fn run_ok(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    text
}

fn measure(db: &str, implementation: &str, label: &str) -> String {
    let mut args = quick(Path::new(db));
    args.splice(0..2, []); // quick() starts with --db PATH; the URL goes in below
    run_ok(
        bin()
            .args([
                "run",
                "--impl",
                implementation,
                "-a",
                "md5,sha256",
                "-b",
                "64,1024",
            ])
            .args(["--label", label, "--db", db])
            .args(&args),
    )
}

fn sqlite_count(db: &Path, table: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// Each measured cell with its number of samples, one `label|primitive|op|bytes|samples` line
/// per cell, sorted: the same text from a SQLite file and from PostgreSQL when every cell
/// arrived with every one of its samples.
const PER_CELL: &str =
    "SELECT r.label || '|' || m.primitive || '|' || m.op || '|' || m.bytes || '|' || \
     (SELECT COUNT(*) FROM sample s WHERE s.measurement_id = m.id) \
     FROM measurement m JOIN run r ON r.id = m.run_id \
     ORDER BY r.label, m.primitive, m.op, m.bytes";

fn sqlite_cells(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut q = c.prepare(PER_CELL).unwrap();
    let rows = q.query_map([], |r| r.get::<_, String>(0)).unwrap();
    rows.map(|r| r.unwrap()).collect()
}

fn pg_count(server: &PgServer, table: &str) -> i64 {
    server
        .psql("shared", &format!("SELECT COUNT(*) FROM {table}"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn runs_sync_into_postgres_once_each_with_their_samples() {
    let server = PgServer::start().unwrap();
    let url = server.database("shared").unwrap();
    let pw = server.password.clone();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("laptop-a.db");
    let b = dir.path().join("laptop-b.db");
    let mut outputs = Vec::new();
    outputs.push(measure(a.to_str().unwrap(), "openssl", "laptop-a"));
    outputs.push(measure(b.to_str().unwrap(), "rustcrypto", "laptop-b"));
    let (cells, samples) = measured_cells(&a, &b);
    outputs.extend(sync_files_into(&server, &url, &a, &b, &cells, samples));
    outputs.extend(syncing_again_adds_nothing(
        &server,
        &url,
        dir.path(),
        &a,
        &b,
        samples,
    ));
    outputs.extend(measure_straight_into(&url));
    // Out again into a fresh file: all four runs, every sample.
    let back = dir.path().join("back.db");
    let text = run_ok(bin().args(["sync", "--from", &url, "--to"]).arg(&back));
    assert!(text.contains("4 run(s) copied"), "{text}");
    outputs.push(text);
    assert_eq!(sqlite_count(&back, "sample"), pg_count(&server, "sample"));
    assert_eq!(sqlite_count(&back, "run"), 4);

    assert_password_hidden(&server, &pw, &outputs);
    // Bad input: a store that refuses us names itself without the password.
    let wrong = url.replace(&pw, "Not-The-Password-1");
    let out = bin().args(["runs", "--db", &wrong]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("password authentication failed"), "{err}");
    assert!(
        !err.contains("Not-The-Password-1") && !err.contains(&pw),
        "{err}"
    );
    let out = bin()
        .args(["sync", "--from", &url, "--to", &url])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("same store"), "{err}");
    assert!(!err.contains(&pw), "{err}");
}

/// The cells of the two measured files (4 each), each with its own samples, and the files'
/// samples in all.
fn measured_cells(a: &Path, b: &Path) -> (Vec<String>, i64) {
    let samples = sqlite_count(a, "sample") + sqlite_count(b, "sample");
    // Each of the 4 cells of each file has its own samples: at least the 6 `quick` asks for.
    let mut cells = sqlite_cells(a);
    cells.extend(sqlite_cells(b));
    assert_eq!(cells.len(), 8, "{cells:?}");
    for cell in &cells {
        let n: i64 = cell.rsplit('|').next().unwrap().parse().unwrap();
        assert!(n >= 6, "a cell with {n} samples: {cell}");
    }
    (cells, samples)
}

/// Syncs both files into PostgreSQL and checks every run, cell and sample arrived, values
/// included; returns what the syncs printed.
fn sync_files_into(
    server: &PgServer,
    url: &str,
    a: &Path,
    b: &Path,
    cells: &[String],
    samples: i64,
) -> Vec<String> {
    let mut outputs = Vec::new();
    for file in [a, b] {
        let text = run_ok(bin().args(["sync", "--from"]).arg(file).args(["--to", url]));
        assert!(text.contains("1 run(s) copied"), "{text}");
        outputs.push(text);
    }
    assert_eq!(pg_count(server, "run"), 2);
    assert_eq!(pg_count(server, "measurement"), 8);
    assert_eq!(pg_count(server, "sample"), samples, "every sample arrived");
    // And each cell's samples arrived with it (not only the total).
    let pg_cells: Vec<String> = server
        .psql("shared", PER_CELL)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(pg_cells, cells);
    assert_eq!(pg_count(server, "machine"), 1, "one machine measured both");
    // Sample values, not only their number: the sums agree.
    let pg_sum = server
        .psql(
            "shared",
            "SELECT SUM(wall_ns) + SUM(iters) + SUM(tsc) FROM sample",
        )
        .unwrap();
    let file_sum: i64 = [a, b]
        .iter()
        .map(|f| {
            rusqlite::Connection::open(f)
                .unwrap()
                .query_row(
                    "SELECT SUM(wall_ns) + SUM(iters) + SUM(tsc) FROM sample",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap()
        })
        .sum();
    assert_eq!(pg_sum.trim(), file_sum.to_string());

    outputs
}

/// Syncing the files again, and a copy of one, copies nothing; returns what the syncs printed.
fn syncing_again_adds_nothing(
    server: &PgServer,
    url: &str,
    dir: &Path,
    a: &Path,
    b: &Path,
    samples: i64,
) -> Vec<String> {
    let mut outputs = Vec::new();
    // Again, and from a copy of a file: nothing new.
    let copy = dir.join("copy-of-a.db");
    std::fs::copy(a, &copy).unwrap();
    for file in [a, b, &copy] {
        let text = run_ok(bin().args(["sync", "--from"]).arg(file).args(["--to", url]));
        assert!(
            text.contains("0 run(s) copied") && text.contains("already there"),
            "{text}"
        );
        outputs.push(text);
    }
    assert_eq!(pg_count(server, "run"), 2);
    assert_eq!(pg_count(server, "sample"), samples);

    outputs
}

/// Two runs measured straight into PostgreSQL: the URL on the command line and in the
/// environment; each run listed once. Returns what the commands printed.
fn measure_straight_into(url: &str) -> Vec<String> {
    let mut outputs = Vec::new();
    outputs.push(measure(url, "openssl", "direct"));
    outputs.push(run_ok(
        bin()
            .args([
                "run", "--impl", "openssl", "-a", "md5", "-b", "64", "--label", "env",
            ])
            .args(["--max-time", "0.2", "--sample-time", "0.002"])
            .env("CRYPTOSPEED_DB", url),
    ));
    let runs = run_ok(bin().args(["runs", "--db", url]));
    for label in ["laptop-a", "laptop-b", "direct", "env"] {
        assert_eq!(runs.matches(label).count(), 1, "{label} once in:\n{runs}");
    }
    outputs.push(runs);
    outputs.push(run_ok(bin().args(["show", "direct", "--db", url])));
    outputs.push(run_ok(bin().args(["machines", "--db", url])));

    outputs
}

/// The password: in no output, in no stored row (each row as text), not in the stored command.
fn assert_password_hidden(server: &PgServer, pw: &str, outputs: &[String]) {
    for text in outputs {
        assert!(!text.contains(pw), "password printed:\n{text}");
    }
    for table in [
        "machine",
        "variant",
        "run",
        "measurement",
        "profile",
        "sweep",
        "sweep_shard",
        "sample",
        "cryptospeed_schema",
    ] {
        let hits = server
            .psql(
                "shared",
                &format!("SELECT COUNT(*) FROM {table} t WHERE t::text LIKE '%{pw}%'"),
            )
            .unwrap();
        assert_eq!(hits.trim(), "0", "password stored in {table}");
    }
    let command = server
        .psql("shared", "SELECT command FROM run WHERE label = 'direct'")
        .unwrap();
    assert!(command.contains(":***@127.0.0.1"), "{command}");
}
