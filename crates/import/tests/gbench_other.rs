//! Google Benchmark logs of a project that is not BoringSSL: itzmeanjan/sha3's published results
//! (provenance in tests/fixtures/README.md). Its console tables print the user counters as
//! columns (`average_cpu_cycles bytes_per_second`), its names are `bench_sha3::sha3_256/64`, and
//! its JSON file holds aggregates only, `_min` and `_max` among them. The figures are checked
//! against the `bytes_per_second` column Google Benchmark itself printed.

use cryptospeed_import::{read, ImportOptions, ImportedRun};
use cryptospeed_model::Op;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn one_run(text: &str) -> ImportedRun {
    let log = read(text, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 1);
    log.runs.into_iter().next().unwrap()
}

/// `(Time ns, CPU ns, bytes_per_second)` of the printed row `name`, the counter in bytes/s
/// (Google Benchmark prints it with binary prefixes: `86.9105M/s` is 86.9105 × 2^20).
fn printed(text: &str, name: &str) -> (f64, f64, f64) {
    let w: Vec<&str> = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap()
        .split_whitespace()
        .collect();
    let rate = w.last().unwrap().strip_suffix("M/s").unwrap();
    let rate: f64 = rate.parse::<f64>().unwrap() * f64::from(1 << 20);
    (w[1].parse().unwrap(), w[3].parse().unwrap(), rate)
}

#[test]
fn tabular_counters_and_sized_names_import_as_catalog_cells() {
    let text = fixture("gbench-itzmeanjan-sha3-i5-8279u-clang.txt");
    let run = one_run(&text);
    assert_eq!(run.format, "google-benchmark");
    assert_eq!(run.results.len(), 81);
    let mut checked = 0;
    for (id, printed_id) in [
        ("sha3-224", "sha3_224"),
        ("sha3-256", "sha3_256"),
        ("sha3-384", "sha3_384"),
        ("sha3-512", "sha3_512"),
    ] {
        for bytes in [32u64, 64, 128, 256, 512, 1024, 2048, 4096] {
            let name = format!("bench_sha3::{printed_id}/{bytes}");
            let r = run
                .results
                .iter()
                .find(|r| r.primitive == id && r.bytes == Some(bytes))
                .unwrap_or_else(|| panic!("{name} not imported as {id}@{bytes}"));
            assert_eq!(r.op, Op::Hash);
            let (time_ns, cpu_ns, counter) = printed(&text, &name);
            // The figure is bytes over the Time column (wall time per iteration).
            let want = bytes as f64 / (time_ns * 1e-9);
            assert!(
                (r.rate / want - 1.0).abs() < 1e-9,
                "{name}: {} {want}",
                r.rate
            );
            // Where wall and CPU time agree, Google Benchmark's own counter agrees with it
            // (to the counter's printed digits).
            if (time_ns / cpu_ns - 1.0).abs() < 0.002 {
                assert!(
                    (r.rate / counter - 1.0).abs() < 0.004,
                    "{name}: {} {counter}",
                    r.rate
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 14, "rows whose Time and CPU columns agree to 0.2%");
    // Two arguments (input and output length) and the bare permutation stay whole.
    for kept in ["bench-sha3-shake128-32-64", "bench-sha3-keccakf1600"] {
        assert!(
            run.results.iter().any(|r| r.primitive == kept),
            "{kept}: {:?}",
            run.results.iter().map(|r| &r.primitive).collect::<Vec<_>>()
        );
    }
}

#[test]
fn an_aggregates_only_json_keeps_the_mean_of_each_benchmark() {
    let text = fixture("gbench-itzmeanjan-sha3-linux-x86_64-gcc14.json");
    let run = one_run(&text);
    assert_eq!(run.format, "google-benchmark-json");
    // 186 aggregate rows: mean, median, stddev, cv, min and max of 31 benchmarks.
    assert_eq!(run.results.len(), 31);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mean_ns = json["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "sha3_256/64_mean")
        .and_then(|b| b["real_time"].as_f64())
        .unwrap();
    let r = run
        .results
        .iter()
        .find(|r| r.primitive == "sha3-256" && r.bytes == Some(64))
        .unwrap();
    assert!((r.rate / (64.0 / (mean_ns * 1e-9)) - 1.0).abs() < 1e-9);
}

#[test]
fn the_same_benchmark_on_another_machine_gives_the_same_cells() {
    let cells = |name: &str| {
        let mut c: Vec<(String, Option<u64>)> = one_run(&fixture(name))
            .results
            .into_iter()
            .map(|r| (r.primitive, r.bytes))
            .collect();
        c.sort();
        c
    };
    let (x86, arm) = (
        cells("gbench-itzmeanjan-sha3-i5-8279u-clang.txt"),
        cells("gbench-itzmeanjan-sha3-graviton2-gcc.txt"),
    );
    assert_eq!(x86.len(), 81);
    assert_eq!(x86, arm);
}
