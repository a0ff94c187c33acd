// The crosscheck's go cells whose two loops differ (docs/experiments/crosscheck.md): each
// benchmark here times the oracle's call sequence and the column's side by side in one process,
// so the ratio between them, the band a declared difference on the oracle's cell
// (crates/crosscheck/src/oracles/go.rs) rests on, is measured apart from either harness.
// Run: taskset -c 1 go test -run '^$' -bench '^BenchmarkGap$' -benchtime 1x -cpu 1

package main

import (
	"crypto"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	_ "unsafe" // go:linkname

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
)

var gapSink any

// gapPair is one cell's two call sequences: the oracle's and the column's.
type gapPair struct {
	name           string
	oracle, column func()
}

// BenchmarkGap times each pair in alternating blocks of calls by the process's CPU clock (the
// collector's work included; other processes' time left out), and reports per round the rate
// ratio column/oracle, the crosscheck's ours/oracle, as ratio-min, ratio-median, ratio-max.
func BenchmarkGap(b *testing.B) {
	for _, p := range gapPairs(b) {
		b.Run(p.name, func(b *testing.B) {
			var ratios []float64
			for round := 0; round < 5; round++ {
				ratios = append(ratios, gapRound(p))
			}
			sort.Float64s(ratios)
			b.ReportMetric(ratios[0], "ratio-min")
			b.ReportMetric(ratios[2], "ratio-median")
			b.ReportMetric(ratios[4], "ratio-max")
		})
	}
}

// gapRound runs 20 blocks of each sequence, alternating, each about 10 ms long, and returns
// oracle CPU time over column CPU time for the same number of calls.
func gapRound(p gapPair) float64 {
	n := 1
	for start := cpuClock(2); cpuClock(2)-start < 10_000_000; n++ {
		p.oracle()
	}
	var t [2]uint64
	for block := 0; block < 40; block++ {
		f := [2]func(){p.oracle, p.column}[block%2]
		start := cpuClock(2)
		for i := 0; i < n; i++ {
			f()
		}
		t[block%2] += cpuClock(2) - start
	}
	return float64(t[0]) / float64(t[1])
}

func gapPairs(b *testing.B) []gapPair {
	goKey, ours := goTestKey(b), shippedRSA(b, 2048)
	ours.Precompute()
	digest := sha256.Sum256([]byte("testing"))
	raw := make([]byte, 36)
	sign := func(key *rsa.PrivateKey, r io.Reader, h crypto.Hash, msg []byte) func() {
		return func() {
			if _, err := rsa.SignPKCS1v15(r, key, h, msg); err != nil {
				b.Fatal(err)
			}
		}
	}
	// rsa_test.go benchmarkSignPKCS1v15: Go's test key, a SHA-256 DigestInfo, crypto/rand.
	goSign := sign(goKey, rand.Reader, crypto.SHA256, digest[:])
	kemSeed := make([]byte, mlkem.SeedSize)
	rand.Read(kemSeed)
	var dsaSeed [32]byte
	var count uint64
	return []gapPair{
		// The column's call (suite.go rsaSigner) with each of the two keys.
		{"rsa-2048/column", goSign, sign(ours, nil, crypto.Hash(0), raw)},
		{"rsa-2048/key", goSign, sign(ours, rand.Reader, crypto.SHA256, digest[:])},
		{"rsa-2048/call", goSign, sign(goKey, nil, crypto.Hash(0), raw)},
		// The worker's own signer (suite.go timingSigner) and timed input (cells.go).
		{"rsa-2048/worker", goSign, workerSign(b)},
		// mlkem_test.go BenchmarkKeyGen against kem.go's generate (GenerateKey768).
		{"ml-kem-768/column", kemFixed(kemSeed), func() {
			dk, err := mlkem.GenerateKey768()
			if err != nil {
				b.Fatal(err)
			}
			gapSink = dk
		}},
		// Where ML-KEM's gap lies: 64 bytes of crypto/rand before the same fixed-seed call,
		// and the oracle's encoding of the encapsulation key left out.
		{"ml-kem-768/random", kemFixed(kemSeed), func() {
			seed := make([]byte, mlkem.SeedSize)
			rand.Read(seed)
			dk, _ := mlkem.NewDecapsulationKey768(seed)
			gapSink = dk.EncapsulationKey().Bytes()[0]
		}},
		{"ml-kem-768/encode", kemFixed(kemSeed), func() {
			gapSink, _ = mlkem.NewDecapsulationKey768(kemSeed)
		}},
		// CIRCL's BenchmarkGenerateKey (NewKeyFromSeed of a counter) against mldsa.go's keygen.
		{"ml-dsa-65/column", func() {
			count++
			binary.LittleEndian.PutUint64(dsaSeed[:], count)
			mldsa65.NewKeyFromSeed(&dsaSeed)
		}, func() {
			pk, sk, err := mldsa65.GenerateKey(nil)
			if err != nil {
				b.Fatal(err)
			}
			sinkKeys[0], sinkKeys[1] = pk, sk
		}},
		// CIRCL's BenchmarkSign (the zero-seed key, message i = 0, 1, ... b.N-1, rnd = 0)
		// against mldsa.go's sign (hedged, fixed message), and against the same call on
		// messages that never repeat: the rejection loop runs a different number of times per
		// message, and the oracle averages over one fixed prefix of messages.
		{"ml-dsa-65/sign", circlSign(oracleSignN), workerMldsaSign(b)},
		{"ml-dsa-65/prefix", circlSign(oracleSignN), circlSign(0)},
		// What is left between the two: the result the internal call allocates (the oracle
		// signs into one buffer), and the key (the oracle's zero seed, the worker's random).
		{"ml-dsa-65/alloc", circlSign(0), publicSign(zeroSeedKey())},
		{"ml-dsa-65/key", publicSign(zeroSeedKey()), publicSign(randomKey(b))},
		// BenchmarkSign's key and deterministic signing into one buffer, through the public
		// SignTo (M' = 0 ‖ 0 ‖ msg), against the worker's call.
		{"ml-dsa-65/public", publicSign(zeroSeedKey()), workerMldsaSign(b)},
		// BenchmarkSign's own call (CIRCL's internal SignTo, linked) on its prefix of messages
		// against the worker's: the calls' whole difference, in one binary.
		{"ml-dsa-65/linked", linkedSign(oracleSignN), workerMldsaSign(b)},
	}
}

