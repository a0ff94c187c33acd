//! The profile document: what `cryptospeed profile` found out about one cell (the instruction
//! mix, every cache configuration, every predictor, the ILP grid, and how it was traced). One
//! type, written by `profile` (printed with `--format json`, stored as the `profile` table's
//! JSON text) and read back by `report`; its JSON shape is a stored format, so fields are only
//! ever added, with a default for documents written before them.

use crate::analysis::Analysis;
use crate::region::Mix;
use cryptospeed_model::CounterValues;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileDocument {
    pub primitive: String,
    pub implementation: String,
    pub bytes: u64,
    #[serde(default)]
    pub warmup: u64,
    #[serde(default)]
    pub iters: u64,
    #[serde(default)]
    pub tracer: String,
    /// The instruction set of the traced code (`x86_64`, `ppc64le`, `aarch64`, `riscv64`).
    /// Written only when it is not x86-64, so x86-64 documents keep the bytes they always had
    /// (and documents stored before cross variants were profiled read as x86-64).
    #[serde(default = "x86_64", skip_serializing_if = "is_x86_64")]
    pub architecture: String,
    /// Why there is no native run (a cross variant, timed by nothing here), when there is none
    /// for that reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_skipped: Option<String>,
    #[serde(default)]
    pub capabilities_native: Option<String>,
    #[serde(default)]
    pub capabilities_traced: String,
    pub path_warning: Option<String>,
    pub instructions: u64,
    #[serde(default)]
    pub bytes_processed: u64,
    pub instructions_per_byte: f64,
    /// Native TSC cycles per byte of the code path that was traced: measured under
    /// `native_mask` when one was derived (see `capabilities_masked`), else unmasked.
    pub tsc_cycles_per_byte: Option<f64>,
    /// The CPU-feature mask derived from what valgrind's CPU lacks (`no-avx512+no-shani` …),
    /// under which the native figure above was measured; None when none was needed or possible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_mask: Option<String>,
    /// The capability vector the library reported natively under that mask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities_masked: Option<String>,
    /// The native figure without any mask (the CPU's own path), when a mask was derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tsc_cycles_per_byte_unmasked: Option<f64>,
    /// The native run's hardware counters, or why there are none.
    #[serde(default = "no_counters")]
    pub counters: Result<CounterValues, String>,
    pub mix: Mix,
    pub analysis: Analysis,
    #[serde(default)]
    pub trace_instructions_total: u64,
    #[serde(default)]
    pub trace_seconds: f64,
    #[serde(default)]
    pub simulate_seconds: f64,
}

fn x86_64() -> String {
    crate::isa::Isa::X86_64.name().to_string()
}

fn is_x86_64(architecture: &str) -> bool {
    architecture == crate::isa::Isa::X86_64.name()
}

fn no_counters() -> Result<CounterValues, String> {
    Err("not recorded".into())
}

impl ProfileDocument {
    /// The timing model's cycles per byte for the whole measured part: its cycles per
    /// instruction on the timed sample times the measured instructions per byte.
    pub fn model_cycles_per_byte(&self, r: &crate::timing::TimingResult) -> f64 {
        if r.instructions == 0 {
            return 0.0;
        }
        r.cycles as f64 / r.instructions as f64 * self.instructions_per_byte
    }

    /// The run of the default core, if the timing model ran.
    pub fn default_timing(&self) -> Option<&crate::timing::sweeps::TimingRun> {
        self.analysis.timing.iter().find(|t| t.sweep == "default")
    }

    /// Reads a stored document (the `profile` table's text).
    pub fn from_json(text: &str) -> Result<ProfileDocument, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The stored form: compact JSON, as the `profile` table has always held it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a profile document serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document stored by `cryptospeed profile md5@64 --grid single --no-native` before the
    /// type was shared (see tests/data/README.md).
    const STORED: &str = include_str!("../tests/data/profile-md5-64.json");

    #[test]
    fn a_stored_document_reads_and_writes_back_byte_for_byte() {
        let doc = ProfileDocument::from_json(STORED).unwrap();
        assert_eq!(doc.primitive, "md5");
        assert_eq!(doc.mix.instructions, doc.instructions);
        // Stored before profiles named their instruction set: x86-64.
        assert_eq!(doc.architecture, "x86_64");
        assert!(doc.native_skipped.is_none());
        assert_eq!(doc.to_json(), STORED.trim_end());
    }

    #[test]
    fn a_cross_profile_names_its_instruction_set_and_why_it_has_no_native_run() {
        let mut doc = ProfileDocument::from_json(STORED).unwrap();
        doc.architecture = "ppc64le".into();
        doc.native_skipped = Some("no native run: built for ppc64le".into());
        let json = doc.to_json();
        assert!(json.contains(r#""architecture":"ppc64le""#), "{json}");
        let back = ProfileDocument::from_json(&json).unwrap();
        assert_eq!(back.architecture, "ppc64le");
        assert_eq!(back.native_skipped, doc.native_skipped);
    }

    #[test]
    fn counters_keep_their_shape() {
        let mut doc = ProfileDocument::from_json(STORED).unwrap();
        doc.counters = Ok(CounterValues {
            values: vec![("cycles".into(), 12), ("instructions".into(), 34)],
        });
        let json = doc.to_json();
        assert!(
            json.contains(r#""counters":{"Ok":{"values":[["cycles",12],["instructions",34]]}}"#)
        );
        assert_eq!(ProfileDocument::from_json(&json).unwrap().to_json(), json);
    }

    #[test]
    fn an_older_document_without_the_run_details_still_reads() {
        let mut v: serde_json::Value = serde_json::from_str(STORED).unwrap();
        let obj = v.as_object_mut().unwrap();
        for key in ["warmup", "iters", "tracer", "counters", "trace_seconds"] {
            obj.remove(key);
        }
        let doc = ProfileDocument::from_json(&v.to_string()).unwrap();
        assert_eq!(doc.iters, 0);
        assert!(doc.counters.is_err());
    }
}
