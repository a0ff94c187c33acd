//! `openssl speed` output of every version from 0.9.6 to 3.6, human and `-mr`, read line by line.
//!
//! Human output: progress lines (`Doing md5 for 3s on 16 size blocks: …`, stderr when merged),
//! the version header (`OpenSSL 1.0.2k  26 Jan 2017` or `version: 3.0.2`, `built on:`, `options:`,
//! `compiler:`, `CPUINFO:`, Windows' `timing function used: ftime`), the `type 16 bytes …` table
//! whose values are in 1000s of bytes/s with a `k` suffix above 10000 bytes/s, then the public-key
//! tables (`sign verify sign/s verify/s`, `op op/s`, 3.2's RSA `encr./s decr./s`, 3.4's KEM and
//! signature tables). `-mr` output: `+H:sizes`, `+F:index:name:bytes/s…`, `+F2`…`+F10` for public
//! key (times per op before 1.1.0, rates since; `+F5`/`+F8` carry both), with `+DT`/`+R` progress.
//! `-multi` adds `Forked child N` and `Got: … from N` lines before the summed table.
//!
//! A file holding several outputs is split where a new output starts (progress, header or table
//! lines after results, or a result for a cell already read). A log that stops before the results
//! its progress lines announce, a row with too few values or a value openssl could not have
//! printed (a time and rate no unrounded pair could give, see `rounding.rs`) is an error naming
//! the line. Any other line (a prompt, stderr merged by `2>&1`, a wrapped header line, `time`
//! output) is foreign: skipped and listed in the parse result.

use crate::names::{self, Mapped};
use crate::rounding;
use crate::{
    number, numbered_lines, ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat,
    ParsedLog,
};
use cryptospeed_model::Op;
use std::collections::HashSet;

mod close;
mod human;
mod lines;
mod mr;
mod mr_public_key;
mod multi;
mod progress;

use lines::*;
use multi::{is_child_line, is_count_line, is_got_fragment};

pub struct OpensslSpeed;

impl LogFormat for OpensslSpeed {
    fn name(&self) -> &'static str {
        "openssl-speed"
    }

    fn sniff(&self, text: &str) -> bool {
        text.contains("+H:")
            || text.contains("+F")
            || text.contains("1000s of bytes per second")
            || text.contains("Doing ")
            || text.contains("sign/s")
    }

    fn parse(&self, text: &str, options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        match parse_lines(text, options) {
            // The last line cut short (the paste, or the program, stopped mid-row): read the rest
            // and say so; a short row anywhere else is garbled.
            Err(e) if e.message.contains("truncated?") && is_last_line(text, e.line) => {
                let kept: String = text
                    .lines()
                    .take(e.line - 1)
                    .map(|l| format!("{l}\n"))
                    .collect();
                let mut log = parse_lines(&kept, options)?;
                if log.runs.iter().all(|r| r.results.is_empty()) {
                    return Err(e);
                }
                let cut = format!("line {} is cut short ({})", e.line, e.message);
                match log.runs.last_mut() {
                    Some(run) => {
                        run.missing.push(cut.clone());
                        let all = run.missing.join("; ");
                        run.set("partial", all);
                    }
                    None => log.warnings.push(cut),
                }
                Ok(log)
            }
            other => other,
        }
    }
}

/// Whether line `n` is the last line of `text` that holds anything.
fn is_last_line(text: &str, n: usize) -> bool {
    text.lines().skip(n).all(|l| l.trim().is_empty())
}

fn parse_lines(text: &str, options: &ImportOptions) -> Result<ParsedLog, ImportError> {
    let mut parser = Parser {
        options,
        runs: Vec::new(),
        skipped: Vec::new(),
        warnings: Vec::new(),
        seg: Segment::default(),
        table: Table::None,
    };
    let mut last = 0;
    for (n, line) in numbered_lines(text) {
        parser.line(n, line)?;
        last = n;
    }
    parser.close(last)?;
    parser.skipped.sort();
    Ok(ParsedLog {
        runs: parser.runs,
        skipped: parser.skipped,
        warnings: parser.warnings,
    })
}

/// Which table the following lines belong to.
#[derive(Debug, Clone, PartialEq)]
enum Table {
    None,
    /// `type 16 bytes …` with the sizes it announced and where.
    Symmetric(Vec<u64>, usize),
    /// `sign verify sign/s verify/s` (RSA, DSA, ECDSA, EdDSA, SM2) and `op op/s` (ECDH, FFDH).
    PublicKey,
    /// 3.2+: `sign verify encrypt decrypt sign/s verify/s encr./s decr./s` for RSA.
    RsaFull,
    /// 3.4+: `keygen encaps decaps keygens/s encaps/s decaps/s`.
    Kem,
    /// 3.4+: `keygen signs verify keygens/s sign/s verify/s`.
    Signature,
}

