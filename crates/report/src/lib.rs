//! Everything cryptospeed writes for people and scripts: the formats of a run, of a comparison
//! and of a profile (one file each, one table per kind of document, registered the same way in
//! [`registry`]), and the HTML report with its charts, drawn from [`data`].

pub mod compare;
pub mod data;
pub mod figures;
pub mod footnotes;
pub mod html;
pub mod html_comparison;
pub mod html_definitions;
pub mod markup;
pub mod percentiles;
pub mod policy;
pub mod profile;
pub mod registry;
pub mod run;

pub use footnotes::{Deviation, Footnotes};
pub use registry::OutputFormat;
pub use run::{render, Format, Options};
