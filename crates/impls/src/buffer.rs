//! Message buffers with controlled alignment, so `--misalign N` means the same thing for every
//! implementation: the message starts N bytes past a 64-byte boundary.

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
        let mut storage = vec![0u8; len + slack + 64 + misalign];
        let base = storage.as_ptr() as usize;
        let start = (64 - base % 64) % 64 + misalign;
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