/// A `-mr` public-key line kept until the whole output is read, because whether `+F2`…`+F4` carry
/// times (before 1.1.0) or rates (since) is decided from all of them together.
#[derive(Debug, Clone)]
struct MrPublicKey {
    tag: u8,
    /// Its shape is only 4.0's (`+F7` with no name, `+F8` with no bits).
    four: bool,
    index: u32,
    bits: u32,
    name: String,
    values: Vec<f64>,
    line: usize,
}

#[derive(Default)]
struct Segment {
    run: ImportedRun,
    started: bool,
    /// First progress line for symmetric cells / public-key cells, and the names announced.
    progress_symmetric: Option<usize>,
    progress_public_key: Option<usize>,
    announced: Vec<(String, usize)>,
    /// Header (version) line, `type` header line, `+H` sizes.
    version_line: Option<usize>,
    mr_sizes: Option<Vec<u64>>,
    mr_public_key: Vec<MrPublicKey>,
    /// Names of the KEMs and signatures in the order their `+R15`/`+R18` (keygen) lines gave
    /// them: 3.5+'s `+F9`/`+F10` lines carry only a run-time index, in that same order.
    mr_kem_names: Vec<String>,
    mr_sig_names: Vec<String>,
    /// Cells read, with the kind of table they came from: 3.2+ prints RSA in the classic table
    /// and again in the signature table, which is no reason to start a new output.
    keys: HashSet<(String, Op, Option<u64>, u8)>,
    multi_lines: Option<usize>,
    /// Sizes from a `-multi` child's `+H` line, and where.
    multi_sizes: Option<(Vec<u64>, usize)>,
    symmetric_rows: usize,
    public_key_rows: usize,
    saw_human: bool,
    saw_mr: bool,
    /// Block sizes of the first algorithm's `+DT:NAME:SECONDS:SIZE` lines, in order.
    dt_sizes: Vec<u64>,
    /// `+F:` lines met before the `+H:` giving their sizes (children of `-mr -multi` interleave).
    pending_mr: Vec<(usize, String)>,
    /// Header and command lines, listed as skipped if the segment ends without results (the
    /// output of `openssl version -a` pasted next to the speed output).
    header_lines: Vec<(usize, String)>,
    /// The segment began at a command that is not a speed run (`$ openssl version -a`).
    foreign_command: bool,
    /// Progress lines' own figures (count over time), for tables cut off (progress.rs).
    progress_figures: Vec<progress::ProgressFigure>,
}

impl Segment {
    fn has_results(&self) -> bool {
        !self.run.results.is_empty() || !self.mr_public_key.is_empty()
    }
}

struct Parser<'a> {
    options: &'a ImportOptions,
    runs: Vec<ImportedRun>,
    skipped: Vec<(usize, String)>,
    warnings: Vec<String>,
    seg: Segment,
    table: Table,
}

const EXPECTED: &str = "expected a line openssl speed prints (a 'Doing …' progress line, the version header, a results table row, or a '+'-prefixed -mr line)";

