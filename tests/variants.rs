//! Variant builds end to end, with a real OpenSSL 3.5 tree from the openssl-src crate: a small
//! no-asm build from a directory whose path has spaces and shell metacharacters (nothing may be
//! run by a shell), its known-answer tests, the cache, `run --variant` beside the system
//! libcrypto; a build that fails and a patched build that fails its known-answer tests are
//! reported and never timed; a missing compiler names its Debian package. A cached build is
//! verified where it is used: a byte changed in its library refuses it, naming the file, and a
//! known-answer verdict rewritten in its manifest changes nothing (the tests run again and decide).
//!
//! The tree is one exact release (`OPENSSL_CRATE`), never "the newest 3.5": a registry release must
//! not change what these tests assert. Builds go to the suite's cache directory, which outlives the
//! test run (`test_cache()`), so only the first run pays for them (about two minutes each on two
//! cores); their labels hold the build's content key (`--label cs-test-broken-{key}`), so a new
//! compiler or other options make a new build beside the old instead of a clash. A test that
//! changes a cached build does so in a copy in its own temporary cache. The hostile-path build
//! is the exception: the property it checks (no shell ever sees the path) is only exercised by a
//! real configure and make, so it builds into a fresh cache every run.

mod common;

use common::{bin, ok, quick, test_cache, OPENSSL_CRATE, SMALL_BUILD as SMALL};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
/// The OpenSSL release `OPENSSL_CRATE` carries.
const OPENSSL_RELEASE: &str = "3.5.5";

/// A directory name no shell could take literally.
const HOSTILE: &str = "open ssl; touch PWNED-semi $(touch PWNED-subst) `touch PWNED-tick` & | ' \"";

fn fetch_tree(into: &Path) {
    ok(bin()
        .args(["variant", "fetch", "--openssl", OPENSSL_CRATE])
        .arg(into)
        .current_dir(into.parent().unwrap()));
    assert!(into.join("Configure").is_file());
}

fn small_build(source: &Path, label: &str, cache: &Path) -> std::process::Output {
    let mut cmd = bin();
    cmd.args([
        "variant", "build", "--no-asm", "--cflags", "-O1", "--label", label,
    ])
    .arg("--source")
    .arg(source)
    .env("CRYPTOSPEED_CACHE", cache)
    .current_dir(source.parent().unwrap());
    for o in SMALL {
        cmd.args(["--configure-arg", o]);
    }
    cmd.output().unwrap()
}

/// A field of the summary `variant build` prints (`variant`, `key`, `status`).
fn summary_field(stdout: &str, name: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
        .map(|rest| rest.trim().to_string())
        .unwrap_or_else(|| panic!("no {name} in the summary:\n{stdout}"))
}

/// A good small build in the suite's cache: the one tests/pq.rs and tests/symmetric_modes.rs
/// use (built once by whichever test comes first, its known-answer tests run again by each); its
/// label and key.
fn good_small_variant(tmp: &Path) -> (String, String) {
    let (label, library) = common::pq_variant(tmp);
    let dir = library.parent().unwrap().file_name().unwrap();
    (label, dir.to_string_lossy().into_owned())
}

/// The small build of a tree with one round constant of SHA-256 changed: it builds and runs,
/// and computes the wrong digest. In the suite's cache; its output, label and key.
fn broken_small_variant(tmp: &Path) -> (std::process::Output, String, String) {
    let tree = tmp.join("patched");
    fetch_tree(&tree);
    let sha = tree.join("crypto/sha/sha256.c");
    let text = std::fs::read_to_string(&sha).unwrap();
    assert!(text.contains("0x428a2f98UL"));
    std::fs::write(&sha, text.replacen("0x428a2f98UL", "0x428a2f99UL", 1)).unwrap();
    let out = small_build(&tree, "cs-test-broken-{key}", &test_cache());
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let label = summary_field(&stdout, "variant");
    (out, label, summary_field(&stdout, "key"))
}

/// Copies a variant's directory from the suite's cache into `cache` (a test's own), where the
/// test may change it; the copy's directory.
fn copy_variant(key: &str, cache: &Path) -> PathBuf {
    let from = test_cache().join("variants").join(key);
    let to = cache.join("variants").join(key);
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(&from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to
}

/// Rewrites a cached variant's manifest with `change`.
fn edit_manifest(dir: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("variant.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    change(&mut m);
    std::fs::write(&path, m.to_string()).unwrap();
}

/// Every known-answer verdict in a manifest set to `status` and `result` (`pass`, `fail`).
fn forge_verdict(m: &mut serde_json::Value, status: &str, result: &str) {
    m["status"] = status.into();
    m["detail"] = "a verdict written by hand".into();
    for k in m["kats"].as_array_mut().unwrap() {
        if k["result"] != "unavailable" {
            k["result"] = result.into();
        }
    }
}

/// `run --variant NAME -a sha256` against `cache`, storing into `db`.
fn run_variant(name: &str, cache: &Path, db: &Path) -> std::process::Output {
    bin()
        .args(["run", "--variant", name, "-a", "sha256", "-b", "1024"])
        .args(["--format", "json"])
        .args(quick(db))
        .env("CRYPTOSPEED_CACHE", cache)
        .output()
        .unwrap()
}

fn no_canaries(dir: &Path) {
    for entry in walk(dir) {
        let name = entry.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.starts_with("PWNED"),
            "a shell ran part of an argument: {}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() && p.components().count() < 12 {
                out.extend(walk(&p));
            }
            out.push(p);
        }
    }
    out
}

