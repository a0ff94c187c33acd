//! `crosscheck` end to end, one short cell per column with an oracle: the library's own benchmark
//! program is fetched from its Debian source package and built against the installed library
//! (into the suite's cache, once), runs, and its parsed figure lies within a loose band of ours
//! measured alternately in the same test (2 rounds, 4 when 2 cannot decide). The band
//! (ours/oracle between 0.5 and 2) is loose on purpose: the machine is shared and noisy; it
//! catches a misread unit, a wrong row or a gross harness cost, while
//! docs/experiments/crosscheck.md holds the ±3% verdicts of a quiet run.
//! Needs a deb-src line for the installed suite (docs/TESTING.md, registries).

mod common;

use cryptospeed_crosscheck::report::{judge_rounds, verdict, Verdict};
use cryptospeed_crosscheck::rounds::{Options, Pairs};
use cryptospeed_crosscheck::rule::touches_agreement;
use cryptospeed_crosscheck::{crosscheck, oracle_dir, oracle_for, oracles_for, Oracle, Provenance};

const BAND: (f64, f64) = (0.5, 2.0);

/// One oracle at a time: cargo runs a file's tests on parallel threads, and two benchmarks
/// pinned to one CPU would each time the other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn check(column: &str, cell: &str) {
    check_with(column, cell, |built| {
        assert!(
            built.source.starts_with("Debian source "),
            "{}",
            built.source
        );
        assert!(built.library.starts_with("installed "), "{}", built.library);
    });
}

/// [`check`] with the oracle's own provenance check.
fn check_with(column: &str, cell: &str, provenance: impl Fn(&Provenance)) {
    check_oracle(oracle_for(column).unwrap(), cell, provenance);
}

/// [`check_with`] of one oracle of the column, where it has several.
fn check_oracle(oracle: &dyn Oracle, cell: &str, provenance: impl Fn(&Provenance)) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let column = oracle.column();
    let dir = oracle_dir(&common::test_cache(), oracle);
    let built = oracle.setup(&dir, &mut |s| eprintln!("{s}")).unwrap();
    provenance(&built);
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        cryptospeed: env!("CARGO_BIN_EXE_cryptospeed").into(),
        db: tmp.path().join("cx.db"),
        cpu: 0,
        rounds: 2,
        max_rounds: 4,
        max_time: 0.3,
    };
    let report = crosscheck(oracle, built, &[cell.to_string()], &opts, &mut |_| {}).unwrap();
    assert_eq!(report.cells.len(), 1, "{cell} is one of {column}'s cells");
    let c = &report.cells[0];
    assert!(c.oracle_figures.iter().all(|&x| x > 0.0), "{c:?}");
    assert!(
        c.ratio > BAND.0 && c.ratio < BAND.1,
        "{column} {cell}: ours/oracle {} ({c:?})",
        c.ratio
    );
    assert!(
        c.ratio_ci95[0] <= c.ratio && c.ratio <= c.ratio_ci95[1] * 1.0001,
        "{c:?}"
    );
    // Judged at 2 rounds; measured on to 4 only when the first 2 could not decide it.
    assert!(c.rounds == 2 || c.rounds == 4, "{c:?}");
    let first_two = Pairs {
        ours: c.our_figures[..2].to_vec(),
        oracle: c.oracle_figures[..2].to_vec(),
        ours_every_bout: c.our_every_bout_figures.iter().take(2).copied().collect(),
        ..Pairs::default()
    };
    let at_two = judge_rounds(&first_two, c.difference.as_ref()).verdict;
    assert_eq!(
        at_two.decided(),
        c.rounds == 2,
        "{at_two:?} at 2 rounds: {c:?}"
    );
    // Agreement is the whole interval inside ±3%, never a median alone; a cell whose declared
    // band touches ±3% reads "explained" there instead.
    let inside = c.ratio_ci95[0] >= 0.97 && c.ratio_ci95[1] <= 1.03;
    let touching = c.difference.as_ref().is_some_and(touches_agreement);
    assert_eq!(c.verdict == Verdict::Agrees, inside && !touching, "{c:?}");
}

#[test]
fn nettle_benchmark_reads_hmac_sha256_at_64_bytes() {
    check("nettle", "hmac-sha256@64");
    // Its 0.90-0.92 gap is declared as the calling binary's code layout, with a measured band
    // that holds the ratio the idle runs read (docs/experiments/crosscheck.md).
    let cell = oracle_for("nettle").unwrap().cells();
    let cell = cell.iter().find(|c| c.primitive == "hmac-sha256").unwrap();
    let d = cell
        .difference
        .as_ref()
        .expect("nettle hmac-sha256@64 declared");
    assert_eq!(d.kind, cryptospeed_crosscheck::Kind::Layout);
    assert!(d.band.0 <= 0.91 && 0.922 <= d.band.1, "{:?}", d.band);
}

