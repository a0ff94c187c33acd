//! End-to-end tests of the `cryptospeed` binary on the real system libcrypto: every test starts
//! real worker processes and writes a real SQLite file. Time budgets are kept small (`--max-time`)
//! so the suite stays quick; no test asserts a speed.

mod common;

use common::{bin, quick};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn db(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("results.db")
}

#[test]
fn run_prints_correct_json_records() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "run",
            "--algorithms",
            "md5,sha256,aes-128-cbc,rsa2048",
            "--bytes",
            "16,8192",
            "--format",
            "json",
        ])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let recs = v.as_array().unwrap();
    // md5, sha256, aes-128-cbc at two sizes, rsa-2048 sign and verify.
    assert_eq!(recs.len(), 8);
    for r in recs {
        assert_eq!(r["impl"], "openssl");
        assert!(r["variant"].as_str().unwrap().starts_with("openssl-3"));
        assert!(
            matches!(r["status"].as_str().unwrap(), "ok" | "imprecise"),
            "{r}"
        );
        let median = r["median"].as_f64().unwrap();
        let ci = r["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64().unwrap() <= median && median <= ci[1].as_f64().unwrap());
        assert!(r["n"].as_u64().unwrap() >= 1);
        if r["bytes"].is_null() {
            assert_eq!(r["unit"], "ops/s");
            assert!(r["cycles_per_op"].as_f64().unwrap() > 0.0);
        } else {
            assert_eq!(r["unit"], "bytes/s");
            // cycles/byte and bytes/s must agree through the TSC frequency (≈2.6 GHz here, any
            // constant rate elsewhere): cycles/byte * bytes/s = TSC Hz within a few percent.
            let hz = r["cycles_per_byte"].as_f64().unwrap() * median;
            assert!(hz > 5e8 && hz < 1e10, "implied TSC rate {hz}");
        }
    }
    let ops: Vec<&str> = recs
        .iter()
        .filter(|r| r["primitive"] == "rsa-2048")
        .map(|r| r["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["sign", "verify"]);
}

#[test]
fn openssl_and_mr_formats_have_openssl_speeds_shape() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "run",
            "-a",
            "md5,rsa2048,x25519",
            "-b",
            "16,64",
            "--label",
            "shape",
        ])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("The 'numbers' are in 1000s of bytes per second processed.\ntype             16 bytes     64 bytes\nmd5  "), "{text}");
    assert!(
        text.contains("\n                  sign    verify    sign/s verify/s\nrsa 2048 bits "),
        "{text}"
    );
    assert!(text.contains(" 253 bits ecdh (X25519) "), "{text}");

    let mr = bin()
        .args([
            "show",
            "shape",
            "--format",
            "mr",
            "--db",
            db(&dir).to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let mr = String::from_utf8(mr.stdout).unwrap();
    let lines: Vec<&str> = mr.lines().collect();
    assert_eq!(lines[0], "+H:16:64");
    // Parsed by OpenSSL 3.0's rules: +F:<index>:<name>:<bytes/s per size>.
    let f: Vec<&str> = lines[1].split(':').collect();
    assert_eq!(&f[..3], ["+F", "3", "md5"]);
    assert!(f[3].parse::<f64>().unwrap() > 0.0 && f[4].parse::<f64>().unwrap() > 0.0);
    let f2: Vec<&str> = lines[2].split(':').collect();
    assert_eq!(&f2[..3], ["+F2", "2", "2048"]);
    assert!(lines[3].starts_with("+F5:22:253:"));
}

#[test]
fn list_names_every_algorithm_of_openssl_speed() {
    let out = bin().arg("list").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for id in [
        "md2",
        "mdc2",
        "md4",
        "md5",
        "sha1",
        "ripemd160",
        "sha256",
        "sha512",
        "whirlpool",
        "hmac-md5",
        "hmac-sha256",
        "cmac",
        "ghash",
        "rc4",
        "des-cbc",
        "des-ede3-cbc",
        "idea-cbc",
        "seed-cbc",
        "rc2-cbc",
        "rc5-cbc",
        "bf-cbc",
        "cast-cbc",
        "aes-128-cbc",
        "aes-192-cbc",
        "aes-256-cbc",
        "camellia-128-cbc",
        "camellia-192-cbc",
        "camellia-256-cbc",
        "rsa-512",
        "rsa-15360",
        "dsa-1024",
        "dsa-2048",
        "ecdsa-p256",
        "ecdsa-p384",
        "ecdsa-p521",
        "ecdh-p256",
        "ecdh-p384",
        "x25519",
        "x448",
        "ed25519",
        "ed448",
        "ffdh-2048",
        "aes-128-gcm",
        "aes-256-gcm",
        "aes-128-ctr",
        "chacha20-poly1305",
        "sha3-256",
        "blake2b-512",
        "shake128",
    ] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("{id} not listed:\n{text}"));
        // The system libcrypto (Debian's OpenSSL 3 with its legacy provider) has every one of
        // them but the four Debian leaves out, checked below: the column says "available".
        let debian_lacks = ["md2", "mdc2", "idea-cbc", "rc5-cbc"].contains(&id);
        assert_eq!(
            line.trim_end().ends_with(" available"),
            !debian_lacks,
            "{line}"
        );
    }
    for id in ["md2", "mdc2", "idea-cbc", "rc5-cbc"] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap();
        assert!(
            line.contains("unavailable: "),
            "Debian leaves {id} out: {line}"
        );
    }
}