#[test]
fn a_real_small_variant_builds_from_a_hostile_path_is_verified_cached_and_timed() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join(HOSTILE);
    fetch_tree(&tree);
    // A fresh cache: configure and make really run on the hostile path every time.
    let cache = tmp.path().join("cache");
    let first = small_build(&tree, "cs-test-small", &cache);
    let stderr = String::from_utf8_lossy(&first.stderr);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{stderr}\n{stdout}");
    assert!(stdout.contains("status    ready"), "{stdout}");
    assert!(
        !stderr.contains("nothing to build"),
        "the hostile-path build must really run: {stderr}"
    );
    no_canaries(tmp.path());

    // The same source (by content, wherever it lies) and configuration: nothing to build.
    let again = small_build(&tree, "cs-test-small", &cache);
    assert!(again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("nothing to build"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    let listed = ok(bin()
        .args(["variant", "list", "--json"])
        .env("CRYPTOSPEED_CACHE", &cache));
    let all: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let me = all
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["label"] == "cs-test-small")
        .expect("listed");
    assert_eq!(me["status"], "ready");
    assert_eq!(me["no_asm"], true);
    assert_eq!(me["cflags"], serde_json::json!(["-O1"]));
    assert_eq!(me["source"]["version"], OPENSSL_RELEASE);
    assert!(me["configure_command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "no-asm"));
    let kats = me["kats"].as_array().unwrap();
    let result = |id: &str| {
        kats.iter()
            .find(|k| k["primitive"] == id)
            .map(|k| k["result"].as_str().unwrap().to_string())
    };
    assert_eq!(result("sha256").as_deref(), Some("pass"));
    assert_eq!(result("aes-128-cbc").as_deref(), Some("pass"));
    // Left out by the configuration: reported, not failed.
    assert_eq!(result("ecdsa-p256").as_deref(), Some("unavailable"));

    // Timed beside the system libcrypto, each in its own worker; the build record is stored.
    let db = tmp.path().join("r.db");
    let out = ok(bin()
        .args(["run", "--variant", "cs-test-small,system"])
        .args(["-a", "sha256,aes-128-cbc", "-b", "1024", "--format", "json"])
        .args(quick(&db))
        .env("CRYPTOSPEED_CACHE", &cache));
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for r in rows {
        // Timed (precise, or not within the short budget on a busy machine).
        assert!(r["status"] == "ok" || r["status"] == "imprecise", "{r}");
        assert!(r["median"].as_f64().unwrap() > 0.0, "{r}");
    }
    assert!(rows.iter().any(|r| r["variant"] == "cs-test-small"));
    let conn = Connection::open(&db).unwrap();
    let info: String = conn
        .query_row(
            "SELECT build_info FROM variant WHERE label = 'cs-test-small'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(info.contains("configure: perl Configure"), "{info}");
    assert!(info.contains("no-asm") && info.contains("gcc"), "{info}");
    assert!(
        info.contains(&format!("OpenSSL {OPENSSL_RELEASE}")),
        "{info}"
    );
}

#[test]
fn a_variant_that_fails_its_known_answer_tests_is_broken_and_never_timed() {
    let tmp = tempfile::tempdir().unwrap();
    // Found in the suite's cache after the first run: the known-answer tests run again anyway.
    let (out, label, _) = broken_small_variant(tmp.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("status    broken"), "{stdout}");
    assert!(stdout.contains("sha256:"), "{stdout}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("running its known-answer tests"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let db = tmp.path().join("r.db");
    let refused = run_variant(&label, &test_cache(), &db);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("variant {label} is broken and is never timed")),
        "{stderr}"
    );
    assert!(!db.exists(), "nothing is stored for a refused run");
}

#[test]
fn a_cached_variant_whose_library_changed_is_refused_naming_the_variant_and_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (label, key) = good_small_variant(tmp.path());
    let cache = tmp.path().join("cache");
    let dir = copy_variant(&key, &cache);
    let listed = ok(bin()
        .args(["variant", "list", "--json"])
        .env("CRYPTOSPEED_CACHE", &cache));
    let all: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let library = dir.join(all[0]["library"].as_str().unwrap());
    assert!(
        all[0]["files"][all[0]["library"].as_str().unwrap()].is_string(),
        "the library's hash is recorded: {listed}"
    );
    // One byte of the compiler's note in .comment (not loaded, not code): the library still
    // loads and computes the right answers, and is no longer the build that was cached.
    let mut bytes = std::fs::read(&library).unwrap();
    let at = bytes
        .windows(6)
        .position(|w| w == b"GCC: (")
        .expect("gcc's .comment note");
    bytes[at] ^= 0x20;
    std::fs::write(&library, &bytes).unwrap();

    let db = tmp.path().join("r.db");
    let refused = run_variant(&label, &cache, &db);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("variant {label} is refused")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{} changed since it was cached",
            library.display()
        )),
        "{stderr}"
    );
    assert!(!db.exists(), "nothing is stored for a refused run");
    let shown = ok(bin()
        .args(["variant", "show", &label])
        .env("CRYPTOSPEED_CACHE", &cache));
    assert!(shown.contains("files     CHANGED"), "{shown}");

    // The refusal is the hash's: loaded by path, the changed library passes its tests.
    let verified = ok(bin()
        .args(["verify", "-a", "sha256", "--impl"])
        .arg(format!("openssl:{}", library.display()))
        .env("CRYPTOSPEED_CACHE", &cache));
    assert!(verified.contains("1 passed, 0 failed"), "{verified}");
}

