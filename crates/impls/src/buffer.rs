//! Message buffers with controlled alignment, so `--misalign N` means the same thing for every
//! implementation: the message starts N bytes past a 64-byte boundary.
//!
//! Each worker process of a run may also be given a layout ([`vary_layout`]): then its buffers
//! start at a chosen 64-byte line of a 4 KiB page (4K aliasing and cache-set placement differ
//! between processes on purpose), and a chosen amount of heap is taken first, so layout
//! accidents show up as variance between bouts instead of a hidden bias (Mytkowicz et al. 2009).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Byte offset of buffers within a page; `usize::MAX` until a layout is chosen (plain 64-byte
/// alignment, as `profile` and single-stretch measurements use).
static PAGE_OFFSET: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Chooses this process's layout from `seed`: a heap allocation of 0–60 KiB that stays for the
/// life of the process and, with `buffers`, the page offset of every message buffer made from
/// now on.
pub fn vary_layout(seed: u64, buffers: bool) {
    let mixed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if buffers {
        PAGE_OFFSET.store(((mixed >> 32) % 64) as usize * 64, Ordering::Relaxed);
    }
    let heap = ((mixed >> 16) % 16) as usize * 4096;
    std::mem::forget(vec![1u8; heap]);
}

/// A heap buffer whose usable region starts `misalign` bytes after a 64-byte boundary.
pub struct AlignedBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    /// `len` usable bytes plus `slack` writable bytes after them (room for a tag or padding),
    /// filled with a fixed pattern.
    pub fn new(len: usize, slack: usize, misalign: usize) -> AlignedBuffer {
        let page_offset = PAGE_OFFSET.load(Ordering::Relaxed);
        let align = if page_offset == usize::MAX { 64 } else { 4096 };
        let offset = if page_offset == usize::MAX {
            0
        } else {
            page_offset
        };
        let mut storage = vec![0u8; len + slack + align + offset + misalign];
        let base = storage.as_ptr() as usize;
        let start = (align - base % align) % align + offset + misalign;
        for (i, b) in storage.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(13).wrapping_add(7);
        }
        AlignedBuffer {
            storage,
            start,
            len,
        }
    }

    pub fn ptr(&mut self) -> *mut u8 {
        self.storage[self.start..].as_mut_ptr()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_is_as_asked() {
        for mis in [0usize, 1, 3, 8, 63] {
            let mut b = AlignedBuffer::new(100, 16, mis);
            assert_eq!(b.ptr() as usize % 64, mis);
            assert_eq!(b.as_slice().len(), 100);
        }
    }
}
