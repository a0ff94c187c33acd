// SLH-DSA (FIPS 205) through Cloudflare's CIRCL (github.com/cloudflare/circl/sign/slhdsa; Go's
// standard library has none), timed as the other columns time it: keygen from the system's
// generator; sign a 32-byte message, pure SLH-DSA with an empty context, hedged; verify that
// signature. Known answers: key generation reads SK.seed ‖ SK.prf ‖ PK.seed from the vector as
// its random source (FIPS 205 algorithm 21 reads exactly those, in that order); the
// internal-interface vectors (M', deterministic) go through CIRCL's own slhSignInternal and
// slhVerifyInternal, the functions its exported Sign and Verify end in, reached by go:linkname
// because CIRCL exports no internal interface (as the aws-lc column calls AWS-LC's exported
// internal ML-DSA functions).

package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	_ "unsafe" // go:linkname

	"github.com/cloudflare/circl/sign/slhdsa"
)

//go:linkname slhSignInternal github.com/cloudflare/circl/sign/slhdsa.slhSignInternal
func slhSignInternal(sk *slhdsa.PrivateKey, message, addRand []byte) ([]byte, error)

//go:linkname slhVerifyInternal github.com/cloudflare/circl/sign/slhdsa.slhVerifyInternal
func slhVerifyInternal(pub *slhdsa.PublicKey, message, sig []byte) bool

// slhKey is one key pair of one parameter set.
type slhKey struct {
	pub  slhdsa.PublicKey
	priv slhdsa.PrivateKey
}

// slhOf makes a key pair from a 3n-byte seed, or from the system's generator (seed nil).
func slhOf(p *prim, seed []byte) (*slhKey, error) {
	id, err := slhdsa.IDByName(p.Name)
	if err != nil {
		return nil, fmt.Errorf("CIRCL has no %s", p.Name)
	}
	var r io.Reader = rand.Reader
	if seed != nil {
		r = bytes.NewReader(seed)
	}
	pub, priv, err := slhdsa.GenerateKey(r, id)
	if err != nil {
		return nil, err
	}
	return &slhKey{pub, priv}, nil
}

func (k *slhKey) sign(msg []byte) ([]byte, error) {
	return slhdsa.SignRandomized(&k.priv, rand.Reader, slhdsa.NewMessage(msg), nil)
}

func (k *slhKey) verify(msg, sig []byte) bool {
	return slhdsa.Verify(&k.pub, slhdsa.NewMessage(msg), sig, nil)
}

func (k *slhKey) public() []byte {
	b, _ := k.pub.MarshalBinary()
	return b
}

// slhPublic parses a public key of p's parameter set.
func slhPublic(p *prim, b []byte) (*slhdsa.PublicKey, error) {
	id, err := slhdsa.IDByName(p.Name)
	if err != nil {
		return nil, err
	}
	pub := slhdsa.PublicKey{ID: id}
	return &pub, pub.UnmarshalBinary(b)
}

// slhKnownAnswer checks one vector (see the file comment).
func slhKnownAnswer(p *prim, k *katVector) error {
	switch k.Kind {
	case "sig-keygen":
		key, err := slhOf(p, mustHex(k.Key))
		if err != nil {
			return err
		}
		if got, want := key.public(), mustHex(k.Public); !bytes.Equal(got, want) {
			return mismatch("public key", got, want)
		}
		return nil
	case "sig-internal":
		return slhSignAnswer(p, mustHex(k.Key), mustHex(k.Msg), mustHex(k.Out))
	case "sig-verify-internal":
		good, err := slhPublic(p, mustHex(k.Public))
		if err != nil {
			return err
		}
		if !slhVerifyInternal(good, mustHex(k.Msg), mustHex(k.Out)) {
			return fmt.Errorf("the published signature does not verify")
		}
		bad, err := slhPublic(p, mustHex(k.Key))
		if err != nil {
			return err
		}
		if slhVerifyInternal(bad, mustHex(k.AAD), mustHex(k.Tag)) {
			return fmt.Errorf("a signature the vectors reject verifies")
		}
		return nil
	}
	return fmt.Errorf("vector kind %q does not fit SLH-DSA", k.Kind)
}

// slhSignAnswer: slh_sign_internal(M', sk) with opt_rand = PK.seed (the deterministic variant).
func slhSignAnswer(p *prim, sk, msg, want []byte) error {
	id, err := slhdsa.IDByName(p.Name)
	if err != nil {
		return err
	}
	priv := slhdsa.PrivateKey{ID: id}
	if err := priv.UnmarshalBinary(sk); err != nil {
		return err
	}
	pkSeed := sk[len(sk)/2 : len(sk)/2+len(sk)/4]
	got, err := slhSignInternal(&priv, msg, pkSeed)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return mismatch("signature", got, want)
	}
	return nil
}

// slhAgreement signs the agreement message with the seed's key: the signature and public key.
func slhAgreement(p *prim, c *agreementCase) ([]byte, []byte, error) {
	key, err := slhOf(p, c.key)
	if err != nil {
		return nil, nil, err
	}
	sig, err := key.sign(c.msg)
	return sig, key.public(), err
}

// slhCheck verifies another implementation's pure SLH-DSA signature (empty context).
func slhCheck(p *prim, public, msg, sig []byte) (bool, error) {
	pub, err := slhPublic(p, public)
	if err != nil {
		return false, err
	}
	return slhdsa.Verify(pub, slhdsa.NewMessage(msg), sig, nil), nil
}

// slhCell is the timed loop of op, its key pair made before timing.
func slhCell(p *prim, op string) (*cell, error) {
	key, err := slhOf(p, nil)
	if err != nil {
		return nil, err
	}
	tbs := timingKey(32)
	sig, err := key.sign(tbs)
	if err != nil {
		return nil, err
	}
	loop := map[string]func() error{
		"keygen": func() error { _, err := slhOf(p, nil); return err },
		"sign":   func() error { _, err := key.sign(tbs); return err },
		"verify": func() error {
			if !key.verify(tbs, sig) {
				return fmt.Errorf("signature did not verify")
			}
			return nil
		},
	}[op]
	if loop == nil {
		return nil, fmt.Errorf("SLH-DSA has no %s operation", op)
	}
	return &cell{func(iters uint64) error {
		for i := uint64(0); i < iters; i++ {
			if err := loop(); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}
