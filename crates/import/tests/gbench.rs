//! Google Benchmark output of BoringSSL's `bssl_bench` (the boring-sys 5.4.0 build cryptospeed
//! makes), captured on the development VM (tests/fixtures/COMMANDS): the console table and the
//! JSON file of one run import to the same cells and, to the console's three digits, the same
//! figures; `--benchmark_repetitions=3` gives three outputs with `_mean` checked against them.

use cryptospeed_import::{read, ImportOptions, ImportedRun, CLOCK_GHZ};
use cryptospeed_model::Op;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn rate(run: &ImportedRun, p: &str, op: Op, b: Option<u64>) -> f64 {
    let found: Vec<f64> = run
        .results
        .iter()
        .filter(|r| r.primitive == p && r.op == op && r.bytes == b)
        .map(|r| r.rate)
        .collect();
    assert_eq!(found.len(), 1, "{p} {op:?} {b:?}");
    found[0]
}

/// The console's `Time` column of the row named `name`, in ns.
fn printed_ns(text: &str, name: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

const BASE: &str = "bssl_bench-boring-sys-5.4.0";

#[test]
fn console_and_json_of_one_run_agree() {
    // `2>&1`: the context Google Benchmark prints on stderr comes above the table.
    let console =
        fixture(&format!("{BASE}-console.stderr.txt")) + &fixture(&format!("{BASE}-console.txt"));
    let json = fixture(&format!("{BASE}.json"));
    let c = read(&console, None, &ImportOptions::default()).unwrap();
    let j = read(&json, None, &ImportOptions::default()).unwrap();
    assert_eq!((c.runs.len(), j.runs.len()), (1, 1));
    let (c, j) = (&c.runs[0], &j.runs[0]);
    assert_eq!(c.format, "google-benchmark");
    assert_eq!(j.format, "google-benchmark-json");
    assert_eq!((c.results.len(), j.results.len()), (34, 34));
    assert_eq!(c.implementation, "boringssl");
    for (a, b) in c.results.iter().zip(&j.results) {
        assert_eq!((&a.primitive, a.op, a.bytes), (&b.primitive, b.op, b.bytes));
        assert!(
            (a.rate / b.rate - 1.0).abs() < 0.006,
            "{} {} {}",
            a.printed_name,
            a.rate,
            b.rate
        );
    }
    assert_eq!(c.field(CLOCK_GHZ), Some("2.59613"));
    assert_eq!(j.field(CLOCK_GHZ), Some("2.596"));
    // 29 cells on the catalog; Base64, ML-KEM public-key parsing and HRSS kept by name.
    assert_eq!(c.results.iter().filter(|r| r.mapped).count(), 29);
    let kept: Vec<&str> = c
        .results
        .iter()
        .filter(|r| !r.mapped)
        .map(|r| r.primitive.as_str())
        .collect();
    assert_eq!(
        kept,
        ["base64", "hrss", "hrss", "hrss", "mlkem768parseonly"]
    );
}

#[test]
fn spot_values_are_the_printed_times() {
    let text = fixture(&format!("{BASE}-console.txt"));
    let run = &read(&text, None, &ImportOptions::default()).unwrap().runs[0];
    let ns = printed_ns(&text, "BM_SpeedAEAD/seal_aes_128_gcm/InputSize:16");
    assert_eq!(ns, 80.4);
    assert_eq!(
        rate(run, "aes-128-gcm", Op::Encrypt, Some(16)),
        16.0 * 1e9 / 80.4
    );
    assert_eq!(
        rate(run, "sha256", Op::Hash, Some(8192)),
        8192.0 * 1e9 / 4569.0
    );
    assert_eq!(rate(run, "rsa-2048", Op::Sign, None), 1e9 / 560476.0);
    assert_eq!(rate(run, "ml-kem-768", Op::Decaps, None), 1e9 / 24070.0);
    assert_eq!(rate(run, "ml-dsa-65", Op::Sign, None), 1e9 / 235388.0);
    assert_eq!(
        rate(run, "slh-dsa-sha2-128s", Op::Sign, None),
        1e9 / 235539276.0
    );
    assert_eq!(rate(run, "x25519", Op::Derive, None), 1e9 / 36522.0);
    assert_eq!(rate(run, "ed25519", Op::Keygen, None), 1e9 / 24246.0);
    assert_eq!(rate(run, "hrss", Op::Encaps, None), 1e9 / 7756.0);
    let json = fixture(&format!("{BASE}.json"));
    let j = &read(&json, None, &ImportOptions::default()).unwrap().runs[0];
    // "real_time": 8.0368285237559817e+01 for the same row.
    assert_eq!(
        rate(j, "aes-128-gcm", Op::Encrypt, Some(16)),
        16.0 * 1e9 / "8.0368285237559817e+01".parse::<f64>().unwrap()
    );
}

#[test]
fn repetitions_become_outputs_and_means_are_checked() {
    for text in [
        fixture(&format!("{BASE}-rep3-console.txt")),
        fixture(&format!("{BASE}-rep3.json")),
    ] {
        let log = read(&text, None, &ImportOptions::default()).unwrap();
        assert_eq!(log.runs.len(), 3);
        for run in &log.runs {
            // 6 benchmarks × threads:1 and threads:2; only threads:1 on catalog cells.
            assert_eq!(run.results.len(), 12);
            assert_eq!(run.results.iter().filter(|r| r.mapped).count(), 6);
        }
        let third = rate(&log.runs[2], "ml-kem-768", Op::EncapsParse, None);
        assert!((third / (1e9 / 26122.0) - 1.0).abs() < 0.0005, "{third}");
        let two = rate(&log.runs[0], "ml-kem-768-threads-2", Op::Decaps, None);
        assert!((two / (1e9 / 29520.0) - 1.0).abs() < 0.0005, "{two}");
    }
    // A repetition garbled: its mean no longer agrees.
    let text = fixture(&format!("{BASE}-rep3-console.txt"));
    let bad = text.replacen("24377 ns", "34377 ns", 1);
    let e = read(&bad, None, &ImportOptions::default()).unwrap_err();
    assert!(e.message.contains("_mean"), "{e}");
}

#[test]
fn aggregates_alone_keep_the_mean() {
    let text = fixture(&format!("{BASE}-rep3-console.txt"));
    let only: String = text
        .lines()
        .filter(|l| {
            !l.starts_with("BM_")
                || l.contains("_mean")
                || l.contains("_median")
                || l.contains("_stddev")
                || l.contains("_cv")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let log = read(&only, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 1);
    assert_eq!(log.runs[0].results.len(), 12);
    assert_eq!(rate(&log.runs[0], "ed25519", Op::Sign, None), 1e9 / 24344.0);
}
