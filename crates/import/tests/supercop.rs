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
fn a_record_with_a_garbled_number_costs_that_record_only() {
    let text = std::fs::read_to_string(FILE).unwrap();
    let bad = text.replacen(" cycles 64 822 1114", " cycles 64 822 11x4", 1);
    let line = bad.lines().position(|l| l.contains("11x4")).unwrap() + 1;
    let log = read(&bad, None, &ImportOptions::default()).unwrap();
    assert!(
        log.warnings
            .iter()
            .any(|w| w.contains(&format!("line {line}"))),
        "{:?}",
        log.warnings
    );
    assert!(log.skipped.iter().any(|(n, _)| *n == line));
    let cell = log.runs[0]
        .results
        .iter()
        .find(|r| r.bytes == Some(64))
        .unwrap();
    assert_eq!(
        cell.samples.len(),
        30,
        "the other two loops of 64 bytes stay"
    );
}

/// SUPERCOP-format `crypto_kem` records made on this project's development VM (made before a
/// real crypto_kem data file was found, and kept: it has ML-KEM-768 under SUPERCOP's `mlkem768`
/// name and 32 timings a record, which the real files below lack): the fixture was printed by tests/fixtures/supercop-format-kem-measure.c, a harness
/// written here that repeats the loop of SUPERCOP's crypto_kem/measure.c (jedisct1/supercop,
/// crypto_kem/measure.c at 87bb994bc2eae05883994817bbcef192539fc7dc: 33 cpucycles() reads around
/// 32 calls of crypto_kem_keypair, then _enc, then _dec, per loop) and the record form of
/// measure-anything.c's printentry before 2020.08 (jedisct1/supercop, measure-anything.c at
/// 5d63723b4e2a19ee474fb64b6612283baae3fb7e: `keypair_cycles - MEDIAN T1 … T32`), around
/// mlkem-native d1b2fe78's ML-KEM-768 (pq-code-package/mlkem-native, its libmlkem768.a, AVX2)
/// with rdtsc, three loops, 2026-11-28 15:25 UTC, load 2.9. See tests/fixtures/COMMANDS.
/// Expected medians: Python's statistics.median over each operation's 96 timings.
const KEM: &str = "tests/fixtures/supercop-format-kem-mlkem-native-d1b2fe78-vm.txt";

#[test]
fn supercop_kem_records_give_ml_kem_768_from_bytes_operations_in_cycles() {
    let text = std::fs::read_to_string(KEM).unwrap();
    let log = read(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.format, "supercop-data");
    assert_eq!(run.field("clock GHz"), Some("2.596148"));
    assert_eq!(run.field("publickeybytes"), Some("1184"));
    assert_eq!(run.field("operation"), Some("crypto_kem"));
    let expected = [
        (Op::KeygenEncode, 25948.0),
        (Op::EncapsParse, 26754.0),
        (Op::DecapsParse, 33930.0),
    ];
    assert_eq!(run.results.len(), 3);
    for (op, cycles) in expected {
        let r = run.results.iter().find(|r| r.op == op).unwrap();
        assert_eq!((r.primitive.as_str(), r.mapped), ("ml-kem-768", true));
        assert_eq!(r.bytes, None);
        assert_eq!(r.cycles, Some(cycles), "{op}");
        assert_eq!(r.samples.len(), 96, "{op}: 3 loops of 32 timings");
        let rate = 2.596148e9 / cycles;
        assert!((r.rate - rate).abs() < 1e-9 * rate, "{op}: {}", r.rate);
    }
    // The `…_randombytes`/`…_randomcalls` counts are not in this harness's output; nothing skipped.
    assert!(log.skipped.is_empty(), "{:?}", log.skipped);
}

