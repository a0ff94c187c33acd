//! Two outputs pasted side by side (`sdiff` / `diff -y` of a before and an after run): every
//! line is the left output's line, padding to a fixed column, an optional gutter mark (`|`, `<`,
//! `>`), a tab, and the right output's line. Such a file is no single log, so it is tried only
//! after it was refused as one: it is split at that column into its two columns, each read as a
//! log of its own, and each output keeps which column it came from (`side-by-side`). Line
//! numbers stay the file's.

use crate::{ImportError, ImportOptions, ParsedLog};

/// The display column (tabs every 8) where each tab run of `line` ends.
fn tab_run_ends(line: &str) -> Vec<usize> {
    let (mut col, mut ends, mut in_tabs) = (0, Vec::new(), false);
    for c in line.chars() {
        if c == '\t' {
            col = (col / 8 + 1) * 8;
            in_tabs = true;
        } else {
            if in_tabs {
                ends.push(col);
            }
            in_tabs = false;
            col += 1;
        }
    }
    if in_tabs {
        ends.push(col);
    }
    ends
}

/// The column most non-empty lines break at, if at least 3 and 80% of them do.
fn split_column(text: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for line in &lines {
        for end in tab_run_ends(line) {
            match counts.iter_mut().find(|(c, _)| *c == end) {
                Some((_, n)) => *n += 1,
                None => counts.push((end, 1)),
            }
        }
    }
    let (column, n) = counts.into_iter().max_by_key(|&(c, n)| (n, c))?;
    (column >= 16 && n >= 3 && n * 5 >= lines.len() * 4).then_some(column)
}

/// `line` cut at display column `column`: the left part without its padding and gutter mark,
/// and the right part (empty where the line does not reach it).
fn halves(line: &str, column: usize) -> (String, String) {
    let mut col = 0;
    for (i, c) in line.char_indices() {
        if col >= column && c != '\t' {
            return (left_of(&line[..i]), line[i..].to_string());
        }
        col = if c == '\t' {
            (col / 8 + 1) * 8
        } else {
            col + 1
        };
    }
    (left_of(line), String::new())
}

/// The left column's text: trailing padding and a gutter mark (`|`, `<`, `>`) removed.
fn left_of(part: &str) -> String {
    let t = part.trim_end();
    let t = match t.strip_suffix(['|', '<', '>']) {
        Some(rest) if rest.is_empty() || rest.ends_with([' ', '\t']) => rest.trim_end(),
        _ => t,
    };
    t.to_string()
}

/// The file read as two side-by-side outputs, or `None` when it is not laid out that way (or
/// neither column reads): each column's outputs marked with their column, the left's first.
pub(crate) fn read_columns(
    text: &str,
    format: Option<&str>,
    options: &ImportOptions,
) -> Option<ParsedLog> {
    let column = split_column(text)?;
    let (mut left, mut right) = (String::new(), String::new());
    for line in text.lines() {
        let (l, r) = halves(line.strip_suffix('\r').unwrap_or(line), column);
        left.push_str(&l);
        left.push('\n');
        right.push_str(&r);
        right.push('\n');
    }
    let mut log = ParsedLog::default();
    for (name, half) in [("left", left), ("right", right)] {
        match crate::read_one(&half, format, options) {
            Ok(part) => add(&mut log, part, name),
            Err(e) => log.warnings.push(side_error(name, &e)),
        }
    }
    (!log.runs.is_empty()).then_some(log)
}

fn side_error(name: &str, e: &ImportError) -> String {
    format!("the {name} column of the side-by-side file did not read: {e}")
}

/// One column's outputs, skipped lines and warnings joined to the file's.
fn add(log: &mut ParsedLog, part: ParsedLog, name: &str) {
    for mut run in part.runs {
        run.set(
            "side-by-side",
            format!("the {name} column of two outputs side by side"),
        );
        log.runs.push(run);
    }
    for (n, line) in part.skipped {
        if !line.trim().is_empty() {
            log.skipped.push((n, format!("({name}) {line}")));
        }
    }
    let prefixed = part
        .warnings
        .into_iter()
        .map(|w| format!("{name} column: {w}"));
    log.warnings.extend(prefixed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_splits_at_the_column_with_its_gutter_mark_removed() {
        let line = "RNG        35 MB took 1.053 seconds,   33.224 MB/s   |\tRNG   160 MB";
        let column = tab_run_ends(line)[0];
        assert_eq!(column, 56);
        let (l, r) = halves(line, column);
        assert_eq!(l, "RNG        35 MB took 1.053 seconds,   33.224 MB/s");
        assert_eq!(r, "RNG   160 MB");
        assert_eq!(halves("only left\t\t\t\t\t\t<", 48).0, "only left");
    }

    #[test]
    fn go_bench_rows_with_their_tabs_are_not_two_columns_unless_refused() {
        // Go aligns its rows with tabs too: split_column finds a column, so read_columns is
        // tried only after the file was refused as one log (crate::read).
        let go = "BenchmarkA-8   \t  100\t  10 ns/op\nBenchmarkB-8   \t  100\t  12 ns/op\n";
        assert!(crate::read(go, None, &ImportOptions::default()).is_ok());
    }
}
