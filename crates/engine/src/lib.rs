//! The measuring engine: how a cell is timed (calibration, warm-up, sampling to a precision
//! target), which clocks are read, what machine we are on, and how the orchestrator talks to the
//! worker processes that host implementations.
//!
//! Implementations plug in through [`Implementation`] and [`Timed`]; the engine never names a
//! library.

pub mod clock;
pub mod counters;
pub mod disturbance;
pub mod load;
pub mod machine;
pub mod marker;
pub mod mask;
pub mod protocol;
pub mod sampler;
#[cfg(test)]
mod stopping_tests;
pub mod vectors;
pub mod worker_client;
pub mod worker_server;

use cryptospeed_catalog::agreement::AgreementCase;
use cryptospeed_catalog::Primitive;
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Op, Variant};

/// What an implementation computed for an agreement check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgreementOutput {
    pub output: Vec<u8>,
    /// Public key (SEC1 point) for randomised signatures, which others verify.
    pub public: Vec<u8>,
}

/// A cell prepared for timing: buffers allocated, keys set, contexts initialised.
pub trait Timed {
    /// Performs the cell's operation `iters` times back to back. Implementations call the library
    /// directly in a tight loop and check its return value, nothing more.
    fn run(&mut self, iters: u64) -> Result<(), String>;
    /// One timed batch: the clocks read around [`Timed::run`]. A cell that times only part of
    /// each call (one side of a TLS handshake) reads them around that part itself and returns
    /// the sum ([`clock::Stamp::elapsed_since`]).
    fn sample(&mut self, iters: u64) -> Result<cryptospeed_model::Sample, String> {
        let start = clock::Stamp::before_batch();
        self.run(iters)?;
        let end = clock::Stamp::after_batch();
        Ok(end.elapsed_since(start, iters))
    }
}

/// A library that offers primitives, as seen from inside a worker process.
pub trait Implementation {
    /// Registry name, e.g. `openssl`.
    fn name(&self) -> &'static str;
    /// What this build is: version, library path, build flags, capability vector.
    fn describe(&self) -> Variant;
    /// `Ok` when the primitive can be used; otherwise the reason it cannot.
    fn availability(&mut self, primitive: &Primitive) -> Result<(), String>;
    /// `Ok` when operation `op` of an available primitive is timed; otherwise why not (the
    /// library's API has no such call), and the cell is reported unavailable, not failed.
    fn offers(&self, primitive: &Primitive, op: Op) -> Result<(), String> {
        let _ = (primitive, op);
        Ok(())
    }
    /// Runs the primitive's known-answer tests through the same calls the timed loop uses.
    fn known_answer_test(&mut self, primitive: &Primitive) -> Result<(), String>;
    /// A TLS handshake primitive whose known-answer test passed: the bytes each step of the
    /// handshake it checked wrote (ClientHello, server's flight, client's Finished, tickets), as
    /// the worker's measurements carry them (`Measurement::flights`); empty where not counted.
    fn checked_flights(&self, primitive: &Primitive) -> Vec<u64> {
        let _ = primitive;
        Vec::new()
    }
    /// Prepares one cell for timing.
    fn prepare(
        &mut self,
        primitive: &Primitive,
        cell: &CellSpec,
    ) -> Result<Box<dyn Timed + '_>, String>;
    /// Computes the primitive on the agreement inputs (see `cryptospeed_catalog::agreement`).
    fn agree(
        &mut self,
        primitive: &Primitive,
        case: &AgreementCase,
    ) -> Result<AgreementOutput, String> {
        let _ = case;
        Err(format!(
            "{} has no agreement computation for {}",
            self.name(),
            primitive.id
        ))
    }
    /// Verifies another implementation's signature; `Ok(false)` when it does not verify.
    fn check_signature(
        &mut self,
        primitive: &Primitive,
        public: &[u8],
        msg: &[u8],
        signature: &[u8],
    ) -> Result<bool, String> {
        let _ = (public, msg, signature);
        Err(format!(
            "{} cannot check signatures of {}",
            self.name(),
            primitive.id
        ))
    }
    /// For implementations that cannot be timed call by call (an external `openssl speed`):
    /// measures the whole cell at once. `None` means "use [`Implementation::prepare`]".
    fn measure_whole(
        &mut self,
        primitive: &Primitive,
        cell: &CellSpec,
        config: &MeasureConfig,
    ) -> Option<Measurement> {
        let _ = (primitive, cell, config);
        None
    }
}
