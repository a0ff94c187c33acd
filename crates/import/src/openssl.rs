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

    fn line(&mut self, n: usize, raw: &str) -> Result<(), ImportError> {
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

    fn forked_child(&mut self, n: usize, t: &str, rest: &str) -> Result<(), ImportError> {
        let child: u32 = rest.trim().parse().map_err(|_| {
            ImportError::at(
                n,
                format!("expected 'Forked child N' (openssl speed -multi), found '{t}'"),
            )
        })?;
        if child == 0 && self.seg.multi_lines.is_none() {
            self.boundary_if_results(n)?;
        }
        self.touch(n);
        let children = self
            .seg
            .run
            .field("multi")
            .and_then(|m| m.parse::<u32>().ok())
            .unwrap_or(0)
            .max(child + 1);
        self.seg.run.set("multi", children.to_string());
        self.seg.multi_lines.get_or_insert(n);
        Ok(())
    }

    /// `Got: +H:16:64:… from 0`: in 3.x the summed table that follows has no header of its own,
    /// so the children's +H line gives its sizes. The children's own figures are not kept: the
    /// summed table (or the parent's `+F` lines with `-mr`) carries the result.
    fn got_line(&mut self, n: usize, t: &str, got: &str) -> Result<(), ImportError> {
        self.touch(n);
        self.seg.multi_lines.get_or_insert(n);
        if let Some(h) = got.strip_prefix("+H:") {
            let h = h.split(" from ").next().unwrap_or("");
            let sizes: Option<Vec<u64>> = h.split(':').map(|f| f.trim().parse().ok()).collect();
            match sizes {
                Some(sizes) if !sizes.is_empty() => self.seg.multi_sizes = Some((sizes, n)),
                _ => {
                    return Err(ImportError::at(
                        n,
                        format!("expected 'Got: +H:16:64:… from N', found '{}'", shorten(t)),
                    ))
                }
            }
        }
        Ok(())
    }

    fn progress_line(&mut self, n: usize, rest: &str) -> Result<(), ImportError> {
        if self.seg.multi_lines.is_none() {
            self.boundary_if_results(n)?;
        }
        self.touch(n);
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

    /// Sizes for a symmetric row met outside any table: the `-multi` children's `+H` (3.x prints
    /// the summed table without a header), or, for the tail of a log cut above its `type` line,
    /// openssl's default sizes when the row names a sized primitive and has their count of
    /// `k`-suffixed values.
    fn headerless_sizes(&self, t: &str) -> Option<(Vec<u64>, usize)> {
        if self.table != Table::None || is_noise(t) || !looks_like_row(t) {
            return None;
        }
        if let Some(found) = self.seg.multi_sizes.clone() {
            return Some(found);
        }
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let values = tokens.iter().rev().take_while(|v| v.ends_with('k')).count();
        let name = tokens[..tokens.len() - values].join(" ");
        let known = cryptospeed_catalog::resolve(&name).is_some_and(|k| k.has_bytes());
        match values {
            6 if known => Some((vec![16, 64, 256, 1024, 8192, 16384], 0)),
            5 if known => Some((vec![16, 64, 256, 1024, 8192], 0)),
            _ => None,
        }
    }

    /// Header lines; `Some(Ok(()))` when the line was one.
    fn header_line(
        &mut self,
        n: usize,
        t: &str,
    ) -> Result<Option<Result<(), ImportError>>, ImportError> {
        let version = if let Some(v) = t.strip_prefix("version:") {
            Some(v.trim().to_string())
        } else if (t.starts_with("OpenSSL ")
            || t.starts_with("LibreSSL ")
            || t.starts_with("SSLeay "))
            && t.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        {
            Some(t.to_string())
        } else {
            None
        };
        if let Some(v) = version {
            let progress = self
                .seg
                .progress_symmetric
                .or(self.seg.progress_public_key)
                .is_some();
            if self.seg.has_results() || (self.seg.version_line.is_some() && progress) {
                self.close(n - 1)?;
            } else if self.seg.version_line.is_some() {
                // A header with no figures before this one (`openssl version` pasted above the
                // speed output): nothing to keep, start over.
                self.drop_segment();
            }
            self.touch(n);
            self.seg.header_lines.push((n, t.to_string()));
            self.seg.version_line = Some(n);
            if t.starts_with("LibreSSL") {
                self.seg.run.implementation = "libressl".into();
            }
            self.seg.run.set("version", v);
            self.table = Table::None;
            return Ok(Some(Ok(())));
        }
        const FIELDS: &[(&str, &str)] = &[
            ("built on:", "built on"),
            ("options:", "options"),
            ("compiler:", "compiler"),
            ("platform:", "platform"),
            ("CPUINFO:", "CPUINFO"),
            ("available timing options:", "timing options"),
            ("timing function used:", "timing"),
            // `openssl version -a`, often pasted above the speed output.
            ("OPENSSLDIR:", "OPENSSLDIR"),
            ("ENGINESDIR:", "ENGINESDIR"),
            ("MODULESDIR:", "MODULESDIR"),
            ("Seeding source:", "seeding source"),
        ];
        for (prefix, field) in FIELDS {
            if let Some(v) = t.strip_prefix(prefix) {
                self.touch(n);
                self.seg.header_lines.push((n, t.to_string()));
                self.seg.run.set(field, v.trim());
                return Ok(Some(Ok(())));
            }
        }
        Ok(None)
    }

    fn symmetric_header(&mut self, n: usize, t: &str) -> Result<(), ImportError> {
        let words: Vec<&str> = t.split_whitespace().skip(1).collect();
        if words.is_empty() || !words.len().is_multiple_of(2) {
            return Err(ImportError::at(
                n,
                format!(
                    "expected the table header 'type  16 bytes  64 bytes …', found '{}'",
                    shorten(t)
                ),
            ));
        }
        let mut sizes = Vec::new();
        for pair in words.chunks(2) {
            match (pair[0].parse::<u64>(), pair[1]) {
                (Ok(size), "bytes") if size > 0 => sizes.push(size),
                _ => {
                    return Err(ImportError::at(
                        n,
                        format!(
                            "expected 'N bytes' in the table header, found '{} {}'",
                            pair[0], pair[1]
                        ),
                    ))
                }
            }
        }
        if self.seg.symmetric_rows > 0 {
            self.close(n - 1)?;
        }
        self.touch(n);
        self.seg.saw_human = true;
        self.table = Table::Symmetric(sizes, n);
        Ok(())
    }

    fn symmetric_row(
        &mut self,
        n: usize,
        t: &str,
        sizes: &[u64],
        header: usize,
    ) -> Result<(), ImportError> {
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let want = sizes.len();
        let shape = || {
            format!(
                "expected a row of the table whose header is line {header}: a name and {want} value(s) in 1000s of bytes/s (one per size {}), found '{}'",
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                shorten(t)
            )
        };
        if tokens.len() < want + 1 {
            return Err(ImportError::at(
                n,
                format!("too few values — truncated? {}", shape()),
            ));
        }
        let (name_tokens, value_tokens) = tokens.split_at(tokens.len() - want);
        let mut values = Vec::with_capacity(want);
        for (i, tok) in value_tokens.iter().enumerate() {
            let rate = if let Some(k) = tok.strip_suffix('k') {
                let v = number(k).ok_or_else(|| {
                    ImportError::at(n, format!("'{tok}' is not a number. {}", shape()))
                })?;
                if v <= 10.0 {
                    return Err(ImportError::at(n, format!("'{tok}': openssl prints the 'k' form only above 10000 bytes/s, so this value is garbled")));
                }
                v * 1000.0
            } else {
                let v = number(tok).ok_or_else(|| {
                    ImportError::at(n, format!("'{tok}' is not a number. {}", shape()))
                })?;
                if v > 10000.0 {
                    return Err(ImportError::at(n, format!("'{tok}': openssl prints values above 10000 bytes/s as 1000s with a 'k', so this value is truncated or garbled")));
                }
                v
            };
            if rate < 0.0 {
                return Err(ImportError::at(n, format!("'{tok}' is negative")));
            }
            values.push((sizes[i], rate));
        }
        let name = name_tokens.join(" ");
        if name.is_empty() || number(name_tokens[0].trim_end_matches('k')).is_some() {
            return Err(ImportError::at(
                n,
                format!("too many values or no name. {}", shape()),
            ));
        }
        self.seg.symmetric_rows += 1;
        self.touch(n);
        let (m, op) = names::symmetric(&name, self.options.decrypt);
        for (size, rate) in values {
            self.push(n, &name, &m, op, Some(size), rate)?;
        }
        Ok(())
    }

    /// Human public-key rows; `Some(Ok(()))` when the line was one.
    fn public_key_row(
        &mut self,
        n: usize,
        t: &str,
    ) -> Result<Option<Result<(), ImportError>>, ImportError> {
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let handled = self.rsa_dsa_row(n, t, &tokens)?
            || self.curve_row(n, t, &tokens)?
            || self.scheme_table_row(n, &tokens)?;
        if handled {
            return Ok(Some(Ok(())));
        }
        let in_table = matches!(
            self.table,
            Table::PublicKey | Table::RsaFull | Table::Kem | Table::Signature
        );
        if in_table && tokens.iter().any(|w| is_time_token(w)) {
            return Err(ImportError::at(
                n,
                format!("expected a row of the public-key table above (algorithm, times in s, then rates per second), found '{}'", shorten(t)),
            ));
        }
        Ok(None)
    }

    /// `rsa 2048 bits 0.000241s 0.000016s 4152.0 62365.7` (and the 8-column 3.2+ form), or
    /// DSA's; true when the line was one.
    fn rsa_dsa_row(&mut self, n: usize, t: &str, tokens: &[&str]) -> Result<bool, ImportError> {
        if tokens.len() < 3 || !(tokens[0] == "rsa" || tokens[0] == "dsa") || tokens[2] != "bits" {
            return Ok(false);
        }
        let bits: u32 = tokens[1].parse().map_err(|_| {
            ImportError::at(
                n,
                format!(
                    "expected '{} BITS bits …', found '{}'",
                    tokens[0],
                    shorten(t)
                ),
            )
        })?;
        let figures = &tokens[3..];
        let ops: &[Op] = match figures.len() {
            4 => &[Op::Sign, Op::Verify],
            8 if tokens[0] == "rsa" => &[Op::Sign, Op::Verify, Op::Encrypt, Op::Decrypt],
            _ => {
                return Err(ImportError::at(
                    n,
                    format!("expected '{} {bits} bits' then times and rates (sign verify sign/s verify/s{}), found {} values — truncated?", tokens[0], if tokens[0] == "rsa" { ", or 3.2's 8-column form" } else { "" }, figures.len()),
                ))
            }
        };
        let rates = times_and_rates(n, figures, ops.len())?;
        let m = names::sized(tokens[0], bits);
        let printed = format!("{} {bits} bits", tokens[0]);
        self.public_key_results(n, &printed, &m, ops, &rates)?;
        Ok(true)
    }

    /// `256 bits ecdsa (nistp256) 0.0000s 0.0001s 51956.6 16892.0` (0.9.8/1.0: "256 bit
    /// ecdsa"), `253 bits EdDSA (Ed25519) …`, `256 bits SM2 (CurveSM2) …`, `256 bits ecdh
    /// (nistp256) 0.0000s 22368.7`, `2048 bits ffdh 0.0021s 476.2`; true when the line was one.
    fn curve_row(&mut self, n: usize, t: &str, tokens: &[&str]) -> Result<bool, ImportError> {
        if tokens.len() < 4
            || !(tokens[1] == "bits" || tokens[1] == "bit")
            || tokens[0].parse::<u32>().is_err()
        {
            return Ok(false);
        }
        let bits: u32 = tokens[0].parse().unwrap_or(0);
        let kind = tokens[2].to_ascii_lowercase();
        if kind == "ffdh" {
            let rates = times_and_rates(n, &tokens[3..], 1)?;
            let m = names::sized("ffdh", bits);
            let printed = format!("{bits} bits ffdh");
            self.public_key_results(n, &printed, &m, &[Op::Derive], &rates)?;
            return Ok(true);
        }
        if !matches!(kind.as_str(), "ecdsa" | "ecdh" | "eddsa" | "sm2" | "ec") {
            return Ok(false);
        }
        let expected = || {
            ImportError::at(
                n,
                format!(
                    "expected '{bits} bits {kind} (CURVE) …', found '{}'",
                    shorten(t)
                ),
            )
        };
        let close = t.find(')').ok_or_else(expected)?;
        let open = t.find('(').filter(|&o| o < close).ok_or_else(expected)?;
        let curve = t[open + 1..close].trim();
        let figures: Vec<&str> = t[close + 1..].split_whitespace().collect();
        let (m, ops): (Mapped, &[Op]) = match kind.as_str() {
            "ecdsa" => (names::curve("ecdsa", curve), &[Op::Sign, Op::Verify]),
            // 4.0: ECDSA, EdDSA and SM2 share one table, `256 bits EC (prime256v1)`.
            "ec" => (names::signature_curve(curve), &[Op::Sign, Op::Verify]),
            "ecdh" => (names::curve("ecdh", curve), &[Op::Derive]),
            _ => (names::named_scheme(curve), &[Op::Sign, Op::Verify]),
        };
        let rates = times_and_rates(n, &figures, ops.len())?;
        let printed = t[..close + 1].to_string();
        self.public_key_results(n, &printed, &m, ops, &rates)?;
        Ok(true)
    }

    /// A row of 3.4+'s KEM or signature table: `NAME 0.000012s 0.000013s 0.000014s 83333.3
    /// 76923.1 71428.6`; true when the line was one.
    fn scheme_table_row(&mut self, n: usize, tokens: &[&str]) -> Result<bool, ImportError> {
        if !matches!(self.table, Table::Kem | Table::Signature) || tokens.len() != 7 {
            return Ok(false);
        }
        let ops: &[Op] = if self.table == Table::Kem {
            &[Op::Keygen, Op::Encaps, Op::Decaps]
        } else {
            &[Op::Keygen, Op::Sign, Op::Verify]
        };
        let rates = times_and_rates(n, &tokens[1..], 3)?;
        let m = names::table_scheme(tokens[0], self.table == Table::Kem);
        self.public_key_results(n, tokens[0], &m, ops, &rates)?;
        Ok(true)
    }

    fn public_key_results(
        &mut self,
        n: usize,
        printed: &str,
        m: &Mapped,
        ops: &[Op],
        rates: &[f64],
    ) -> Result<(), ImportError> {
        self.seg.public_key_rows += 1;
        self.seg.saw_human = true;
        self.touch(n);
        for (op, rate) in ops.iter().zip(rates) {
            self.push(n, printed, m, *op, None, *rate)?;
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
        });
        Ok(())
    }

    fn mr_line(&mut self, n: usize, t: &str, rest: &str) -> Result<(), ImportError> {
        let (tag, body) = rest.split_once(':').ok_or_else(|| {
            ImportError::at(
                n,
                format!("expected a -mr line '+TAG:…', found '{}'", shorten(t)),
            )
        })?;
        let fields: Vec<&str> = body.split(':').collect();
        match tag {
            "DT" | "DN" | "DTP" | "DNP" => {
                // Children of -multi interleave their progress with each other's results.
                if self.seg.multi_lines.is_none() {
                    self.boundary_if_results(n)?;
                }
                self.touch(n);
                self.seg.saw_mr = true;
                if tag == "DT" || tag == "DN" {
                    if fields.len() >= 3 {
                        self.seg.progress_symmetric.get_or_insert(n);
                        let first = self.seg.announced.first().map(|(a, _)| a.as_str());
                        if first.is_none_or(|a| a == fields[0]) {
                            if let Ok(size) = fields[fields.len() - 1].parse::<u64>() {
                                self.seg.dt_sizes.push(size);
                            }
                        }
                        let name = fields[0].to_string();
                        if !self.seg.announced.iter().any(|(a, _)| *a == name) {
                            self.seg.announced.push((name, n));
                        }
                    }
                } else {
                    self.seg.progress_public_key.get_or_insert(n);
                }
                Ok(())
            }
            t2 if t2.starts_with('R') && t2[1..].chars().all(|c| c.is_ascii_digit()) => {
                self.touch(n);
                // `+R15:COUNT:NAME:SECONDS` (KEM keygen) and `+R18:…` (signature keygen).
                let names = match t2 {
                    "R15" => Some(&mut self.seg.mr_kem_names),
                    "R18" => Some(&mut self.seg.mr_sig_names),
                    _ => None,
                };
                if let (Some(names), Some(name)) = (names, fields.get(1)) {
                    if !names.iter().any(|x| x == name) {
                        names.push(name.to_string());
                    }
                }
                Ok(())
            }
            "H" => {
                let mut sizes = Vec::new();
                for f in &fields {
                    match f.parse::<u64>() {
                        Ok(s) if s > 0 => sizes.push(s),
                        _ => {
                            return Err(ImportError::at(
                                n,
                                format!(
                                    "expected '+H:16:64:…' (the block sizes), found '{}'",
                                    shorten(t)
                                ),
                            ))
                        }
                    }
                }
                if self.seg.has_results() {
                    self.close(n - 1)?;
                }
                self.touch(n);
                self.seg.saw_mr = true;
                self.seg.mr_sizes = Some(sizes.clone());
                for (at, line) in std::mem::take(&mut self.seg.pending_mr) {
                    let body = line.strip_prefix("+F:").unwrap_or(&line);
                    let fields: Vec<&str> = body.split(':').collect();
                    self.mr_symmetric(at, &line, &fields, &sizes)?;
                }
                Ok(())
            }
            // `-mr -multi` (4.0 and 3.x alike) prints the summed `+F` lines with no `+H` of the
            // parent's own: the children's `Got: +H:…` give the sizes.
            "F" => match self
                .seg
                .mr_sizes
                .clone()
                .or_else(|| self.seg.multi_sizes.clone().map(|(sizes, _)| sizes))
            {
                Some(sizes) => self.mr_symmetric(n, t, &fields, &sizes),
                None => {
                    // A child's line ahead of the parent's +H (`-mr -multi`): read it at +H.
                    self.touch(n);
                    self.seg.pending_mr.push((n, t.to_string()));
                    Ok(())
                }
            },
            _ => {
                let number_tag: Option<u8> = tag
                    .strip_prefix('F')
                    .and_then(|d| d.parse().ok())
                    .filter(|d| (2..=10).contains(d));
                let Some(number_tag) = number_tag else {
                    return Err(ImportError::at(
                        n,
                        format!("unknown -mr line '+{tag}:…': {EXPECTED}"),
                    ));
                };
                self.mr_public_key(n, t, number_tag, &fields)
            }
        }
    }

    /// `+F:INDEX:NAME:v1:v2…`, one rate in bytes/s per size of the `+H` line.
    fn mr_symmetric(
        &mut self,
        n: usize,
        t: &str,
        fields: &[&str],
        sizes: &[u64],
    ) -> Result<(), ImportError> {
        if fields.len() != sizes.len() + 2 {
            return Err(ImportError::at(
                n,
                format!("expected '+F:INDEX:NAME' and {} values (one per size in +H), found {} fields — truncated? ('{}')", sizes.len(), fields.len(), shorten(t)),
            ));
        }
        fields[0].parse::<u32>().map_err(|_| {
            ImportError::at(
                n,
                format!(
                    "expected a numeric algorithm index after '+F:', found '{}'",
                    fields[0]
                ),
            )
        })?;
        let name = fields[1];
        if name.is_empty() {
            return Err(ImportError::at(n, "empty algorithm name in '+F:' line"));
        }
        let mut values = Vec::new();
        for (f, size) in fields[2..].iter().zip(sizes) {
            let v = number(f)
                .filter(|v| *v >= 0.0)
                .ok_or_else(|| ImportError::at(n, format!("'{f}' is not a rate in bytes/s")))?;
            values.push((*size, v));
        }
        self.touch(n);
        self.seg.symmetric_rows += 1;
        let (m, op) = names::symmetric(name, self.options.decrypt);
        for (size, rate) in values {
            self.push(n, name, &m, op, Some(size), rate)?;
        }
        Ok(())
    }

    fn mr_public_key(
        &mut self,
        n: usize,
        t: &str,
        tag: u8,
        fields: &[&str],
    ) -> Result<(), ImportError> {
        // +F2/+F3/+F4/+F5/+F8: INDEX:BITS:v…   +F6/+F7: INDEX:BITS:NAME:v:v   +F9/+F10: INDEX:v:v:v
        // 4.0: +F7 is FFDH (INDEX:BITS:v:v), +F8 KEMs and +F9 signatures (INDEX:v:v:v).
        let four_ffdh = tag == 7 && fields.len() == 4;
        let four_kem = tag == 8 && fields.get(1).is_some_and(|f| f.contains('.'));
        let (bits_at, name_at, first_value, counts): (
            Option<usize>,
            Option<usize>,
            usize,
            &[usize],
        ) = match tag {
            2 => (Some(1), None, 2, &[2, 4]),
            8 if four_kem => (None, None, 1, &[3]),
            7 if four_ffdh => (Some(1), None, 2, &[2]),
            3 | 4 | 5 | 8 => (Some(1), None, 2, &[2]),
            6 | 7 => (Some(1), Some(2), 3, &[2]),
            _ => (None, None, 1, &[3]),
        };
        let bad = |what: &str| {
            ImportError::at(
                n,
                format!("'+F{tag}:' line: {what}, found '{}'", shorten(t)),
            )
        };
        let index: u32 = fields
            .first()
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| bad("expected a numeric index first"))?;
        let bits: u32 = match bits_at {
            Some(i) => fields
                .get(i)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad("expected the key size in bits second"))?,
            None => 0,
        };
        let name = name_at
            .and_then(|i| fields.get(i))
            .map(|s| s.to_string())
            .unwrap_or_default();
        let values_raw = fields.get(first_value..).unwrap_or(&[]);
        if !counts.contains(&values_raw.len()) {
            return Err(bad(&format!(
                "expected {} value(s) — truncated?",
                counts
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )));
        }
        let mut values = Vec::new();
        for f in values_raw {
            values.push(
                number(f)
                    .filter(|v| *v >= 0.0)
                    .ok_or_else(|| bad(&format!("'{f}' is not a number")))?,
            );
        }
        self.touch(n);
        self.seg.saw_mr = true;
        self.seg.mr_public_key.push(MrPublicKey {
            tag,
            four: four_ffdh || four_kem,
            index,
            bits,
            name,
            values,
            line: n,
        });
        Ok(())
    }

    /// Converts the deferred `-mr` public-key lines into results.
    fn settle_mr_public_key(&mut self) -> Result<(), ImportError> {
        let lines = std::mem::take(&mut self.seg.mr_public_key);
        if lines.is_empty() {
            return Ok(());
        }
        let rates = mr_figures_are_rates(&lines);
        let four = mr_layout_is_4(&lines, &self.seg.mr_kem_names, &self.seg.mr_sig_names);
        if four {
            self.seg.run.set(
                "-mr layout",
                "OpenSSL 4.0 (+F4 one signature-curve table, +F7 FFDH, +F8 KEMs, +F9 signatures)",
            );
        }
        if !rates {
            self.seg.run.set(
                "-mr public-key figures",
                "seconds per operation (OpenSSL before 1.1.0), converted to rates",
            );
        }
        let mut schemes = MrSchemeNames {
            kems: std::mem::take(&mut self.seg.mr_kem_names),
            signatures: std::mem::take(&mut self.seg.mr_sig_names),
            kems_seen: 0,
            signatures_seen: 0,
        };
        for l in lines {
            let row = match four {
                true => mr_public_key_row_4(&l, &mut schemes),
                false => mr_public_key_row(&l, rates, &mut schemes),
            };
            self.push_mr_public_key(&l, row)?;
        }
        Ok(())
    }

    /// Records one `-mr` public-key line's results, refusing a second figure for a cell.
    fn push_mr_public_key(&mut self, l: &MrPublicKey, row: MrRow) -> Result<(), ImportError> {
        let (m, printed, ops, values) = row;
        self.seg.public_key_rows += 1;
        for (op, rate) in ops.into_iter().zip(values) {
            let key = (m.primitive.clone(), op, None, l.tag.saturating_sub(8));
            if self.seg.keys.contains(&key) {
                return Err(ImportError::at(
                    l.line,
                    format!("'{printed}' {op} appears twice in one -mr output"),
                ));
            }
            self.seg.keys.insert(key);
            self.seg.run.results.push(ImportedResult {
                primitive: m.primitive.clone(),
                op,
                bytes: None,
                rate,
                printed_name: printed.clone(),
                mapped: m.mapped,
                line: l.line,
            });
        }
        Ok(())
    }

    /// Ends the current output at line `last`, checking it is complete.
    fn close(&mut self, last: usize) -> Result<(), ImportError> {
        self.settle_mr_public_key()?;
        let mut seg = std::mem::take(&mut self.seg);
        self.table = Table::None;
        if !seg.started {
            return Ok(());
        }
        let mut missing = Vec::new();
        if let Some((at, _)) = seg.pending_mr.first() {
            let at = *at;
            let pending = std::mem::take(&mut seg.pending_mr);
            let sizes = self.sizes_without_h(&seg, &pending);
            missing.push(format!(
                "no '+H:' line gives the block sizes of the '+F:' lines from line {at} (cut off at the top?): {}",
                match &sizes {
                    Some((sizes, why)) => format!("sizes {} taken from {why}", join(sizes)),
                    None => "their figures are not kept".to_string(),
                }
            ));
            if let Some((sizes, _)) = sizes {
                self.seg = seg;
                for (n, line) in pending {
                    let fields: Vec<&str> = line["+F:".len()..].split(':').collect();
                    self.mr_symmetric(n, &line, &fields, &sizes)?;
                }
                seg = std::mem::take(&mut self.seg);
            }
        }
        let no_figures = !seg.has_results()
            && seg.progress_symmetric.is_none()
            && seg.progress_public_key.is_none()
            && seg.mr_sizes.is_none()
            && seg.multi_lines.is_none();
        if no_figures
            && missing.is_empty()
            && (seg.foreign_command || !seg.run.header.iter().any(|(k, _)| k == "command"))
        {
            // Header lines only (`openssl version -a` pasted next to the output): nothing is
            // lost, list them as skipped.
            self.skipped.append(&mut seg.header_lines);
            return Ok(());
        }
        let end = last.max(seg.run.first_line);
        missing.extend(self.missing_parts(&seg, end));
        if seg.run.results.is_empty() {
            // Nothing readable: a command line or noise, or an output cut before its figures.
            let first = seg.run.first_line;
            self.warnings.extend(
                missing
                    .into_iter()
                    .map(|m| format!("lines {first}–{end}: {m}; nothing of it is kept")),
            );
            return Ok(());
        }
        if !missing.is_empty() {
            seg.run.set("partial", missing.join("; "));
        }
        let mut run = seg.run;
        run.format = if seg.saw_mr && !seg.saw_human {
            "openssl-speed-mr".into()
        } else {
            "openssl-speed".into()
        };
        if run.implementation.is_empty() {
            run.implementation = "openssl".into();
        }
        run.last_line = end;
        run.missing = missing;
        self.runs.push(run);
        Ok(())
    }

    /// What an output's progress lines, header or `+H` announced and its results lack.
    fn missing_parts(&self, seg: &Segment, end: usize) -> Vec<String> {
        let cut = |from: usize, what: &str| {
            format!(
                "the output that starts at line {} ends at line {end}, before {what} (announced at line {from})",
                seg.run.first_line
            )
        };
        let mut missing = Vec::new();
        if let Some(from) = seg.progress_symmetric {
            if seg.symmetric_rows == 0 {
                missing.push(cut(from, "the results table its progress lines announce"));
            } else {
                for (name, at) in &seg.announced {
                    let (m, _) = names::symmetric(name, self.options.decrypt);
                    if !seg.run.results.iter().any(|r| {
                        r.primitive == m.primitive || r.printed_name.eq_ignore_ascii_case(name)
                    }) {
                        missing.push(cut(*at, &format!("the row for '{name}'")));
                    }
                }
            }
        }
        if let Some(from) = seg.progress_public_key {
            if seg.public_key_rows == 0 {
                missing.push(cut(
                    from,
                    "the public-key results its progress lines announce",
                ));
            }
        }
        if let Some(from) = seg.version_line {
            if seg.run.results.is_empty() {
                missing.push(cut(from, "any results table after the version header"));
            }
        }
        if let Some(from) = seg.multi_lines {
            if seg.run.results.is_empty() {
                missing.push(cut(from, "the summed table of the -multi children"));
            }
        }
        if seg.mr_sizes.is_some() && seg.symmetric_rows == 0 && seg.public_key_rows == 0 {
            missing.push(cut(seg.run.first_line, "any '+F:' line after '+H:'"));
        }
        missing
    }

    /// Block sizes for `+F:` lines whose `+H:` is missing: the `+DT:NAME:SECONDS:SIZE`
    /// progress lines of their algorithm, else openssl's default sizes when the count fits.
    fn sizes_without_h(
        &self,
        seg: &Segment,
        pending: &[(usize, String)],
    ) -> Option<(Vec<u64>, String)> {
        let values = pending[0].1.split(':').count().checked_sub(3)?;
        if !seg.dt_sizes.is_empty() && seg.dt_sizes.len() == values {
            return Some((seg.dt_sizes.clone(), "its '+DT:' progress lines".into()));
        }
        let default: &[u64] = match values {
            5 => &[16, 64, 256, 1024, 8192],
            6 => &[16, 64, 256, 1024, 8192, 16384],
            _ => return None,
        };
        let same = pending
            .iter()
            .all(|(_, l)| l.split(':').count() == values + 3);
        same.then(|| {
            (
                default.to_vec(),
                format!("openssl's default sizes ({values} values a line)"),
            )
        })
    }
}

