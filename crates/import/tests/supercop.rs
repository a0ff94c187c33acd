//! SUPERCOP's measurement database read against a real `data` file: SUPERCOP 20200417 on host
//! `pl28pro` (amd64, 2020-05-03), crypto_hash sha256 selected as `crypto_hash/sha256/openssl`,
//! from polubelova/hacl-star-benchmarks at commit fa1b3feb771a4113efe284f0fade775977c4f29e,
//! path supercop-20200417/030520/marina/data-sha256. The fixture keeps that file's lines
//! verbatim and in order, fewer of them: the metadata records, one `try` and three `objsize`
//! records, and the `cycles` records of lengths 0, 1, 8, 16, 64, 576, 1536 and 4096 (three loops
//! each). Expected medians: numpy.median over each length's 45 timings (the 15 after the printed
//! median, in each of its three records), not this crate's arithmetic.

use cryptospeed_import::{read, ImportOptions};
use cryptospeed_model::Op;

const FILE: &str =
    "tests/real-more/supercop-20200417-hacl-star-benchmarks-pl28pro-sha256-excerpt.txt";

#[test]
fn a_real_supercop_data_file_gives_median_cycles_per_length_at_its_clock() {
    let text = std::fs::read_to_string(FILE).unwrap();
    let log = read(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.format, "supercop-data");
    assert_eq!(run.field("clock GHz"), Some("3.8"));
    assert_eq!(
        run.field("implementation"),
        Some("crypto_hash/sha256/openssl OpenSSL_1.1.1-dev__xx_XXX_xxxx")
    );
    assert_eq!(run.field("cpuid"), Some("GenuineIntel-000806e9-bfebfbff_"));
    assert_eq!(run.field("host"), Some("pl28pro"));
    // Lengths 1..4096 (0 has no bytes to count); numpy.median of each length's 45 timings.
    let expected = [
        (1, 476.0),
        (8, 476.0),
        (16, 600.0),
        (64, 1326.0),
        (576, 5986.0),
        (1536, 8100.0),
        (4096, 23620.0),
    ];
    assert_eq!(run.results.len(), expected.len());
    for (len, cycles) in expected {
        let r = run
            .results
            .iter()
            .find(|r| r.bytes == Some(len))
            .unwrap_or_else(|| panic!("no sha256 cell at {len} bytes"));
        assert_eq!((r.primitive.as_str(), r.op), ("sha256", Op::Hash));
        assert_eq!(r.cycles, Some(cycles), "{len} bytes");
        assert_eq!(r.samples.len(), 45, "{len} bytes: every timing is a sample");
        // The rate those cycles make at 3.8 GHz, in bytes per second.
        let rate = 3.8e9 / cycles * len as f64;
        assert!(
            (r.rate - rate).abs() < 1e-6 * rate,
            "{len}: {} vs {rate}",
            r.rate
        );
    }
    // The build records are skipped, not refused: one try, three objsize.
    assert_eq!(log.skipped.len(), 4, "{:?}", log.skipped);
}

#[test]
fn a_record_with_a_garbled_number_names_its_line() {
    let text = std::fs::read_to_string(FILE).unwrap();
    let bad = text.replacen(" cycles 64 822 1114", " cycles 64 822 11x4", 1);
    let line = bad.lines().position(|l| l.contains("11x4")).unwrap() + 1;
    let err = read(&bad, None, &ImportOptions::default()).unwrap_err();
    assert_eq!(err.line, line, "{err}");
}
