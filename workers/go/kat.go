// Known-answer tests and the agreement computation over the vectors the orchestrator sends.
// Each vector kind is checked the way crates/impls/src/suite.rs (`known_answer`) checks it for
// the Rust-hosted libraries, so a primitive passes here exactly when it would pass there; the
// vectors themselves come from the Rust catalog, never from a copy in this worker.

package main

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

type agreementCase struct{ key, iv, msg, aad, peer []byte }

func hexBytes(s string) ([]byte, error) {
	return hex.DecodeString(strings.Join(strings.Fields(s), ""))
}

// mustHex decodes a vector field; the orchestrator's vectors are tested to be hex.
func mustHex(s string) []byte {
	b, err := hexBytes(s)
	if err != nil {
		panic(fmt.Sprintf("vector field is not hex: %v", err))
	}
	return b
}

// agreementCase is the primitive's agreement inputs, which also hold the EdDSA timing seed and
// the ECDH timing key pair.
func (p *prim) agreementCase() agreementCase {
	if p.Case == nil {
		return agreementCase{}
	}
	return agreementCase{mustHex(p.Case.Key), mustHex(p.Case.IV), mustHex(p.Case.Msg),
		mustHex(p.Case.AAD), mustHex(p.Case.Peer)}
}

func mismatch(what string, got, want []byte) error {
	return fmt.Errorf("%s: got %x, expected %x", what, got, want)
}

func corrupt(sig []byte) []byte {
	bad := append([]byte(nil), sig...)
	if len(bad) > 0 {
		bad[len(bad)/2] ^= 0x40
	}
	return bad
}

