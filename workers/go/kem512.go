// ML-KEM-512 through Cloudflare's CIRCL (github.com/cloudflare/circl/kem/mlkem/mlkem512): Go's
// crypto/mlkem has only 768 and 1024. Timed as the catalog defines it: keygen from the system's
// generator (GenerateKeyPair); encaps to a key object parsed from the encoded key (CIRCL draws m
// from crypto/rand), decaps with a key object parsed from the expanded FIPS 203 key, writing
// into buffers made before timing; the from-bytes operations parse (and keygen+encode writes)
// the encapsulation key and the expanded decapsulation key in the loop. CIRCL's key objects
// cache the matrix A from when they were parsed (go.rs declares it). Known answers run every
// NIST vector through these calls: seeded key generation (NewKeyFromSeed), derandomised
// encapsulation (EncapsulateTo with m), and decapsulation with the vector's expanded key.

package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
)

// kem512Keys is a key pair as CIRCL's key objects, with its encodings.
type kem512Keys struct {
	pk     *mlkem512.PublicKey
	sk     *mlkem512.PrivateKey
	ek, dk []byte
}

// kem512Pair is the key pair of the 64-byte seed d ‖ z, or a fresh one (seed nil).
func kem512Pair(seed []byte) (*kem512Keys, error) {
	var k kem512Keys
	if seed == nil {
		var err error
		if k.pk, k.sk, err = mlkem512.GenerateKeyPair(nil); err != nil {
			return nil, err
		}
	} else {
		if len(seed) != mlkem512.KeySeedSize {
			return nil, fmt.Errorf("an ML-KEM seed is %d bytes, not %d", mlkem512.KeySeedSize, len(seed))
		}
		k.pk, k.sk = mlkem512.NewKeyFromSeed(seed)
	}
	k.ek, k.dk = make([]byte, mlkem512.PublicKeySize), make([]byte, mlkem512.PrivateKeySize)
	k.pk.Pack(k.ek)
	k.sk.Pack(k.dk)
	return &k, nil
}

// kem512Public parses an encapsulation key (with FIPS 203's modulus check).
func kem512Public(ek []byte) (*mlkem512.PublicKey, error) {
	var pk mlkem512.PublicKey
	return &pk, pk.Unpack(ek)
}

// kem512Private parses an expanded decapsulation key (with FIPS 203's hash check).
func kem512Private(dk []byte) (*mlkem512.PrivateKey, error) {
	var sk mlkem512.PrivateKey
	return &sk, sk.Unpack(dk)
}

// kem512Encaps encapsulates to an encoded key, with m (nil: from crypto/rand): (secret, ciphertext).
func kem512Encaps(ek, m []byte) ([]byte, []byte, error) {
	pk, err := kem512Public(ek)
	if err != nil {
		return nil, nil, err
	}
	if m != nil && len(m) != mlkem512.EncapsulationSeedSize {
		return nil, nil, fmt.Errorf("m is %d bytes, not %d", len(m), mlkem512.EncapsulationSeedSize)
	}
	ct, ss := make([]byte, mlkem512.CiphertextSize), make([]byte, mlkem512.SharedKeySize)
	pk.EncapsulateTo(ct, ss, m)
	return ss, ct, nil
}

// kem512Decaps decapsulates ct with an expanded decapsulation key.
func kem512Decaps(dk, ct []byte) ([]byte, error) {
	sk, err := kem512Private(dk)
	if err != nil {
		return nil, err
	}
	if len(ct) != mlkem512.CiphertextSize {
		return nil, fmt.Errorf("an ML-KEM-512 ciphertext is %d bytes, not %d", mlkem512.CiphertextSize, len(ct))
	}
	ss := make([]byte, mlkem512.SharedKeySize)
	sk.DecapsulateTo(ss, ct)
	return ss, nil
}

// kem512KnownAnswer checks one NIST vector.
func kem512KnownAnswer(k *katVector) error {
	switch k.Kind {
	case "kem-keygen":
		keys, err := kem512Pair(mustHex(k.Key))
		if err != nil {
			return err
		}
		if want := mustHex(k.Public); !bytes.Equal(keys.ek, want) {
			return mismatch("encapsulation key", keys.ek, want)
		}
		return nil
	case "kem-encaps":
		ss, ct, err := kem512Encaps(mustHex(k.Public), mustHex(k.Msg))
		if err != nil {
			return err
		}
		if want := mustHex(k.Out); !bytes.Equal(ct, want) {
			return mismatch("ciphertext", ct, want)
		}
		if want := mustHex(k.Tag); !bytes.Equal(ss, want) {
			return mismatch("shared secret", ss, want)
		}
		return nil
	case "kem-decaps":
		ss, err := kem512Decaps(mustHex(k.Key), mustHex(k.Msg))
		if err != nil {
			return err
		}
		if want := mustHex(k.Out); !bytes.Equal(ss, want) {
			return mismatch("shared secret", ss, want)
		}
		return nil
	}
	return fmt.Errorf("vector kind %q does not fit a KEM", k.Kind)
}

// kem512Agreement encapsulates to the agreement seed's key: the ciphertext, and the secret.
func kem512Agreement(c *agreementCase) ([]byte, []byte, error) {
	keys, err := kem512Pair(c.key)
	if err != nil {
		return nil, nil, err
	}
	ss, ct, err := kem512Encaps(keys.ek, nil)
	return ct, ss, err
}

// kem512Check decapsulates another library's ciphertext with the agreement seed's key.
func kem512Check(p *prim, secret, ct []byte) (bool, error) {
	keys, err := kem512Pair(p.agreementCase().key)
	if err != nil {
		return false, err
	}
	ss, err := kem512Decaps(keys.dk, ct)
	return err == nil && bytes.Equal(ss, secret), err
}

// kem512Cell is the timed loop of op; keys and one ciphertext are made before timing.
func kem512Cell(op string) (*cell, error) {
	keys, err := kem512Pair(nil)
	if err != nil {
		return nil, err
	}
	pk, err := kem512Public(keys.ek)
	if err != nil {
		return nil, err
	}
	sk, err := kem512Private(keys.dk)
	if err != nil {
		return nil, err
	}
	ct, ss := make([]byte, mlkem512.CiphertextSize), make([]byte, mlkem512.SharedKeySize)
	pk.EncapsulateTo(ct, ss, nil)
	ct2 := make([]byte, mlkem512.CiphertextSize)
	ek, dk := make([]byte, mlkem512.PublicKeySize), make([]byte, mlkem512.PrivateKeySize)
	f := map[string]func() error{
		"keygen": func() error { _, _, err := mlkem512.GenerateKeyPair(nil); return err },
		"keygen+encode": func() error {
			pk, sk, err := mlkem512.GenerateKeyPair(nil)
			if err == nil {
				pk.Pack(ek)
				sk.Pack(dk)
			}
			return err
		},
		"encaps": func() error { pk.EncapsulateTo(ct2, ss, nil); return nil },
		"encaps+parse": func() error {
			pk, err := kem512Public(keys.ek)
			if err == nil {
				pk.EncapsulateTo(ct2, ss, nil)
			}
			return err
		},
		"decaps": func() error { sk.DecapsulateTo(ss, ct); return nil },
		"decaps+parse": func() error {
			sk, err := kem512Private(keys.dk)
			if err == nil {
				sk.DecapsulateTo(ss, ct)
			}
			return err
		},
	}[op]
	if f == nil {
		return nil, errors.New("ML-KEM has no " + op + " operation")
	}
	return loop(f), nil
}
