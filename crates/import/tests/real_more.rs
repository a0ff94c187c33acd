//! Imports every real output in tests/real-more (the PQ projects' own benchmark formats,
//! wolfCrypt's benchmark and a progress-only openssl log, copied from issue threads, repositories and a package README; see
//! tests/real-more/INDEX.toml for where each comes from) and checks every value read by hand from
//! the source. Also two logs made here (tests/fixtures/COMMANDS): Go's crypto/mlkem `-count 5`,
//! its benchmarks on ML-KEM-768's operations each with its five repetitions as samples, and an
//! `openssl speed -mr -multi 200` whose children wrote into a `Got: +H:` line: that line is
//! skipped with a warning, the rest imported.

use cryptospeed_import::{read, ImportOptions, ImportedResult, ImportedRun, ParsedLog};
use cryptospeed_model::Op;
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Index {
    log: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    file: String,
    #[allow(dead_code)]
    source: String,
    format: String,
    #[serde(default)]
    partial: bool,
    #[serde(default)]
    warnings: usize,
    spots: Vec<Spot>,
}

/// A value read by hand: cycles per operation, a count over seconds, or a header field.
#[derive(Deserialize)]
struct Spot {
    /// Which output of the file (0-based), where the implementation does not tell them apart.
    run: Option<usize>,
    implementation: Option<String>,
    primitive: Option<String>,
    op: Option<String>,
    cycles: Option<f64>,
    count: Option<f64>,
    secs: Option<f64>,
    field: Option<String>,
    value: Option<String>,
    /// A rate as printed, in `unit` (`MB/s` binary as wolfCrypt prints it, or `ops/sec`).
    rate: Option<f64>,
    unit: Option<String>,
    /// The cell is kept under the log's own name (not in the catalog).
    #[serde(default)]
    kept: bool,
}

fn path(dir: &str, file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir)
        .join(file)
}

fn import(dir: &str, file: &str) -> ParsedLog {
    let text = std::fs::read_to_string(path(dir, file)).unwrap();
    read(&text, None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn cell<'a>(run: &'a ImportedRun, primitive: &str, op: Op) -> &'a ImportedResult {
    let found: Vec<&ImportedResult> = run
        .results
        .iter()
        .filter(|r| r.primitive == primitive && r.op == op)
        .collect();
    assert_eq!(found.len(), 1, "{primitive} {op:?} in {}", run.format);
    found[0]
}

fn check_spot(file: &str, log: &ParsedLog, spot: &Spot) {
    let run = match (&spot.implementation, spot.run) {
        (Some(i), _) => log.runs.iter().find(|r| &r.implementation == i),
        (None, Some(k)) => log.runs.get(k),
        (None, None) => log.runs.first(),
    }
    .unwrap_or_else(|| panic!("{file}: no run {:?}", spot.implementation));
    if let Some(field) = &spot.field {
        assert_eq!(run.field(field), spot.value.as_deref(), "{file}: {field}");
        return;
    }
    let op = Op::parse(spot.op.as_deref().unwrap()).unwrap();
    let r = cell(run, spot.primitive.as_deref().unwrap(), op);
    assert_eq!(
        !r.mapped, spot.kept,
        "{file}: {} catalog cell or kept",
        r.primitive
    );
    if let Some(cycles) = spot.cycles {
        assert_eq!(r.cycles, Some(cycles), "{file}: {} {op:?}", r.primitive);
    }
    if let (Some(count), Some(secs)) = (spot.count, spot.secs) {
        // The quotient to the last bits (the importer may divide in another order).
        let q = count / secs;
        assert!(
            (r.rate / q - 1.0).abs() < 1e-12,
            "{file}: {} {op:?}: {} vs {q}",
            r.primitive,
            r.rate
        );
    }
    if let Some(rate) = spot.rate {
        let scale = match spot.unit.as_deref() {
            Some("MB/s" | "MiB/s") => 1048576.0,
            Some("KB/s" | "KiB/s") => 1024.0,
            _ => 1.0,
        };
        assert_eq!(r.rate, rate * scale, "{file}: {} {op:?}", r.primitive);
        assert_eq!(r.bytes.is_some(), scale > 1.0, "{file}: {}", r.primitive);
    }
}