fn join(sizes: &[u64]) -> String {
    sizes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// `0.000241s 0.000016s 4152.0 62365.7`: `count` times with an `s`, then `count` rates. Returns
/// the rates, after checking each time agrees with its rate as far as rounding allows.
fn times_and_rates(n: usize, figures: &[&str], count: usize) -> Result<Vec<f64>, ImportError> {
    if figures.len() != 2 * count {
        return Err(ImportError::at(n, format!("expected {count} time(s) in seconds and {count} rate(s), found {} value(s) — truncated?", figures.len())));
    }
    let mut rates = Vec::new();
    for i in 0..count {
        let (t, r) = (figures[i], figures[count + i]);
        let time = time_value(t).ok_or_else(|| {
            ImportError::at(n, format!("expected a time like '0.000241s', found '{t}'"))
        })?;
        let rate = number(r)
            .filter(|v| *v >= 0.0)
            .ok_or_else(|| ImportError::at(n, format!("'{r}' is not a rate per second")))?;
        let time_range = rounding::interval(t.trim_end_matches('s'), time);
        let rate_range = rounding::interval(r, rate);
        if !rounding::time_matches_rate(time_range, rate_range) {
            return Err(ImportError::at(
                n,
                format!(
                    "time '{t}' and rate '{r}' disagree beyond rounding (1/{r} = {:.7}s, outside [{:.7}, {:.7}]s): the row is garbled",
                    1.0 / rate,
                    time_range.0,
                    time_range.1,
                ),
            ));
        }
        rates.push(rate);
    }
    Ok(rates)
}

/// A printed time: `0.000241s`, or `infs` where openssl divided by a zero rate.
fn time_value(t: &str) -> Option<f64> {
    let body = t.strip_suffix('s')?;
    if body == "inf" {
        return Some(f64::INFINITY);
    }
    number(body).filter(|v| *v >= 0.0)
}

fn is_time_token(w: &str) -> bool {
    time_value(w).is_some()
}

/// The header of a public-key table, and which table it opens.
fn public_key_header(t: &str) -> Option<Table> {
    if !(t.contains("/s") && (t.contains("sign") || t.contains("op") || t.contains("keygen"))) {
        return None;
    }
    Some(if t.contains("encaps/s") {
        Table::Kem
    } else if t.contains("keygens/s") {
        Table::Signature
    } else if t.contains("encr./s") {
        Table::RsaFull
    } else {
        Table::PublicKey
    })
}

/// Whether a line can be a row of the symmetric table: its last field is a value as openssl
/// prints them (`1234.56k`, `812.40`). A row that passes this and then fails to read is an
/// error; a line that does not (`real 0m3.007s`, a fence, a prompt) is skipped.
fn looks_like_row(t: &str) -> bool {
    let tokens: Vec<&str> = t.split_whitespace().collect();
    tokens.len() >= 2
        && tokens
            .last()
            .is_some_and(|last| number(last.strip_suffix('k').unwrap_or(last)).is_some())
}

/// `H:…`, `F:…`, `F2:…`, `DT:…`, `R3:…`: an `-mr` line (not a `+` that merely starts a line).
fn is_mr_tag(rest: &str) -> bool {
    rest.split_once(':').is_some_and(|(tag, _)| {
        !tag.is_empty()
            && tag.len() <= 4
            && tag
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    })
}

fn is_command_line(t: &str) -> bool {
    let body = strip_prompt(t);
    (body != t && !body.is_empty() && !body.starts_with(|c: char| c.is_ascii_digit()))
        || speed_command_at(t).is_some()
}

/// Where `openssl speed`, `openssl.exe speed` or a bare `speed ` (the `OpenSSL>` prompt) starts.
fn speed_command_at(t: &str) -> Option<usize> {
    ["openssl speed", "openssl.exe speed", "openssl  speed"]
        .iter()
        .filter_map(|p| t.find(p))
        .min()
        .or_else(|| t.starts_with("speed ").then_some(0))
}

/// The command without the shell prompt: `alix:~# openssl speed …`, `$ time ./apps/openssl speed
/// …` and `OpenSSL> speed …` give `openssl speed …`, `./apps/openssl speed …`, `speed …`.
fn strip_prompt(t: &str) -> &str {
    for p in ["$ ", "# ", "% ", "> ", "OpenSSL> "] {
        if let Some(rest) = t.strip_prefix(p) {
            return strip_prompt(rest.trim());
        }
    }
    if let Some(at) = speed_command_at(t) {
        let start = t[..at]
            .rfind(char::is_whitespace)
            .map(|i| i + 1)
            .unwrap_or(0);
        return t[start..].trim();
    }
    t
}

/// `85 from 79`, `om 156`, `.121212:123.493976 from 39`: what is left of a `Got: … from N` line
/// after another child's stderr line was written into its middle.
fn is_got_fragment(t: &str) -> bool {
    let Some((_, child)) = t.rsplit_once(' ') else {
        return false;
    };
    let word = t[..t.len() - child.len()].split_whitespace().last();
    child.chars().all(|c| c.is_ascii_digit()) && word.is_some_and(|w| "from".ends_with(w))
}

/// `6216915 md5's in 0.99s` (the second half of a progress line split by interleaved output).
fn is_count_line(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.contains(" in ")
        && t.trim_end().ends_with('s')
        && !t.contains(" bits ffdh")
        && !t.contains(" bits ecd")
}

/// Lines openssl speed prints on stdout that carry no figures.
fn is_noise(t: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "To get the most accurate results",
        "program when this computer is idle",
        "First we calculate the approximate speed",
        "WARNING",
        "Warning",
        "Don't understand line",
        "You have chosen to measure elapsed time",
        "instead of user CPU time",
    ];
    // Error messages (`Error initializing …`, an error-stack line `40E7…:error:…`, `… failure`)
    // are not noise: they are stderr merged by `2>&1`, skipped and listed for the user to see.
    PREFIXES.iter().any(|p| t.starts_with(p))
}

