// ML-DSA (FIPS 204) through Cloudflare's CIRCL (github.com/cloudflare/circl/sign/mldsa/mldsaNN;
// Go's standard library has none), timed as the catalog defines it: keygen from the system's
// generator (GenerateKey); sign a 32-byte message, pure ML-DSA with an empty context, hedged
// (SignTo with randomized set: CIRCL draws rnd from crypto/rand), into a buffer made before
// timing; verify that signature; verify+parse with the encoded public key parsed in the loop.
// CIRCL's key objects cache A and the NTT forms of the key, which its keygen computes (go.rs
// declares both). Known answers: seeded key generation (NewKeyFromSeed); the internal-interface
// vectors (M', deterministic rnd = 0) go through CIRCL's own unsafeSignInternal and
// unsafeVerifyInternal, the functions its ACVP tests call, around the same internal SignTo and
// Verify the exported calls end in, reached by go:linkname because CIRCL exports no internal
// interface (as slh.go does for SLH-DSA).

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	_ "unsafe" // go:linkname

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"
)

//go:linkname signInternal44 github.com/cloudflare/circl/sign/mldsa/mldsa44.(*PrivateKey).unsafeSignInternal
func signInternal44(sk *mldsa44.PrivateKey, msg []byte, rnd [32]byte) []byte

//go:linkname verifyInternal44 github.com/cloudflare/circl/sign/mldsa/mldsa44.unsafeVerifyInternal
func verifyInternal44(pk *mldsa44.PublicKey, msg, sig []byte) bool

//go:linkname signInternal65 github.com/cloudflare/circl/sign/mldsa/mldsa65.(*PrivateKey).unsafeSignInternal
func signInternal65(sk *mldsa65.PrivateKey, msg []byte, rnd [32]byte) []byte

//go:linkname verifyInternal65 github.com/cloudflare/circl/sign/mldsa/mldsa65.unsafeVerifyInternal
func verifyInternal65(pk *mldsa65.PublicKey, msg, sig []byte) bool

//go:linkname signInternal87 github.com/cloudflare/circl/sign/mldsa/mldsa87.(*PrivateKey).unsafeSignInternal
func signInternal87(sk *mldsa87.PrivateKey, msg []byte, rnd [32]byte) []byte

//go:linkname verifyInternal87 github.com/cloudflare/circl/sign/mldsa/mldsa87.unsafeVerifyInternal
func verifyInternal87(pk *mldsa87.PublicKey, msg, sig []byte) bool

// mldsaKey is a key pair as CIRCL's key objects, behind the calls the cells time.
type mldsaKey struct {
	// sign writes a hedged pure signature (empty context) of msg into sig.
	sign   func(msg, sig []byte) error
	verify func(msg, sig []byte) bool
	public []byte
}

// mldsaSet is one ML-DSA parameter set in CIRCL.
type mldsaSet struct {
	sigSize int
	// generate is keygen from crypto/rand (fresh) or the 32-byte seed ξ.
	generate func(seed []byte) (*mldsaKey, error)
	// keygen is the timed keygen: a fresh key pair kept as CIRCL's key objects, nothing encoded
	// (generate's key also encodes its public key, for the signing cells).
	keygen func() error
	// keygenEncode is a fresh keygen with both keys written in FIPS 204's encodings.
	keygenEncode func() (public, private []byte, err error)
	// parseVerify parses an encoded public key and verifies a pure signature (empty context).
	parseVerify func(public, msg, sig []byte) (bool, error)
	// signInternal is ML-DSA.Sign_internal(sk, M', rnd = 0) of an encoded private key.
	signInternal func(private, msg []byte) ([]byte, error)
	// verifyInternal is ML-DSA.Verify_internal(pk, M', σ) of an encoded public key.
	verifyInternal func(public, msg, sig []byte) (bool, error)
}

// circlKey is what the three CIRCL packages' key types have in common.
type circlKey[T any] interface {
	*T
	Bytes() []byte
	UnmarshalBinary([]byte) error
}

// mldsaSetOf writes one parameter set over its package's functions (the packages are the same
// code generated three times, with distinct types).
func mldsaSetOf[PK, SK any, P circlKey[PK], S circlKey[SK]](
	generate func(io.Reader) (P, S, error),
	fromSeed func(*[32]byte) (P, S),
	signTo func(S, []byte, []byte, bool, []byte) error,
	verify func(P, []byte, []byte, []byte) bool,
	signInternal func(S, []byte, [32]byte) []byte,
	verifyInternal func(P, []byte, []byte) bool,
	sigSize int,
) *mldsaSet {
	key := func(pk P, sk S) *mldsaKey {
		return &mldsaKey{
			sign:   func(msg, sig []byte) error { return signTo(sk, msg, nil, true, sig) },
			verify: func(msg, sig []byte) bool { return verify(pk, msg, nil, sig) },
			public: pk.Bytes(),
		}
	}
	parsePublic := func(b []byte) (P, error) {
		pk := P(new(PK))
		return pk, pk.UnmarshalBinary(b)
	}
	return &mldsaSet{
		sigSize: sigSize,
		generate: func(seed []byte) (*mldsaKey, error) {
			if seed == nil {
				pk, sk, err := generate(nil)
				if err != nil {
					return nil, err
				}
				return key(pk, sk), nil
			}
			if len(seed) != 32 {
				return nil, fmt.Errorf("an ML-DSA seed is 32 bytes, not %d", len(seed))
			}
			return key(fromSeed((*[32]byte)(seed))), nil
		},
		keygen: func() error {
			pk, sk, err := generate(nil)
			sinkKeys[0], sinkKeys[1] = pk, sk
			return err
		},
		keygenEncode: func() ([]byte, []byte, error) {
			pk, sk, err := generate(nil)
			if err != nil {
				return nil, nil, err
			}
			return pk.Bytes(), sk.Bytes(), nil
		},
		parseVerify: func(public, msg, sig []byte) (bool, error) {
			pk, err := parsePublic(public)
			if err != nil {
				return false, err
			}
			return verify(pk, msg, nil, sig), nil
		},
		signInternal: func(private, msg []byte) ([]byte, error) {
			sk := S(new(SK))
			if err := sk.UnmarshalBinary(private); err != nil {
				return nil, err
			}
			return signInternal(sk, msg, [32]byte{}), nil
		},
		verifyInternal: func(public, msg, sig []byte) (bool, error) {
			pk, err := parsePublic(public)
			if err != nil {
				return false, err
			}
			return verifyInternal(pk, msg, sig), nil
		},
	}
}

