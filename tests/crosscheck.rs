//! `crosscheck` end to end, one short cell per column with an oracle: the library's own benchmark
//! program is fetched from its Debian source package and built against the installed library
//! (into the suite's cache, once), runs, and its parsed figure lies within a loose band of ours
//! measured alternately in the same test. The band (ours/oracle between 0.5 and 2) is loose on
//! purpose: the machine is shared and noisy; it catches a misread unit, a wrong row or a gross
//! harness cost, while docs/experiments/crosscheck.md holds the ±3% verdicts of a quiet run.
//! Needs a deb-src line for the installed suite (docs/TESTING.md, registries).

mod common;

use cryptospeed_crosscheck::{
    crosscheck, oracle_dir, oracle_for, report::Verdict, rounds::Options,
};

const BAND: (f64, f64) = (0.5, 2.0);

/// One oracle at a time: cargo runs a file's tests on parallel threads, and two benchmarks
/// pinned to one CPU would each time the other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn check(column: &str, cell: &str) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let oracle = oracle_for(column).unwrap();
    let dir = oracle_dir(&common::test_cache(), oracle);
    let built = oracle.setup(&dir, &mut |s| eprintln!("{s}")).unwrap();
    assert!(
        built.source.starts_with("Debian source "),
        "{}",
        built.source
    );
    assert!(built.library.starts_with("installed "), "{}", built.library);
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        cryptospeed: env!("CARGO_BIN_EXE_cryptospeed").into(),
        db: tmp.path().join("cx.db"),
        cpu: 0,
        rounds: 2,
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
    if (c.ratio - 1.0).abs() <= 0.03 {
        assert_eq!(c.verdict, Verdict::Agrees);
    }
}

#[test]
fn nettle_benchmark_reads_hmac_sha256_at_64_bytes() {
    check("nettle", "hmac-sha256@64");
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

/// The exit status says whether any cell is unexplained; an unknown column is refused.
#[test]
fn crosscheck_lists_its_oracles_and_refuses_a_column_without_one() {
    let out = common::ok(common::bin().args(["crosscheck", "--list"]));
    for column in ["nettle", "mbedtls", "wolfssl", "libgcrypt"] {
        assert!(out.contains(column), "{out}");
    }
    common::bin()
        .args(["crosscheck", "--impl", "no-such-column"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no oracle for column no-such-column",
        ));
}
