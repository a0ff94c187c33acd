//! The worker protocol: one JSON object per line, requests on the worker's stdin, replies on its
//! stdout, strictly one reply per request. Versioned by [`PROTOCOL_VERSION`]; documented in
//! docs/worker-protocol.md so a worker in another language can implement it.

use crate::vectors::PrimitiveVectors;
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Sample, Variant};
use serde::{Deserialize, Serialize};

/// Bumped on any incompatible change to the messages below.
pub const PROTOCOL_VERSION: u32 = 2;

/// The inputs of an agreement check, hex-encoded: every implementation that offers the primitive
/// computes on exactly these bytes (see `cryptospeed_catalog::agreement`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgreementInputs {
    pub key: String,
    pub iv: String,
    pub msg: String,
    pub aad: String,
    pub peer: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Request {
    /// First message: the worker answers with what it is.
    Hello { protocol: u32 },
    /// Which of these primitives the worker offers, with reasons for the rest.
    Availability { primitives: Vec<String> },
    /// Run a primitive's known-answer tests.
    Verify { primitive: String },
    /// Time one cell (its known-answer tests run first if they have not yet).
    Measure {
        cell: CellSpec,
        config: MeasureConfig,
    },
    /// Compute the primitive on fixed inputs, for the cross-implementation agreement check.
    Agree {
        primitive: String,
        inputs: AgreementInputs,
    },
    /// Check a signature another implementation made (`public` as that implementation reported
    /// it: a SEC1 point for ECDSA).
    CheckSignature {
        primitive: String,
        public: String,
        msg: String,
        signature: String,
    },
    /// Time `iters` calls of one cell and report the clocks: the orchestrator-driven sampling
    /// used by workers that answer `hello` with `"measures": false` (the Go worker).
    Sample { cell: CellSpec, iters: u64 },
    /// Run one cell for `cryptospeed profile`: known-answer tests, set-up, then `warmup` calls
    /// between the warm-up and measure markers and `iters` calls between the measure and end
    /// markers (see `marker.rs`). Nothing is timed.
    Profile {
        cell: CellSpec,
        warmup: u64,
        iters: u64,
    },
    /// The catalog's parameters, known-answer vectors, agreement inputs and shipped keys, sent
    /// once right after `hello` to a worker that asked for them (`wants_vectors`): a worker in
    /// another language runs the same known answers without a copy of its own.
    Vectors { primitives: Vec<PrimitiveVectors> },
    /// Exit cleanly.
    Quit,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AvailabilityEntry {
    pub primitive: String,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The library module that serves the primitive, with its version, where the worker says
    /// (the Go worker: `crypto/mlkem (go1.26.8)`, `github.com/cloudflare/circl/… (v1.6.4)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Response {
    Hello {
        protocol: u32,
        variant: Variant,
        /// True when the worker serves `measure` itself; false when the orchestrator must drive
        /// sampling through `sample` requests.
        #[serde(default = "yes")]
        measures: bool,
        /// True when the worker needs the catalog's vectors (`vectors`) before it can run
        /// known-answer tests; absent (false) for workers that carry the catalog.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wants_vectors: bool,
    },
    /// The cell ran for a profile.
    Profiled {
        /// True when a valgrind tool answered the markers (cstrace); false under lackey or
        /// natively.
        marked: bool,
        /// Entry addresses of the warm-up, measure and end marker functions (for lackey).
        marker_addresses: Vec<u64>,
        /// The worker's /proc/self/maps at the end marker (for code bytes and attribution).
        maps: String,
    },
    Availability {
        entries: Vec<AvailabilityEntry>,
    },
    Verify {
        primitive: String,
        ok: bool,
        detail: String,
        /// A handshake cell's bytes per flight as its check counted them, from workers that
        /// leave sampling to the orchestrator (the Go worker); optional, older peers skip it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        flights: Vec<u64>,
    },
    Measurement {
        measurement: Measurement,
    },
    /// Result of `agree`: `output` hex; `public` (hex) for randomised signatures, which the other
    /// implementations check instead of comparing bytes.
    Agreement {
        primitive: String,
        output: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        public: String,
    },
    Checked {
        primitive: String,
        ok: bool,
        #[serde(default)]
        detail: String,
    },
    Sample {
        sample: Sample,
    },
    /// The vectors were read: how many primitives they describe.
    Vectors {
        count: usize,
    },
    Bye,
    /// The request could not be served (unknown primitive, malformed line, wrong version).
    Error {
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_the_documented_shape() {
        let r = serde_json::to_string(&Request::Verify {
            primitive: "md5".into(),
        })
        .unwrap();
        assert_eq!(r, r#"{"cmd":"verify","primitive":"md5"}"#);
        let back: Response = serde_json::from_str(
            r#"{"reply":"verify","primitive":"md5","ok":true,"detail":"RFC 1321"}"#,
        )
        .unwrap();
        assert!(matches!(back, Response::Verify { ok: true, .. }));
        // The Go worker's handshake check adds the bytes it counted on the wire.
        let back: Response = serde_json::from_str(
            r#"{"reply":"verify","primitive":"h","ok":true,"detail":"","flights":[1,2,3,0]}"#,
        )
        .unwrap();
        assert!(matches!(back, Response::Verify { flights, .. } if flights == [1, 2, 3, 0]));
    }

    #[test]
    fn wants_vectors_is_optional_in_hello() {
        // A worker that carries the catalog says nothing; one in another language asks.
        let rust = serde_json::to_string(&Response::Hello {
            protocol: PROTOCOL_VERSION,
            variant: Variant::default(),
            measures: true,
            wants_vectors: false,
        })
        .unwrap();
        assert!(!rust.contains("wants_vectors"), "{rust}");
        let go: Response = serde_json::from_str(
            r#"{"reply":"hello","protocol":2,"variant":{"label":"go","implementation":"go","version":"","library":"","build_info":[],"capabilities":"","feature_mask":""},"measures":false,"wants_vectors":true}"#,
        )
        .unwrap();
        assert!(matches!(
            go,
            Response::Hello {
                measures: false,
                wants_vectors: true,
                ..
            }
        ));
        let line = serde_json::to_string(&Request::Vectors {
            primitives: vec![crate::vectors::of(
                cryptospeed_catalog::lookup("md5").unwrap(),
            )],
        })
        .unwrap();
        assert!(
            line.starts_with(r#"{"cmd":"vectors","primitives":[{"id":"md5","#),
            "{line}"
        );
    }

    #[test]
    fn a_measurement_reply_carries_flights_only_when_counted() {
        // An optional field: a worker that counts none, or predates it, leaves it out, and an
        // orchestrator reads either reply (no protocol version change).
        let cell = CellSpec {
            primitive: "tls13-x25519-ed25519".into(),
            op: cryptospeed_model::Op::Handshake,
            bytes: None,
            misalign: 0,
        };
        let mut measurement = Measurement::not_timed(cell, cryptospeed_model::Status::Ok, "");
        let line = |m: &Measurement| {
            serde_json::to_string(&Response::Measurement {
                measurement: m.clone(),
            })
            .unwrap()
        };
        assert!(!line(&measurement).contains("flights"));
        measurement.flights = vec![177, 562, 64, 0];
        let with = line(&measurement);
        assert!(with.contains(r#""flights":[177,562,64,0]"#), "{with}");
        match serde_json::from_str(&with).unwrap() {
            Response::Measurement { measurement } => {
                assert_eq!(measurement.flights, [177, 562, 64, 0])
            }
            other => panic!("{other:?}"),
        }
    }
}
