// The oracle for the Go column: `go test -bench Oracle` times the same standard-library calls
// the worker times, the way a Go developer would (testing.B, b.N calls back to back), so
// cryptospeed's figures for `go` can be checked against Go's own benchmark harness side by side
// (tests/go_worker.rs; docs/PERFORMANCE.md). Sizes and keys follow the worker's cells; CIRCL's
// ML-DSA-65 and ML-KEM-512 are called as CIRCL's documentation shows (hedged SignTo into a
// buffer; EncapsulateTo with the seed left to CIRCL). CIRCL's own benchmarks of the same calls
// (kem/schemes BenchmarkEncapsulate, sign/mldsa/mldsa65/internal BenchmarkSign) are the second
// oracle.

package main

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"testing"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"golang.org/x/crypto/chacha20poly1305"
)

var sizes = []int{16, 8192}

func BenchmarkOracle(b *testing.B) {
	run := func(name string, f func(b *testing.B)) { b.Run(name, withCPU(f)) }
	for _, n := range sizes {
		run(fmt.Sprintf("sha256/%d", n), func(b *testing.B) {
			// As a Go developer writes it: the digest is left in the value Sum256 returns.
			msg := make([]byte, n)
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				sha256.Sum256(msg)
			}
		})
		seal := func(name string, a cipher.AEAD) {
			run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				buf := make([]byte, n, n+a.Overhead())
				nonce, aad := make([]byte, a.NonceSize()), make([]byte, 13)
				b.SetBytes(int64(n))
				for i := 0; i < b.N; i++ {
					a.Seal(buf[:0], nonce, buf, aad)
				}
			})
		}
		block, _ := aes.NewCipher(make([]byte, 16))
		gcm, _ := cipher.NewGCM(block)
		seal("aes-128-gcm", gcm)
		chacha, _ := chacha20poly1305.New(make([]byte, 32))
		seal("chacha20-poly1305", chacha)
	}
	run("ed25519/sign", func(b *testing.B) {
		key := ed25519.NewKeyFromSeed(make([]byte, 32))
		msg := make([]byte, 20)
		for i := 0; i < b.N; i++ {
			ed25519.Sign(key, msg)
		}
	})
	run("ecdsa-p256/sign", func(b *testing.B) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		digest := make([]byte, 20)
		for i := 0; i < b.N; i++ {
			if _, err := ecdsa.SignASN1(rand.Reader, key, digest); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("ml-dsa-65/sign", func(b *testing.B) {
		_, sk, err := mldsa65.GenerateKey(nil)
		if err != nil {
			b.Fatal(err)
		}
		msg, sig := make([]byte, 32), make([]byte, mldsa65.SignatureSize)
		for i := 0; i < b.N; i++ {
			if err := mldsa65.SignTo(sk, msg, nil, true, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("ml-kem-512/encaps", func(b *testing.B) {
		pk, _, err := mlkem512.GenerateKeyPair(nil)
		if err != nil {
			b.Fatal(err)
		}
		ct, ss := make([]byte, mlkem512.CiphertextSize), make([]byte, mlkem512.SharedKeySize)
		for i := 0; i < b.N; i++ {
			pk.EncapsulateTo(ct, ss, nil)
		}
	})
	run("rsa-2048/sign", func(b *testing.B) {
		key := shippedRSA(b, 2048)
		msg := make([]byte, 36)
		for i := 0; i < b.N; i++ {
			if _, err := rsa.SignPKCS1v15(nil, key, crypto.Hash(0), msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// withCPU adds the benchmark's CPU time per operation to its figures ("cpu-ns/op", beside Go's
// wall-clock ns/op), read from the process's CPU clock: over a benchmark's 0.3 s the goroutine
// moves between threads, so no one thread's clock holds its time, and the process's also holds
// the collector's work, as the timed CPU of a worker pinned to one CPU does. ns/op is a plain
// mean that holds every moment the process waited for a CPU, where the worker's figures keep
// only the samples its thread ran through: tests/go_worker.rs compares the worker with this
// figure, as with Google Benchmark's cpu_time in bssl_bench. On an idle machine the two agree.
func withCPU(f func(b *testing.B)) func(b *testing.B) {
	return func(b *testing.B) {
		start := cpuClock(2)
		f(b)
		b.ReportMetric(float64(cpuClock(2)-start)/float64(b.N), "cpu-ns/op")
	}
}

// shippedRSA reads the catalog's RSA key of that size, the one the worker times with.
func shippedRSA(b *testing.B, bits int) *rsa.PrivateKey {
	text, err := os.ReadFile(fmt.Sprintf("../../crates/catalog/keys/rsa-%d.pem", bits))
	if err != nil {
		b.Fatal(err)
	}
	block, _ := pem.Decode(text)
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		b.Fatal(err)
	}
	return key.(*rsa.PrivateKey)
}
