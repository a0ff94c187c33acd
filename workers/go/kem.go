// ML-KEM through Go's crypto/mlkem (768 and 1024; ML-KEM-512, which Go lacks, is CIRCL's:
// kem512.go), timed as the other
// columns time it (keygen from the system's generator; encaps to, and decaps with, keys made
// before timing). Known answers: seeded key generation and derandomised encapsulation
// (crypto/mlkem/mlkemtest, Go ≥ 1.26: kem_derand*.go) reproduce NIST's vectors. Go loads
// decapsulation keys only from their 64-byte seed, never in the expanded form the ACVP
// decapsulation vector gives, so that vector is replaced by a check Go's API allows: the keyGen
// vector's key decapsulates its own derandomised encapsulation to the same secret and a corrupted
// ciphertext to another one; cross-library decapsulation (the agreement check) covers the rest.

package main

import (
	"bytes"
	"crypto/mlkem"
	"errors"
	"fmt"
)

// mlkemDK is a decapsulation key of either parameter set.
type mlkemDK interface {
	Decapsulate(ciphertext []byte) ([]byte, error)
}

// kemScheme is one ML-KEM parameter set in Go.
type kemScheme struct {
	// fromSeed loads d ‖ z (nil: a fresh key pair); it returns the key and the encapsulation key.
	fromSeed func(seed []byte) (mlkemDK, []byte, error)
	// parse loads d ‖ z and nothing else: decaps+parse's timed call, which must not encode the
	// encapsulation key (nil: fromSeed's).
	parse func(seed []byte) (mlkemDK, error)
	// encapsulator encapsulates to ek: (shared key, ciphertext).
	encapsulator func(ek []byte) (func() ([]byte, []byte), error)
	// encapsulateWith is derandomised encapsulation with m.
	encapsulateWith func(ek, m []byte) ([]byte, []byte, error)
	// generate is the timed keygen: a fresh key pair, kept as Go's key object (nil: fromSeed's,
	// which also encodes, as the hybrid's share must be).
	generate func() (any, error)
}

func kemOf(p *prim) (*kemScheme, error) {
	switch p.Name {
	case "X25519MLKEM768":
		return hybridScheme(), nil
	case "ML-KEM-768":
		return &kemScheme{
			fromSeed: func(seed []byte) (mlkemDK, []byte, error) {
				var dk *mlkem.DecapsulationKey768
				var err error
				if seed == nil {
					dk, err = mlkem.GenerateKey768()
				} else {
					dk, err = mlkem.NewDecapsulationKey768(seed)
				}
				if err != nil {
					return nil, nil, err
				}
				return dk, dk.EncapsulationKey().Bytes(), nil
			},
			encapsulator: func(ek []byte) (func() ([]byte, []byte), error) {
				k, err := mlkem.NewEncapsulationKey768(ek)
				if err != nil {
					return nil, err
				}
				return k.Encapsulate, nil
			},
			encapsulateWith: encapsulate768With,
			generate:        func() (any, error) { return mlkem.GenerateKey768() },
			parse:           func(seed []byte) (mlkemDK, error) { return mlkem.NewDecapsulationKey768(seed) },
		}, nil
	case "ML-KEM-1024":
		return &kemScheme{
			fromSeed: func(seed []byte) (mlkemDK, []byte, error) {
				var dk *mlkem.DecapsulationKey1024
				var err error
				if seed == nil {
					dk, err = mlkem.GenerateKey1024()
				} else {
					dk, err = mlkem.NewDecapsulationKey1024(seed)
				}
				if err != nil {
					return nil, nil, err
				}
				return dk, dk.EncapsulationKey().Bytes(), nil
			},
			encapsulator: func(ek []byte) (func() ([]byte, []byte), error) {
				k, err := mlkem.NewEncapsulationKey1024(ek)
				if err != nil {
					return nil, err
				}
				return k.Encapsulate, nil
			},
			encapsulateWith: encapsulate1024With,
			generate:        func() (any, error) { return mlkem.GenerateKey1024() },
			parse:           func(seed []byte) (mlkemDK, error) { return mlkem.NewDecapsulationKey1024(seed) },
		}, nil
	}
	return nil, fmt.Errorf("Go's crypto/mlkem has no %s", p.Name)
}

// isKem512 is the parameter set served by CIRCL (kem512.go), not crypto/mlkem.
func isKem512(p *prim) bool { return p.Name == "ML-KEM-512" }

// kemProbe says whether the primitive can be set up and its known answers checked.
func kemProbe(p *prim) (any, error) {
	if isKem512(p) {
		return kem512Pair(nil)
	}
	if !haveDerandomisedEncapsulation {
		return nil, errors.New("ML-KEM's known answers need crypto/mlkem/mlkemtest (Go ≥ 1.26)")
	}
	return kemOf(p)
}

// kemKnownAnswer checks one vector (see the file comment for kem-decaps).
func kemKnownAnswer(p *prim, k *katVector) error {
	if isKem512(p) {
		return kem512KnownAnswer(k)
	}
	s, err := kemOf(p)
	if err != nil {
		return err
	}
	switch k.Kind {
	case "kem-keygen":
		_, ek, err := s.fromSeed(mustHex(k.Key))
		if err != nil {
			return err
		}
		if want := mustHex(k.Public); !bytes.Equal(ek, want) {
			return mismatch("encapsulation key", ek, want)
		}
		return nil
	case "kem-encaps":
		key, c, err := s.encapsulateWith(mustHex(k.Public), mustHex(k.Msg))
		if err != nil {
			return err
		}
		if want := mustHex(k.Out); !bytes.Equal(c, want) {
			return mismatch("ciphertext", c, want)
		}
		if want := mustHex(k.Tag); !bytes.Equal(key, want) {
			return mismatch("shared secret", key, want)
		}
		return nil
	case "kem-decaps":
		return kemSelfDecapsulation(p, s)
	}
	return fmt.Errorf("vector kind %q does not fit a KEM", k.Kind)
}

