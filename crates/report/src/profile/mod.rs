//! Writers for profile documents (`profile --format`): the text tables, JSON and long-format
//! CSV. Each format is one file with its `FORMAT` entry and one line in [`FORMATS`]; a profile
//! format takes no view options.

mod csv;
mod json;
mod text;

use crate::registry::{self, OutputFormat};
use cryptospeed_sim::profile::ProfileDocument;

/// Every format `profile --format` accepts.
pub const FORMATS: &[OutputFormat<[ProfileDocument], ()>] =
    &[text::FORMAT, json::FORMAT, csv::FORMAT];

const NAMES_ARRAY: [&str; FORMATS.len()] = registry::names(FORMATS);

/// The names `profile --format` accepts.
pub const NAMES: &[&str] = &NAMES_ARRAY;

/// `profiles` as the format called `format`; `None` for an unknown name.
pub fn render(profiles: &[ProfileDocument], format: &str) -> Option<String> {
    registry::render(FORMATS, format, profiles, &())
}

#[cfg(test)]
pub(crate) mod fixture {
    use cryptospeed_sim::profile::ProfileDocument;

    /// md5 at 64 bytes, `--grid single --no-native`, as `cryptospeed profile` stored it.
    pub fn document() -> ProfileDocument {
        stored(include_str!(
            "../../tests/data/profile-md5-64.text-doc.json"
        ))
    }

    pub fn stored(json: &str) -> ProfileDocument {
        ProfileDocument::from_json(json).unwrap()
    }
}
