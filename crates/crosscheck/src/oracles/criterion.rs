//! What the Rust columns' oracles share: criterion benches in cryptospeed's own source tree
//! (crates/rust-oracles, one bench file per column, each after the crate's published benches),
//! built by Cargo against the same Cargo.lock, so they link the very crate versions and features
//! the column does; run one benchmark at a time (`--bench --exact ID`) and read criterion's
//! `time: [lo mid hi]` line. Criterion divides by the wall clock ([`Clock::Wall`]); its timed
//! window starts at its "Collecting N samples" line.

use crate::{Cell, Provenance};
use anyhow::{bail, Context, Result};
use cryptospeed_model::Op;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace package that holds the benches.
const PACKAGE: &str = "cryptospeed-rust-oracles";

/// Criterion's settings for one process of a crosscheck round: a short warm-up and measurement,
/// fewer bootstrap resamples (they only narrow criterion's own interval, not its estimate),
/// nothing saved or plotted.
const SETTINGS: &[&str] = &[
    "--warm-up-time",
    "0.2",
    "--measurement-time",
    "0.6",
    "--sample-size",
    "50",
    "--nresamples",
    "2000",
    "--discard-baseline",
    "--noplot",
];

/// Fresh bench processes per round; the round's figure is the median of theirs. Criterion's
/// estimate (a least-squares slope over its samples) has no defence against a stretch of
/// slowed samples, which the CPU share does not see when it is the other CPU's work (the
/// VM's two CPUs share a core's caches): in the idle whole-table run of 2026-11-29 04:36 UTC
/// the oracle's figure fell 5-12% below its other rounds in 2-3 rounds of 12 (ring ecdsa-p256
/// sign 52,059-59,792 sign/s, aes-128-gcm@8192 8,471-9,298 MB/s) while ours, whose bouts are
/// spread over worker processes and set aside when disturbed, moved under 1%; such rounds left
/// cells undecided (docs/experiments/crosscheck.md). The median of three processes, each
/// shorter, is proof against one disturbed process and costs about 1.5 s more a round.
pub const PROCESSES: usize = 3;

/// cryptospeed's source tree: `$CRYPTOSPEED_SOURCE`, else the tree this binary was built from;
/// an error saying what is needed when neither holds the benches (an installed cryptospeed).
pub fn source_tree() -> Result<PathBuf> {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = std::env::var_os("CRYPTOSPEED_SOURCE").map_or(built_from, PathBuf::from);
    if !root.join("crates/rust-oracles/Cargo.toml").is_file() || !root.join("Cargo.lock").is_file()
    {
        bail!(
            "the Rust columns' oracles are criterion benches in cryptospeed's source tree \
             (crates/rust-oracles), which is not at {}: set CRYPTOSPEED_SOURCE to a checkout of \
             the cryptospeed this is (its Cargo.lock pins the crates the columns link), with \
             cargo on PATH",
            root.display()
        );
    }
    Ok(root.canonicalize()?)
}

/// `name version` of every locked package called `name` in `root`'s Cargo.lock.
pub fn locked(root: &Path, name: &str) -> Result<Vec<String>> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut found = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"") {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = ")) {
                found.push(format!("{name} {}", v.trim_matches('"')));
            }
        }
    }
    Ok(found)
}

/// How the benches are built, after how this cryptospeed was: a release build's with `cargo
/// bench`'s own optimised profile; a test build's (`cargo test --workspace`: the dev profile,
/// every dependency optimised) with the dev profile and the workspace's features, so the bench
/// links the very compiled crates the column under test runs and Cargo compiles no second,
/// release copy of ring, aws-lc-rs and the RustCrypto crates (minutes on a fresh checkout).
const SELECTION: &[&str] = if cfg!(debug_assertions) {
    &["--profile", "dev", "--workspace"]
} else {
    &["-p", PACKAGE]
};

