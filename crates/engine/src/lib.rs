//! The measuring engine: how a cell is timed (calibration, warm-up, sampling to a precision
//! target), which clocks are read, what machine we are on, and how the orchestrator talks to the
//! worker processes that host implementations.
//!
//! Implementations plug in through [`Implementation`] and [`Timed`]; the engine never names a
//! library.

pub mod clock;
pub mod machine;
pub mod protocol;
pub mod sampler;
pub mod worker_client;

use cryptospeed_catalog::Primitive;
use cryptospeed_model::{CellSpec, Variant};

/// A cell prepared for timing: buffers allocated, keys set, contexts initialised.
pub trait Timed {
    /// Performs the cell's operation `iters` times back to back. Implementations call the library
    /// directly in a tight loop and check its return value, nothing more.
    fn run(&mut self, iters: u64) -> Result<(), String>;
}

/// A library that offers primitives, as seen from inside a worker process.
pub trait Implementation {
    /// Registry name, e.g. `openssl`.
    fn name(&self) -> &'static str;
    /// What this build is: version, library path, build flags, capability vector.
    fn describe(&self) -> Variant;
    /// `Ok` when the primitive can be used; otherwise the reason it cannot.
    fn availability(&mut self, primitive: &Primitive) -> Result<(), String>;
    /// Runs the primitive's known-answer tests through the same calls the timed loop uses.
    fn known_answer_test(&mut self, primitive: &Primitive) -> Result<(), String>;
    /// Prepares one cell for timing.
    fn prepare(
        &mut self,
        primitive: &Primitive,
        cell: &CellSpec,
    ) -> Result<Box<dyn Timed + '_>, String>;
}
