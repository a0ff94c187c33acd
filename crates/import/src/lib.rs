//! Readers for benchmark logs that other tools printed, so twenty years of published
//! `openssl speed` tables (and `bssl speed` output) line up against runs cryptospeed measured.
//!
//! Each log family is one [`LogFormat`] in [`FORMATS`]; [`parse`] picks the family, splits a file
//! carrying several outputs into several [`ImportedRun`]s and maps every printed name onto the
//! catalog. Nothing here touches the store: the caller stores a whole file or nothing, so a
//! truncated or garbled log (an [`ImportError`] naming the line) leaves the store unchanged.
//!
//! Logs come pasted from terminals, blog posts and issue threads, so lines that are no part of a
//! speed output (shell prompts, `engine "cryptodev" set.`, stderr merged by `2>&1`, a header line
//! wrapped by a mail client, `time` or `perf stat` output) are skipped and listed in
//! [`ParsedLog::skipped`] with their line numbers; only a file with no results at all is refused.

mod bssl;
mod bssl_json;
pub mod file;
mod gbench;
mod gbench_json;
mod gotest;
mod liboqs;
pub mod names;
mod openssl;
mod own_json;
mod pqcrystals;
mod pqm4;
mod pqnative;
pub mod read_as;
mod rounding;
mod sdiff;
mod supercop;
mod wolfcrypt;

use cryptospeed_model::Op;
use std::fmt;

/// Header field holding the clock of the machine a log came from, in GHz (printed in the log,
/// or given with `import --clock-ghz`): what `compare --normalize ghz` divides by.
pub const CLOCK_GHZ: &str = "clock GHz";
/// Header field holding the CPU model a log names (or `import --cpu` gives).
pub const CPU_MODEL: &str = "cpu";

/// One result read from a log: a cell and its rate exactly as printed.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedResult {
    /// Catalog id when the name is known, else the printed name made lowercase with dashes.
    pub primitive: String,
    pub op: Op,
    pub bytes: Option<u64>,
    /// Bytes per second for cells with a size, operations per second otherwise.
    pub rate: f64,
    /// The name as the log printed it.
    pub printed_name: String,
    /// Whether `primitive` is a catalog id (false: kept under the log's own name).
    pub mapped: bool,
    /// 1-based line the value was read from.
    pub line: usize,
    /// Repetitions of the cell the log printed (`go test -count N`): (iterations, rate) each,
    /// `rate` being their median; empty for a single figure.
    pub samples: Vec<(u64, f64)>,
    /// Cycles per operation where the log prints cycles (mlkem-native, eBACS, pqm4): `rate` is
    /// then worked out from the machine's clock when the run is recorded (see `file::record`).
    pub cycles: Option<f64>,
}

/// One output of one tool run, as found in a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportedRun {
    /// Format family, e.g. `openssl-speed`.
    pub format: String,
    /// The implementation that printed it: `openssl`, `libressl`, `boringssl`.
    pub implementation: String,
    /// Header fields in the order met (`version`, `built on`, `options`, `compiler`, `CPUINFO`,
    /// `platform`, `timing`, `multi`, `command`).
    pub header: Vec<(String, String)>,
    pub first_line: usize,
    pub last_line: usize,
    pub results: Vec<ImportedResult>,
    /// What the log announced or implied and does not hold (a table cut off at the end, a
    /// `+H` line cut off at the top), one sentence each naming its lines: a partial output.
    pub missing: Vec<String>,
}

impl ImportedRun {
    pub fn field(&self, name: &str) -> Option<&str> {
        cryptospeed_model::header_field(&self.header, name)
    }

    pub(crate) fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.header.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => self.header.push((name.to_string(), value)),
        }
    }

    /// Names the log printed that the catalog does not know (kept under their own names).
    pub fn unmapped_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .results
            .iter()
            .filter(|r| !r.mapped)
            .map(|r| r.printed_name.as_str())
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Everything read from one file: its outputs, and the lines that were no part of any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedLog {
    pub runs: Vec<ImportedRun>,
    /// Lines skipped as foreign to the speed output: (1-based line, text as it appears).
    pub skipped: Vec<(usize, String)>,
    /// Outputs cut off before any figure, said in one sentence each (nothing of them is kept).
    pub warnings: Vec<String>,
}