/// Builds bench `bench` (its file is `benches/{bench}.rs`) with `cargo bench --no-run` and
/// records the locked versions of `crates` and of criterion.
pub fn build(bench: &str, crates: &[&str], log: &mut dyn FnMut(&str)) -> Result<Provenance> {
    let root = source_tree()?;
    let mut argv = vec!["cargo", "bench", "--locked"];
    argv.extend(SELECTION);
    argv.extend(["--bench", bench, "--no-run", "--message-format=json"]);
    let shown = format!("(cd {} && {})", root.display(), argv.join(" "));
    log(&format!("building the criterion bench: {shown}"));
    let mut cargo = Command::new(argv[0]);
    for (name, _) in std::env::vars_os().filter(|(name, _)| set_for_a_crate(name)) {
        cargo.env_remove(name);
    }
    let out = cargo
        .args(&argv[1..])
        .current_dir(&root)
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("starting cargo (the Rust oracles are built with cargo: is it on PATH?)")?;
    if !out.status.success() {
        bail!("{shown} failed with {}", out.status);
    }
    let program = executable(&String::from_utf8_lossy(&out.stdout), bench)?;
    let mut library = Vec::new();
    for c in crates {
        library.extend(locked(&root, c)?);
    }
    Ok(Provenance {
        source: format!(
            "crates/rust-oracles/benches/{bench}.rs at {}, {} (Cargo.lock)",
            root.display(),
            locked(&root, "criterion")?.join(", ")
        ),
        library: format!(
            "{} (Cargo.lock; linked statically, as in the column)",
            library.join(", ")
        ),
        programs: vec![program],
        build: vec![shown],
    })
}

/// Whether `name` is one of the variables Cargo sets for a crate it builds or runs
/// (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`, `OUT_DIR`, …): a crosscheck run by `cargo test` has
/// them, and build scripts that watch them (ring's: `rerun-if-env-changed=CARGO_PKG_NAME`) would
/// rebuild ring and every crate above it, here and again in the next build from a shell.
fn set_for_a_crate(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_BIN_",
        "CARGO_CRATE_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR", "OUT_DIR"].contains(&&*name)
}

/// The bench executable Cargo reported building (`--message-format=json`).
fn executable(json_lines: &str, bench: &str) -> Result<PathBuf> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bench)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .with_context(|| format!("cargo reported no executable for bench {bench}"))
}

/// The command that runs one benchmark in [`PROCESSES`] fresh processes, one after the other
/// (the last one `exec`ed, so that stopping the command stops it): the cell's row is its
/// criterion id.
pub fn command(built: &Provenance, cell: &Cell) -> Vec<String> {
    let home = std::env::temp_dir().join("cryptospeed-criterion");
    let mut argv = vec![
        "env".to_string(),
        format!("CRITERION_HOME={}", home.display()),
        "sh".into(),
        "-c".into(),
        r#"for _ in $(seq 2 "$0"); do "$@" || exit; done; exec "$@""#.into(),
        PROCESSES.to_string(),
        built.programs[0].display().to_string(),
        "--bench".into(),
        "--exact".into(),
        cell.row.to_string(),
    ];
    argv.extend(SETTINGS.iter().map(|s| s.to_string()));
    argv
}

/// A cell whose criterion id is `row` (cryptospeed's cell and operation).
pub const fn cell(
    primitive: &'static str,
    op: Op,
    bytes: Option<u64>,
    row: &'static str,
    oracle_loop: &'static str,
) -> Cell {
    Cell {
        primitive,
        op,
        bytes,
        args: &[],
        row,
        oracle_loop,
        difference: None,
    }
}

/// Whether criterion starts its timed samples after `line`.
pub fn window_starts(line: &str) -> bool {
    line.contains(": Collecting ")
}

/// The cell's figure once the output holds [`PROCESSES`] of criterion's `ID time: [lo mid hi]`
/// lines (the id may stand on a line of its own): the median of their middle estimates (each a
/// mean time per call), as a rate per second or bytes per second. Fewer lines: an error (the
/// command is not done).
pub fn parse(cell: &Cell, output: &str) -> Result<f64> {
    let times = seconds_per_call(cell, output)?;
    if times.len() < PROCESSES {
        bail!(
            "{} of {PROCESSES} criterion `{} time: [...]` lines",
            times.len(),
            cell.row
        );
    }
    let mut times = times[..PROCESSES].to_vec();
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = (times[(n - 1) / 2] + times[n / 2]) / 2.0;
    Ok(cell.bytes.map_or(1.0, |b| b as f64) / median)
}