#[test]
fn go_ml_dsa_sign_declares_the_oracles_sample_of_calls() {
    // CIRCL's BenchmarkSign averages one fixed prefix of deterministically signed messages; the
    // worker signs hedged. Declared as a definition difference whose band holds the in-process
    // medians of the two call sequences (0.996-1.043, docs/experiments/crosscheck.md), so an
    // interval inside it is explained and one reaching past it (02:18 UTC, 1.009-1.058) is not.
    let cells = oracle_for("go").unwrap().cells();
    let cell = cells
        .iter()
        .find(|c| c.primitive == "ml-dsa-65" && c.op.to_string() == "sign")
        .unwrap();
    let d = cell
        .difference
        .as_ref()
        .expect("go ml-dsa-65 sign declared");
    assert_eq!(d.kind, cryptospeed_crosscheck::Kind::Definition);
    assert!(d.band.0 <= 0.996 && 1.043 <= d.band.1, "{:?}", d.band);
    assert_eq!(verdict([1.012, 1.040], Some(d)), Verdict::Explained);
    assert_eq!(verdict([1.009, 1.058], Some(d)), Verdict::Undecided);
}

#[test]
fn mbedtls_benchmark_reads_sha256_at_1024_bytes() {
    check("mbedtls", "sha256@1024");
}

#[test]
fn wolfcrypt_benchmark_reads_sha256_at_16_bytes() {
    check("wolfssl", "sha256@16");
}

#[test]
fn libgcrypt_bench_slope_reads_sha256() {
    check("libgcrypt", "sha256@1048576");
}

#[test]
fn libsodium_benchmark_mode_reads_sha512_at_8_bytes() {
    check("libsodium", "sha512@8");
}

/// `bssl speed` built from aws/aws-lc's tool/ against the libcrypto.so of the suite's AWS-LC
/// build, which our side loads too (the suite's cache; the oracle builds it there when it is
/// missing, as `variant build-library aws-lc` does). tool/ is not in the aws-lc-sys crate: it
/// comes from a checkout of github.com/aws/aws-lc ($CRYPTOSPEED_AWS_LC_SRC), copied into the
/// cache once; scripts/test runs this test where either is there.
#[test]
#[ignore = "needs an aws/aws-lc checkout: CRYPTOSPEED_AWS_LC_SRC, or its tool/ already copied into the suite's cache (scripts/test runs it when there is one)"]
fn bssl_speed_reads_sha256_at_16_bytes() {
    let cache = common::test_cache();
    std::env::set_var("CRYPTOSPEED_CACHE", &cache); // our side loads the same AWS-LC build
    check_with("aws-lc", "sha256@16", |built| {
        assert!(built.source.contains("aws/aws-lc"), "{}", built.source);
        assert!(built.library.contains("libcrypto.so"), "{}", built.library);
        let out = std::process::Command::new("ldd")
            .arg(&built.programs[0])
            .output()
            .unwrap();
        let ldd = String::from_utf8_lossy(&out.stdout);
        let library = built.library.split(' ').next().unwrap();
        assert!(
            ldd.contains(library),
            "bssl-speed does not load {library}: {ldd}"
        );
    });
}

/// An oracle that cannot be set up (here a variant library that does not exist) costs only its
/// own cells: the next column is still checked, the failure is named and the exit status is 1.
#[test]
fn an_oracle_that_cannot_be_set_up_does_not_stop_the_other_columns() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = common::command()
        .args([
            "crosscheck",
            "--impl",
            "openssl:/nonexistent/libcrypto.so,libsodium",
        ])
        .args(["--cells", "ml-kem-768:encaps,sha512@8", "--rounds", "2"])
        .args(["--max-rounds", "2"])
        .args(["--max-time", "0.3", "--cpu", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("could not be set up, its cells are not checked"),
        "{stderr}"
    );
    assert!(
        stderr.contains("libsodium sha512@8 hash: ratio"),
        "{stderr}"
    );
}

