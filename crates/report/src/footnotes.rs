//! Footnotes for declared deviations (issue 34): where a column's timed call departs from the
//! catalog's definition, the figure carries a marker (`¹`) and the table a numbered line saying
//! how. The report cannot see the implementations' declarations; the binary passes the ones that
//! apply to the document's cells in as plain data ([`Deviation`]), and the writers only number
//! and place them.

use cryptospeed_model::Op;

/// One cell's declared deviation: `column` as the document names it (an implementation in a
/// run, a side in a comparison), the cell's primitive and operation, and the one-line text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deviation {
    pub column: String,
    pub primitive: String,
    pub op: Op,
    pub text: String,
}

/// The deviations of one document, numbered by distinct text in the order given.
#[derive(Debug, Clone, Default)]
pub struct Footnotes {
    pub list: Vec<Deviation>,
}

impl Footnotes {
    pub fn new(list: Vec<Deviation>) -> Footnotes {
        Footnotes { list }
    }

    /// The deviation of a cell, if one was declared.
    pub fn text(&self, column: &str, primitive: &str, op: Op) -> Option<&str> {
        self.list
            .iter()
            .find(|d| d.column == column && d.primitive == primitive && d.op == op)
            .map(|d| d.text.as_str())
    }

    /// The distinct texts, in the order of their numbers.
    fn texts(&self) -> Vec<&str> {
        let mut texts: Vec<&str> = Vec::new();
        for d in &self.list {
            if !texts.contains(&d.text.as_str()) {
                texts.push(&d.text);
            }
        }
        texts
    }

    /// ` ¹` after a figure whose cell deviates, else nothing.
    pub fn marker(&self, column: &str, primitive: &str, op: Op) -> String {
        let Some(text) = self.text(column, primitive, op) else {
            return String::new();
        };
        let n = self.texts().iter().position(|t| *t == text).unwrap_or(0) + 1;
        format!(" {}", superscript(n))
    }

    /// [`marker`](Self::marker) padded to the widest marker of `column`, so right-aligned
    /// figures of one column stay aligned whether marked or not.
    pub fn aligned_marker(&self, column: &str, primitive: &str, op: Op) -> String {
        let mark = self.marker(column, primitive, op);
        let pad = self.widest(column) - mark.chars().count();
        mark + &" ".repeat(pad)
    }

    /// As much blank as the widest marker of `column`, for a figure that is no cell's (a
    /// geomean) in a marked column.
    pub fn blank(&self, column: &str) -> String {
        " ".repeat(self.widest(column))
    }

    fn widest(&self, column: &str) -> usize {
        let mine = self.list.iter().filter(|d| d.column == column);
        let widths = mine.map(|d| self.marker(column, &d.primitive, d.op).chars().count());
        widths.max().unwrap_or(0)
    }

    /// One line per footnote: `¹ go, ring: TEXT`, the columns that declare it first.
    pub fn lines(&self) -> Vec<String> {
        let texts = self.texts();
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let mut columns: Vec<&str> = Vec::new();
                for d in self.list.iter().filter(|d| d.text == *text) {
                    if !columns.contains(&d.column.as_str()) {
                        columns.push(&d.column);
                    }
                }
                format!("{} {}: {text}", superscript(i + 1), columns.join(", "))
            })
            .collect()
    }
}

/// `n` in superscript digits (`12` → `¹²`).
pub fn superscript(n: usize) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .bytes()
        .map(|b| DIGITS[usize::from(b - b'0')])
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two columns sharing one text and a third with its own, as the fixtures use them.
    pub fn sample(columns: [&str; 2]) -> Footnotes {
        let d = |column: &str, primitive: &str, op, text: &str| Deviation {
            column: column.into(),
            primitive: primitive.into(),
            op,
            text: text.into(),
        };
        Footnotes::new(vec![
            d(
                columns[0],
                "rsa-2048",
                Op::Sign,
                "the input is hashed first",
            ),
            d(
                columns[1],
                "rsa-2048",
                Op::Sign,
                "the input is hashed first",
            ),
            d(
                columns[1],
                "x25519",
                Op::Derive,
                "the peer key is parsed per call",
            ),
        ])
    }

    #[test]
    fn texts_are_numbered_once_and_name_their_columns() {
        let f = sample(["a", "b"]);
        assert_eq!(f.marker("a", "rsa-2048", Op::Sign), " ¹");
        assert_eq!(f.marker("b", "x25519", Op::Derive), " ²");
        assert_eq!(f.marker("a", "x25519", Op::Derive), "");
        assert_eq!(f.aligned_marker("a", "x25519", Op::Derive), "  ");
        assert_eq!(
            f.lines(),
            [
                "¹ a, b: the input is hashed first",
                "² b: the peer key is parsed per call"
            ]
        );
        assert_eq!(superscript(12), "¹²");
    }

    fn line<'a>(text: &'a str, needle: &str) -> &'a str {
        let found = text.lines().find(|l| l.contains(needle));
        found.unwrap_or_else(|| panic!("no line with {needle:?} in\n{text}"))
    }

    #[test]
    fn every_run_format_that_shows_figures_shows_their_deviations() {
        let record = crate::run::fixture::record();
        let options = crate::Options {
            footnotes: sample(["openssl", "openssl"]),
            ..Default::default()
        };
        let out = |name| crate::render(&record, crate::Format::parse(name).unwrap(), &options);
        let matrix = out("matrix");
        assert!(
            line(&matrix, " sign ").trim_end().ends_with("† ¹"),
            "{matrix}"
        );
        assert!(!line(&matrix, " verify ").contains('¹'), "{matrix}");
        assert!(
            matrix.ends_with("² openssl: the peer key is parsed per call\n"),
            "{matrix}"
        );
        let md = out("markdown");
        assert!(md.contains("| rsa-2048 | sign | 4000.0 ¹ |"), "{md}");
        assert!(
            md.contains("¹ openssl: the input is hashed first  \n²"),
            "{md}"
        );
        let text = out("openssl");
        assert!(
            text.contains("# deviates: rsa-2048 sign: the input is hashed first\n"),
            "{text}"
        );
        let json: serde_json::Value = serde_json::from_str(&out("json")).unwrap();
        assert_eq!(json[3]["deviation"], "the input is hashed first");
        assert!(json[1].get("deviation").is_none(), "{}", json[1]);
        let csv = out("csv");
        assert!(
            csv.lines().next().unwrap().ends_with(",reason,deviation"),
            "{csv}"
        );
        assert!(line(&csv, ",rsa-2048,sign,").ends_with(",the input is hashed first"));
    }

    #[test]
    fn compare_tables_mark_each_sides_figure_and_list_the_footnotes() {
        let c = crate::compare::fixture::comparison();
        let view = crate::compare::View {
            footnotes: sample(["base", "fast"]),
            ..Default::default()
        };
        let text = crate::compare::render(&c, "text", &view).unwrap();
        let rsa = line(&text, "rsa-2048 sign");
        assert_eq!(rsa.matches('¹').count(), 2, "{text}");
        assert!(line(&text, "x25519").ends_with("x ²"), "{text}");
        assert!(text.ends_with("¹ base, fast: the input is hashed first\n² fast: the peer key is parsed per call\n"), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&crate::compare::render(&c, "json", &view).unwrap()).unwrap();
        assert_eq!(json["deviations"][2]["side"], "fast");
        let csv = crate::compare::render(&c, "csv", &view).unwrap();
        assert!(line(&csv, "x25519,derive,,fast,").ends_with(",the peer key is parsed per call"));
    }
}