#[test]
fn verify_runs_every_known_answer_test() {
    let out = bin().arg("verify").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("RFC 1321"), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(summary.contains(" 0 failed"), "{summary}");
    let passed: usize = summary.split_whitespace().next().unwrap().parse().unwrap();
    assert!(passed >= 40, "{summary}");
}

#[test]
fn unknown_algorithm_is_an_error_with_suggestions() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "-a", "sha265"])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unknown algorithm 'sha265'") && err.contains("sha256"),
        "{err}"
    );
    assert!(
        !db(&dir).exists(),
        "nothing is stored for a rejected command line"
    );
    let bad = bin()
        .args(["run", "-a", "md5", "-b", "32MiB"])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("outside 1 B to 16 MiB"));
}

#[test]
fn a_failed_known_answer_test_is_reported_and_never_timed() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .env("CRYPTOSPEED_FAULT", "kat:md5")
        .args(["run", "-a", "md5,sha1", "-b", "64", "--format", "json"])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed cell makes the run exit 1"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let md5 = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["primitive"] == "md5")
        .unwrap();
    assert_eq!(md5["status"], "failed");
    assert!(md5["median"].is_null());
    assert!(md5["reason"]
        .as_str()
        .unwrap()
        .contains("known-answer test failed"));
    let sha1 = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["primitive"] == "sha1")
        .unwrap();
    assert!(matches!(
        sha1["status"].as_str().unwrap(),
        "ok" | "imprecise"
    ));
    assert!(sha1["median"].as_f64().is_some());
    let conn = Connection::open(db(&dir)).unwrap();
    let samples: i64 = conn.query_row("SELECT COUNT(*) FROM sample s JOIN measurement m ON m.id = s.measurement_id WHERE m.primitive = 'md5'", [], |r| r.get(0)).unwrap();
    assert_eq!(samples, 0, "md5 was timed despite its failed KAT");
}

#[test]
fn a_crashing_worker_costs_only_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .env("CRYPTOSPEED_FAULT", "crash:sha256")
        .args([
            "run",
            "-a",
            "md5,sha256,sha512",
            "-b",
            "64",
            "--format",
            "json",
        ])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let by = |id: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|r| r["primitive"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by("sha256")["status"], "failed");
    assert!(
        by("sha256")["reason"].as_str().unwrap().contains("SIGSEGV"),
        "{}",
        by("sha256")
    );
    assert!(by("md5")["median"].as_f64().is_some());
    assert!(
        by("sha512")["median"].as_f64().is_some(),
        "the cells after the crash are measured by a fresh worker"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("restarting the worker"));
}

fn measurements(db: &Path) -> i64 {
    Connection::open(db)
        .and_then(|c| c.query_row("SELECT COUNT(*) FROM measurement", [], |r| r.get(0)))
        .unwrap_or(0)
}

