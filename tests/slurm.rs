//! A sweep through Slurm on loopback, against a real PostgreSQL: `sweep slurm --submit` writes an
//! sbatch job array of 20 shards and submits it to a one-node cluster this test brings up
//! (slurmctld, slurmd, munged); every shard's results must arrive in PostgreSQL, `sweep status`
//! must show all 20 done, submitting the same script again must add nothing, and the password in
//! the store's URL must be in neither the script, the task logs nor the output.
//!
//! Needs root (slurmd starts jobs) and Debian's slurm-wlm and munge, so it is `#[ignore]`d with
//! that reason and run on purpose: `cargo test --test slurm -- --ignored`. scripts/test does so
//! when it runs as root (as CI does) unless `CRYPTOSPEED_SLURM_TEST=0`; otherwise the summary
//! counts it as skipped, with its reason. The last successful output is recorded in docs/scale.md.

mod common;

use common::bin;
use cryptospeed_testkit::{PgServer, SlurmCluster};
use std::path::Path;
use std::time::{Duration, Instant};

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
#[ignore = "needs root, slurm-wlm and munge: brings up slurmd (scripts/test runs it as root)"]
fn a_twenty_shard_sweep_runs_as_a_slurm_job_array() {
    let server = PgServer::start().unwrap();
    let url = server.database("cluster").unwrap();
    let cluster = SlurmCluster::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (job, body, submitted) = submit_the_sweep(&cluster, &url, dir.path());
    // Wait for the array to finish (the queue empties), then read the status.
    wait_for_the_queue(
        &cluster,
        Duration::from_secs(600),
        &format!("job {job} did not finish in 10 minutes"),
    );
    let elapsed = started.elapsed();
    let summary = every_shard_done(&server, &cluster, &url, dir.path());
    let second_logs = submitting_again_runs_nothing(&server, &cluster, &url, dir.path());
    let outputs: Vec<&String> = second_logs
        .iter()
        .chain([&body, &submitted, &summary])
        .collect();
    assert_password_hidden(&server, &outputs);
    eprintln!(
        "slurm sweep: 20 shards done in {:.1} s (job {job}); status:\n{summary}",
        elapsed.as_secs_f64()
    );
}

/// The array tasks' logs (`*.out` in `dir`).
fn task_logs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".out"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect()
}

