// Timed cells: a cell is set up once (keys, contexts, buffers outside the loop), then each
// `sample` request runs it `iters` times between two readings of the worker's own clocks. The
// operations are those of the Rust suite's timed loops (crates/impls/src/suite.rs `prepare`):
// one-shot hashes, keyed MACs reset per message, ciphers in place chaining across calls, AEADs
// sealed or opened in place with a 13-byte AAD, signatures of the 36/20-byte message, and key
// agreement with a fixed peer; RSA also encrypts and decrypts 32 bytes with PKCS#1 v1.5 padding.

package main

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// cell is a prepared cell: run performs its operation iters times.
type cell struct {
	run func(iters uint64) error
}

// selfTimed holds the cells that time a batch themselves: one side's stretches of TLS
// handshakes (handshake.go).
var selfTimed = map[*cell]func(iters uint64) (*sample, error){}

// aligned is n bytes starting misalign bytes past a 64-byte boundary, with room for extra bytes
// after them (an AEAD's tag). The Go heap does not move objects, so the placement holds.
func aligned(n, extra, misalign int) []byte {
	raw := make([]byte, n+extra+64+misalign)
	off := int((64-uintptr(unsafe.Pointer(&raw[0]))%64)%64) + misalign
	return raw[off : off+n+extra : off+n+extra]
}

// timingKey is the Rust suite's timing key and message pattern.
func timingKey(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(0x12 + 0x22*i)
	}
	return b
}

func (w *worker) prepare(c *cellSpec) (*cell, error) {
	p, ok := w.catalog[c.Primitive]
	if !ok {
		return nil, fmt.Errorf("unknown primitive %s", c.Primitive)
	}
	n := 0
	if c.Bytes != nil {
		n = int(*c.Bytes)
	}
	mis := int(c.Misalign)
	cs := p.agreementCase()
	switch {
	case (p.Family == "digest" || p.Family == "xof") && c.Op == "hash":
		d, err := hashOf(p)
		if err != nil {
			return nil, err
		}
		msg := aligned(n, 0, mis)
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				d.timed(msg)
			}
			return nil
		}}, nil
	case (p.Family == "hmac" || p.Family == "gmac") && c.Op == "mac":
		f, err := macOf(p, timingKey(len(cs.key)), cs.iv)
		if err != nil {
			return nil, err
		}
		msg, out := aligned(n, 0, mis), make([]byte, macSize(p))
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				f(msg, out)
			}
			return nil
		}}, nil
	case p.Family == "cipher" && (c.Op == "encrypt" || c.Op == "decrypt"):
		f, err := cipherOf(p, timingKey(p.KeyLen), make([]byte, p.IVLen), c.Op == "encrypt")
		if err != nil {
			return nil, err
		}
		buf := aligned(n, 0, mis)
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				f(buf)
			}
			return nil
		}}, nil
	case p.Family == "aead" && (c.Op == "encrypt" || c.Op == "decrypt"):
		a, err := aeadOf(p, timingKey(p.KeyLen), p.IVLen)
		if err != nil {
			return nil, err
		}
		nonce, aad, tl := make([]byte, p.IVLen), make([]byte, 13), a.Overhead()
		for i := range aad {
			aad[i] = 0xcc
		}
		buf := aligned(n, tl, mis) // message, then room for the tag
		if c.Op == "encrypt" {
			return &cell{func(iters uint64) error {
				for i := uint64(0); i < iters; i++ {
					a.Seal(buf[:0], nonce, buf[:n], aad)
				}
				return nil
			}}, nil
		}
		// Opening in place needs a ciphertext whose tag verifies every time. These AEADs are
		// counter-mode based, so opening yields the text that seals back to the ciphertext:
		// the loop alternates between the two, each with its own precomputed tag.
		a.Seal(buf[:0], nonce, buf[:n], aad)
		tagCT := append([]byte(nil), buf[n:]...)
		ct := append([]byte(nil), buf[:n]...)
		a.Seal(buf[:0], nonce, buf[:n], aad)
		tagPT := append([]byte(nil), buf[n:]...)
		copy(buf, ct)
		tags := [2][]byte{tagCT, tagPT}
		next := 0
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				copy(buf[n:], tags[next])
				if _, err := a.Open(buf[:0], nonce, buf, aad); err != nil {
					return fmt.Errorf("tag did not authenticate")
				}
				next ^= 1
			}
			return nil
		}}, nil
	case (p.Family == "rsa" || p.Family == "dsa" || p.Family == "ecdsa" || p.Family == "eddsa") &&
		(c.Op == "sign" || c.Op == "verify"):
		s, err := timingSigner(p)
		if err != nil {
			return nil, err
		}
		tbs := timingKey(20)
		if p.Family == "rsa" {
			tbs = timingKey(36)
		}
		if c.Op == "sign" {
			return &cell{func(iters uint64) error {
				for i := uint64(0); i < iters; i++ {
					if _, err := s.sign(tbs); err != nil {
						return err
					}
				}
				return nil
			}}, nil
		}
		sig, err := s.sign(tbs)
		if err != nil {
			return nil, err
		}
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				if !s.verify(tbs, sig) {
					return fmt.Errorf("signature did not verify")
				}
			}
			return nil
		}}, nil
	case p.Family == "rsa" && (c.Op == "encrypt" || c.Op == "decrypt"):
		s, err := timingSigner(p)
		if err != nil {
			return nil, err
		}
		key, msg := s.(rsaSigner).key, bytes.Repeat([]byte{0x5a}, 32)
		if c.Op == "encrypt" {
			return &cell{func(iters uint64) error {
				for i := uint64(0); i < iters; i++ {
					if _, err := rsaEncrypt(key, msg); err != nil {
						return err
					}
				}
				return nil
			}}, nil
		}
		ct, err := rsaEncrypt(key, msg)
		if err != nil {
			return nil, err
		}
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				if _, err := rsaDecrypt(key, ct); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	case p.Family == "ecdh" && c.Op == "derive":
		f, err := deriveOf(p, cs.key, cs.peer)
		if err != nil {
			return nil, err
		}
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				if _, err := f(); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	case p.Family == "ml-kem" || p.Family == "hybrid-kem":
		return kemCell(p, c.Op)
	case p.Family == "slh-dsa":
		return slhCell(p, c.Op)
	case p.Family == "ml-dsa":
		return mldsaCell(p, c.Op)
	case p.Family == "tls13-handshake":
		return handshakeCell(p, c.Op)
	}
	return nil, fmt.Errorf("go does not time %s %s", p.ID, c.Op)
}

