//! Sweeps: a matrix of measurements (implementations/variants × masks × primitives × sizes, or a
//! `profile` grid) cut into numbered shards that any machine or cluster node can run against one
//! shared store. The plan lives in the store; each shard claims itself, runs as one ordinary
//! `run` (or `profile`) and records the run holding its results, so re-running a shard that is
//! done does nothing and `sweep status` always knows what is left. Slurm runs the shards as a
//! job array ([`slurm`]); cryptospeed schedules nothing itself.
//!
//! Every shard runs *all* implementations, variants and masks of the sweep, interleaved cell by
//! cell, over its own slice of the cells: any two variants are compared inside one run on one
//! machine, never across shards. A shard's cells are typed ([`CellRef`]) and stored as their
//! `PRIMITIVE@SIZE` text.

mod shards;
pub mod slurm;
mod spec;

pub use shards::{parse_shard, run_shards, store_plan, ShardOutcome, ShardRunner};
pub use spec::{SizeSpec, SlurmSpec, SweepSpec};

pub use cryptospeed_catalog::plan::CellRef;

/// The sweep a shard runs in and its number: what a run or profile links itself to as it begins.
pub type ShardRef = (String, usize);