var mldsaSets = map[string]*mldsaSet{
	"ML-DSA-44": mldsaSetOf(mldsa44.GenerateKey, mldsa44.NewKeyFromSeed, mldsa44.SignTo,
		mldsa44.Verify, signInternal44, verifyInternal44, mldsa44.SignatureSize),
	"ML-DSA-65": mldsaSetOf(mldsa65.GenerateKey, mldsa65.NewKeyFromSeed, mldsa65.SignTo,
		mldsa65.Verify, signInternal65, verifyInternal65, mldsa65.SignatureSize),
	"ML-DSA-87": mldsaSetOf(mldsa87.GenerateKey, mldsa87.NewKeyFromSeed, mldsa87.SignTo,
		mldsa87.Verify, signInternal87, verifyInternal87, mldsa87.SignatureSize),
}

func mldsaOf(p *prim) (*mldsaSet, error) {
	if s, ok := mldsaSets[p.Name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("CIRCL has no %s", p.Name)
}

// mldsaKnownAnswer checks one vector (see the file comment).
func mldsaKnownAnswer(p *prim, k *katVector) error {
	s, err := mldsaOf(p)
	if err != nil {
		return err
	}
	switch k.Kind {
	case "sig-keygen":
		key, err := s.generate(mustHex(k.Key))
		if err != nil {
			return err
		}
		if want := mustHex(k.Public); !bytes.Equal(key.public, want) {
			return mismatch("public key", key.public, want)
		}
		return nil
	case "sig-internal":
		got, err := s.signInternal(mustHex(k.Key), mustHex(k.Msg))
		if err != nil {
			return err
		}
		if want := mustHex(k.Out); !bytes.Equal(got, want) {
			return mismatch("signature", got, want)
		}
		return nil
	case "sig-verify-internal":
		good, err := s.verifyInternal(mustHex(k.Public), mustHex(k.Msg), mustHex(k.Out))
		if err != nil {
			return err
		}
		if !good {
			return errors.New("the published signature does not verify")
		}
		bad, err := s.verifyInternal(mustHex(k.Key), mustHex(k.AAD), mustHex(k.Tag))
		if err != nil {
			return err
		}
		if bad {
			return errors.New("a signature the vectors reject verifies")
		}
		return nil
	}
	return fmt.Errorf("vector kind %q does not fit ML-DSA", k.Kind)
}

// mldsaAgreement signs the agreement message with the seed's key: the signature and public key.
func mldsaAgreement(p *prim, c *agreementCase) ([]byte, []byte, error) {
	s, err := mldsaOf(p)
	if err != nil {
		return nil, nil, err
	}
	key, err := s.generate(c.key)
	if err != nil {
		return nil, nil, err
	}
	sig := make([]byte, s.sigSize)
	return sig, key.public, key.sign(c.msg, sig)
}

// mldsaCheck verifies another implementation's pure ML-DSA signature (empty context).
func mldsaCheck(p *prim, public, msg, sig []byte) (bool, error) {
	s, err := mldsaOf(p)
	if err != nil {
		return false, err
	}
	return s.parseVerify(public, msg, sig)
}

// sinkPrivate keeps a second result alive beside sink.
var sinkPrivate []byte

// sinkKeys keeps a key pair made as key objects alive.
var sinkKeys [2]any

// mldsaCell is the timed loop of op, its key pair and signature made before timing.
func mldsaCell(p *prim, op string) (*cell, error) {
	s, err := mldsaOf(p)
	if err != nil {
		return nil, err
	}
	key, err := s.generate(nil)
	if err != nil {
		return nil, err
	}
	tbs, sig := timingKey(32), make([]byte, s.sigSize)
	if err := key.sign(tbs, sig); err != nil {
		return nil, err
	}
	out := make([]byte, s.sigSize)
	f := map[string]func() error{
		"keygen": s.keygen,
		"keygen+encode": func() error {
			public, private, err := s.keygenEncode()
			sink, sinkPrivate = public, private
			return err
		},
		"sign": func() error { return key.sign(tbs, out) },
		"verify": func() error {
			if !key.verify(tbs, sig) {
				return errors.New("signature did not verify")
			}
			return nil
		},
		"verify+parse": func() error {
			ok, err := s.parseVerify(key.public, tbs, sig)
			if err == nil && !ok {
				err = errors.New("signature did not verify")
			}
			return err
		},
	}[op]
	if f == nil {
		return nil, fmt.Errorf("ML-DSA has no %s operation", op)
	}
	return loop(f), nil
}