impl ParsedLog {
    /// Everything the file lacks, outputs' missing parts and figureless outputs alike.
    pub fn missing(&self) -> Vec<String> {
        let mut all: Vec<String> = self.runs.iter().flat_map(|r| r.missing.clone()).collect();
        all.extend(self.warnings.iter().cloned());
        all
    }
}

/// Why a log could not be read: the line (1-based, 0 for the whole file) and what was expected.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub line: usize,
    pub message: String,
}

impl ImportError {
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ImportError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ImportError {}

/// Choices a log cannot carry itself.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The log came from `openssl speed -decrypt`: its cipher rows are decryption (the output
    /// looks the same either way).
    pub decrypt: bool,
}

/// A family of logs.
pub trait LogFormat: Sync {
    /// Short name used in `--format` and stored with the run.
    fn name(&self) -> &'static str;
    /// Whether `text` looks like this family (cheap; the first family that says yes parses).
    fn sniff(&self, text: &str) -> bool;
    /// Every output in `text`, in file order, and the lines skipped; an error names the line.
    fn parse(&self, text: &str, options: &ImportOptions) -> Result<ParsedLog, ImportError>;
}

/// Every log family, most specific first; a new family is one file and one line here.
pub static FORMATS: &[&dyn LogFormat] = &[
    &own_json::OwnJson,
    &own_json::OwnCsv,
    &gbench_json::GbenchJson,
    &bssl_json::BsslJson,
    &bssl::BsslText,
    &gbench::GbenchConsole,
    &liboqs::LiboqsSpeed,
    &pqm4::Pqm4,
    &pqnative::PqNative,
    &pqcrystals::PqCrystals,
    &wolfcrypt::WolfCrypt,
    &supercop::Supercop,
    &gotest::GoTest,
    &openssl::OpensslSpeed,
];