fn shorten(t: &str) -> String {
    if t.chars().count() > 80 {
        format!("{}…", t.chars().take(80).collect::<String>())
    } else {
        t.to_string()
    }
}

/// An `-mr` public-key line read: the primitive, its printed name, the operations and a rate
/// for each.
type MrRow = (Mapped, String, Vec<Op>, Vec<f64>);

/// The KEM and signature names the `+R` lines of 3.5+ gave, in order; the n-th `+F9` (`+F10`)
/// line is the n-th KEM (signature).
struct MrSchemeNames {
    kems: Vec<String>,
    signatures: Vec<String>,
    kems_seen: usize,
    signatures_seen: usize,
}

impl MrSchemeNames {
    fn next(&mut self, kem: bool, index: u32) -> Mapped {
        let (names, seen, fallback) = match kem {
            true => (&self.kems, &mut self.kems_seen, "kem"),
            false => (&self.signatures, &mut self.signatures_seen, "signature"),
        };
        *seen += 1;
        names
            .get(*seen - 1)
            .map(|n| names::table_scheme(n, kem))
            .unwrap_or(Mapped {
                primitive: format!("{fallback}-{index}"),
                mapped: false,
            })
    }
}

/// Whether an output's `-mr` public-key figures are rates. Before 1.1.0, +F2/+F3/+F4 carried
/// seconds per operation; since, operations per second. 1.1.0 also added +F6…; 3.2 gave +F2 four
/// values. Without those, RSA verify is faster than sign (so a larger second value means rates),
/// and times are all below one second.
fn mr_figures_are_rates(lines: &[MrPublicKey]) -> bool {
    let modern = lines
        .iter()
        .any(|l| l.tag >= 6 || (l.tag == 2 && l.values.len() == 4));
    modern
        || match lines.iter().find(|l| l.tag == 2) {
            Some(rsa) => rsa.values[1] > rsa.values[0],
            None => !lines
                .iter()
                .filter(|l| (2..=4).contains(&l.tag))
                .all(|l| l.values.iter().all(|v| *v < 1.0)),
        }
}

