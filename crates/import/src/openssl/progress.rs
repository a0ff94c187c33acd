//! Figures from progress lines, for a log cut before the table that would print them:
//! `Doing md5 for 3s on 16 size blocks: 6216915 md5's in 0.99s`, 3.4+'s
//! `Doing ML-KEM-768 keygen ops for 1s: 28874 ML-KEM-768 KEM keygen ops in 0.98s` (and
//! `… signature sign ops in …`), and RSA/DSA's `Doing 2048 bits private rsa sign ops for 10s:
//! 30483 2048 bits private RSA sign ops in 9.96s` (`… bit private rsa's … RSA's in …` before 3.0).
//! The count over the time is the rate openssl's table prints; only cells no table row gave are
//! taken from here, and the run says so (partial).

use super::*;

/// One progress line that carries its count and time.
#[derive(Debug, Clone)]
pub(super) struct ProgressFigure {
    printed: String,
    mapped: Mapped,
    op: Op,
    bytes: Option<u64>,
    rate: f64,
    line: usize,
    /// The kind of table that would print it: 0 symmetric, 1 classic public key, 2 KEM, 3 signature.
    table: u8,
}

impl Parser<'_> {
    /// Keeps the figure of a `Doing …` line (`rest` is what follows `Doing `), if it has one.
    pub(super) fn progress_figure(&mut self, n: usize, rest: &str) {
        if self.seg.multi_lines.is_some() {
            return; // -multi children: the parent's summed table is the figure.
        }
        let Some((what, done)) = rest.split_once(": ") else {
            return;
        };
        let Some(rate_per_op) = count_over_time(done) else {
            return;
        };
        let decrypt = self.options.decrypt;
        if let Some(figure) = symmetric(what, rate_per_op, decrypt)
            .or_else(|| scheme_op(what, done, rate_per_op))
            .or_else(|| rsa_dsa(what, rate_per_op))
        {
            self.seg
                .progress_figures
                .push(ProgressFigure { line: n, ..figure });
        }
    }

    /// Results from progress lines for the kinds of table the segment lacks; what was taken
    /// from them, said in one sentence (`None` when nothing was).
    pub(super) fn results_from_progress(&mut self, seg: &mut Segment) -> Option<String> {
        let figures = std::mem::take(&mut seg.progress_figures);
        let mut taken = Vec::new();
        for f in figures {
            let have_table = if f.table == 0 {
                seg.symmetric_rows > 0
            } else {
                seg.public_key_rows > 0
            };
            let known =
                seg.run.results.iter().any(|r| {
                    r.primitive == f.mapped.primitive && r.op == f.op && r.bytes == f.bytes
                });
            if have_table || known {
                continue;
            }
            taken.push(f.line);
            seg.run.results.push(ImportedResult {
                primitive: f.mapped.primitive.clone(),
                op: f.op,
                bytes: f.bytes,
                rate: f.rate,
                printed_name: f.printed,
                mapped: f.mapped.mapped,
                line: f.line,
                samples: Vec::new(),
                cycles: None,
            });
        }
        let (first, last) = (taken.first()?, taken.last()?);
        Some(format!(
            "{} figure(s) are taken from the progress lines {first}–{last} (their count over their time), the table that prints them being cut off",
            taken.len()
        ))
    }
}

/// `6216915 md5's in 0.99s` → operations per second.
fn count_over_time(done: &str) -> Option<f64> {
    let tokens: Vec<&str> = done.split_whitespace().collect();
    if tokens.len() < 3 || tokens[tokens.len() - 2] != "in" {
        return None;
    }
    let count: f64 = tokens[0].parse::<u64>().ok()? as f64;
    let secs = number(tokens[tokens.len() - 1].strip_suffix('s')?)?;
    (secs > 0.0).then(|| count / secs)
}