#[test]
fn a_known_answer_verdict_rewritten_in_the_cache_changes_nothing_the_tests_run_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (good, good_key) = good_small_variant(tmp.path());
    let (_, broken, broken_key) = broken_small_variant(tmp.path());
    let cache = tmp.path().join("cache");
    // The good build recorded as broken, every test failed; the broken one as ready.
    edit_manifest(&copy_variant(&good_key, &cache), |m| {
        forge_verdict(m, "broken", "fail")
    });
    edit_manifest(&copy_variant(&broken_key, &cache), |m| {
        forge_verdict(m, "ready", "pass")
    });

    let db = tmp.path().join("good.db");
    let timed = run_variant(&good, &cache, &db);
    let stdout = String::from_utf8_lossy(&timed.stdout);
    assert!(
        timed.status.success(),
        "{}",
        String::from_utf8_lossy(&timed.stderr)
    );
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &rows.as_array().unwrap()[0];
    assert_eq!(row["variant"], good.as_str(), "{stdout}");
    assert!(
        row["status"] == "ok" || row["status"] == "imprecise",
        "{row}"
    );

    let db = tmp.path().join("broken.db");
    let refused = run_variant(&broken, &cache, &db);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("variant {broken} is broken and is never timed")),
        "{stderr}"
    );
    assert!(stderr.contains("sha256:"), "{stderr}");
    assert!(!db.exists(), "nothing is stored for a refused run");
    // The manifests now hold what the tests found, for `variant list`.
    let shown = ok(bin()
        .args(["variant", "show", &good])
        .env("CRYPTOSPEED_CACHE", &cache));
    assert!(shown.contains("status    ready"), "{shown}");
}

#[test]
fn a_build_that_fails_is_reported_with_its_log_and_never_timed() {
    let cache = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "variant",
            "build",
            "--openssl",
            OPENSSL_CRATE,
            "--label",
            "cs-test-fail",
        ])
        .args(["--configure-arg", "no-such-feature"])
        .env("CRYPTOSPEED_CACHE", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the build of variant cs-test-fail failed"),
        "{stderr}"
    );
    assert!(stderr.contains("build log: "), "{stderr}");
    // Configure's own complaint, from the log tail.
    assert!(stderr.contains("no-such-feature"), "{stderr}");
    let shown = ok(bin()
        .args(["variant", "show", "cs-test-fail"])
        .env("CRYPTOSPEED_CACHE", cache.path()));
    assert!(shown.contains("status    failed"), "{shown}");

    let refused = bin()
        .args(["run", "--variant", "cs-test-fail", "-a", "sha256"])
        .args(quick(&cache.path().join("r.db")))
        .env("CRYPTOSPEED_CACHE", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr.contains("failed to build"), "{stderr}");

    ok(bin()
        .args(["variant", "rm", "cs-test-fail"])
        .env("CRYPTOSPEED_CACHE", cache.path()));
    let gone = bin()
        .args(["variant", "show", "cs-test-fail"])
        .env("CRYPTOSPEED_CACHE", cache.path())
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(2));
}

#[test]
fn a_missing_compiler_or_a_shell_character_is_refused_before_anything_runs() {
    let cache = tempfile::tempdir().unwrap();
    let out = bin()
        .args([
            "variant",
            "build",
            "--openssl",
            OPENSSL_CRATE,
            "--cc",
            "clang-97",
        ])
        .env("CRYPTOSPEED_CACHE", cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("'clang-97' is not on PATH") && stderr.contains("apt-get install clang-97"),
        "{stderr}"
    );

    let out = bin()
        .args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--cflags", "-O2 -DX=$(touch PWNED)"])
        .env("CRYPTOSPEED_CACHE", cache.path())
        .current_dir(cache.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("/bin/sh"), "{stderr}");
    no_canaries(cache.path());
    assert!(
        !cache.path().join("variants").exists()
            || std::fs::read_dir(cache.path().join("variants"))
                .unwrap()
                .next()
                .is_none(),
        "nothing is built or kept"
    );
}
