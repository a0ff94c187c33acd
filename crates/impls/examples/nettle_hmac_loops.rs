//! Nettle HMAC-SHA256 of 64 bytes timed in a Rust process, to locate the gap the crosscheck
//! reads between the `nettle` column and `nettle-benchmark`: the generic `hmac_*` calls in a
//! plain loop, behind a boxed closure as the column's `HashFn` makes them, with the contexts and
//! the message placed differently, in a copy of the column's `HashLoop`, and the column's own
//! timed loop. Which of them read the benchmark's ~136 ns and which ~149 ns changes between
//! builds of this file (docs/experiments/crosscheck.md): the gap is the binary's code layout.
//!
//! `cargo run --release -p cryptospeed-impls --example nettle_hmac_loops -- [ROUNDS]`

use std::ffi::{c_void, CStr};

type Ctx = *mut c_void;
type SetKey = unsafe extern "C" fn(Ctx, Ctx, Ctx, *const c_void, usize, *const u8);
type Update = unsafe extern "C" fn(Ctx, *const c_void, usize, *const u8);
type Digest = unsafe extern "C" fn(Ctx, Ctx, Ctx, *const c_void, usize, *mut u8);
type Boxed = Box<dyn FnMut(&[u8], &mut [u8]) -> Result<(), String>>;

fn sym(lib: *mut c_void, name: &CStr) -> *mut c_void {
    // SAFETY: lib is a live dlopen handle; the name is NUL-terminated.
    let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
    assert!(!p.is_null(), "libnettle lacks {name:?}");
    p
}

fn thread_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: t is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

fn per_call(n: u64, mut f: impl FnMut()) -> f64 {
    let t0 = thread_ns();
    for _ in 0..n {
        f();
    }
    (thread_ns() - t0) / n as f64
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(5, |s| s.parse().unwrap());
    // SAFETY: loading the system's libnettle, as the column does.
    let lib = unsafe { libc::dlopen(c"libnettle.so.8".as_ptr(), libc::RTLD_NOW) };
    assert!(!lib.is_null(), "no libnettle.so.8");
    // SAFETY: the symbols have these C signatures (nettle/hmac.h).
    let (set_key, update, digest): (SetKey, Update, Digest) = unsafe {
        (
            std::mem::transmute::<*mut c_void, SetKey>(sym(lib, c"nettle_hmac_set_key")),
            std::mem::transmute::<*mut c_void, Update>(sym(lib, c"nettle_hmac_update")),
            std::mem::transmute::<*mut c_void, Digest>(sym(lib, c"nettle_hmac_digest")),
        )
    };
    let h = sym(lib, c"nettle_sha256") as *const c_void;
    let mut ctx = [vec![0u128; 8], vec![0u128; 8], vec![0u128; 8]];
    let [o, i, s] = ctx.each_mut().map(|c| c.as_mut_ptr() as Ctx);
    // SAFETY: three contexts of sha256_ctx's size (112 bytes <= 128).
    unsafe { set_key(o, i, s, h, 32, [0x12u8; 32].as_ptr()) };
    let msg = vec![7u8; 64];
    let mut out = vec![0u8; 32];
    let boxed: Boxed = Box::new(move |m: &[u8], d: &mut [u8]| {
        // SAFETY: as above; digest leaves the state ready for the next message.
        unsafe {
            update(s, h, m.len(), m.as_ptr());
            digest(o, i, s, h, d.len(), d.as_mut_ptr());
        }
        Ok(())
    });
    let mut hl = HashLoop {
        f: boxed,
        msg: cryptospeed_impls::buffer::AlignedBuffer::new(64, 64, 0),
        out: vec![0; 32],
    };
    for r in 0..rounds {
        let t0 = thread_ns();
        hl.run(2_000_000).unwrap();
        println!("{r} HashLoop copy {:.1} ns", (thread_ns() - t0) / 2e6);
        // SAFETY: as above.
        let plain = per_call(2_000_000, || unsafe {
            update(s, h, msg.len(), msg.as_ptr());
            digest(o, i, s, h, out.len(), out.as_mut_ptr());
        });
        let closure = per_call(2_000_000, || (hl.f)(&msg, &mut out).unwrap());
        let column = column_call(2_000_000);
        for off in [0usize, 16, 32, 48] {
            let t = contexts_at(off, (set_key, update, digest), h, &msg);
            println!("{r} contexts at {off} bytes past a 64-byte boundary: {t:.1} ns");
        }
        let zeroed = cryptospeed_impls::buffer::AlignedBuffer::new(64, 64, 0);
        let mut written = cryptospeed_impls::buffer::AlignedBuffer::new(64, 64, 0);
        written.as_mut_slice().fill(0);
        let z = per_call(2_000_000, || (hl.f)(zeroed.as_slice(), &mut out).unwrap());
        let w = per_call(2_000_000, || (hl.f)(written.as_slice(), &mut out).unwrap());
        println!("{r} message in a fresh AlignedBuffer {z:.1} ns, the same once written {w:.1} ns");
        println!(
            "{r} plain loop {plain:.1} ns, boxed closure {closure:.1} ns, \
            the column's timed loop {column:.1} ns"
        );
    }
}

struct HashLoop {
    f: Boxed,
    msg: cryptospeed_impls::buffer::AlignedBuffer,
    out: Vec<u8>,
}
impl HashLoop {
    #[inline(never)]
    fn run(&mut self, iters: u64) -> Result<(), String> {
        for _ in 0..iters {
            (self.f)(self.msg.as_slice(), &mut self.out)?;
        }
        Ok(())
    }
}

/// The plain loop with the three contexts `off` bytes past 64-byte boundaries, 128 bytes apart.
fn contexts_at(off: usize, f: (SetKey, Update, Digest), h: *const c_void, msg: &[u8]) -> f64 {
    let (set_key, update, digest) = f;
    let mut arena = cryptospeed_impls::buffer::AlignedBuffer::new(3 * 128 + off, 0, 0);
    let base = arena.ptr();
    // SAFETY: three 112-byte contexts inside the arena.
    let [o, i, s] = [0, 1, 2].map(|j| unsafe { base.add(j * 128 + off) } as Ctx);
    let mut out = [0u8; 32];
    // SAFETY: as in main.
    unsafe { set_key(o, i, s, h, 32, [0x12u8; 32].as_ptr()) };
    // SAFETY: as in main.
    per_call(2_000_000, || unsafe {
        update(s, h, msg.len(), msg.as_ptr());
        digest(o, i, s, h, out.len(), out.as_mut_ptr());
    })
}

/// The `nettle` column's own timed loop (created, known-answer tested and prepared as a worker
/// does), run for `n` calls outside the sampler.
fn column_call(n: u64) -> f64 {
    let p = cryptospeed_catalog::lookup("hmac-sha256").expect("hmac-sha256 in the catalog");
    let mut imp = cryptospeed_impls::create("nettle", &Default::default()).expect("nettle");
    imp.known_answer_test(p)
        .expect("nettle hmac-sha256 known answers");
    let cell = cryptospeed_model::CellSpec {
        primitive: p.id.into(),
        op: cryptospeed_model::Op::Mac,
        bytes: Some(64),
        misalign: 0,
    };
    let mut t = imp.prepare(p, &cell).expect("prepared");
    let t0 = thread_ns();
    t.run(n).expect("timed loop");
    (thread_ns() - t0) / n as f64
}
