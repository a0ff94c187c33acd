//! Helpers the end-to-end test files share: the binary under test and the small time budget
//! that keeps every run quick. Every command a test starts through them uses the test suite's
//! own cache ([`test_cache`], never the user's `~/.cache/cryptospeed`). No command builds AWS-LC
//! or BoringSSL unasked: a test that needs one builds it with `variant build-library`, which
//! waits for it. `cargo test` alone is as clean as scripts/test, which sets the same cache.

use assert_cmd::Command;
use std::path::Path;

pub fn bin() -> Command {
    let mut c = Command::cargo_bin("cryptospeed").unwrap();
    c.env("CRYPTOSPEED_CACHE", test_cache());
    c
}

/// The binary under test as a plain `std::process::Command` (for a child a test signals or
/// runs beside others), with the environment of [`bin`].
#[allow(dead_code)] // not every test file uses every helper
pub fn command() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_cryptospeed"));
    c.env("CRYPTOSPEED_CACHE", test_cache());
    c
}

/// [`command`] started as a child that is killed, with its workers, when the test ends, also
/// when an assertion fails first.
#[allow(dead_code)]
pub fn spawn(c: &mut std::process::Command) -> cryptospeed_testkit::KillOnDrop {
    cryptospeed_testkit::KillOnDrop::spawn(c).unwrap()
}

/// AWS-LC and BoringSSL, built into the suite's cache if they are not there yet (waiting for the
/// build: several minutes the first time), so that `--impl all` has every column whichever test
/// runs first.
#[allow(dead_code)]
pub fn build_aws_lc_and_boringssl() {
    for name in ["aws-lc", "boringssl"] {
        ok(bin().args(["variant", "build-library", name]));
    }
}

/// Store and measuring options for a quick run: 0.3 s per cell, ±5%.
#[allow(dead_code)] // not every test file uses every helper
pub fn quick(db: &Path) -> Vec<String> {
    [
        "--db",
        db.to_str().unwrap(),
        "--max-time",
        "0.3",
        "--sample-time",
        "0.002",
        "--min-samples",
        "6",
        "--precision",
        "0.05",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Runs the command, asserts it succeeded (showing its stderr if not), returns its stdout.
#[allow(dead_code)] // not every test file uses every helper
pub fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a `variant build` command, asserts the variant is ready, and returns its label.
#[allow(dead_code)] // not every test file uses every helper
pub fn built_variant(cmd: &mut Command) -> String {
    let summary = ok(cmd);
    assert!(summary.contains("status    ready"), "{summary}");
    summary
        .lines()
        .find_map(|l| l.strip_prefix("variant "))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| panic!("the label in:\n{summary}"))
}

/// The exact openssl-src crate the variant tests build, never "the newest 3.5": a registry release
/// must not change what the tests build.
#[allow(dead_code)]
pub const OPENSSL_CRATE: &str = "300.5.5+3.5.5";

/// Configure options that leave out what the tests do not need, to keep a test build small.
#[allow(dead_code)]
pub const SMALL_BUILD: &[&str] = &[
    "no-deprecated",
    "no-engine",
    "no-cms",
    "no-ts",
    "no-ocsp",
    "no-ct",
    "no-srp",
    "no-sm2",
    "no-sm3",
    "no-sm4",
    "no-idea",
    "no-seed",
    "no-camellia",
    "no-aria",
    "no-bf",
    "no-cast",
    "no-rc2",
    "no-md4",
    "no-mdc2",
    "no-whirlpool",
    "no-rmd160",
    "no-siphash",
    "no-cmp",
    "no-http",
    "no-ocb",
    "no-scrypt",
    "no-argon2",
    "no-quic",
    "no-ml-dsa",
    "no-ml-kem",
    "no-slh-dsa",
    "no-dsa",
    "no-dh",
    "no-ec",
    "no-ecx",
    "no-des",
    "no-rc4",
    "no-legacy",
    "no-ssl",
    "no-tls",
    "no-dtls",
    "no-ui-console",
    "no-async",
    "no-sock",
];

/// [`SMALL_BUILD`] less the options in `keep` (those features stay in the build).
#[allow(dead_code)]
pub fn small_build_keeping(keep: &[&str]) -> Vec<&'static str> {
    SMALL_BUILD
        .iter()
        .copied()
        .filter(|o| !keep.contains(o))
        .collect()
}

/// The variant cache the tests share across runs (builds are found there again, by their
/// content key): [`cryptospeed_testkit::cache_dir`].
#[allow(dead_code)]
pub fn test_cache() -> std::path::PathBuf {
    cryptospeed_testkit::cache_dir()
}

/// [`SMALL_BUILD`] less these: the post-quantum families and the curves X25519MLKEM768 sits on.
/// The one build tests/pq.rs and tests/symmetric_modes.rs share ([`pq_variant`]).
#[allow(dead_code)]
pub const PQ_KEEPS: &[&str] = &["no-ml-kem", "no-ml-dsa", "no-slh-dsa", "no-ec", "no-ecx"];

/// The small no-asm OpenSSL build that keeps [`PQ_KEEPS`], from a tree fetched into `tmp`, in the
/// suite's cache (built once, then found there, its known-answer tests run again); its label
/// holds its content key, so other options or another compiler make a build of their own. Its
/// label and library.
#[allow(dead_code)]
pub fn pq_variant(tmp: &Path) -> (String, std::path::PathBuf) {
    let tree = tmp.join("openssl");
    ok(bin()
        .args(["variant", "fetch", "--openssl", OPENSSL_CRATE])
        .arg(&tree));
    let mut build = bin();
    build
        .args(["variant", "build", "--no-asm", "--cflags", "-O1"])
        .args(["--label", "cs-test-pq-slh-{key}", "--source"])
        .arg(&tree)
        .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small_build_keeping(PQ_KEEPS) {
        build.args(["--configure-arg", o]);
    }
    let built = ok(&mut build);
    assert!(built.contains("status    ready"), "{built}");
    let field = |name: &str| {
        built
            .lines()
            .find_map(|l| l.strip_prefix(name).filter(|v| v.starts_with(' ')))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("no {name} in the summary:\n{built}"))
    };
    (field("variant"), field("library").into())
}