/// The exit status says whether any cell is unexplained; an unknown column and rounds that
/// cannot give an interval are refused.
#[test]
fn crosscheck_lists_its_oracles_and_refuses_a_column_without_one() {
    let out = common::ok(common::bin().args(["crosscheck", "--list"]));
    for column in [
        "nettle",
        "mbedtls",
        "wolfssl",
        "libgcrypt",
        "aws-lc",
        "libsodium",
    ] {
        assert!(out.contains(column), "{out}");
    }
    common::bin()
        .args(["crosscheck", "--impl", "no-such-column"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no oracle for column no-such-column",
        ));
    // One round has no interval; the cap on rounds cannot be below the rounds.
    common::bin()
        .args(["crosscheck", "--impl", "nettle", "--rounds", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--rounds 1: at least 2"));
    common::bin()
        .args(["crosscheck", "--rounds", "5", "--max-rounds", "4"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--max-rounds 4 is below --rounds 5",
        ));
}

/// The columns' own runs load builds from the suite's cache (BoringSSL, the Go worker, an
/// OpenSSL variant), as [`common::bin`] does.
fn runs_use_the_suite_cache() {
    std::env::set_var("CRYPTOSPEED_CACHE", common::test_cache());
}

#[test]
fn openssl_speed_reads_sha256_at_16_bytes() {
    check_with("openssl", "sha256@16", |built| {
        assert!(built.source.contains("OpenSSL 3"), "{}", built.source);
        assert!(built.library.contains("libcrypto"), "{}", built.library);
    });
}

#[test]
fn openssl_cli_beside_its_own_speed_command_reads_aes_128_cbc_at_16_bytes() {
    check_with("openssl-cli", "aes-128-cbc@16", |built| {
        assert!(built.programs[0].ends_with("openssl"), "{built:?}");
    });
}

/// BoringSSL and its bssl_bench come from the boring-sys crate's tree (no network): the oracle
/// builds them into the suite's cache when they are missing, as `variant build-library
/// boringssl` does (several minutes, once; the other tests that need the build wait for it).
#[test]
fn bssl_bench_reads_sha256_at_16_bytes() {
    runs_use_the_suite_cache();
    check_with("boringssl", "sha256@16", |built| {
        assert!(built.source.contains("boring-sys"), "{}", built.source);
        assert!(built.programs[0].ends_with("bssl_bench"), "{built:?}");
    });
}

#[test]
#[ignore = "needs Go ≥ 1.24 on PATH (scripts/test runs it when there is one)"]
fn go_test_bench_reads_sha256_at_8192_bytes() {
    cryptospeed_impls::go::toolchain().expect("the Go toolchain");
    runs_use_the_suite_cache();
    check_with("go", "sha256@8192", |built| {
        assert!(
            built.source.contains("cloudflare/circl v"),
            "{}",
            built.source
        );
    });
}

/// An OpenSSL 3.5 variant from the openssl-src crate (the small build keeping the post-quantum
/// schemes; built once into the suite's cache), its `openssl speed` built by the oracle from the
/// same crate and Configure line (once), on ML-KEM-768 encapsulation.
#[test]
fn openssl_speed_of_a_3_5_variant_reads_ml_kem_768_encaps() {
    let library = suite_variant_library("cs-test-pq-crate-{key}", common::PQ_KEEPS);
    check_with(
        &format!("openssl:{library}"),
        "ml-kem-768:encaps",
        |built| {
            assert!(built.source.starts_with("OpenSSL 3.5"), "{}", built.source);
            assert!(built.programs[0].ends_with("apps/openssl"), "{built:?}");
        },
    );
}

/// Builds (once, into the suite's cache) the openssl-src crate's OpenSSL under `label`, keeping
/// `keep` of the small build's disabled features; its library's path. The runs the test starts
/// then use the suite's cache too.
fn suite_variant_library(label: &str, keep: &[&str]) -> String {
    let mut build = common::bin();
    build
        .args(["variant", "build", "--openssl", common::OPENSSL_CRATE])
        .args(["--label", label]);
    for o in common::small_build_keeping(keep) {
        build.args(["--configure-arg", o]);
    }
    let summary = common::ok(&mut build);
    let library = summary
        .lines()
        .find_map(|l| l.strip_prefix("library "))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no library in {summary}"))
        .to_string();
    runs_use_the_suite_cache();
    library
}

/// OpenSSL's perftools `handshake`, cloned at its pinned commit ($CRYPTOSPEED_PERFTOOLS_SRC or
/// github.com) and compiled against the suite's OpenSSL 3.5 build that keeps TLS (built once
/// into the suite's cache, as tests/tls_libssl.rs builds it), beside the column's full X25519
/// handshake; its declared difference (the client's second ECDSA verify) travels with the cell.
#[test]
#[ignore = "needs an openssl/perftools clone: CRYPTOSPEED_PERFTOOLS_SRC, github.com, or its source already cloned into the suite's cache (scripts/test runs it when there is one)"]
fn perftools_handshake_reads_the_x25519_ecdsa_handshake_of_a_3_5_tls_variant() {
    let mut keep = common::PQ_KEEPS.to_vec();
    keep.push("no-tls");
    let library = suite_variant_library("cs-test-tls-{key}", &keep);
    let column = format!("openssl:{library}");
    let oracles = oracles_for(&column);
    let names: Vec<&str> = oracles.iter().map(|o| o.name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let perftools = oracles[1];
    assert_eq!(perftools.name(), "perftools handshake");
    let cell = "tls13-x25519-ecdsa-p256:handshake";
    check_oracle(perftools, cell, |built| {
        assert!(built.source.contains("dfb5e3586f45"), "{}", built.source);
        let out = std::process::Command::new("ldd")
            .arg(&built.programs[0])
            .output()
            .unwrap();
        let ldd = String::from_utf8_lossy(&out.stdout);
        assert!(
            ldd.contains(&library),
            "handshake does not load {library}: {ldd}"
        );
    });
    let declared = perftools.cells()[0].difference.unwrap();
    assert!(
        declared.band.0 < 0.87 && 0.87 < declared.band.1,
        "{declared:?}"
    );
}

/// The Rust columns' oracles are criterion benches in this tree (crates/rust-oracles), built by
/// `cargo bench --no-run` against the same Cargo.lock: the provenance names the locked crate.
fn check_criterion(column: &str, cell: &str, crate_name: &str) {
    check_with(column, cell, |built| {
        assert!(built.source.contains("criterion 0.5"), "{}", built.source);
        assert!(built.library.contains(crate_name), "{}", built.library);
        assert!(built.programs[0].is_file(), "{built:?}");
    });
}

#[test]
fn ring_criterion_bench_reads_sha256_at_16_bytes() {
    check_criterion("ring", "sha256@16", "ring 0.17");
}

#[test]
fn rustcrypto_criterion_bench_reads_ed25519_sign() {
    check_criterion("rustcrypto", "ed25519", "ed25519-dalek 2");
}

#[test]
fn aws_lc_rs_criterion_bench_reads_ml_kem_768_encaps() {
    check_criterion("aws-lc-rs", "ml-kem-768:encaps", "aws-lc-rs 1");
}

/// `--out FILE` keeps every finished cell: a crosscheck stopped by SIGTERM after its first cell
/// leaves a whole JSON file holding that cell's rounds (the file is written again after every
/// cell, to a temporary name renamed over it).
#[test]
fn a_stopped_crosscheck_keeps_its_finished_cells_in_its_out_file() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("xc.json");
    let mut child = common::spawn(common::command().args([
        "crosscheck",
        "--impl",
        "nettle",
        "--cells",
        "sha256@10240,aes-128-cbc@10240,hmac-sha256@64,rsa-2048,ed25519,ecdsa-p256",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--max-time",
        "0.3",
        "--cpu",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]));
    let start = std::time::Instant::now();
    let cells = |v: &serde_json::Value| v[0]["cells"].as_array().map_or(0, Vec::len);
    let first = loop {
        assert!(
            start.elapsed().as_secs() < 600,
            "no cell in {out:?} after 10 minutes"
        );
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        // Never half a file: whatever is there parses.
        if !text.is_empty() {
            let v: serde_json::Value = serde_json::from_str(&text).expect("a whole JSON file");
            if cells(&v) > 0 {
                break v;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.child().wait().unwrap();
    assert!(!status.success(), "stopped, not finished: {status:?}");
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(cells(&kept) >= cells(&first) && cells(&kept) < 6, "{kept}");
    let cell = &kept[0]["cells"][0];
    assert_eq!(cell["cell"], "sha256@10240");
    assert_eq!(kept[0]["column"], "nettle");
    for side in ["oracle_figures", "our_figures"] {
        let f = cell[side].as_array().unwrap();
        assert_eq!(f.len(), 2, "{cell}");
        assert!(f.iter().all(|x| x.as_f64().unwrap() > 0.0), "{cell}");
    }
    // And what was kept can be judged again.
    common::bin()
        .args(["crosscheck", "--rejudge", out.to_str().unwrap()])
        .assert()
        .stdout(predicates::str::contains("sha256@10240"));
}

/// `--rejudge` on five real cells of the 18:23 UTC run (crates/crosscheck/tests/data): the table
/// holds the verdict as run beside the new one, and the exit status follows the new verdicts
/// (the run's two unexplained cells are now declared or undecided, two undecided: 3, where the
/// verdicts as run would give 1).
#[test]
fn rejudge_prints_the_old_verdict_beside_the_new_and_exits_by_the_new() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/crosscheck/tests/data/crosscheck-2026-11-28-1823.json"
    );
    let out = common::bin()
        .args(["crosscheck", "--rejudge", file])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let line = |cell: &str, op: &str| {
        out.lines()
            .find(|l| l.contains(cell) && l.contains(op))
            .unwrap_or_else(|| panic!("no {cell} {op} in {out}"))
            .to_string()
    };
    assert!(
        line("hmac-sha256@64", "mac").contains("unexplained  layout (difference declared now)"),
        "{out}"
    );
    assert!(
        line("ml-dsa-65", "keygen").contains("unexplained  undecided"),
        "{out}"
    );
    common::bin()
        .args(["crosscheck", "--rejudge", "Cargo.toml"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not JSON"));
}
