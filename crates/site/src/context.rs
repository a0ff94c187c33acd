//! What every page is drawn against: the options, the store's runs and machines as listed at the
//! start of the build, and the comparison pages across runs that the listing pages link to.

use crate::Options;
use cryptospeed_store::{MachineRow, RunRow};

/// A comparison page as the listing pages link to it.
#[derive(Debug, Clone)]
pub struct Linked {
    pub path: String,
    pub title: String,
    /// The machines whose runs it names.
    pub machines: Vec<i64>,
}

pub struct Context<'a> {
    pub options: &'a Options,
    pub rows: Vec<RunRow>,
    pub machines: Vec<MachineRow>,
    pub linked: Vec<Linked>,
    /// The history pages (a primitive on a machine), as the index and machine pages link them.
    pub histories: Vec<Linked>,
}

impl Context<'_> {
    pub fn machine(&self, id: i64) -> Option<&MachineRow> {
        self.machines.iter().find(|m| m.id == id)
    }
}