#[test]
fn every_real_output_imports_and_every_spot_value_matches() {
    let text = std::fs::read_to_string(path("real-more", "INDEX.toml")).unwrap();
    let index: Index = toml::from_str(&text).unwrap();
    assert!(index.log.len() >= 5);
    for entry in &index.log {
        let log = import("real-more", &entry.file);
        assert!(
            log.runs.iter().all(|r| r.format == entry.format),
            "{}",
            entry.file
        );
        assert_eq!(
            log.warnings.len(),
            entry.warnings,
            "{}: {:?}",
            entry.file,
            log.warnings
        );
        let partial = log.runs.iter().any(|r| r.field("partial").is_some());
        assert_eq!(partial, entry.partial, "{}", entry.file);
        for spot in &entry.spots {
            check_spot(&entry.file, &log, spot);
        }
    }
}

#[test]
fn go_crypto_mlkem_maps_onto_ml_kem_768_with_its_repetitions_as_samples() {
    let log = import("fixtures", "go-1.26.8-crypto-mlkem-count5-benchmem.txt");
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    // Medians of the five printed ns/op, read by hand: KeyGen 72343, Encaps 71966, Decaps 78882.
    for (op, ns) in [
        (Op::Keygen, 72343.0),
        (Op::EncapsParse, 71966.0),
        (Op::Decaps, 78882.0),
    ] {
        let r = cell(run, "ml-kem-768", op);
        assert_eq!(r.rate, 1e9 / ns, "{op:?}");
        assert_eq!(r.samples.len(), 5, "{op:?}");
    }
    assert_eq!(
        cell(run, "ml-kem-768", Op::Keygen).samples[0],
        (4256, 1e9 / 73490.0)
    );
    // RoundTrip/Alice and /Bob time no single operation: kept under their own names.
    assert_eq!(run.unmapped_names().len(), 2, "{:?}", run.unmapped_names());
    let definitions = run.field("definitions").unwrap();
    assert!(
        definitions.contains("Encaps = ml-kem-768 encaps+parse"),
        "{definitions}"
    );
}

#[test]
fn a_garbled_multi_line_costs_that_line_not_the_file() {
    let log = import("fixtures", "openssl-3.0.19-mr-multi200-garbled-got-h.txt");
    assert_eq!(log.runs.len(), 1);
    let run = &log.runs[0];
    assert_eq!(run.field("multi"), Some("200"));
    assert_eq!(
        run.results.len(),
        24,
        "4 digests x 6 sizes from the parent's +F lines"
    );
    assert_eq!(log.warnings.len(), 1, "{:?}", log.warnings);
    assert!(
        log.warnings[0].starts_with("line 10031 is garbled"),
        "{:?}",
        log.warnings
    );
    assert!(log.skipped.iter().any(|(n, _)| *n == 10031));
    // The parent's summed line, read by hand: +F:3:md5:41978085.68:… (bytes/s at 16 bytes).
    let md5 = run
        .results
        .iter()
        .find(|r| r.primitive == "md5" && r.bytes == Some(16))
        .unwrap();
    assert_eq!(md5.rate, 41978085.68);
}

/// mlkem-native built without a cycle counter prints `cycles = 0` for every operation (a real
/// log, tests/real-more/INDEX.toml): each cell is stored as not run, with the line that says 0,
/// where a count of 0 cycles used to become an infinite rate stored as a figure.
#[test]
fn a_log_of_zero_cycles_stores_every_cell_as_not_run() {
    let file = "mlkem-native-issue587-no-cycle-counter-zeros.txt";
    let log = import("real-more", file);
    let run = &log.runs[0];
    let rec = cryptospeed_import::file::record(run, file, "zeros", 0);
    assert_eq!(rec.measurements.len(), 3);
    for vm in &rec.measurements {
        let m = &vm.measurement;
        assert!(!m.status.has_numbers(), "{:?} {:?}", m.cell.op, m.status);
        let why = m.reason.as_deref().unwrap_or("");
        assert!(why.contains("prints 0 at line"), "{why}");
        assert_eq!(m.tsc_per_op, None);
    }
}

/// `go test -bench` rows pasted without their `pkg:` line keep their printed names as printed:
/// `BenchmarkKeyGeneration`, not ` BenchmarkKeyGeneration` (the package's empty name and a space).
#[test]
fn go_rows_without_a_package_keep_their_names_without_a_leading_space() {
    let log = import("real-more", "go-circl-libcrux-pr75-kyber768-no-pkg.txt");
    assert_eq!(
        log.runs[0].unmapped_names(),
        vec![
            "BenchmarkDecapsulation",
            "BenchmarkEncapsulation",
            "BenchmarkKeyGeneration"
        ]
    );
}