/// The same records in SUPERCOP's later delta form (`BASE +d-d…`, base the printed median here),
/// under the round-3 name `kyber768` with a `/timingleaks` suffix: the same timings, the same
/// medians, kept as `kyber-768` (not the catalog's ML-KEM).
#[test]
fn the_delta_form_and_the_kyber_name_read_the_same_timings() {
    let text = std::fs::read_to_string(KEM).unwrap();
    let delta: Vec<String> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let mut head = f[..7]
                .join(" ")
                .replace(" mlkem768", " kyber768/timingleaks");
            if !f[6].ends_with("_cycles") {
                return format!("{head} {}", f[7..].join(" "));
            }
            let base: i64 = f[8].parse().unwrap();
            let d: String = f[9..]
                .iter()
                .map(|t| {
                    let x = t.parse::<i64>().unwrap() - base;
                    if x >= 0 {
                        format!("+{x}")
                    } else {
                        format!("{x}")
                    }
                })
                .collect();
            head.push_str(&format!(" - {base} {d}"));
            head
        })
        .collect();
    let log = read(&delta.join("\n"), None, &ImportOptions::default()).unwrap();
    let run = &log.runs[0];
    assert_eq!(run.field("measurement mode"), Some("timingleaks"));
    for (op, cycles) in [(Op::KeygenEncode, 25948.0), (Op::DecapsParse, 33930.0)] {
        let r = run.results.iter().find(|r| r.op == op).unwrap();
        assert_eq!((r.primitive.as_str(), r.mapped), ("kyber-768", false));
        assert_eq!((r.cycles, r.samples.len()), (Some(cycles), 96), "{op}");
    }
}

/// A real SUPERCOP `crypto_kem` data file: SUPERCOP 20221122 on host `l46o` (an i7-6500U,
/// 2023-01-12), round-3 Kyber768 as `crypto_kem/kyber768/avx2`, from formosa-crypto/formosa-mlkem
/// at commit 0cf4f94d134b1c426ed535e676a6122dd70f32d5, bench/results/skylake-i76500u/supercop/raw/
/// crypto_kem_kyber768_avx2, whole. Each `…_cycles -` record prints one timing alone (eleven
/// loops); the expected medians are the authors' own, from bench/results/skylake-i76500u/
/// supercop/macros.tex at that commit (the 6th of the 11 sorted timings).
const REAL_KEM: &str =
    "tests/real-more/supercop-20221122-formosa-mlkem-skylake-l46o-kyber768-avx2.txt";

#[test]
fn a_real_kem_data_file_of_one_timing_a_record_gives_the_authors_medians() {
    let text = std::fs::read_to_string(REAL_KEM).unwrap();
    let log = read(&text, None, &ImportOptions::default()).unwrap();
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.field("host"), Some("l46o"));
    assert_eq!(run.field("measurement mode"), Some("constbranchindex"));
    assert_eq!(run.field("clock GHz"), Some("2.5"));
    assert_eq!(
        run.field("implementation"),
        Some("crypto_kem/kyber768/avx2 -")
    );
    assert_eq!(run.results.len(), 3);
    for (op, cycles) in [
        (Op::KeygenEncode, 41732.0),
        (Op::EncapsParse, 55404.0),
        (Op::DecapsParse, 44492.0),
    ] {
        let r = run.results.iter().find(|r| r.op == op).unwrap();
        assert_eq!((r.primitive.as_str(), r.mapped), ("kyber-768", false));
        assert_eq!(r.cycles, Some(cycles), "{op}");
        assert_eq!(
            r.samples.len(),
            11,
            "{op}: one timing in each of 11 records"
        );
        assert!((r.rate - 2.5e9 / cycles).abs() < 1e-9 * r.rate, "{op}");
    }
    // One try, 18 objsize and 66 randombytes/randomcalls records skipped, not refused.
    assert_eq!(log.skipped.len(), 85, "{:?}", log.skipped);
}

/// A hash record of one timing (`cycles LEN T`, printentry's form for a single timing): that
/// timing is the record's one sample, beside the other loops' fifteen each.
#[test]
fn a_hash_record_of_one_timing_is_one_sample() {
    let text = std::fs::read_to_string(FILE).unwrap();
    let one = text.replacen(
        " cycles 64 822 1114 858 824 818 816 824 822 822 810 824 814 822 818 818 820 ",
        " cycles 64 822 ",
        1,
    );
    assert_ne!(one, text);
    let log = read(&one, None, &ImportOptions::default()).unwrap();
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    let cell = log.runs[0]
        .results
        .iter()
        .find(|r| r.bytes == Some(64))
        .unwrap();
    assert_eq!(cell.samples.len(), 31, "15 + 15 + the lone 822");
}
