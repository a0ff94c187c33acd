//! cryptospeed's simulators: read a trace of the real code (cstrace or lackey), decode it, and
//! replay it through caches, branch predictors and an ILP limit model. Nothing here runs
//! valgrind except [`tool`], which builds and locates the cstrace tool.

pub mod analysis;
pub mod branches;
pub mod cache;
pub mod decode;
pub mod hierarchy;
pub mod ilp;
pub mod isa;
pub mod predict;
pub mod profile;
pub mod qemu;
pub mod recycle;
pub mod region;
pub mod spans;
pub mod timing;
pub mod tool;
pub mod trace;
