//! The CI jobs docs/gate.md documents, run here: both YAML blocks are read from the doc and
//! parsed (python3's yaml; the test says so and skips when it is missing), and their gate
//! commands run with bash as the runners run them — GitHub's `bash --noprofile --norc -eo
//! pipefail` on the `Gate` step's `run` with the job's and step's `env`, GitLab's `script` lines
//! in one shell with the job's `variables` — against two real libraries: the system libcrypto
//! as the base, and as the head a copy of it (an unchanged rebuild: exit 0, or 3 when a cell
//! stayed undecided) and then that copy with AES-NI masked off (a real slowdown of AES alone:
//! exit 1, aes-128-cbc named, md5 not). The steps that build OpenSSL, install cryptospeed or
//! post need the runners and a token and are not run; what they read is checked to exist.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cells the jobs' `GATE_ARGS` are cut to here: one the mask slows, one it does not.
const GATE_ARGS: &str = "--cells md5@8192,aes-128-cbc@8192 --max-time 0.3";

/// The ```yaml blocks of docs/gate.md, parsed, or `None` (said) without python3's yaml.
fn jobs() -> Option<Vec<Value>> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gate.md"))
        .unwrap();
    let blocks: Vec<&str> = doc
        .split("```yaml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    let mut parsed = Vec::new();
    for block in blocks {
        let out = Command::new("python3")
            .args([
                "-c",
                "import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(block.as_bytes())?;
                child.wait_with_output()
            });
        match out {
            Ok(o) if o.status.success() => parsed.push(serde_json::from_slice(&o.stdout).unwrap()),
            Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named") => {
                eprintln!("skipped: python3 has no yaml module to parse the doc's jobs");
                return None;
            }
            Ok(o) => panic!("a YAML block of docs/gate.md does not parse: {o:?}\n{block}"),
            Err(e) => {
                eprintln!("skipped: no python3 to parse the doc's jobs ({e})");
                return None;
            }
        }
    }
    Some(parsed)
}

/// A job's step or variable map as (name, value) pairs; values with a `${{ }}` expression are
/// left out (the runner fills them in).
fn env_of(map: &Value) -> Vec<(String, String)> {
    map.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let v = v.as_str()?;
            (!v.contains("${{")).then(|| (k.clone(), v.to_string()))
        })
        .collect()
}

/// Runs `script` with bash in `dir` the way `shell` says, `env` set and the binary under test
/// first on PATH, `BASE_LIB`/`HEAD_LIB`/`GATE_ARGS` as given; the exit status.
fn run_job(dir: &Path, shell: &[&str], script: &str, env: &[(String, String)], head: &str) -> i32 {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_cryptospeed"))
        .parent()
        .unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let script_file = dir.join("step.sh");
    std::fs::write(&script_file, script).unwrap();
    let out = Command::new(shell[0])
        .args(&shell[1..])
        .arg(&script_file)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("PATH", path)
        .env("CRYPTOSPEED_CACHE", common::test_cache())
        .env("BASE_LIB", system_libcrypto())
        .env("HEAD_LIB", head)
        .env("GATE_ARGS", GATE_ARGS)
        .env("GITHUB_OUTPUT", dir.join("github_output"))
        .env("GITHUB_STEP_SUMMARY", dir.join("step_summary"))
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out.status.code().unwrap_or(-1)
}

/// The system libcrypto's file, where the usual places have it.
fn system_libcrypto() -> &'static str {
    [
        "/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib64/libcrypto.so.3",
        "/usr/lib/libcrypto.so.3",
    ]
    .into_iter()
    .find(|p| Path::new(p).is_file())
    .expect("the system libcrypto.so.3 (Debian's libssl3, which scripts/setup installs)")
}

/// The two heads, each in a fresh working directory of its own: a copy of the system library
/// (expected to pass or stay undecided) and the copy with AES-NI masked (expected to fail).
fn heads(root: &Path) -> [(PathBuf, String, bool); 2] {
    let copy = root.join("head-lib/libcrypto.so.3");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(system_libcrypto(), &copy).unwrap();
    let same = copy.display().to_string();
    [
        (root.join("unchanged"), same.clone(), false),
        (root.join("slower"), format!("{same}+no-aesni"), true),
    ]
    .map(|(d, h, slower)| {
        std::fs::create_dir_all(&d).unwrap();
        (d, h, slower)
    })
}

