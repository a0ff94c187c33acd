//! How every output format is registered, for runs, comparisons and profiles alike: a format is
//! a name, its aliases and one function from the document (with its view options) to text.
//! Each kind of document keeps a table of them (`run::FORMATS`, `compare::FORMATS`,
//! `profile::FORMATS`); adding a format is one file with its `FORMAT` entry plus one line in
//! its table, and the harness at the bottom checks every entry of every table.

/// One output format of documents `D` shown with options `O`.
pub struct OutputFormat<D: ?Sized + 'static, O: 'static> {
    /// What `--format` calls it.
    pub name: &'static str,
    /// Other spellings `--format` accepts (`md` for `markdown`).
    pub aliases: &'static [&'static str],
    pub write: fn(&D, &O) -> String,
}

/// The format of `table` called `name` or one of its aliases.
pub fn find<D: ?Sized, O>(
    table: &'static [OutputFormat<D, O>],
    name: &str,
) -> Option<&'static OutputFormat<D, O>> {
    table
        .iter()
        .find(|f| f.name == name || f.aliases.contains(&name))
}

/// The names of a table's formats, in order (aliases left out); `N` is the table's length.
pub const fn names<const N: usize, D: ?Sized, O>(
    table: &[OutputFormat<D, O>],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = table[i].name;
        i += 1;
    }
    out
}

/// Every spelling a table accepts, each name followed by its aliases (for clap's parser).
pub fn spellings<D: ?Sized, O>(table: &'static [OutputFormat<D, O>]) -> Vec<&'static str> {
    table
        .iter()
        .flat_map(|f| std::iter::once(f.name).chain(f.aliases.iter().copied()))
        .collect()
}

/// The names of a table for a message: `text, json or csv`.
pub fn in_words<D: ?Sized, O>(table: &'static [OutputFormat<D, O>]) -> String {
    let names: Vec<&str> = table.iter().map(|f| f.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Writes `doc` as the format called `name`; `None` when the table has no such format.
pub fn render<D: ?Sized, O>(
    table: &'static [OutputFormat<D, O>],
    name: &str,
    doc: &D,
    options: &O,
) -> Option<String> {
    find(table, name).map(|f| (f.write)(doc, options))
}

#[cfg(test)]
mod tests {
    //! One harness for every format of every table: names are unique, each name and alias finds
    //! its own entry, and each writer gives the same non-empty, newline-terminated text twice.

    use super::*;
    use crate::{compare, profile, run};

    fn check_table<D: ?Sized, O>(table: &'static [OutputFormat<D, O>], doc: &D, options: &O) {
        let mut seen: Vec<&str> = Vec::new();
        for f in table {
            for name in std::iter::once(&f.name).chain(f.aliases) {
                assert!(!seen.contains(name), "{name} is registered twice");
                seen.push(name);
                let found = find(table, name).unwrap();
                assert!(std::ptr::eq(found, f), "{name} finds another format");
            }
            let text = (f.write)(doc, options);
            assert!(!text.is_empty(), "{} wrote nothing", f.name);
            assert!(text.ends_with('\n'), "{} leaves its last line open", f.name);
            assert_eq!(
                text,
                (f.write)(doc, options),
                "{} is not deterministic",
                f.name
            );
        }
        assert!(find(table, "no-such-format").is_none());
    }

    #[test]
    fn spellings_and_words_follow_the_tables() {
        assert_eq!(
            spellings(compare::FORMATS),
            ["text", "markdown", "md", "csv", "json"]
        );
        assert_eq!(in_words(profile::FORMATS), "text, json or csv");
    }

    #[test]
    fn every_run_format() {
        let options = run::Options {
            ci: true,
            cycles: true,
            percentiles: true,
            footnotes: crate::footnotes::tests::sample(["openssl", "openssl"]),
        };
        check_table(run::FORMATS, &run::fixture::record(), &options);
        assert_eq!(run::Format::NAMES.len(), run::FORMATS.len());
    }

    #[test]
    fn every_compare_format() {
        let view = compare::View {
            detail: true,
            ..Default::default()
        };
        check_table(compare::FORMATS, &compare::fixture::comparison(), &view);
    }

    #[test]
    fn every_profile_format() {
        check_table(profile::FORMATS, &[profile::fixture::document()], &());
    }
}