/// Whether an output's `-mr` public-key lines follow OpenSSL 4.0's numbering: a line only 4.0
/// prints (a nameless `+F7`, a bitless `+F8`, EdDSA's 253 or 456 bits under `+F4`), none only
/// 3.x prints (`+F6`, `+F10`, a named `+F7`, a sized `+F8`), or, with `+F9` lines alone, the
/// `+R18` (signature keygen) progress lines that name them.
fn mr_layout_is_4(lines: &[MrPublicKey], kem_names: &[String], sig_names: &[String]) -> bool {
    let three = lines
        .iter()
        .any(|l| matches!(l.tag, 6 | 10) || (matches!(l.tag, 7 | 8) && !l.four));
    if three {
        return false;
    }
    let four = lines
        .iter()
        .any(|l| l.four || (l.tag == 4 && matches!(l.bits, 253 | 456)));
    four || (lines.iter().any(|l| l.tag == 9) && kem_names.is_empty() && !sig_names.is_empty())
}

/// What one `-mr` public-key line of OpenSSL 4.0 holds; RSA and DSA as before.
fn mr_public_key_row_4(l: &MrPublicKey, schemes: &mut MrSchemeNames) -> MrRow {
    let printed = format!("+F{}:{}:{}", l.tag, l.index, l.bits);
    let larger = || vec![l.values[0].max(l.values[1])];
    match l.tag {
        4 => (
            names::curve_by_index_4("ecdsa", l.index, l.bits),
            printed,
            vec![Op::Sign, Op::Verify],
            l.values.clone(),
        ),
        5 => (
            names::curve_by_index_4("ecdh", l.index, l.bits),
            printed,
            vec![Op::Derive],
            larger(),
        ),
        7 => (
            names::sized("ffdh", l.bits),
            format!("{} bits ffdh", l.bits),
            vec![Op::Derive],
            larger(),
        ),
        8 => (
            schemes.next(true, l.index),
            format!("+F8:{}", l.index),
            vec![Op::Keygen, Op::Encaps, Op::Decaps],
            l.values.clone(),
        ),
        9 => (
            schemes.next(false, l.index),
            format!("+F9:{}", l.index),
            vec![Op::Keygen, Op::Sign, Op::Verify],
            l.values.clone(),
        ),
        _ => mr_public_key_row(l, true, schemes),
    }
}