/// The middle estimate of every `ID time: [lo mid hi]` line of the cell, in seconds.
fn seconds_per_call(cell: &Cell, output: &str) -> Result<Vec<f64>> {
    let lines: Vec<&str> = output.lines().collect();
    let mut times = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((id, t)) = line.split_once("time:") else {
            continue;
        };
        let id = if id.trim().is_empty() && i > 0 {
            lines[i - 1]
        } else {
            id
        };
        if id.trim() != cell.row {
            continue;
        }
        let inside = t
            .split_once('[')
            .and_then(|(_, t)| t.split_once(']'))
            .map(|(t, _)| t)
            .with_context(|| format!("unexpected criterion line `{line}`"))?;
        let words: Vec<&str> = inside.split_whitespace().collect();
        let [_, _, mid, unit, _, _] = words[..] else {
            bail!("unexpected criterion time `{inside}`");
        };
        times.push(mid.parse::<f64>()? * unit_seconds(unit)?);
    }
    Ok(times)
}

fn unit_seconds(unit: &str) -> Result<f64> {
    Ok(match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "µs" | "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => bail!("unknown criterion time unit {unit}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(row: &'static str, bytes: Option<u64>) -> Cell {
        cell("sha256", Op::Hash, bytes, row, "")
    }

    /// `out` as [`PROCESSES`] processes print it, one after the other.
    fn repeated(out: &str) -> String {
        out.repeat(PROCESSES)
    }

    #[test]
    fn reads_criterion_times_on_one_line_or_two() {
        let out = "Benchmarking sha256@16 hash: Analyzing\n\
            sha256@16 hash          time:   [88.222 ns 93.307 ns 100.32 ns]\n";
        let bps = parse(&sha("sha256@16 hash", Some(16)), &repeated(out)).unwrap();
        assert!((bps - 16.0 / 93.307e-9).abs() < 1.0, "{bps}");
        let out = "Benchmarking ml-kem-768 keygen+encode: Analyzing\nml-kem-768 keygen+encode\n\
            \x20                       time:   [32.612 µs 33.888 µs 35.273 µs]\n";
        let ops = parse(&sha("ml-kem-768 keygen+encode", None), &repeated(out)).unwrap();
        assert!((ops - 1.0 / 33.888e-6).abs() < 0.01, "{ops}");
        // A 23-character id leaves one space before `time:`.
        let out = "Benchmarking ml-kem-768 encaps+parse\n\
            ml-kem-768 encaps+parse time:   [32.612 µs 33.888 µs 35.273 µs]\n";
        let ops = parse(&sha("ml-kem-768 encaps+parse", None), &repeated(out)).unwrap();
        assert!((ops - 1.0 / 33.888e-6).abs() < 0.01, "{ops}");
        assert!(parse(
            &sha("sha256@16 hash", None),
            "Benchmarking sha256@16 hash\n"
        )
        .is_err());
        assert!(window_starts(
            "Benchmarking x: Collecting 50 samples in estimated 1.0001 s (9.0M iterations)"
        ));
    }

    /// The figure waits for every process's line, then is their median time per call: one
    /// disturbed process of three (150 ns against 100 and 104 ns) does not move it.
    #[test]
    fn the_figure_is_the_median_of_three_processes() {
        assert_eq!(PROCESSES, 3);
        let cell = sha("sha256@16 hash", Some(16));
        let mut out = String::new();
        for (i, ns) in [100.0, 150.0, 104.0].iter().enumerate() {
            assert!(parse(&cell, &out).is_err(), "done after {i} of {PROCESSES}");
            out += &format!(
                "Benchmarking sha256@16 hash: Collecting 50 samples\n\
                sha256@16 hash          time:   [1 ns {ns} ns 1000 ns]\n"
            );
        }
        let bps = parse(&cell, &out).unwrap();
        assert!((bps - 16.0 / 104e-9).abs() < 1.0, "{bps}");
        // The command runs the bench PROCESSES times, the last one exec'ed.
        let built = Provenance {
            source: String::new(),
            library: String::new(),
            programs: vec!["/b".into()],
            build: vec![],
        };
        let argv = command(&built, &cell);
        let at = argv.iter().position(|a| a == "sh").unwrap();
        assert_eq!(argv[at + 3], PROCESSES.to_string());
        assert_eq!(&argv[at + 4..at + 7], ["/b", "--bench", "--exact"]);
    }
}
