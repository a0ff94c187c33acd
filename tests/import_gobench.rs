//! `show RUN --format gobench` read back by the real `benchstat` (golang.org/x/perf, installed
//! with `go install golang.org/x/perf/cmd/benchstat@latest`; `#[ignore = "needs benchstat …"]`,
//! and scripts/test runs it where benchstat is installed): the three repetitions of a real `go test -bench -count 3` log, imported as
//! three samples of each cell and written out again one line each, give benchstat the medians
//! of the printed figures.

mod common;

use common::{bin, ok};
use std::path::{Path, PathBuf};

fn benchstat() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    [
        home.join("go/bin/benchstat"),
        PathBuf::from("/usr/local/bin/benchstat"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

#[test]
#[ignore = "needs benchstat (go install golang.org/x/perf/cmd/benchstat; scripts/test runs it where there is one)"]
fn benchstat_reads_our_gobench_output_and_agrees_on_the_medians() {
    let benchstat = benchstat().expect("benchstat in ~/go/bin or /usr/local/bin");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/import/tests/fixtures/go-1.26.8-crypto-sha256-ecdsa-count3-benchmem.txt");
    let out = ok(bin().args(["import", "--db"]).arg(&db).arg(&log));
    assert_eq!(out.matches("as run").count(), 1, "{out}");
    let text = ok(bin()
        .args(["show", "1", "--format", "gobench", "--db"])
        .arg(&db));
    let file = dir.path().join("ours.txt");
    std::fs::write(&file, &text).unwrap();
    let stat = std::process::Command::new(benchstat)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        stat.status.success(),
        "{}",
        String::from_utf8_lossy(&stat.stderr)
    );
    let stat = String::from_utf8(stat.stdout).unwrap();
    // The oracle: the median of the three printed ns/op of Sign/P256 in the Go log.
    let log_text = std::fs::read_to_string(&log).unwrap();
    let mut ns: Vec<f64> = log_text
        .lines()
        .filter(|l| l.starts_with("BenchmarkSign/P256-2"))
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    ns.sort_by(f64::total_cmp);
    let line = stat
        .lines()
        .find(|l| l.starts_with("ecdsa-p256/sign "))
        .unwrap_or_else(|| panic!("{stat}"));
    let shown: f64 = line
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches('µ')
        .parse()
        .unwrap();
    // benchstat prints µs with 4 significant digits.
    assert!(
        (shown - ns[1] / 1e3).abs() < 0.01 * ns[1] / 1e3,
        "{line} vs {}",
        ns[1]
    );
}