/// Waits until the cluster's queue is empty, failing with `what` after `limit`.
fn wait_for_the_queue(cluster: &SlurmCluster, limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    while cluster.busy().unwrap() {
        assert!(Instant::now() < deadline, "{what}:\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Writes the sweep's spec and submits it with `sweep slurm --submit`; returns the job id, the
/// sbatch script and what the command printed.
fn submit_the_sweep(cluster: &SlurmCluster, url: &str, dir: &Path) -> (u64, String, String) {
    let spec = dir.join("hashes.toml");
    std::fs::write(
        &spec,
        r#"
name = "loopback"
implementations = ["openssl"]
primitives = ["md5", "sha1", "sha256", "sha512", "aes-128-cbc"]
sizes = [64, 256, 1024, 8192]
shards = 20
options = ["--max-time", "0.1", "--sample-time", "0.002", "--min-samples", "5", "--precision", "0.05"]
"#,
    )
    .unwrap();
    let script = dir.join("loopback.sbatch");
    let out = bin()
        .args(["sweep", "slurm"])
        .arg(&spec)
        .arg("-o")
        .arg(&script)
        .args([
            "--partition",
            &cluster.partition,
            "--time",
            "00:05:00",
            "--submit",
        ])
        .env("CRYPTOSPEED_DB", url)
        .envs(cluster.env())
        .output()
        .unwrap();
    let submitted = text(&out);
    assert!(out.status.success(), "{submitted}");
    let job: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let body = std::fs::read_to_string(&script).unwrap();
    for line in [
        "#SBATCH --array=0-19",
        "#SBATCH --exclusive",
        "#SBATCH --partition=bench",
        "#SBATCH --time=00:05:00",
    ] {
        assert!(body.contains(line), "{line} missing from:\n{body}");
    }

    (job, body, submitted)
}

/// Every shard's run arrived in PostgreSQL and `sweep status` says so; returns its summary.
fn every_shard_done(server: &PgServer, cluster: &SlurmCluster, url: &str, dir: &Path) -> String {
    let status = bin()
        .args(["sweep", "status", "loopback", "--json", "--db", url])
        .output()
        .unwrap();
    let shards: Vec<serde_json::Value> = serde_json::from_slice(&status.stdout).unwrap();
    let logs = task_logs(dir);
    assert_eq!(shards.len(), 20);
    for s in &shards {
        assert_eq!(
            s["status"],
            "done",
            "{s}\ntask logs:\n{}\n{}",
            logs.join("\n---\n"),
            cluster.logs()
        );
        assert!(s["run_id"].as_i64().is_some(), "{s}");
    }
    assert_eq!(logs.len(), 20, "one log per array task");
    let count = |sql: &str| server.psql("cluster", sql).unwrap().trim().to_string();
    assert_eq!(
        count("SELECT COUNT(*) FROM run WHERE label LIKE 'loopback shard %'"),
        "20"
    );
    assert_eq!(
        count("SELECT COUNT(DISTINCT label) FROM run WHERE label LIKE 'loopback shard %'"),
        "20"
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM measurement WHERE status IN ('ok', 'imprecise') AND n >= 5"),
        "20",
        "one cell per shard, all timed (imprecise allowed: 0.1 s cells on a shared VM)"
    );
    assert_eq!(
        count("SELECT COUNT(DISTINCT primitive || '@' || bytes) FROM measurement"),
        "20",
        "every cell of the matrix"
    );
    let summary = text(
        &bin()
            .args(["sweep", "status", "loopback", "--db", url])
            .output()
            .unwrap(),
    );
    assert!(summary.contains("20/20 shards done"), "{summary}");

    summary
}

/// Submitting the same script again re-runs nothing; returns all task logs (both submissions).
fn submitting_again_runs_nothing(
    server: &PgServer,
    cluster: &SlurmCluster,
    url: &str,
    dir: &Path,
) -> Vec<String> {
    let script = dir.join("loopback.sbatch");
    let count = |sql: &str| server.psql("cluster", sql).unwrap().trim().to_string();
    // Submitting again re-runs nothing: every task finds its shard done.
    let again = std::process::Command::new("sbatch")
        .arg("--parsable")
        .arg(&script)
        .env("CRYPTOSPEED_DB", url)
        .envs(cluster.env())
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again));
    wait_for_the_queue(cluster, Duration::from_secs(300), "the second submission");
    assert_eq!(
        count("SELECT COUNT(*) FROM run"),
        "20",
        "no shard ran twice"
    );
    let second_logs = task_logs(dir);
    assert_eq!(second_logs.len(), 40);
    assert_eq!(
        second_logs
            .iter()
            .filter(|l| l.contains("nothing to do"))
            .count(),
        20
    );

    second_logs
}

/// The password: not in the script, the task logs, the output or any row.
fn assert_password_hidden(server: &PgServer, outputs: &[&String]) {
    let count = |sql: &str| server.psql("cluster", sql).unwrap().trim().to_string();
    for t in outputs {
        assert!(!t.contains(&server.password), "password leaked:\n{t}");
    }
    for table in [
        "machine",
        "variant",
        "run",
        "measurement",
        "sample",
        "profile",
        "sweep",
        "sweep_shard",
        "cryptospeed_schema",
    ] {
        let hits = count(&format!(
            "SELECT COUNT(*) FROM {table} t WHERE t::text LIKE '%{}%'",
            server.password
        ));
        assert_eq!(hits, "0", "password stored in {table}");
    }
}