// circlSignTo65 is CIRCL's internal SignTo, the call its BenchmarkSign times (the key's type is
// the public package's, the same struct).
//
//go:linkname circlSignTo65 github.com/cloudflare/circl/sign/mldsa/mldsa65/internal.SignTo
func circlSignTo65(sk *mldsa65.PrivateKey, msg func(io.Writer), rnd [32]byte, sig []byte)

// BenchmarkCirclSign is CIRCL's BenchmarkSign (sign/mldsa/mldsa65/internal/dilithium_test.go)
// line for line, compiled into this binary instead of CIRCL's test binary: the same calls in two
// executables, so a difference between this and the oracle's figure is the binary's, not the
// calls' (docs/experiments/crosscheck.md).
func BenchmarkCirclSign(b *testing.B) {
	var (
		seed [32]byte
		msg  [8]byte
		sig  [mldsa65.SignatureSize]byte
		rnd  [32]byte
	)
	_, sk := mldsa65.NewKeyFromSeed(&seed)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(msg[:], uint64(i))
		circlSignTo65(sk, func(w io.Writer) { _, _ = w.Write(msg[:]) }, rnd, sig[:])
	}
}

// linkedSign is BenchmarkSign's loop body on messages 0 .. n-1 over and over.
func linkedSign(n uint64) func() {
	var seed [32]byte
	var msg [8]byte
	var sig [mldsa65.SignatureSize]byte
	_, sk := mldsa65.NewKeyFromSeed(&seed)
	var i uint64
	return func() {
		binary.LittleEndian.PutUint64(msg[:], i)
		circlSignTo65(sk, func(w io.Writer) { _, _ = w.Write(msg[:]) }, [32]byte{}, sig[:])
		if i++; i == n {
			i = 0
		}
	}
}

// TestCirclSignLinked checks the linked call against CIRCL's own internal signing route (the one
// the known-answer tests take), so the benchmark above times a real signature.
func TestCirclSignLinked(t *testing.T) {
	var seed [32]byte
	_, sk := mldsa65.NewKeyFromSeed(&seed)
	msg := []byte("BenchmarkSign")
	var sig [mldsa65.SignatureSize]byte
	circlSignTo65(sk, func(w io.Writer) { _, _ = w.Write(msg) }, [32]byte{}, sig[:])
	if want := signInternal65(sk, msg, [32]byte{}); string(sig[:]) != string(want) {
		t.Fatalf("linked SignTo differs from unsafeSignInternal: %x... against %x...", sig[:8], want[:8])
	}
}

