//! What the crosscheck's Rust oracles share: the benches in `benches/` (criterion, one file per
//! column) name each benchmark by cryptospeed's cell and operation, so the crosscheck selects one
//! with `--bench --exact ID`, and draw their inputs from here. The library holds no timed code.

/// A benchmark's id: cryptospeed's `--cells` spelling and the operation, `sha256@16 hash`.
pub fn id(cell: &str, op: &str) -> String {
    format!("{cell} {op}")
}

/// Keeps a timed call's result from being optimised away without copying it, and returns
/// nothing for criterion to copy. criterion 0.5's own `black_box`, without its nightly-only
/// `real_blackbox` feature, is a volatile read of the whole value, which the compiler lowers to
/// one load and store per byte, and `Bencher::iter` applies it to whatever the timed closure
/// returns: an aws-lc-rs `Signature` (4,635 bytes) cost about 3 µs per call that way, its
/// `Digest` (80 bytes) about 20 ns. The benches therefore use `std::hint::black_box` (on a
/// reference here) and their closures return `()`.
#[inline(always)]
pub fn consume<T>(value: T) {
    std::hint::black_box(&value);
}

/// The 13 bytes of TLS 1.2 record header that ring's own AEAD bench passes as associated data
/// (ring bench/aead.rs `TLS_AD`); cryptospeed's AEAD definition asks for 13 bytes of AAD.
pub const TLS_AD: [u8; 13] = [23, 3, 3, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 1];

/// The message a classical signature cell signs: 20 bytes, as cryptospeed's definitions ask.
pub const MSG_20: [u8; 20] = *b"cryptospeed-oracle-1";

/// The message a post-quantum signature cell signs: 32 bytes (ML-DSA's definition).
pub const MSG_32: [u8; 32] = *b"cryptospeed-oracle-32-byte-msg!!";

/// A 64-byte-aligned buffer of `len` bytes (ring's digest bench aligns its input the same way,
/// and cryptospeed's buffers are 64-byte aligned).
pub fn aligned(len: usize) -> Aligned {
    Aligned {
        storage: vec![Block { _bytes: [0; 64] }; len.div_ceil(64)],
        len,
    }
}

#[derive(Clone, Copy)]
#[repr(align(64))]
struct Block {
    _bytes: [u8; 64],
}

/// See [`aligned`].
pub struct Aligned {
    storage: Vec<Block>,
    len: usize,
}

impl Aligned {
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the blocks are contiguous plain bytes, at least `len` of them.
        unsafe { std::slice::from_raw_parts(self.storage.as_ptr().cast(), self.len) }
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.storage.as_mut_ptr().cast(), self.len) }
    }
}
