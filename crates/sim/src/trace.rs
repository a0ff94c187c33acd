//! Reading execution traces: cstrace's binary stream (our valgrind tool, see
//! `valgrind/cstrace_main.c` for the format) and lackey's text trace (the fallback). Both are
//! turned into the same calls on a [`Sink`]: one per executed instruction, one per data access,
//! one per marker the worker emitted, in execution order.

use crate::decode::{Decoded, InstrInfo};
use std::io::{BufRead, Read};

/// Marker codes the worker sends (cstrace client request, or a call to a marker function).
pub const MARK_WARMUP: u32 = 1;
pub const MARK_MEASURE: u32 = 2;
pub const MARK_END: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Access {
    Read,
    Write,
    /// A read and a write of the same address and size by one instruction; cachegrind counts it
    /// as one read.
    Modify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataAccess {
    pub addr: u64,
    pub size: u32,
    pub access: Access,
    /// Size was capped at 64 bytes (dirty helpers such as XSAVE, and CAS): cachegrind caps these
    /// at its smallest line size instead, so a simulator matching it caps again.
    pub capped: bool,
}

/// What consumes a trace.
pub trait Sink {
    fn instruction(&mut self, info: &InstrInfo);
    fn data(&mut self, access: DataAccess);
    fn marker(&mut self, _code: u32) {}
}

impl<A: Sink, B: Sink> Sink for (A, B) {
    fn instruction(&mut self, info: &InstrInfo) {
        self.0.instruction(info);
        self.1.instruction(info);
    }
    fn data(&mut self, access: DataAccess) {
        self.0.data(access);
        self.1.data(access);
    }
    fn marker(&mut self, code: u32) {
        self.0.marker(code);
        self.1.marker(code);
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn instruction(&mut self, info: &InstrInfo) {
        (**self).instruction(info)
    }
    fn data(&mut self, access: DataAccess) {
        (**self).data(access)
    }
    fn marker(&mut self, code: u32) {
        (**self).marker(code)
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct TraceTotals {
    pub bytes: u64,
    pub instructions: u64,
    pub segments_defined: u64,
    pub markers: u64,
    /// Lackey's instructions outside the recorded part whose code lies in no file the worker
    /// had mapped at its end marker: skipped, not simulated.
    pub unmapped_outside: u64,
}

const TAG_MASK: u64 = 3 << 62;
const TAG_DEF: u64 = 3 << 62;
const TAG_EXEC: u64 = 2 << 62;
const TAG_MARK: u64 = 1 << 62;

#[derive(Clone, Copy)]
enum SegItem {
    Instr(u32),
    Data { kind: u8, size: u16 },
}

/// Reads 8-byte words from a stream, refilling a large buffer.
struct Words<R: Read> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    consumed: u64,
}

impl<R: Read> Words<R> {
    fn new(src: R) -> Self {
        Words {
            src,
            buf: vec![0; 8 << 20],
            pos: 0,
            len: 0,
            consumed: 0,
        }
    }

    /// Next word, `None` at a clean end of stream.
    #[inline]
    fn next(&mut self) -> Result<Option<u64>, String> {
        if self.len - self.pos < 8 && !self.refill()? {
            return Ok(None);
        }
        let w = u64::from_le_bytes(self.buf[self.pos..self.pos + 8].try_into().unwrap());
        self.pos += 8;
        self.consumed += 8;
        Ok(Some(w))
    }

    fn must(&mut self, what: &str) -> Result<u64, String> {
        self.next()?.ok_or_else(|| {
            format!(
                "the trace ends inside {what} at byte {} (was the traced process killed?)",
                self.consumed
            )
        })
    }

    /// Moves the partial tail to the front and reads more; false at end of stream.
    fn refill(&mut self) -> Result<bool, String> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.len -= self.pos;
        self.pos = 0;
        while self.len < 8 {
            let n = self
                .src
                .read(&mut self.buf[self.len..])
                .map_err(|e| format!("reading the trace: {e}"))?;
            if n == 0 {
                if self.len != 0 {
                    return Err(format!(
                        "the trace ends in the middle of a word at byte {}",
                        self.consumed + self.len as u64
                    ));
                }
                return Ok(false);
            }
            self.len += n;
        }
        Ok(true)
    }
}

/// A segment definition's `n` items (instructions, interned in `decoded`, and data slots).
fn read_segment<R: Read>(
    words: &mut Words<R>,
    decoded: &mut Decoded,
    id: usize,
    n: usize,
) -> Result<Vec<SegItem>, String> {
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let it = words.must("a segment definition")?;
        if it >> 63 == 1 {
            let kind = (it & 0xFF) as u8;
            if !(1..=3).contains(&(kind & 0xF)) {
                return Err(format!("bad data item {it:#x} in segment {id}"));
            }
            items.push(SegItem::Data {
                kind,
                size: ((it >> 8) & 0xFFFF) as u16,
            });
        } else {
            let addr = it & 0xFFFF_FFFF_FFFF;
            let len = ((it >> 48) & 0xFF) as usize;
            // Up to 15 bytes, or 19 for valgrind's client-request sequence, which
            // valgrind (and cachegrind) treat as one instruction.
            if len == 0 || len > 24 {
                return Err(format!("bad instruction length {len} in segment {id}"));
            }
            let mut bytes = [0u8; 24];
            for chunk in 0..len.div_ceil(8) {
                let b = words.must("instruction bytes")?.to_le_bytes();
                let take = (len - chunk * 8).min(8);
                bytes[chunk * 8..chunk * 8 + take].copy_from_slice(&b[..take]);
            }
            items.push(SegItem::Instr(decoded.intern(addr, &bytes[..len])));
        }
    }
    Ok(items)
}

/// Feeds a cstrace stream to `sink`; `decoded` keeps every instruction seen, by address.
pub fn read_cstrace<R: Read, S: Sink>(
    src: R,
    decoded: &mut Decoded,
    sink: &mut S,
) -> Result<TraceTotals, String> {
    let mut words = Words::new(src);
    let mut segments: Vec<Vec<SegItem>> = Vec::new();
    let mut totals = TraceTotals::default();
    while let Some(w) = words.next()? {
        match w & TAG_MASK {
            TAG_EXEC => {
                let id = (w & 0xFFFF_FFFF) as usize;
                let Some(seg) = segments.get(id) else {
                    return Err(format!("trace runs segment {id} before defining it"));
                };
                for item in seg {
                    match *item {
                        SegItem::Instr(ix) => {
                            totals.instructions += 1;
                            sink.instruction(decoded.info(ix));
                        }
                        SegItem::Data { kind, size } => {
                            let addr = words.must("a segment's addresses")?;
                            if kind & 0x20 != 0 && addr == 0 {
                                continue; // a guarded access whose guard was false
                            }
                            let access = match kind & 0xF {
                                1 => Access::Read,
                                2 => Access::Write,
                                _ => Access::Modify,
                            };
                            sink.data(DataAccess {
                                addr,
                                size: size as u32,
                                access,
                                capped: kind & 0x10 != 0,
                            });
                        }
                    }
                }
            }
            TAG_DEF => {
                let id = (w & 0xFFFF_FFFF) as usize;
                let n = ((w >> 32) & 0x3FFF_FFFF) as usize;
                let items = read_segment(&mut words, decoded, id, n)?;
                if id != segments.len() {
                    return Err(format!(
                        "segment {id} defined out of order (expected {})",
                        segments.len()
                    ));
                }
                segments.push(items);
                totals.segments_defined += 1;
            }
            TAG_MARK => {
                totals.markers += 1;
                sink.marker((w & 0xFFFF_FFFF) as u32);
            }
            _ => return Err(format!("unknown trace record {w:#018x}")),
        }
    }
    totals.bytes = words.consumed;
    Ok(totals)
}

/// Where lackey's trace gets code bytes from, and which addresses are markers.
pub trait CodeSource {
    fn bytes_at(&mut self, addr: u64, len: usize) -> Option<Vec<u8>>;
}

/// Feeds lackey's `--trace-mem=yes` text to `sink`. Lackey cannot see client requests, so the
/// worker's marker functions are recognised by address (`markers`: address → code).
pub fn read_lackey<R: BufRead, S: Sink>(
    src: R,
    decoded: &mut Decoded,
    code: &mut dyn CodeSource,
    markers: &[(u64, u32)],
    sink: &mut S,
) -> Result<TraceTotals, String> {
    let mut totals = TraceTotals::default();
    let mut cache: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    // Between the warm-up marker and the end marker: the part the sink simulates.
    let mut recorded = false;
    for (lineno, line) in src.lines().enumerate() {
        let line = line.map_err(|e| format!("reading lackey's trace: {e}"))?;
        totals.bytes += line.len() as u64 + 1;
        if line.starts_with("==") || line.starts_with("--") || line.trim().is_empty() {
            continue;
        }
        let (tag, rest) = (line.get(..2).unwrap_or(""), line.get(2..).unwrap_or(""));
        let Some((a, s)) = rest.trim().split_once(',') else {
            continue; // the worker's own output interleaved with the trace
        };
        let (Ok(addr), Ok(size)) = (u64::from_str_radix(a.trim(), 16), s.trim().parse::<u32>())
        else {
            continue;
        };
        match tag {
            "I " => {
                if let Some((_, code)) = markers.iter().find(|(m, _)| *m == addr) {
                    totals.markers += 1;
                    sink.marker(*code);
                    recorded = matches!(*code, MARK_WARMUP | MARK_MEASURE);
                }
                let ix = match cache.get(&addr) {
                    Some(ix) => *ix,
                    None => {
                        let Some(bytes) = code.bytes_at(addr, size as usize) else {
                            // The worker's maps are read at the end marker: code outside the
                            // recorded part may lie in a file mapped only before or after it
                            // (once, CI: line 7914388 of a trace). Nothing simulates it.
                            if !recorded {
                                totals.unmapped_outside += 1;
                                continue;
                            }
                            return Err(format!(
                                "lackey trace line {}: no code bytes for {addr:#x} in any mapped \
                                 file, inside the recorded part",
                                lineno + 1
                            ));
                        };
                        let ix = decoded.intern(addr, &bytes);
                        cache.insert(addr, ix);
                        ix
                    }
                };
                totals.instructions += 1;
                sink.instruction(decoded.info(ix));
            }
            " L" | " S" | " M" => sink.data(DataAccess {
                addr,
                size,
                access: match tag {
                    " L" => Access::Read,
                    " S" => Access::Write,
                    _ => Access::Modify,
                },
                capped: false,
            }),
            _ => {}
        }
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);
    impl Sink for Log {
        fn instruction(&mut self, info: &InstrInfo) {
            self.0.push(format!("I {:x} {}", info.addr, info.len));
        }
        fn data(&mut self, a: DataAccess) {
            self.0
                .push(format!("D {:?} {:x} {}", a.access, a.addr, a.size));
        }
        fn marker(&mut self, code: u32) {
            self.0.push(format!("M {code}"));
        }
    }

    fn words(ws: &[u64]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn cstrace_definitions_executions_markers_and_guards() {
        // Segment 0: `mov rax, [rbx]` (48 8b 03) then a guarded read.
        let def = TAG_DEF | (3u64 << 32);
        let instr = 0x1000u64 | (3u64 << 48);
        let bytes = u64::from_le_bytes([0x48, 0x8b, 0x03, 0, 0, 0, 0, 0]);
        let read = (1u64 << 63) | (8 << 8) | 1;
        let guarded = (1u64 << 63) | (4 << 8) | 1 | 0x20;
        let stream = words(&[
            def,
            instr,
            bytes,
            read,
            guarded,
            TAG_MARK | 2,
            TAG_EXEC,
            0x5000,
            0,
            TAG_EXEC,
            0x5008,
            0x6000,
        ]);
        let mut d = Decoded::default();
        let mut log = Log::default();
        let t = read_cstrace(&stream[..], &mut d, &mut log).unwrap();
        assert_eq!(t.instructions, 2);
        assert_eq!(
            log.0,
            vec![
                "M 2",
                "I 1000 3",
                "D Read 5000 8",
                "I 1000 3",
                "D Read 5008 8",
                "D Read 6000 4"
            ]
        );
    }

    #[test]
    fn truncated_and_undefined_traces_are_errors_not_silence() {
        let mut d = Decoded::default();
        let e = read_cstrace(&words(&[TAG_EXEC | 7])[..], &mut d, &mut Log::default());
        assert!(e.unwrap_err().contains("before defining"));
        let def = TAG_DEF | (1u64 << 32);
        let mut half = words(&[def]);
        half.extend_from_slice(&[1, 2, 3]);
        let e = read_cstrace(&half[..], &mut d, &mut Log::default()).unwrap_err();
        assert!(
            e.contains("middle of a word") || e.contains("ends inside"),
            "{e}"
        );
    }

    struct Bytes;
    impl CodeSource for Bytes {
        fn bytes_at(&mut self, _addr: u64, len: usize) -> Option<Vec<u8>> {
            // nop; nop; ...
            Some(vec![0x90; len])
        }
    }

    #[test]
    fn lackey_lines_and_marker_addresses() {
        let text = "==1== Lackey\nI  00401000,1\n L 7ff000,8\nI  00402000,1\n M 7ff008,4\n S 7ff010,2\nhello\n";
        let mut d = Decoded::default();
        let mut log = Log::default();
        let t = read_lackey(
            text.as_bytes(),
            &mut d,
            &mut Bytes,
            &[(0x402000, 2)],
            &mut log,
        )
        .unwrap();
        assert_eq!(t.instructions, 2);
        assert_eq!(
            log.0,
            vec![
                "I 401000 1",
                "D Read 7ff000 8",
                "M 2",
                "I 402000 1",
                "D Modify 7ff008 4",
                "D Write 7ff010 2"
            ]
        );
    }

    /// Code bytes everywhere but at 0x999000 (a file the worker no longer had mapped).
    struct Holed;
    impl CodeSource for Holed {
        fn bytes_at(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
            (addr != 0x999000).then(|| vec![0x90; len])
        }
    }

    #[test]
    fn unmapped_code_is_skipped_outside_the_recorded_part_and_an_error_inside() {
        let markers = [
            (0x401000, MARK_WARMUP),
            (0x402000, MARK_MEASURE),
            (0x403000, MARK_END),
        ];
        let read = |text: &str| {
            let mut log = Log::default();
            read_lackey(
                text.as_bytes(),
                &mut Decoded::default(),
                &mut Holed,
                &markers,
                &mut log,
            )
            .map(|t| (t, log.0))
        };
        let outside = "I  00999000,1\nI  00401000,1\nI  00402000,1\nI  00403000,1\nI  00999000,1\n";
        let (t, log) = read(outside).unwrap();
        assert_eq!((t.instructions, t.unmapped_outside), (3, 2));
        assert!(log.iter().all(|l| !l.contains("999000")), "{log:?}");
        let inside = "I  00401000,1\nI  00402000,1\nI  00999000,1\nI  00403000,1\n";
        let e = read(inside).unwrap_err();
        assert!(
            e.contains("line 3") && e.contains("inside the recorded part"),
            "{e}"
        );
    }
}