// oracleSignN is about b.N of CIRCL's BenchmarkSign at -test.benchtime 1s in the crosscheck's
// rounds (6093-7975 printed, 19:03 UTC): its messages are 0 .. b.N-1.
const oracleSignN = 7000

// circlSign is BenchmarkSign's call on the zero-seed key (the internal SignTo, through the
// public package's unsafeSignInternal: msg as M', rnd = 0), on messages 0 .. n-1 over and over,
// or never repeating when n is 0.
func circlSign(n uint64) func() {
	var seed [32]byte
	_, sk := mldsa65.NewKeyFromSeed(&seed)
	var msg [8]byte
	var i uint64
	return func() {
		binary.LittleEndian.PutUint64(msg[:], i)
		gapSink = signInternal65(sk, msg[:], [32]byte{})
		i++
		if n > 0 && i == n {
			i = 0
		}
	}
}

// publicSign signs messages 0, 1, ... (never repeating) deterministically with sk through the
// public SignTo into one buffer, as BenchmarkSign signs into one.
func publicSign(sk *mldsa65.PrivateKey) func() {
	var msg [8]byte
	var i uint64
	out := make([]byte, mldsa65.SignatureSize)
	return func() {
		binary.LittleEndian.PutUint64(msg[:], i)
		i++
		_ = mldsa65.SignTo(sk, msg[:], nil, false, out)
	}
}

func zeroSeedKey() *mldsa65.PrivateKey {
	var seed [32]byte
	_, sk := mldsa65.NewKeyFromSeed(&seed)
	return sk
}

func randomKey(b *testing.B) *mldsa65.PrivateKey {
	_, sk, err := mldsa65.GenerateKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	return sk
}

// workerMldsaSign is mldsa.go's sign cell as mldsaCell sets it up: a key from GenerateKey, the
// 32-byte timing message, hedged (rnd from crypto/rand), into a buffer made once.
func workerMldsaSign(b *testing.B) func() {
	pk, sk, err := mldsa65.GenerateKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	sinkKeys[0] = pk
	tbs, out := timingKey(32), make([]byte, mldsa65.SignatureSize)
	return func() {
		if err := mldsa65.SignTo(sk, tbs, nil, true, out); err != nil {
			b.Fatal(err)
		}
	}
}

// workerSign is the worker's rsa-2048 sign call as cells.go sets it up, key and input included.
func workerSign(b *testing.B) func() {
	key, _ := pem.Decode(mustRead(b, "../../crates/catalog/keys/rsa-2048.pem"))
	s, err := timingSigner(&prim{ID: "rsa-2048", Family: "rsa", PrivateKey: hex.EncodeToString(key.Bytes)})
	if err != nil {
		b.Fatal(err)
	}
	tbs := timingKey(36)
	return func() {
		if _, err := s.sign(tbs); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRead(b *testing.B, path string) []byte {
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return text
}

// kemFixed is mlkem_test.go's BenchmarkKeyGen through the public API: NewDecapsulationKey768 of a
// fixed d ‖ z is GenerateKeyInternal768, then the encapsulation key is encoded.
func kemFixed(seed []byte) func() {
	return func() {
		dk, _ := mlkem.NewDecapsulationKey768(seed)
		gapSink = dk.EncapsulationKey().Bytes()[0]
	}
}

// goTestKey is crypto/rsa's test2048Key, read from the toolchain's own rsa_test.go.
func goTestKey(b *testing.B) *rsa.PrivateKey {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/crypto/rsa/rsa_test.go"))
	if err != nil {
		b.Skip("no GOROOT source: ", err)
	}
	m := regexp.MustCompile("(?s)test2048KeyPEM = testingKey\\(`(.*?)`\\)").FindSubmatch(src)
	if m == nil {
		b.Fatal("no test2048KeyPEM in rsa_test.go")
	}
	block, _ := pem.Decode([]byte(strings.ReplaceAll(string(m[1]), "TESTING KEY", "PRIVATE KEY")))
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		b.Fatal(err)
	}
	return key.(*rsa.PrivateKey)
}