/// What a gate run left in `dir` says: exit 1 and aes-128-cbc in the summary's regressions
/// (md5 not) for the slower head; exit 0 (PASS) or 3 (UNDECIDED) and no regression for the
/// unchanged one. Both libraries ran every cell; the summary file and the JSON report are there.
fn judged(dir: &Path, code: i32, slower: bool) {
    let summary = std::fs::read_to_string(dir.join("gate.md")).unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gate.json")).unwrap()).unwrap();
    for cell in report["cells"].as_array().unwrap() {
        let pairs = cell["pairs"].as_u64().unwrap_or(0);
        assert!(pairs >= 2, "both libraries must run every cell: {cell}");
    }
    let regressions = summary.split("**Regressions**").nth(1).unwrap_or_default();
    let regressions = regressions.split("\n\n**").next().unwrap_or_default();
    if slower {
        assert_eq!(code, 1, "{summary}");
        assert!(summary.contains("FAIL: regression"), "{summary}");
        assert!(regressions.contains("| aes-128-cbc | 8192 |"), "{summary}");
        assert!(!regressions.contains("| md5 |"), "{summary}");
        assert_eq!(report["outcome"], "regression");
    } else {
        assert!(code == 0 || code == 3, "exit {code}: {summary}");
        let word = if code == 0 { "PASS" } else { "UNDECIDED" };
        assert!(summary.contains(word), "{summary}");
        assert!(regressions.is_empty(), "{summary}");
    }
}

/// Whether `name` is one of the doc's GitHub steps, by its `name`.
fn step<'a>(job: &'a Value, name: &str) -> &'a Value {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step '{name}' in {job}"))
}

fn github(workflow: &Value, root: &Path) {
    let job = &workflow["jobs"]["gate"];
    let gate = step(job, "Gate");
    let mut env = env_of(&job["env"]);
    env.extend(env_of(&gate["env"]));
    let upload = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("an upload step");
    assert!(upload["if"].as_str().unwrap().contains("always()"));
    let shell = ["bash", "--noprofile", "--norc", "-eo", "pipefail"];
    for (dir, head, slower) in heads(&root.join("github")) {
        let code = run_job(&dir, &shell, gate["run"].as_str().unwrap(), &env, &head);
        // The step passes an undecided gate on with a warning, and says its status.
        let status = std::fs::read_to_string(dir.join("github_output")).unwrap();
        let gate_code: i32 = status
            .trim()
            .strip_prefix("status=")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(code, if gate_code == 3 { 0 } else { gate_code }, "{status}");
        judged(&dir, gate_code, slower);
        let summary = std::fs::read_to_string(dir.join("gate.md")).unwrap();
        let posted = std::fs::read_to_string(dir.join("step_summary")).unwrap();
        assert_eq!(posted, summary);
        assert!(step(job, "Comment")["run"]
            .as_str()
            .unwrap()
            .contains("--body-file gate.md"));
        for file in upload["with"]["path"].as_str().unwrap().split_whitespace() {
            assert!(
                dir.join(file).is_file(),
                "the upload names {file}, not made"
            );
        }
    }
}

fn gitlab(pipeline: &Value, root: &Path) {
    let job = &pipeline["bench-gate"];
    let lines: Vec<&str> = job["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let env = env_of(&job["variables"]);
    assert_eq!(job["allow_failure"]["exit_codes"], serde_json::json!([3]));
    assert_eq!(job["artifacts"]["when"], "always");
    assert!(job["after_script"][0]
        .as_str()
        .unwrap()
        .contains("body@gate.md"));
    for (dir, head, slower) in heads(&root.join("gitlab")) {
        let code = run_job(
            &dir,
            &["bash", "-eo", "pipefail"],
            &lines.join("\n"),
            &env,
            &head,
        );
        judged(&dir, code, slower);
        for file in job["artifacts"]["paths"].as_array().unwrap() {
            let file = file.as_str().unwrap();
            assert!(
                dir.join(file).is_file(),
                "the artifacts name {file}, not made"
            );
        }
    }
}

#[test]
#[ignore = "needs python3 yaml (scripts/test runs it when there is one)"]
fn the_documented_github_and_gitlab_jobs_gate_two_real_builds() {
    let jobs = jobs().expect("python3 with yaml");
    let root = tempfile::tempdir().unwrap();
    let workflow = jobs.iter().find(|j| j.get("jobs").is_some());
    let pipeline = jobs.iter().find(|j| j.get("bench-gate").is_some());
    github(
        workflow.expect("a GitHub workflow in docs/gate.md"),
        root.path(),
    );
    gitlab(pipeline.expect("a GitLab job in docs/gate.md"), root.path());
}
