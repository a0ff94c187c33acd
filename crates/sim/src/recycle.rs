//! The analysis's large `u64` buffers (a region's events, block streams, their filtered copies)
//! are handed back here when dropped and handed out again, so a profile of several cells, or a
//! grid of several line sizes, writes into memory it already faulted in. A first touch of a 4 KB
//! page costs about 4 µs on these VMs: before recycling, the seven-primitive study spent 15 s of
//! its 88 s of CPU in the kernel, 3DES's analysis alone 1.7 million faults. Only large buffers
//! are kept, and at most [`KEEP_BYTES`] of them; the rest are freed as before.

use std::sync::Mutex;

/// Smaller buffers are freed at once.
const WORTH_KEEPING: usize = 1 << 17;
/// The most kept at once, in bytes of capacity touched.
const KEEP_BYTES: usize = 6 << 30;

/// A kept buffer and how many of its elements were ever written (its pages faulted in).
struct Kept {
    buffer: Vec<u64>,
    touched: usize,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// An empty buffer with room for `need` elements: a kept one when there is one (the one with the
/// most of that room already faulted in), else a new one.
pub fn take(need: usize) -> Vec<u64> {
    let mut kept = KEPT.lock().unwrap();
    let best = (0..kept.len()).max_by_key(|&k| {
        let b = &kept[k];
        (b.touched.min(need), std::cmp::Reverse(b.buffer.capacity()))
    });
    let mut buffer = match best {
        Some(k) => kept.swap_remove(k).buffer,
        None => Vec::new(),
    };
    drop(kept);
    buffer.clear();
    let _ = buffer.try_reserve_exact(need);
    buffer
}

/// Keeps `buffer` for a later [`take`] when it is large and there is room, else frees it.
pub fn give(buffer: Vec<u64>) {
    let touched = buffer.len();
    if touched < WORTH_KEEPING {
        return;
    }
    let mut kept = KEPT.lock().unwrap();
    let held: usize = kept.iter().map(|k| k.touched * 8).sum();
    if held + touched * 8 <= KEEP_BYTES {
        kept.push(Kept { buffer, touched });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_buffer_comes_back_empty_with_its_room() {
        let mut v = take(1 << 18);
        v.extend(0..(1u64 << 18));
        let at = v.as_ptr();
        give(v);
        let again = take(1 << 18);
        assert!(again.is_empty() && again.capacity() >= 1 << 18);
        assert_eq!(again.as_ptr(), at, "the same allocation");
        give(vec![1, 2, 3]); // small: freed, never handed out
        assert!(take(4).capacity() >= 4);
    }
}
