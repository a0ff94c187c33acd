//! The report's charts. Each kind is one module with a [`FigureKind`] constant and one line in
//! [`KINDS`]; `cryptospeed report` draws every kind, `cryptospeed chart KIND` one figure of one.

mod cycles;
mod misses;
mod mix;
mod predictors;
mod speedup;
mod throughput;
mod timing;

use crate::data::ReportData;

/// One drawn chart.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Unique in a report; `cryptospeed chart --id` selects by it.
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    pub svg: String,
    /// What the reader should know to read it (basis, size, caveats).
    pub caption: String,
}

pub struct FigureKind {
    pub name: &'static str,
    /// Heading of its report section.
    pub section: &'static str,
    /// One line for `--help` and the section's introduction.
    pub about: &'static str,
    pub build: fn(&ReportData<'_>) -> Vec<Figure>,
}

pub const KINDS: &[FigureKind] = &[
    throughput::KIND,
    speedup::KIND,
    cycles::KIND,
    mix::KIND,
    predictors::KIND,
    misses::KIND,
    timing::KIND,
];

pub fn kind(name: &str) -> Option<&'static FigureKind> {
    KINDS.iter().find(|k| k.name == name)
}

/// Lower-case letters, digits and dashes: a figure id from its parts.
pub(crate) fn slug(parts: &[&str]) -> String {
    let mut s = String::new();
    for p in parts {
        if !s.is_empty() {
            s.push('-');
        }
        for c in p.chars() {
            s.push(if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            });
        }
    }
    s
}
