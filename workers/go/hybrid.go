// X25519MLKEM768 composed from crypto/mlkem and crypto/ecdh, as Go's crypto/tls composes its key
// share (draft-ietf-tls-ecdhe-mlkem): keys and ciphertexts put ML-KEM-768's part first, then the
// 32-byte X25519 share; the secret is ML-KEM's ‖ X25519's. It is a kemScheme like ML-KEM's, so
// kem.go's known answers, agreement and timed loops serve it unchanged. Seeds are d ‖ z ‖ the
// X25519 private key; the derandomising message is m ‖ the ephemeral X25519 private key.

package main

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"fmt"
)

const (
	mlkem768EK = 1184
	mlkem768CT = 1088
)

// hybridDK is the client's half: ML-KEM-768's decapsulation key and X25519's private key.
type hybridDK struct {
	ml *mlkem.DecapsulationKey768
	x  *ecdh.PrivateKey
}

func (h hybridDK) Decapsulate(ct []byte) ([]byte, error) {
	if len(ct) != mlkem768CT+32 {
		return nil, fmt.Errorf("a hybrid ciphertext is %d bytes, not %d", mlkem768CT+32, len(ct))
	}
	k, err := h.ml.Decapsulate(ct[:mlkem768CT])
	if err != nil {
		return nil, err
	}
	pub, err := ecdh.X25519().NewPublicKey(ct[mlkem768CT:])
	if err != nil {
		return nil, err
	}
	return x25519Append(k, h.x, pub)
}

// x25519Append appends X25519(priv, peer) to k.
func x25519Append(k []byte, priv *ecdh.PrivateKey, peer *ecdh.PublicKey) ([]byte, error) {
	ss, err := priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	return append(k, ss...), nil
}

func hybridFromSeed(seed []byte) (mlkemDK, []byte, error) {
	var h hybridDK
	var err error
	if seed == nil {
		if h.ml, err = mlkem.GenerateKey768(); err == nil {
			h.x, err = ecdh.X25519().GenerateKey(rand.Reader)
		}
	} else if len(seed) != 96 {
		return nil, nil, fmt.Errorf("a hybrid seed is 96 bytes, not %d", len(seed))
	} else if h.ml, err = mlkem.NewDecapsulationKey768(seed[:64]); err == nil {
		h.x, err = ecdh.X25519().NewPrivateKey(seed[64:])
	}
	if err != nil {
		return nil, nil, err
	}
	ek := append(h.ml.EncapsulationKey().Bytes(), h.x.PublicKey().Bytes()...)
	return h, ek, nil
}

// hybridEncapsulator is the server's reply to share ek; eph makes its X25519 key pair. The
// share's X25519 key is parsed here, once, as the other columns parse it before timing.
func hybridEncapsulator(ek []byte, eph func() (*ecdh.PrivateKey, error),
	mlEnc func(ek []byte) ([]byte, []byte, error)) (func() ([]byte, []byte, error), error) {
	if len(ek) != mlkem768EK+32 {
		return nil, fmt.Errorf("a hybrid share is %d bytes, not %d", mlkem768EK+32, len(ek))
	}
	peer, err := ecdh.X25519().NewPublicKey(ek[mlkem768EK:])
	if err != nil {
		return nil, err
	}
	return func() ([]byte, []byte, error) {
		k, c, err := mlEnc(ek[:mlkem768EK])
		if err != nil {
			return nil, nil, err
		}
		x, err := eph()
		if err != nil {
			return nil, nil, err
		}
		if k, err = x25519Append(k, x, peer); err != nil {
			return nil, nil, err
		}
		return k, append(c, x.PublicKey().Bytes()...), nil
	}, nil
}

func hybridScheme() *kemScheme {
	return &kemScheme{
		fromSeed: hybridFromSeed,
		encapsulator: func(ek []byte) (func() ([]byte, []byte), error) {
			mk, err := mlkem.NewEncapsulationKey768(ek[:min(len(ek), mlkem768EK)])
			if err != nil {
				return nil, err
			}
			mlEnc := func([]byte) ([]byte, []byte, error) { k, c := mk.Encapsulate(); return k, c, nil }
			eph := func() (*ecdh.PrivateKey, error) { return ecdh.X25519().GenerateKey(rand.Reader) }
			f, err := hybridEncapsulator(ek, eph, mlEnc)
			if err != nil {
				return nil, err
			}
			return func() ([]byte, []byte) { k, c, _ := f(); return k, c }, nil
		},
		encapsulateWith: func(ek, m []byte) ([]byte, []byte, error) {
			if len(m) != 64 {
				return nil, nil, fmt.Errorf("a hybrid encapsulation message is 64 bytes, not %d", len(m))
			}
			mlEnc := func(ek []byte) ([]byte, []byte, error) { return encapsulate768With(ek, m[:32]) }
			eph := func() (*ecdh.PrivateKey, error) { return ecdh.X25519().NewPrivateKey(m[32:]) }
			f, err := hybridEncapsulator(ek, eph, mlEnc)
			if err != nil {
				return nil, nil, err
			}
			return f()
		},
	}
}
