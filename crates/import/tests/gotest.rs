//! `go test -bench -count 3 -benchmem` of Go's own crypto/sha256 and crypto/ecdsa, captured on
//! the development VM (tests/fixtures/COMMANDS): one output whose every benchmark has its three
//! repetitions as samples (as benchstat reads them), its figure their median, the standard ones
//! on catalog cells.

use cryptospeed_import::{read, ImportOptions};
use cryptospeed_model::Op;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn count_3_gives_three_samples_of_every_benchmark() {
    let text = fixture("go-1.26.8-crypto-sha256-ecdsa-count3-benchmem.txt");
    let log = read(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 1);
    for run in &log.runs {
        assert!(run.results.iter().all(|r| r.samples.len() == 3));
        assert_eq!(run.format, "go-test-bench");
        // 5 sizes × New/Sum224/Sum256 and 3 curves × 3 ops.
        assert_eq!(
            run.results.len(),
            24,
            "{:?}",
            run.results
                .iter()
                .map(|r| &r.printed_name)
                .collect::<Vec<_>>()
        );
        assert_eq!(run.field("cpu"), Some("AMD EPYC"));
        assert_eq!(run.field("goarch"), Some("amd64"));
        assert!(run.field("pkg").unwrap().contains("crypto/ecdsa"));
    }
    // The median of BenchmarkHash8K/Sum224-2's three lines … and of Sign/P256's.
    let first = &log.runs[0];
    let median_ns = |prefix: &str| {
        let mut ns: Vec<f64> = text
            .lines()
            .filter(|l| l.starts_with(prefix))
            .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
            .collect();
        ns.sort_by(f64::total_cmp);
        ns[1]
    };
    let cell = |run: &cryptospeed_import::ImportedRun, p: &str, op: Op, b: Option<u64>| {
        run.results
            .iter()
            .filter(|r| r.primitive == p && r.op == op && r.bytes == b)
            .map(|r| r.rate)
            .collect::<Vec<f64>>()
    };
    let ns = median_ns("BenchmarkHash8K/Sum224-2");
    assert_eq!(
        cell(first, "sha224", Op::Hash, Some(8192)),
        vec![8192.0 * 1e9 / ns]
    );
    let ns = median_ns("BenchmarkSign/P256-2");
    assert_eq!(cell(first, "ecdsa-p256", Op::Sign, None), vec![1e9 / ns]);
    // Only the hash.Hash figures are kept under their own name.
    assert_eq!(first.unmapped_names().len(), 5);
    assert!(first
        .results
        .iter()
        .filter(|r| !r.mapped)
        .all(|r| r.primitive == "go-sha256-new"));
}