// knownAnswers runs every vector of the primitive; the first failure names its source.
func knownAnswers(p *prim) (err error) {
	defer func() {
		// A library that panics on a vector fails it, as a crash would in another worker.
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if len(p.Kats) == 0 {
		return errors.New("no known-answer vectors")
	}
	for _, k := range p.Kats {
		if e := knownAnswer(p, &k); e != nil {
			return fmt.Errorf("%v (%s)", e, k.Source)
		}
	}
	return nil
}

func knownAnswer(p *prim, k *katVector) error {
	if p.Family == "tls13-handshake" {
		return handshakeKnownAnswer(p)
	}
	if p.Family == "ml-kem" || p.Family == "hybrid-kem" {
		return kemKnownAnswer(p, k)
	}
	if p.Family == "slh-dsa" {
		return slhKnownAnswer(p, k)
	}
	if p.Family == "ml-dsa" {
		return mldsaKnownAnswer(p, k)
	}
	switch k.Kind {
	case "digest":
		msg, want := mustHex(k.Msg), mustHex(k.Out)
		f, err := hashOf(p)
		if err != nil {
			return err
		}
		got := make([]byte, len(want))
		f.into(msg, got)
		if !bytes.Equal(got, want) {
			return mismatch("digest", got, want)
		}
		return nil
	case "mac":
		want := mustHex(k.Out)
		f, err := macOf(p, mustHex(k.Key), mustHex(k.IV))
		if err != nil {
			return err
		}
		got := make([]byte, len(want))
		f(mustHex(k.Msg), got)
		if !bytes.Equal(got, want) {
			return mismatch("MAC", got, want)
		}
		return nil
	case "cipher":
		key, iv, pt, want := mustHex(k.Key), mustHex(k.IV), mustHex(k.Msg), mustHex(k.Out)
		enc, err := cipherOf(p, key, iv, true)
		if err != nil {
			return err
		}
		buf := append([]byte(nil), pt...)
		enc(buf)
		if !bytes.Equal(buf, want) {
			return mismatch("ciphertext", buf, want)
		}
		dec, err := cipherOf(p, key, iv, false)
		if err != nil {
			return err
		}
		dec(buf)
		if !bytes.Equal(buf, pt) {
			return mismatch("decrypted", buf, pt)
		}
		return nil
	case "aead":
		key, nonce, aad, pt := mustHex(k.Key), mustHex(k.IV), mustHex(k.AAD), mustHex(k.Msg)
		wantCT, wantTag := mustHex(k.Out), mustHex(k.Tag)
		a, err := aeadOf(p, key, len(nonce))
		if err != nil {
			return err
		}
		sealed := a.Seal(nil, nonce, pt, aad)
		ct, tag := sealed[:len(pt)], sealed[len(pt):]
		if !bytes.Equal(ct, wantCT) {
			return mismatch("ciphertext", ct, wantCT)
		}
		if !bytes.Equal(tag, wantTag) {
			return mismatch("tag", tag, wantTag)
		}
		opened, err := a.Open(nil, nonce, sealed, aad)
		if err != nil || !bytes.Equal(opened, pt) {
			return errors.New("decryption of the vector failed")
		}
		bad := append(append([]byte(nil), wantCT...), corrupt(wantTag)...)
		if _, err := a.Open(nil, nonce, bad, aad); err == nil {
			return errors.New("a corrupted tag authenticates")
		}
		return nil
	case "signature-verify":
		spki := mustHex(k.Public)
		public := spki
		switch p.Family {
		case "ecdsa":
			// The SEC1 point is the SubjectPublicKeyInfo's last 1 + 2 × field bytes.
			n := 1 + 2*fieldBytes(p.Name)
			if len(spki) < n || spki[len(spki)-n] != 0x04 {
				return errors.New("not an uncompressed EC SubjectPublicKeyInfo")
			}
			public = spki[len(spki)-n:]
		case "eddsa":
			if n := fieldBytes(p.Name); len(spki) >= n {
				public = spki[len(spki)-n:]
			}
		}
		msg, sig := mustHex(k.Msg), mustHex(k.Out)
		ok, err := verifyForeign(p, public, k.Digest, msg, sig)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("the published signature does not verify")
		}
		if ok, _ := verifyForeign(p, public, k.Digest, msg, corrupt(sig)); ok {
			return errors.New("a corrupted signature verifies")
		}
		return nil
	case "eddsa-sign":
		s, err := signerOf(p, mustHex(k.Key))
		if err != nil {
			return err
		}
		msg, want := mustHex(k.Msg), mustHex(k.Out)
		got, err := s.sign(msg)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return mismatch("signature", got, want)
		}
		if !s.verify(msg, got) || s.verify(msg, corrupt(got)) {
			return errors.New("verification of the vector's signature is wrong")
		}
		return nil
	case "agreement":
		want := mustHex(k.Out)
		f, err := deriveOf(p, mustHex(k.Key), mustHex(k.Public))
		if err != nil {
			return err
		}
		got, err := f()
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return mismatch("shared secret", got, want)
		}
		return nil
	case "cross-check":
		switch p.Family {
		case "rsa":
			return rsaCrossCheck(p)
		case "dsa", "ecdsa", "eddsa":
			s, err := timingSigner(p)
			if err != nil {
				return err
			}
			msg := []byte("cryptospeed sign-verify round trip")
			tbs := msg
			if p.Family != "eddsa" {
				// (EC)DSA sign a digest: the message's SHA-256.
				d := sha256.Sum256(msg)
				tbs = d[:]
			}
			sig, err := s.sign(tbs)
			if err != nil {
				return err
			}
			if !s.verify(tbs, sig) || s.verify(tbs, corrupt(sig)) {
				return errors.New("sign/verify round trip failed")
			}
			return nil
		}
		return fmt.Errorf("no generic check for: %s", k.Source)
	}
	return fmt.Errorf("vector kind %q does not fit %s", k.Kind, p.Family)
}

func fieldBytes(curve string) int {
	switch curve {
	case "P-384":
		return 48
	case "P-521":
		return 66
	case "X448":
		return 56
	case "ED448":
		return 57
	}
	return 32
}

// pkcs1Type1 is the EMSA-PKCS1-v1_5 block of t for a k-byte modulus (RFC 8017 9.2).
func pkcs1Type1(t []byte, k int) []byte {
	em := []byte{0, 1}
	for len(em) < k-len(t)-1 {
		em = append(em, 0xff)
	}
	em = append(em, 0)
	return append(em, t...)
}

