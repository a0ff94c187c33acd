//! Markers a worker emits around the part of a cell that `cryptospeed profile` measures. Under
//! cstrace they are valgrind client requests (the "magic" no-op instruction sequence valgrind
//! recognises; natively it does nothing and returns the default). Under lackey, which cannot
//! see client requests, the marker functions' own addresses mark the trace, so each marker is a
//! separate, never-inlined function.

/// `VG_USERREQ_TOOL_BASE('C','S')`, as cstrace_main.c defines it.
const CSTRACE_MARK: u64 = (b'C' as u64) << 24 | (b'S' as u64) << 16;

/// Issues a valgrind client request; returns `default` when not running under valgrind (or
/// when the tool does not handle it).
#[inline(always)]
fn client_request(request: u64, arg1: u64, default: u64) -> u64 {
    let args: [u64; 6] = [request, arg1, 0, 0, 0, 0];
    let mut result = default;
    // SAFETY: the rotations of rdi add up to 128 bits (rdi is unchanged) and xchg rbx,rbx is a
    // no-op natively; valgrind reads `args` through rax and writes the answer to rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
    std::hint::black_box(&args);
    result
}

#[inline(never)]
pub extern "C" fn mark_warmup() -> bool {
    client_request(CSTRACE_MARK, 1, 0) == 1
}

#[inline(never)]
pub extern "C" fn mark_measure() -> bool {
    client_request(CSTRACE_MARK, 2, 0) == 1
}

#[inline(never)]
pub extern "C" fn mark_end() -> bool {
    client_request(CSTRACE_MARK, 3, 0) == 1
}

/// Entry addresses of the three marker functions (warm-up, measure, end).
pub fn addresses() -> [u64; 3] {
    [
        mark_warmup as *const () as u64,
        mark_measure as *const () as u64,
        mark_end as *const () as u64,
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn natively_a_marker_is_a_no_op_that_says_so() {
        assert!(!super::mark_warmup());
        let a = super::addresses();
        assert!(a[0] != a[1] && a[1] != a[2]);
    }
}