// cpuClock reads CLOCK_THREAD_CPUTIME_ID (3) or CLOCK_PROCESS_CPUTIME_ID (2) in nanoseconds.
func cpuClock(id uintptr) uint64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// cpuMark is where a batch's CPU time is counted from: the thread it started on, that thread's
// CPU clock and the process's.
type cpuMark struct {
	tid           int
	thread, whole uint64
}

func markCPU() cpuMark {
	return cpuMark{syscall.Gettid(), cpuClock(3), cpuClock(2)}
}

// cpuSince is the CPU time of a batch that began at m. The timed goroutine is not tied to one
// OS thread (runtime.LockOSThread made Go's ECDSA P-256 signing, which allocates 59 times per
// call, 7% slower in a plain go test benchmark: every hand-off to the collector then changes
// threads), so a batch that ended on another thread than it began on (it was preempted, as a
// collection can do) is counted by the process's clock, the collector's threads included: its
// CPU/wall fraction can then exceed 1. A batch that stayed on its thread, the usual case, gets
// that thread's CPU time, as the other workers report.
func cpuSince(m cpuMark) uint64 {
	if syscall.Gettid() == m.tid {
		// A move between reading the thread id and the clock would read another thread's.
		if now := cpuClock(3); now >= m.thread {
			return now - m.thread
		}
	}
	return cpuClock(2) - m.whole
}

// settle runs a cell just set up until this process is in the steady state a long benchmark
// sees. A fresh Go process grows its heap to its working size in its first collections, and a
// cell that allocates is slow meanwhile (ECDSA P-256 signing: the first 5 ms sample after the
// orchestrator's warm-up read 34% slow, the next few 5%; the C libraries' cells do not do this:
// docs/PERFORMANCE.md). So a cell that allocates runs until the collector has finished two
// cycles since it began, for 150 ms at most; one that allocates nothing is steady at once.
func settle(c *cell) error {
	var before, now runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := c.run(1); err != nil {
		return err
	}
	runtime.ReadMemStats(&now)
	if now.Mallocs == before.Mallocs {
		return nil
	}
	for start := time.Now(); now.NumGC < before.NumGC+2 && time.Since(start) < 150*time.Millisecond; {
		for batch := time.Now(); time.Since(batch) < 2*time.Millisecond; {
			if err := c.run(1); err != nil {
				return err
			}
		}
		runtime.ReadMemStats(&now)
	}
	return nil
}

// sample times one batch: the cell's known-answer tests must have passed, it is set up on
// first use, and only the calls lie between the clock readings.
func (w *worker) sample(c *cellSpec, iters uint64) (*sample, error) {
	if err := w.verify(c.Primitive); err != nil {
		return nil, fmt.Errorf("not timed: known-answer test failed: %v", err)
	}
	bytes := uint64(0)
	if c.Bytes != nil {
		bytes = *c.Bytes + 1 // keeps "no size" apart from 0 bytes
	}
	key := fmt.Sprintf("%s|%s|%d|%d", c.Primitive, c.Op, bytes, c.Misalign)
	prepared, ok := w.cells[key]
	if !ok {
		var err error
		if prepared, err = w.prepare(c); err != nil {
			return nil, fmt.Errorf("cannot set the cell up: %v", err)
		}
		if err := settle(prepared); err != nil {
			return nil, err
		}
		w.cells[key] = prepared
	}
	if own, ok := selfTimed[prepared]; ok {
		return own(iters)
	}
	cpu0, tsc0, wall0 := markCPU(), rdtsc(), time.Now()
	err := prepared.run(iters)
	wall := time.Since(wall0)
	tsc1, cpu := rdtsc(), cpuSince(cpu0)
	if err != nil {
		return nil, err
	}
	return &sample{Iters: iters, WallNs: uint64(wall.Nanoseconds()), CPUNs: cpu, TSC: tsc1 - tsc0}, nil
}