// rsaCrossCheck checks RSA without a published vector per key size, as the other workers do:
// s^e mod n, computed with math/big outside crypto/rsa, must be the PKCS#1 v1.5 block of the
// timed 36-byte message (no digest) and of the SHA-256 DigestInfo used in the agreement check;
// the signature verifies and a corrupted one does not; PKCS#1 v1.5 encryption round-trips.
func rsaCrossCheck(p *prim) error {
	s, err := timingSigner(p)
	if err != nil {
		return err
	}
	key := s.(rsaSigner).key
	n, e := key.N, big.NewInt(int64(key.E))
	k := (n.BitLen() + 7) / 8
	open := func(sig []byte) []byte {
		m := new(big.Int).Exp(new(big.Int).SetBytes(sig), e, n).Bytes()
		return append(make([]byte, k-len(m)), m...)
	}
	tbs := make([]byte, 36)
	for i := range tbs {
		tbs[i] = byte(i)
	}
	sig, err := s.sign(tbs)
	if err != nil {
		return err
	}
	if !bytes.Equal(open(sig), pkcs1Type1(tbs, k)) {
		return errors.New("s^e mod n is not the PKCS#1 v1.5 encoding of the message")
	}
	if !s.verify(tbs, sig) {
		return errors.New("own signature rejected")
	}
	if s.verify(tbs, corrupt(sig)) {
		return errors.New("corrupted signature accepted")
	}
	plain := bytes.Repeat([]byte{0x5a}, 32)
	ct, err := rsaEncrypt(key, plain)
	if err != nil {
		return err
	}
	if back, err := rsaDecrypt(key, ct); err != nil || !bytes.Equal(back, plain) {
		return errors.New("the encryption round trip did not return the plaintext")
	}
	msg := []byte("cryptospeed RSA cross-check")
	digest := sha256.Sum256(msg)
	sig2, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:])
	if err != nil {
		return err
	}
	prefix, _ := hex.DecodeString("3031300d060960864801650304020105000420")
	if !bytes.Equal(open(sig2), pkcs1Type1(append(prefix, digest[:]...), k)) {
		return errors.New("s^e mod n is not the PKCS#1 v1.5 SHA-256 encoding of the message")
	}
	return nil
}

// agreement computes the primitive on the agreement inputs, as documented in
// cryptospeed_catalog::agreement: the output bytes, and for ECDSA the SEC1 public point.
func agreement(p *prim, c *agreementCase) ([]byte, []byte, error) {
	switch p.Family {
	case "digest", "xof":
		f, err := hashOf(p)
		if err != nil {
			return nil, nil, err
		}
		out := make([]byte, hashSize(p))
		f.into(c.msg, out)
		return out, nil, nil
	case "hmac", "gmac":
		f, err := macOf(p, c.key, c.iv)
		if err != nil {
			return nil, nil, err
		}
		out := make([]byte, macSize(p))
		f(c.msg, out)
		return out, nil, nil
	case "cipher":
		f, err := cipherOf(p, c.key, c.iv, true)
		if err != nil {
			return nil, nil, err
		}
		buf := append([]byte(nil), c.msg...)
		f(buf)
		return buf, nil, nil
	case "aead":
		a, err := aeadOf(p, c.key, len(c.iv))
		if err != nil {
			return nil, nil, err
		}
		return a.Seal(nil, c.iv, c.msg, c.aad), nil, nil
	case "rsa":
		s, err := signerOf(p, c.key)
		if err != nil {
			return nil, nil, err
		}
		d := sha256.Sum256(c.msg)
		sig, err := rsa.SignPKCS1v15(nil, s.(rsaSigner).key, crypto.SHA256, d[:])
		return sig, nil, err
	case "eddsa":
		s, err := signerOf(p, c.key)
		if err != nil {
			return nil, nil, err
		}
		sig, err := s.sign(c.msg)
		return sig, nil, err
	case "ecdsa":
		s, err := signerOf(p, nil)
		if err != nil {
			return nil, nil, err
		}
		d, err := digestOf(p.SignatureDigest, c.msg)
		if err != nil {
			return nil, nil, err
		}
		sig, err := s.sign(d)
		return sig, s.public(), err
	case "ecdh":
		f, err := deriveOf(p, c.key, c.peer)
		if err != nil {
			return nil, nil, err
		}
		out, err := f()
		return out, nil, err
	case "ml-kem", "hybrid-kem":
		return kemAgreement(p, c)
	case "slh-dsa":
		return slhAgreement(p, c)
	case "ml-dsa":
		return mldsaAgreement(p, c)
	}
	return nil, nil, fmt.Errorf("%s has no agreement check", p.ID)
}

// checkSignature verifies another implementation's ECDSA signature over msg.
func checkSignature(p *prim, public, msg, sig []byte) (bool, error) {
	if p.Agreement != "cross-verify" {
		return false, fmt.Errorf("%s signatures are compared as bytes", p.ID)
	}
	if p.Family == "ml-kem" || p.Family == "hybrid-kem" {
		return kemCheck(p, public, sig)
	}
	if p.Family == "slh-dsa" {
		return slhCheck(p, public, msg, sig)
	}
	if p.Family == "ml-dsa" {
		return mldsaCheck(p, public, msg, sig)
	}
	return verifyForeign(p, public, p.SignatureDigest, msg, sig)
}
