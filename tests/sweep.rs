//! Sweeps without a cluster, on a SQLite store: the plan is stored once, `sweep run --shard K/N`
//! runs exactly its cells as one run and is a no-op the second time, `--all` finishes the rest,
//! a wrong N or an unknown sweep is a clear error, and a profile sweep stores one profiled run per
//! shard. (The Slurm path is tests/slurm.rs.)

mod common;

use common::{bin, ok};

fn status(db: &str, name: &str) -> Vec<serde_json::Value> {
    let out = ok(bin().args(["sweep", "status", name, "--json", "--db", db]));
    serde_json::from_str(&out).unwrap()
}

#[test]
fn shards_run_once_each_and_profiles_sweep_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "name = \"local\"\nimplementations = [\"openssl\", \"rustcrypto\"]\nprimitives = [\"md5\", \"sha256\"]\nsizes = [64, \"1k\"]\nshards = 3\noptions = [\"--max-time\", \"0.1\", \"--sample-time\", \"0.002\", \"--min-samples\", \"5\"]\n",
    )
    .unwrap();
    ok(bin().args(["sweep", "plan"]).arg(&spec).args(["--db", db]));
    ok(bin().args(["sweep", "plan"]).arg(&spec).args(["--db", db]));
    let shards = status(db, "local");
    assert_eq!(shards.len(), 3);
    let cells: Vec<Vec<String>> = shards
        .iter()
        .map(|s| serde_json::from_str(s["jobs"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(
        cells.concat(),
        ["md5@64", "md5@1024", "sha256@64", "sha256@1024"]
    );

    ok(bin().args(["sweep", "run", "local", "--shard", "2/3", "--db", db]));
    let shards = status(db, "local");
    assert_eq!(shards[2]["status"], "done");
    assert_eq!(shards[0]["status"], "pending");
    let run = shards[2]["run_id"].as_i64().unwrap();
    // The shard's run: its cells, both implementations interleaved.
    let json = ok(bin().args(["show", &run.to_string(), "--format", "json", "--db", db]));
    let measured: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(measured.len(), cells[2].len() * 2, "{json}");
    // Again: nothing to do, nothing stored.
    let out = bin()
        .args(["sweep", "run", "local", "--shard", "2/3", "--db", db])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to do"));
    ok(bin().args(["sweep", "run", "local", "--all", "--db", db]));
    let shards = status(db, "local");
    assert!(
        shards
            .iter()
            .all(|s| s["status"] == "done" && s["attempts"] == 1),
        "{shards:?}"
    );
    let runs = ok(bin().args(["runs", "--db", db]));
    assert_eq!(runs.matches("local shard").count(), 3, "{runs}");

    let out = bin()
        .args(["sweep", "run", "local", "--shard", "1/4", "--db", db])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("has 3 shards"));
    let out = bin()
        .args(["sweep", "run", "nope", "--all", "--db", db])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no sweep named 'nope'"));
    // The same name with another plan is refused.
    std::fs::write(&spec, "name = \"local\"\nprimitives = [\"md5\"]\n").unwrap();
    let out = bin()
        .args(["sweep", "plan"])
        .arg(&spec)
        .args(["--db", db])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("different plan"));

    a_profile_sweep_stores_one_profiled_run_per_shard(dir.path(), db);
}

/// A profile sweep: one profiled cell per shard at its own size.
fn a_profile_sweep_stores_one_profiled_run_per_shard(dir: &std::path::Path, db: &str) {
    let prof = dir.join("p.toml");
    std::fs::write(
        &prof,
        "name = \"prof\"\nkind = \"profile\"\nprimitives = [\"md5\"]\nsizes = [\"4k\"]\noptions = [\"--grid\", \"single\"]\n",
    )
    .unwrap();
    ok(bin().args(["sweep", "plan"]).arg(&prof).args(["--db", db]));
    ok(bin().args(["sweep", "run", "prof", "--shard", "0/1", "--db", db]));
    let shards = status(db, "prof");
    assert_eq!(shards[0]["status"], "done");
    let html = dir.join("p.html");
    ok(bin()
        .args(["report", &shards[0]["run_id"].to_string(), "-o"])
        .arg(&html)
        .args(["--db", db]));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("data-chart=\"mix\""));
}

#[test]
fn a_slurm_script_names_the_store_without_its_password() {
    let server = cryptospeed_testkit::PgServer::start().unwrap();
    let url = server.database("scripts").unwrap();
    assert!(
        url.contains(&server.password),
        "the test URL carries the password"
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "name = \"pw\"\nprimitives = [\"md5\", \"sha1\"]\nsizes = [64]\nshards = 2\n",
    )
    .unwrap();
    let script = dir.path().join("pw.sbatch");
    let out = bin()
        .args(["sweep", "slurm"])
        .arg(&spec)
        .arg("-o")
        .arg(&script)
        .args(["--db", &url])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("#SBATCH --array=0-1"), "{text}");
    assert!(
        text.contains(&format!("{}@127.0.0.1:{}", server.user, server.port)),
        "the script names the store: {text}"
    );
    assert!(!text.contains(&server.password), "{text}");
    assert!(!said.contains(&server.password), "{said}");
}