fn integrity(db: &Path) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// Starts a long run and waits until at least `cells` measurements are stored. The run (and its
/// workers) is killed when the test ends, also when an assertion fails first.
fn start_long_run(db: &Path, cells: i64) -> cryptospeed_testkit::KillOnDrop {
    let child = common::spawn(
        common::command()
            .args([
                "run",
                "-a",
                "md5,sha1,sha256,sha512,aes-128-cbc,aes-256-cbc",
                "--db",
                db.to_str().unwrap(),
                "--max-time",
                "0.3",
                "--sample-time",
                "0.002",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    let start = Instant::now();
    while measurements(db) < cells {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no measurement stored within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

#[test]
fn sigint_keeps_finished_cells_and_marks_the_run_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir);
    let mut child = start_long_run(&db, 3);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.child().wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(integrity(&db), "ok");
    let conn = Connection::open(&db).unwrap();
    let (run_status, n): (String, i64) = conn
        .query_row(
            "SELECT status, (SELECT COUNT(*) FROM measurement) FROM run",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(run_status, "interrupted");
    assert!(n >= 3);
    let with_samples: i64 = conn
        .query_row(
            "SELECT COUNT(DISTINCT measurement_id) FROM sample",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(with_samples >= 3, "finished cells keep their samples");
    let without: i64 = conn
        .query_row("SELECT COUNT(*) FROM measurement m WHERE status IN ('ok', 'imprecise') AND NOT EXISTS (SELECT 1 FROM sample s WHERE s.measurement_id = m.id)", [], |r| r.get(0))
        .unwrap();
    assert_eq!(without, 0);
}

#[test]
fn sigkill_leaves_a_sound_database_with_every_finished_cell() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir);
    let mut child = start_long_run(&db, 4);
    let before = measurements(&db);
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.child().wait().unwrap();
    assert_eq!(integrity(&db), "ok");
    assert!(measurements(&db) >= before);
    let shown = bin()
        .args(["show", "1", "--format", "csv", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(shown.status.success());
    assert!(String::from_utf8(shown.stdout).unwrap().lines().count() as i64 > before);
}

#[test]
fn two_runs_can_write_one_database_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir);
    let spawn = |label: &str| {
        common::command()
            .args([
                "run",
                "-a",
                "md5,sha1,sha256",
                "-b",
                "16,64,256",
                "--label",
                label,
            ])
            .args(quick(&db))
            .stdout(std::process::Stdio::null())
            .output()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| spawn("first"));
        let b = s.spawn(|| spawn("second"));
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    // Without --pin the runner still pins each round's workers, and says where.
    let closing = String::from_utf8_lossy(&a.stderr);
    assert!(
        closing.contains("every round's workers pinned to"),
        "{closing}"
    );
    assert_eq!(measurements(&db), 18);
    let runs = bin()
        .args(["runs", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(runs.stdout).unwrap();
    assert!(text.contains("first") && text.contains("second"), "{text}");
}

#[test]
fn show_renders_every_format_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "run",
            "-a",
            "sha1,ed25519",
            "-b",
            "16",
            "--label",
            "fmt",
            "--pin",
            "0",
        ])
        .args(quick(&db(&dir)))
        .output()
        .unwrap();
    assert!(out.status.success());
    let closing = String::from_utf8_lossy(&out.stderr);
    assert!(
        closing.contains("every worker pinned to CPU 0 (--pin);"),
        "{closing}"
    );
    for (format, needle) in [
        ("csv", "run,impl,variant"),
        ("markdown", "| primitive |"),
        ("json", "\"primitive\": \"ed25519\""),
        ("openssl", "EdDSA (Ed25519)"),
    ] {
        let file = dir.path().join(format!("out.{format}"));
        let shown = bin()
            .args([
                "show",
                "fmt",
                "--format",
                format,
                "-o",
                file.to_str().unwrap(),
                "--db",
                db(&dir).to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(shown.status.success());
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(needle), "{format}: {text}");
    }
    let missing = bin()
        .args(["show", "nope", "--db", db(&dir).to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no run with id or label 'nope'"));
}

#[test]
fn processes_opening_one_new_database_at_once_all_succeed() {
    // Two commands started at once on a new file race to switch it to WAL; the loser must wait,
    // not fail with "database is locked" (it did in 42 of 60 tries of two `cryptospeed runs`).
    let dir = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let db = dir.path().join(format!("r{round}.db"));
        let children: Vec<_> = (0..3)
            .map(|_| {
                common::spawn(
                    common::command()
                        .args(["runs", "--db"])
                        .arg(&db)
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::piped()),
                )
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Turns a store back into what schema 4 wrote (before bouts and heartbeats): no `sample.bout`,
/// no `run.conditions`, no `run.heartbeat_*`/`pid`, no `measurement.definition`, no
/// `run.resume_key`, version 4.
fn as_schema_4(db: &Path) {
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(
        "ALTER TABLE run DROP COLUMN heartbeat_at; ALTER TABLE run DROP COLUMN heartbeat_s; ALTER TABLE run DROP COLUMN pid;
         ALTER TABLE sample DROP COLUMN bout; ALTER TABLE run DROP COLUMN conditions;
         ALTER TABLE measurement DROP COLUMN definition; ALTER TABLE run DROP COLUMN resume_key;
         ALTER TABLE measurement DROP COLUMN disturbances; ALTER TABLE measurement DROP COLUMN flights;
         PRAGMA user_version = 4;",
    )
    .unwrap();
}

#[test]
fn stores_written_before_bouts_still_show_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir);
    let quick_run = |label: &str| {
        let out = bin()
            .args(["run", "-a", "md5", "-b", "64", "--label", label])
            .args(quick(&db))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    quick_run("old");
    as_schema_4(&db);
    let dbs = db.to_str().unwrap();
    // The old run reads back as one stretch of samples (bout 0), compared on pooled samples.
    let shown = bin()
        .args(["show", "old", "--format", "json", "--db", dbs])
        .output()
        .unwrap();
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let version: i64 = Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        version as usize,
        cryptospeed_store::schema::MIGRATIONS.len(),
        "reopening migrated the store to the current schema"
    );
    quick_run("new");
    let out = bin()
        .args(["compare", "old", "new", "--format", "json", "--db", dbs])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["values"][0]["basis"], "samples", "{row}");
    assert_eq!(row["values"][1]["basis"], "bouts", "{row}");
    assert_eq!(row["versus"][1]["test"], "samples", "{row}");
    // A run measured in bouts against itself across its two variants' worth of nothing: its
    // own bouts, paired, give a ratio of exactly 1.
    let out = bin()
        .args(["compare", "new", "new", "--format", "json", "--db", dbs])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let vs = &v["rows"][0]["versus"][1];
    assert_eq!(vs["test"], "paired bouts", "{vs}");
    assert_eq!(vs["ratio"], 1.0, "{vs}");
    assert_eq!(vs["significant"], false, "{vs}");
}

#[test]
fn output_to_a_device_writes_to_it_and_leaves_it_a_device() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let db = db(&dir);
    let out = bin()
        .args(["run", "-a", "md5", "-b", "64", "-o", "/dev/null"])
        .args(quick(&db))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kind = std::fs::metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/null was replaced by a file");
}

/// A column's declared deviation (ring signs messages: the input is hashed first) reaches the
/// figures: the table marks them and says why below, JSON and `compare` carry the same line.
#[test]
fn declared_deviations_are_footnoted_under_run_and_compare_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let run = |format: &str| {
        let out = bin()
            .args(["run", "--impl", "ring,openssl", "--cells", "rsa2048"])
            .args(["--ops", "sign", "--format", format, "--label", format])
            .args(quick(&db))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run("matrix");
    let row = table.lines().find(|l| l.contains("rsa-2048")).unwrap();
    assert_eq!(row.matches('¹').count(), 1, "{table}");
    let note = "¹ ring: the API signs messages: the input is hashed";
    assert!(table.contains(note), "{table}");
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let ring = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["impl"] == "ring")
        .unwrap();
    assert!(ring["deviation"]
        .as_str()
        .unwrap()
        .starts_with("the API signs messages"));
    let openssl = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["impl"] == "openssl")
        .unwrap();
    assert!(openssl.get("deviation").is_none(), "{openssl}");
    let out = bin()
        .args(["compare", "matrix", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(": the API signs messages: the input is hashed"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("rsa-2048") && l.contains('¹')),
        "{text}"
    );
}