impl Parser<'_> {
    fn touch(&mut self, n: usize) {
        if !self.seg.started {
            self.seg.started = true;
            self.seg.run.first_line = n;
        }
        self.seg.run.last_line = n;
    }

    /// Starts a new output at line `n` if the current one already has results.
    fn boundary_if_results(&mut self, n: usize) -> Result<(), ImportError> {
        if self.seg.has_results() {
            self.close(n - 1)?;
        }
        Ok(())
    }

    /// One line; in a `-multi` log, a child's line that another child's output garbled (a
    /// `Got:` line with a `+R` line written into it) costs that line, said in a warning.
    fn line(&mut self, n: usize, raw: &str) -> Result<(), ImportError> {
        let multi = self.seg.multi_lines.is_some() || raw.trim_start().starts_with("Got: ");
        match self.read_line(n, raw) {
            Err(e) if multi && is_child_line(raw) => {
                self.warnings.push(format!(
                    "line {n} is garbled (-multi children wrote into each other's lines) and is skipped: {}",
                    e.message
                ));
                self.skipped.push((n, raw.to_string()));
                Ok(())
            }
            other => other,
        }
    }

    fn read_line(&mut self, n: usize, raw: &str) -> Result<(), ImportError> {
        let t = raw.trim();
        if t.is_empty() {
            // Tables end at the next header, not at blank lines (pasted logs are often
            // double-spaced).
            return Ok(());
        }
        if t.chars().any(|c| c.is_control() && c != '\t') {
            return Err(ImportError::at(
                n,
                "contains control characters: the file is binary or garbled",
            ));
        }
        if is_command_line(t) {
            return self.command_line(n, t);
        }
        if let Some(rest) = t.strip_prefix('+') {
            if is_mr_tag(rest) {
                return self.mr_line(n, t, rest);
            }
        }
        if let Some(rest) = t.strip_prefix("Forked child ") {
            return self.forked_child(n, t, rest);
        }
        if let Some(got) = t.strip_prefix("Got: ") {
            return self.got_line(n, t, got);
        }
        if self.seg.multi_lines.is_some() && is_got_fragment(t) {
            // The tail of a `Got: … from N` line that a child's stderr cut in two (many
            // children write to one terminal): nothing left to read in it.
            self.skipped.push((n, raw.to_string()));
            return Ok(());
        }
        if let Some(rest) = t.strip_prefix("Doing ") {
            return self.progress_line(n, rest);
        }
        if is_count_line(t) {
            self.touch(n);
            return Ok(());
        }
        if let Some(done) = self.header_line(n, t)? {
            return done;
        }
        self.table_line(n, raw, t)
    }

    /// Lines of the result tables, their headers, and whatever is left: noise openssl prints, or
    /// a foreign line, skipped and listed.
    fn table_line(&mut self, n: usize, raw: &str, t: &str) -> Result<(), ImportError> {
        if t.starts_with("The 'numbers' are in 1000s of bytes per second") {
            self.touch(n);
            return Ok(());
        }
        if t.starts_with("type") && t.ends_with("bytes") {
            return self.symmetric_header(n, t);
        }
        if let Some(table) = public_key_header(t) {
            self.table = table;
            self.touch(n);
            return Ok(());
        }
        if let Some(result) = self.public_key_row(n, t)? {
            return result;
        }
        if let Table::Symmetric(sizes, header) = self.table.clone() {
            if looks_like_row(t) {
                return self.symmetric_row(n, t, &sizes, header);
            }
        } else if let Some((sizes, at)) = self.headerless_sizes(t) {
            self.table = Table::Symmetric(sizes.clone(), at);
            return self.symmetric_row(n, t, &sizes, at);
        }
        if is_noise(t) {
            self.touch(n);
            return Ok(());
        }
        self.skipped.push((n, raw.to_string()));
        Ok(())
    }

    /// A shell command line: a new output starts here.
    fn command_line(&mut self, n: usize, t: &str) -> Result<(), ImportError> {
        if self.seg.has_results()
            || self
                .seg
                .progress_symmetric
                .or(self.seg.progress_public_key)
                .is_some()
        {
            self.close(n - 1)?;
        } else {
            // Only header lines so far (the output of `openssl version -a`): start over.
            self.drop_segment();
        }
        self.touch(n);
        let command = strip_prompt(t);
        self.seg.foreign_command = !command.contains("speed");
        self.seg.header_lines.push((n, t.to_string()));
        self.seg.run.set("command", command);
        self.table = Table::None;
        Ok(())
    }

    /// Ends a segment that holds no figures, listing its lines as skipped.
    fn drop_segment(&mut self) {
        let seg = std::mem::take(&mut self.seg);
        self.skipped.extend(seg.header_lines);
    }

    fn progress_line(&mut self, n: usize, rest: &str) -> Result<(), ImportError> {
        if self.seg.multi_lines.is_none() {
            self.boundary_if_results(n)?;
        }
        self.touch(n);
        self.progress_figure(n, rest);
        if !rest.contains("size blocks") {
            self.seg.progress_public_key.get_or_insert(n);
            return Ok(());
        }
        self.seg.progress_symmetric.get_or_insert(n);
        // `Doing md5 for 3s on 16 size blocks: …`, or without SIGALRM
        // `Doing md5 12345 times on 16 size blocks: …`.
        let name = if let Some((name, _)) = rest.split_once(" for ") {
            name
        } else if let Some((name, _)) = rest.split_once(" times on ") {
            name.rsplit_once(' ').map(|(name, _)| name).unwrap_or(name)
        } else {
            rest
        };
        let name = name.strip_suffix(" ops").unwrap_or(name).to_string();
        if !self.seg.announced.iter().any(|(a, _)| *a == name) {
            self.seg.announced.push((name, n));
        }
        Ok(())
    }

    fn push(
        &mut self,
        n: usize,
        printed: &str,
        m: &Mapped,
        op: Op,
        bytes: Option<u64>,
        rate: f64,
    ) -> Result<(), ImportError> {
        let key = (
            m.primitive.clone(),
            op,
            bytes,
            match self.table {
                Table::Kem => 1,
                Table::Signature => 2,
                _ => 0,
            },
        );
        if self.seg.keys.contains(&key) {
            // The same cell again: the next output of a concatenated file starts here.
            self.close(n - 1)?;
            self.touch(n);
        }
        self.seg.keys.insert(key);
        self.seg.run.results.push(ImportedResult {
            primitive: m.primitive.clone(),
            op,
            bytes,
            rate,
            printed_name: printed.to_string(),
            mapped: m.mapped,
            line: n,
            samples: Vec::new(),
            cycles: None,
        });
        Ok(())
    }
}