/// What one `-mr` public-key line (`+F2` … `+F10`) holds.
fn mr_public_key_row(l: &MrPublicKey, rates: bool, schemes: &mut MrSchemeNames) -> MrRow {
    let to_rates = || -> Vec<f64> {
        l.values
            .iter()
            .map(|&v| if rates || v == 0.0 { v } else { 1.0 / v })
            .collect()
    };
    // ECDH and FFDH: time and rate, in an order that changed between versions; the rate is
    // the larger.
    let larger = || vec![l.values[0].max(l.values[1])];
    let (sign_verify, keygen) = (vec![Op::Sign, Op::Verify], Op::Keygen);
    match l.tag {
        2 => {
            let mut ops = sign_verify;
            if l.values.len() == 4 {
                ops.extend([Op::Encrypt, Op::Decrypt]);
            }
            let printed = format!("rsa {} bits", l.bits);
            (names::sized("rsa", l.bits), printed, ops, to_rates())
        }
        3 => {
            let printed = format!("dsa {} bits", l.bits);
            (
                names::sized("dsa", l.bits),
                printed,
                sign_verify,
                to_rates(),
            )
        }
        4 => {
            let m = names::curve_by_index("ecdsa", l.index, l.bits);
            (
                m,
                format!("+F4:{}:{}", l.index, l.bits),
                sign_verify,
                to_rates(),
            )
        }
        5 => {
            let m = names::curve_by_index("ecdh", l.index, l.bits);
            (
                m,
                format!("+F5:{}:{}", l.index, l.bits),
                vec![Op::Derive],
                larger(),
            )
        }
        8 => {
            let printed = format!("{} bits ffdh", l.bits);
            (
                names::sized("ffdh", l.bits),
                printed,
                vec![Op::Derive],
                larger(),
            )
        }
        6 | 7 => (
            names::named_scheme(&l.name),
            l.name.clone(),
            sign_verify,
            l.values.clone(),
        ),
        9 => {
            let ops = vec![keygen, Op::Encaps, Op::Decaps];
            (
                schemes.next(true, l.index),
                format!("+F9:{}", l.index),
                ops,
                l.values.clone(),
            )
        }
        _ => {
            let ops = vec![keygen, Op::Sign, Op::Verify];
            (
                schemes.next(false, l.index),
                format!("+F10:{}", l.index),
                ops,
                l.values.clone(),
            )
        }
    }
}
