//! Variants built from source: an OpenSSL-compatible tree (a release the `openssl-src` crate
//! carries, a directory, a `.tar.gz`) built with a chosen compiler, flags and Configure options
//! into a libcrypto that a worker loads by path, cached by a hash of source and configuration.
//!
//! This crate builds and keeps variants and checks that a cached variant's files are the bytes
//! it was cached with (crate::files); running its known-answer tests (in a worker, every time it
//! is used) and timing it belong to the command layer, which records the last outcome in the
//! manifest for display only.

pub mod arch;
pub mod build;
pub mod c_worker;
pub mod cache;
pub mod cmake;
pub mod compiler;
pub mod cross;
pub mod files;
pub mod source;
mod steps;

pub use arch::Arch;
pub use build::{build, split_flags, BuildFailure, BuildOutcome, BuildRequest};
pub use cache::{BuildStatus, Cache, Entry, KatOutcome, Manifest};
pub use source::SourceSpec;