/// Finds a family by name (`openssl-speed`, `bssl-speed`, `bssl-speed-json`).
pub fn format_named(name: &str) -> Option<&'static dyn LogFormat> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// Reads every output in a log, sniffing its family unless `format` names one.
pub fn parse(
    text: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Result<Vec<ImportedRun>, ImportError> {
    read(text, format, options).map(|log| log.runs)
}

/// Like [`parse`], and also lists the lines skipped as foreign (for `import --dry-run`). A file
/// refused as one log is tried as two outputs side by side (sdiff.rs).
pub fn read(
    text: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Result<ParsedLog, ImportError> {
    read_one(text, format, options).or_else(|e| sdiff::read_columns(text, format, options).ok_or(e))
}

/// One log of one family: [`read`] without the side-by-side fallback.
fn read_one(
    text: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Result<ParsedLog, ImportError> {
    let family = match format {
        Some(name) => format_named(name).ok_or_else(|| {
            ImportError::at(
                0,
                format!(
                    "unknown log format '{name}'; known: {}",
                    FORMATS
                        .iter()
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?,
        None => {
            if text.trim().is_empty() {
                return Err(ImportError::at(
                    0,
                    "the file is empty: expected the output of openssl speed or bssl speed",
                ));
            }
            FORMATS
                .iter()
                .copied()
                .find(|f| f.sniff(text))
                .unwrap_or(FORMATS[FORMATS.len() - 1])
        }
    };
    let mut log = family.parse(text, options)?;
    clock_from_skipped_lines(&mut log);
    if log.runs.is_empty() || log.runs.iter().all(|r| r.results.is_empty()) {
        let cut = match log.warnings.first() {
            Some(w) => format!(" — the log is truncated: {w}"),
            None => String::new(),
        };
        return Err(ImportError::at(
            0,
            format!(
                "no results found: nothing in this file is {} output (expected a results table){cut}{}",
                family.name(),
                if log.skipped.is_empty() {
                    String::new()
                } else {
                    format!("; {} line(s) skipped as foreign", log.skipped.len())
                }
            ),
        ));
    }
    Ok(log)
}

/// A CPU line pasted above an output (`model name : Intel(R) Core(TM) i5-4690K CPU @ 3.50GHz`
/// from /proc/cpuinfo, `CPU: … @ 2.40GHz`) gives the clock and model of the outputs below it
/// that print none themselves.
fn clock_from_skipped_lines(log: &mut ParsedLog) {
    let mut from = 0;
    for run in &mut log.runs {
        let above = log
            .skipped
            .iter()
            .filter(|(n, _)| *n >= from && *n <= run.last_line)
            .find_map(|(_, line)| cpu_line(line));
        from = run.last_line + 1;
        let Some((model, ghz)) = above else { continue };
        if run.field(CLOCK_GHZ).is_none() {
            run.set(CLOCK_GHZ, format!("{ghz}"));
            if run.field(CPU_MODEL).is_none() {
                run.set(CPU_MODEL, model);
            }
        }
    }
}

/// For a log that prints both a rate and cycles per call (liboqs's `CPU cycles: mean`,
/// wolfCrypt's `Cycles/op`): the rate stays the printed one (`rate from`, file.rs `rate_of`), the
/// cycles are each cell's, and where the log prints no clock, the clock those cycles tick at is
/// cycles per call times calls per second, the median over the rows (`clock from`).
pub(crate) fn clock_from_cycles(run: &mut ImportedRun, column: &str) {
    let mut ghz: Vec<f64> = run
        .results
        .iter()
        .filter_map(|r| r.cycles.map(|c| c * r.rate / 1e9))
        .collect();
    if ghz.is_empty() {
        return;
    }
    let from = format!("the printed rate; the {column} column is each cell's cycles per call");
    run.set("rate from", from);
    if run.field(CLOCK_GHZ).is_some() {
        return;
    }
    ghz.sort_by(f64::total_cmp);
    let median = (ghz[(ghz.len() - 1) / 2] + ghz[ghz.len() / 2]) / 2.0;
    run.set(CLOCK_GHZ, format!("{median:.3}"));
    let how =
        format!("the {column} column times calls per second, median over the rows (not printed)");
    run.set("clock from", how);
}

/// `… @ 3.50GHz` or `… 2.4 GHz`: the model (without a `model name :` / `CPU:` prefix) and GHz.
pub(crate) fn cpu_line(line: &str) -> Option<(String, f64)> {
    let at = line.find("GHz")?;
    let before = line[..at].trim_end();
    let digits = before
        .rsplit(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()?;
    let ghz = number(digits).filter(|g| *g > 0.1 && *g < 20.0)?;
    let model = line
        .split_once(':')
        .filter(|(k, _)| k.trim().len() < 16)
        .map_or(line, |(_, v)| v)
        .trim();
    Some((model.to_string(), ghz))
}

/// Parses a decimal number as printed by printf (`%f`, `%.2f`, `%8.1f`), rejecting anything
/// else (no `inf`, `nan`, hex or exponents sneaking in from a garbled line).
pub(crate) fn number(token: &str) -> Option<f64> {
    let t = token.strip_prefix('-').unwrap_or(token);
    if t.is_empty()
        || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        || t.bytes().filter(|&b| b == b'.').count() > 1
        || !t.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    token.parse().ok().filter(|v: &f64| v.is_finite())
}

/// 1-based numbered lines with trailing `\r` removed (logs pasted from Windows).
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_strict() {
        assert_eq!(number("93917.47"), Some(93917.47));
        assert_eq!(number("0.000046"), Some(0.000046));
        assert_eq!(number("12"), Some(12.0));
        for bad in ["", ".", "1.2.3", "nan", "inf", "1e5", "0x10", "12a", "--1"] {
            assert_eq!(number(bad), None, "{bad}");
        }
    }

    #[test]
    fn empty_and_unknown_inputs_are_errors() {
        let e = parse("", None, &ImportOptions::default()).unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = parse("hello\n", Some("nope"), &ImportOptions::default()).unwrap_err();
        assert!(e.message.contains("unknown log format"), "{e}");
    }
}
