//! liboqs 0.16.0's `speed_kem` and `speed_sig` (built here from the liboqs tree, ML-KEM and
//! ML-DSA only; tests/fixtures/COMMANDS) import with every operation of every algorithm, the
//! standard ones on catalog cells at iterations / total time as printed.

use cryptospeed_import::{read, ImportOptions, ImportedRun};
use cryptospeed_model::Op;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn rate(run: &ImportedRun, p: &str, op: Op) -> f64 {
    let found: Vec<f64> = run
        .results
        .iter()
        .filter(|r| r.primitive == p && r.op == op)
        .map(|r| r.rate)
        .collect();
    assert_eq!(found.len(), 1, "{p} {op:?}");
    found[0]
}

#[test]
fn speed_kem_gives_keygen_encaps_decaps_per_parameter_set() {
    let log = read(
        &fixture("liboqs-0.16.0-speed_kem-d1.txt"),
        None,
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.format, "liboqs-speed");
    assert_eq!(run.field("version"), Some("0.16.0"));
    assert_eq!(run.field("AES"), Some("NI"));
    // speed_kem.c times OQS_KEM_keypair/encaps/decaps on byte strings: the header says so.
    assert!(run
        .field("timed")
        .unwrap()
        .contains("encaps = encaps+parse"));
    assert_eq!(run.results.len(), 9);
    assert!(run.results.iter().all(|r| r.mapped));
    assert!(log.skipped.is_empty(), "{:?}", log.skipped);
    // `keygen | 128958 | 1.000 | 7.754 | …` under ML-KEM-768.
    assert_eq!(rate(run, "ml-kem-768", Op::KeygenEncode), 128958.0);
    assert_eq!(rate(run, "ml-kem-1024", Op::DecapsParse), 64242.0);
}

#[test]
fn speed_sig_gives_keypair_sign_verify_and_keeps_extmu() {
    let text = fixture("liboqs-0.16.0-speed_sig-d1.txt");
    let run = &read(&text, None, &ImportOptions::default()).unwrap().runs[0];
    assert_eq!(run.results.len(), 18);
    assert_eq!(run.results.iter().filter(|r| r.mapped).count(), 9);
    assert_eq!(rate(run, "ml-dsa-65", Op::Sign), 11252.0);
    assert_eq!(rate(run, "ml-dsa-44", Op::KeygenEncode), 67608.0);
    // `verify | 21289603 | 1.003 | 0.047 | …`: the rate from the total, not the 2-digit mean.
    assert_eq!(
        rate(run, "ml-dsa-65-extmu", Op::VerifyParse),
        21289603.0 / 1.003
    );
    assert_eq!(run.unmapped_names().len(), 9);
}

#[test]
fn concatenated_outputs_and_a_garbled_row() {
    let both =
        fixture("liboqs-0.16.0-speed_kem-d1.txt") + &fixture("liboqs-0.16.0-speed_sig-d1.txt");
    let log = read(&both, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs.len(), 2);
    let bad = both.replacen(" 7.754 ", " 8.754 ", 1);
    let e = read(&bad, None, &ImportOptions::default()).unwrap_err();
    assert!(e.message.contains("128958"), "{e}");
}