// kemSelfDecapsulation: the keyGen vector's key decapsulates its own derandomised encapsulation
// to the same secret, and a corrupted ciphertext (implicit rejection) to a different one.
func kemSelfDecapsulation(p *prim, s *kemScheme) error {
	var seed, m []byte
	for _, v := range p.Kats {
		switch v.Kind {
		case "kem-keygen":
			seed = mustHex(v.Key)
		case "kem-encaps":
			m = mustHex(v.Msg)
		}
	}
	if seed == nil || m == nil {
		return errors.New("no keyGen and encapsulation vectors to check decapsulation with")
	}
	dk, ek, err := s.fromSeed(seed)
	if err != nil {
		return err
	}
	key, c, err := s.encapsulateWith(ek, m)
	if err != nil {
		return err
	}
	got, err := dk.Decapsulate(c)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, key) {
		return mismatch("decapsulated secret", got, key)
	}
	if bad, _ := dk.Decapsulate(corrupt(c)); bytes.Equal(bad, key) {
		return errors.New("a corrupted ciphertext decapsulates to the same secret")
	}
	return nil
}

// kemAgreement encapsulates to the agreement seed's key: the ciphertext, and the secret as the
// "public" part the others check by decapsulating.
func kemAgreement(p *prim, c *agreementCase) ([]byte, []byte, error) {
	if isKem512(p) {
		return kem512Agreement(c)
	}
	s, err := kemOf(p)
	if err != nil {
		return nil, nil, err
	}
	_, ek, err := s.fromSeed(c.key)
	if err != nil {
		return nil, nil, err
	}
	enc, err := s.encapsulator(ek)
	if err != nil {
		return nil, nil, err
	}
	key, ct := enc()
	return ct, key, nil
}

// kemCheck decapsulates another library's ciphertext with the agreement seed's key.
func kemCheck(p *prim, secret, ct []byte) (bool, error) {
	if isKem512(p) {
		return kem512Check(p, secret, ct)
	}
	s, err := kemOf(p)
	if err != nil {
		return false, err
	}
	dk, _, err := s.fromSeed(p.agreementCase().key)
	if err != nil {
		return false, err
	}
	got, err := dk.Decapsulate(ct)
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, secret), nil
}

// kemCell is the timed loop of op.
func kemCell(p *prim, op string) (*cell, error) {
	if isKem512(p) {
		return kem512Cell(op)
	}
	s, err := kemOf(p)
	if err != nil {
		return nil, err
	}
	dk, ek, err := s.fromSeed(nil)
	if err != nil {
		return nil, err
	}
	enc, err := s.encapsulator(ek)
	if err != nil {
		return nil, err
	}
	switch op {
	case "keygen":
		return loop(func() error {
			if s.generate != nil {
				_, err := s.generate()
				return err
			}
			_, _, err := s.fromSeed(nil)
			return err
		}), nil
	case "keygen+encode", "encaps+parse", "decaps+parse":
		return kemFromBytesCell(s, dk, ek, op)
	case "encaps":
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				enc()
			}
			return nil
		}}, nil
	case "decaps":
		_, ct := enc()
		return &cell{func(iters uint64) error {
			for i := uint64(0); i < iters; i++ {
				if _, err := dk.Decapsulate(ct); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	return nil, fmt.Errorf("ML-KEM has no %s operation", op)
}

// loop is a cell calling f once per iteration.
func loop(f func() error) *cell {
	return &cell{func(iters uint64) error {
		for i := uint64(0); i < iters; i++ {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}}
}

// kemFromBytesCell is the timed loop of a from-bytes operation (catalog definitions.rs): keys
// cross the call as bytes. Go's only private key encoding is the 64-byte seed.
func kemFromBytesCell(s *kemScheme, dk mlkemDK, ek []byte, op string) (*cell, error) {
	if op == "encaps+parse" {
		return loop(func() error {
			enc, err := s.encapsulator(ek)
			if err == nil {
				enc()
			}
			return err
		}), nil
	}
	type encoded interface{ Bytes() []byte }
	seeded, ok := dk.(encoded)
	if !ok {
		return nil, fmt.Errorf("this key has no byte encoding in Go: no %s", op)
	}
	if op == "keygen+encode" {
		return loop(func() error {
			dk, ek, err := s.fromSeed(nil)
			if err == nil {
				sink = append(ek[:0:0], dk.(encoded).Bytes()...)
			}
			return err
		}), nil
	}
	seed := seeded.Bytes()
	enc, err := s.encapsulator(ek)
	if err != nil {
		return nil, err
	}
	_, ct := enc()
	parse := s.parse
	if parse == nil {
		parse = func(seed []byte) (mlkemDK, error) {
			dk, _, err := s.fromSeed(seed)
			return dk, err
		}
	}
	return loop(func() error {
		dk, err := parse(seed)
		if err == nil {
			_, err = dk.Decapsulate(ct)
		}
		return err
	}), nil
}

// sink keeps a result alive so the compiler cannot drop the work that made it.
var sink []byte
