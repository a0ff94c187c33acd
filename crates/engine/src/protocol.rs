//! The worker protocol: one JSON object per line, requests on the worker's stdin, replies on its
//! stdout, strictly one reply per request. Versioned by [`PROTOCOL_VERSION`]; documented in
//! docs/worker-protocol.md so a worker in another language can implement it.

use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Variant};
use serde::{Deserialize, Serialize};

/// Bumped on any incompatible change to the messages below.
pub const PROTOCOL_VERSION: u32 = 1;

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
    /// Exit cleanly.
    Quit,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AvailabilityEntry {
    pub primitive: String,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Response {
    Hello {
        protocol: u32,
        variant: Variant,
    },
    Availability {
        entries: Vec<AvailabilityEntry>,
    },
    Verify {
        primitive: String,
        ok: bool,
        detail: String,
    },
    Measurement {
        measurement: Measurement,
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
    }
}