/// `md5 for 3s on 16 size blocks`, `sha256 ops for 3s on 16384 size blocks`.
fn symmetric(what: &str, ops: f64, decrypt: bool) -> Option<ProgressFigure> {
    let (head, blocks) = what.split_once(" on ")?;
    let bytes: u64 = blocks.strip_suffix(" size blocks")?.trim().parse().ok()?;
    let name = head.split_once(" for ").map_or(head, |(n, _)| n);
    let name = name.strip_suffix(" ops").unwrap_or(name);
    let (mapped, op) = names::symmetric(name, decrypt);
    Some(ProgressFigure {
        printed: name.to_string(),
        mapped,
        op,
        bytes: Some(bytes),
        rate: ops * bytes as f64,
        line: 0,
        table: 0,
    })
}

/// 3.4+: `ML-KEM-768 keygen ops for 1s` with `… ML-KEM-768 KEM keygen ops in 0.98s`, or
/// `mldsa44 signs ops for 2s` with `… mldsa44 signature sign ops in 1.94s`.
fn scheme_op(what: &str, done: &str, ops: f64) -> Option<ProgressFigure> {
    let kem = done.contains(" KEM ");
    if !kem && !done.contains(" signature ") {
        return None;
    }
    let head = what.split_once(" ops for ")?.0;
    let (name, verb) = head.rsplit_once(' ')?;
    let op = match verb {
        "keygen" => Op::Keygen,
        "encaps" => Op::Encaps,
        "decaps" => Op::Decaps,
        "signs" | "sign" => Op::Sign,
        "verify" => Op::Verify,
        _ => return None,
    };
    Some(ProgressFigure {
        printed: name.to_string(),
        mapped: names::table_scheme(name, kem),
        op,
        bytes: None,
        rate: ops,
        line: 0,
        table: if kem { 2 } else { 3 },
    })
}

/// `2048 bits private rsa sign ops for 10s`, `2048 bit public rsa's for 10s`, DSA alike.
fn rsa_dsa(what: &str, ops: f64) -> Option<ProgressFigure> {
    let tokens: Vec<&str> = what.split_whitespace().collect();
    if tokens.len() < 4 || !tokens[1].starts_with("bit") {
        return None;
    }
    let bits: u32 = tokens[0].parse().ok()?;
    let family = tokens[3].trim_end_matches("'s");
    if family != "rsa" && family != "dsa" {
        return None;
    }
    let op = match (tokens[2], tokens.get(4).copied()) {
        ("private", Some("sign") | Some("for")) | ("sign", _) => Op::Sign,
        ("public", Some("verify") | Some("for")) | ("verify", _) => Op::Verify,
        _ => return None,
    };
    Some(ProgressFigure {
        printed: format!("{family} {bits} bits"),
        mapped: names::sized(family, bits),
        op,
        bytes: None,
        rate: ops,
        line: 0,
        table: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_give_their_count_over_their_time() {
        let f = symmetric("md5 for 3s on 16 size blocks", 1000.0, false).unwrap();
        assert_eq!((f.mapped.primitive.as_str(), f.bytes), ("md5", Some(16)));
        assert_eq!(f.rate, 16000.0);
        let done = "28874 ML-KEM-768 KEM keygen ops in 0.98s";
        let ops = count_over_time(done).unwrap();
        assert!((ops - 28874.0 / 0.98).abs() < 1e-9);
        let f = scheme_op("ML-KEM-768 keygen ops for 1s", done, ops).unwrap();
        assert_eq!(
            (f.mapped.primitive.as_str(), f.op),
            ("ml-kem-768", Op::Keygen)
        );
        let f = rsa_dsa("2048 bits private rsa sign ops for 10s", 1.0).unwrap();
        assert_eq!((f.mapped.primitive.as_str(), f.op), ("rsa-2048", Op::Sign));
        let f = rsa_dsa("1024 bit public rsa's for 10s", 1.0).unwrap();
        assert_eq!(
            (f.mapped.primitive.as_str(), f.op),
            ("rsa-1024", Op::Verify)
        );
        assert!(count_over_time("6216915 md5's").is_none());
    }
}
