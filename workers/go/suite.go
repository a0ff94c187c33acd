// Go's calls, primitive by primitive: the Go counterpart of the Rust `Suite`
// (crates/impls/src/suite.rs). Each family maps a catalog primitive onto the standard library or
// golang.org/x/crypto, so the known-answer tests (kat.go) and the timed cells (cells.go) are
// written once over these functions. A primitive Go does not have is named in `missing` with why.

package main

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/dsa"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"unsafe"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blowfish"
	"golang.org/x/crypto/cast5"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/md4"       //nolint:staticcheck // MD4 is measured because openssl speed measures it
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // likewise RIPEMD-160
)

// prim is one catalog primitive as the orchestrator sent it (crates/engine/src/vectors.rs).
type prim struct {
	ID              string       `json:"id"`
	Family          string       `json:"family"`
	Name            string       `json:"name"`
	KeyLen          int          `json:"key_len"`
	IVLen           int          `json:"iv_len"`
	TagLen          int          `json:"tag_len"`
	OutLen          int          `json:"out_len"`
	Bits            int          `json:"bits"`
	SignatureDigest string       `json:"signature_digest"`
	Agreement       string       `json:"agreement"`
	Case            *caseVectors `json:"case"`
	PrivateKey      string       `json:"private_key"`
	Kats            []katVector  `json:"kats"`
}

type caseVectors struct {
	Key  string `json:"key"`
	IV   string `json:"iv"`
	Msg  string `json:"msg"`
	AAD  string `json:"aad"`
	Peer string `json:"peer"`
}

type katVector struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	IV     string `json:"iv"`
	Msg    string `json:"msg"`
	AAD    string `json:"aad"`
	Out    string `json:"out"`
	Tag    string `json:"tag"`
	Public string `json:"public"`
	Digest string `json:"digest"`
	Source string `json:"source"`
}

// missing says why Go offers no implementation of these primitives.
var missing = map[string]string{
	"md2":              "Go's crypto has no MD2",
	"mdc2":             "Go's crypto has no MDC-2",
	"whirlpool":        "Go's crypto has no Whirlpool",
	"cmac":             "Go's crypto has no public CMAC (only crypto/internal)",
	"idea-cbc":         "Go's crypto has no IDEA",
	"seed-cbc":         "Go's crypto has no SEED",
	"rc2-cbc":          "Go's crypto has no public RC2 (only x/crypto/pkcs12/internal)",
	"rc5-cbc":          "Go's crypto has no RC5",
	"camellia-128-cbc": "Go's crypto has no Camellia",
	"camellia-192-cbc": "Go's crypto has no Camellia",
	"camellia-256-cbc": "Go's crypto has no Camellia",
	"x448":             "Go's crypto/ecdh has no X448",
	"ed448":            "Go's crypto has no Ed448",
	"ffdh-2048":        "Go's crypto has no finite-field Diffie-Hellman",
}

// unavailable is empty when Go offers the primitive, else the reason it does not.
func unavailable(p *prim) string {
	if why, ok := missing[p.ID]; ok {
		return why
	}
	switch p.Family {
	case "digest", "xof", "hmac", "gmac", "cipher", "aead", "rsa", "dsa", "ecdsa", "ecdh", "eddsa", "ml-kem", "hybrid-kem", "slh-dsa", "ml-dsa", "tls13-handshake":
	default:
		return "the Go worker has no " + p.Family + " family"
	}
	if _, err := probe(p); err != nil {
		return err.Error()
	}
	return ""
}

// probe sets the primitive up once with its agreement inputs (or timing key), so a primitive
// that is not mapped here is reported unavailable rather than failed.
func probe(p *prim) (any, error) {
	c := p.agreementCase()
	switch p.Family {
	case "digest", "xof":
		return hashOf(p)
	case "hmac", "gmac":
		return macOf(p, c.key, c.iv)
	case "cipher":
		return cipherOf(p, c.key, c.iv, true)
	case "aead":
		return aeadOf(p, c.key, p.IVLen)
	case "rsa", "dsa", "ecdsa", "eddsa":
		return timingSigner(p)
	case "ecdh":
		return deriveOf(p, c.key, c.peer)
	case "ml-kem", "hybrid-kem":
		return kemProbe(p)
	case "slh-dsa":
		return slhOf(p, nil)
	case "ml-dsa":
		return mldsaOf(p)
	case "tls13-handshake":
		_, _, err := handshakeParams(p)
		return nil, err
	}
	return nil, fmt.Errorf("the Go worker has no %s family", p.Family)
}

// hashFn hashes or MACs msg into out (sized by the caller to the output length).
type hashFn func(msg, out []byte)

// cipherFn encrypts or decrypts in place; chaining state carries over between calls.
type cipherFn func(buf []byte)

// fromHash is a digest through the hash.Hash interface, reset for each message.
func fromHash(h hash.Hash) hashFn {
	return func(msg, out []byte) {
		h.Reset()
		h.Write(msg)
		h.Sum(out[:0])
	}
}

// digest is a digest's or XOF's one-shot hash, in two forms. into writes the output to out (the
// known-answer tests and the agreement check need the bytes). timed is the timed call, made the
// way a Go program makes it: a package's Sum function returns the digest as a value, which lands
// in the caller's frame and is left there, as a Go benchmark leaves it. Copying it out again
// right after the call is work no other column's one-shot call does, and it is not cheap: about
// 5 ns of 70 at 16 bytes on the EPYC VM, in most calling contexts (consistent with a
// store-forwarding stall; docs/PERFORMANCE.md, "The Go worker against go test -bench").
type digest struct {
	into  hashFn
	timed func(msg []byte)
}

// summed is a package's Sum function (md5.Sum, sha256.Sum256, ...) as a digest; D, a byte array,
// is copied out as the bytes it is.
func summed[D ~[16]byte | ~[20]byte | ~[32]byte | ~[64]byte](sum func([]byte) D) digest {
	return digest{
		into: func(msg, out []byte) {
			d := sum(msg)
			copy(out, unsafe.Slice((*byte)(unsafe.Pointer(&d)), unsafe.Sizeof(d)))
		},
		timed: func(msg []byte) { sum(msg) },
	}
}

// written is a digest whose API writes into a slice the caller gives (hash.Hash.Sum, an XOF's
// Read): timed writes into a buffer of its own of the output's length.
func written(into hashFn, outLen int) digest {
	buf := make([]byte, outLen)
	return digest{into: into, timed: func(msg []byte) { into(msg, buf) }}
}

// hashOf is the one-shot hash of a digest or XOF, the package's Sum function where it has one.
func hashOf(p *prim) (digest, error) {
	switch p.ID {
	case "md4":
		return written(fromHash(md4.New()), md4.Size), nil
	case "md5":
		return summed(md5.Sum), nil
	case "sha1":
		return summed(sha1.Sum), nil
	case "ripemd160":
		return written(fromHash(ripemd160.New()), ripemd160.Size), nil
	case "sha256":
		return summed(sha256.Sum256), nil
	case "sha512":
		return summed(sha512.Sum512), nil
	case "sha3-256":
		return summed(sha3.Sum256), nil
	case "blake2b-512":
		return summed(blake2b.Sum512), nil
	case "shake128":
		h := sha3.NewSHAKE128()
		return written(func(msg, out []byte) {
			h.Reset()
			h.Write(msg)
			h.Read(out)
		}, hashSize(p)), nil
	}
	return digest{}, fmt.Errorf("Go's crypto has no %s", p.ID)
}

// hashSize is a digest's output length (an XOF's as timed).
func hashSize(p *prim) int {
	switch p.ID {
	case "md4", "md5":
		return 16
	case "sha1", "ripemd160":
		return 20
	case "sha256", "sha3-256":
		return 32
	case "sha512", "blake2b-512":
		return 64
	}
	return p.OutLen
}

// macOf keys HMAC once (crypto/hmac resets to the keyed state per message) or GMAC, which is
// AES-GCM sealing nothing with the message as associated data; iv is GMAC's nonce.
func macOf(p *prim, key, iv []byte) (hashFn, error) {
	switch p.ID {
	case "hmac-md5":
		return fromHash(hmac.New(md5.New, key)), nil
	case "hmac-sha256":
		return fromHash(hmac.New(sha256.New, key)), nil
	case "ghash":
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		gcm, err := cipher.NewGCMWithNonceSize(block, len(iv))
		if err != nil {
			return nil, err
		}
		nonce := append([]byte(nil), iv...)
		return func(msg, out []byte) { gcm.Seal(out[:0], nonce, nil, msg) }, nil
	}
	return nil, fmt.Errorf("Go's crypto has no %s", p.ID)
}

func macSize(p *prim) int {
	if p.ID == "hmac-sha256" {
		return 32
	}
	return 16
}

// cbc is CBC without padding on the whole blocks of the buffer, one mode object per cell so
// the chaining value carries over between calls (as openssl speed's EVP_Cipher does).
func cbc(block cipher.Block, err error, iv []byte, encrypt bool) (cipherFn, error) {
	if err != nil {
		return nil, err
	}
	var mode cipher.BlockMode
	if encrypt {
		mode = cipher.NewCBCEncrypter(block, iv)
	} else {
		mode = cipher.NewCBCDecrypter(block, iv)
	}
	bs := mode.BlockSize()
	return func(buf []byte) {
		n := len(buf) / bs * bs
		mode.CryptBlocks(buf[:n], buf[:n])
	}, nil
}

// ecb is Go's only way to ECB (it has no ECB mode): the block cipher's Encrypt or Decrypt over
// each whole block of the message.
func ecb(b cipher.Block, err error, encrypt bool) (cipherFn, error) {
	if err != nil {
		return nil, err
	}
	f := b.Decrypt
	if encrypt {
		f = b.Encrypt
	}
	bs := b.BlockSize()
	return func(buf []byte) {
		for i := 0; i+bs <= len(buf); i += bs {
			f(buf[i:i+bs], buf[i:i+bs])
		}
	}, nil
}

func stream(s cipher.Stream) cipherFn {
	return func(buf []byte) { s.XORKeyStream(buf, buf) }
}

func cipherOf(p *prim, key, iv []byte, encrypt bool) (cipherFn, error) {
	switch p.ID {
	case "des-cbc":
		b, err := des.NewCipher(key)
		return cbc(b, err, iv, encrypt)
	case "des-ede3-cbc":
		b, err := des.NewTripleDESCipher(key)
		return cbc(b, err, iv, encrypt)
	case "bf-cbc":
		b, err := blowfish.NewCipher(key)
		return cbc(b, err, iv, encrypt)
	case "cast-cbc":
		b, err := cast5.NewCipher(key)
		return cbc(b, err, iv, encrypt)
	case "aes-128-cbc", "aes-192-cbc", "aes-256-cbc":
		b, err := aes.NewCipher(key)
		return cbc(b, err, iv, encrypt)
	case "aes-128-ctr":
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return stream(cipher.NewCTR(b, iv)), nil
	case "aes-128-ecb", "aes-256-ecb":
		b, err := aes.NewCipher(key)
		return ecb(b, err, encrypt)
	case "rc4":
		c, err := rc4.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return stream(c), nil
	}
	return nil, fmt.Errorf("Go's crypto has no %s", p.ID)
}

// aeadOf returns the AEAD keyed once; GCM with another nonce length than 12 where a vector
// needs it.
func aeadOf(p *prim, key []byte, nonceLen int) (cipher.AEAD, error) {
	switch p.ID {
	case "aes-128-gcm", "aes-256-gcm":
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		if nonceLen == 12 {
			return cipher.NewGCM(b)
		}
		return cipher.NewGCMWithNonceSize(b, nonceLen)
	case "chacha20-poly1305":
		return chacha20poly1305.New(key)
	}
	return nil, fmt.Errorf("Go's crypto has no %s", p.ID)
}

// signer is a key pair: sign is the timed call (RSA: PKCS#1 v1.5 of the bytes as given, no
// digest; (EC)DSA: the bytes as a digest; EdDSA: the bytes as the message).
type signer interface {
	sign(tbs []byte) ([]byte, error)
	verify(tbs, sig []byte) bool
	// public is the key as other implementations read it: a SEC1 point for ECDSA.
	public() []byte
}

type rsaSigner struct{ key *rsa.PrivateKey }

func (s rsaSigner) sign(tbs []byte) ([]byte, error) {
	return rsa.SignPKCS1v15(nil, s.key, crypto.Hash(0), tbs)
}
func (s rsaSigner) verify(tbs, sig []byte) bool {
	return rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.Hash(0), tbs, sig) == nil
}
func (s rsaSigner) public() []byte { return nil }

// rsaEncrypt and rsaDecrypt are the timed RSA encryption operations: PKCS#1 v1.5 padding, as
// openssl speed's rsa encrypt/decrypt.
func rsaEncrypt(key *rsa.PrivateKey, msg []byte) ([]byte, error) {
	return rsa.EncryptPKCS1v15(rand.Reader, &key.PublicKey, msg)
}

func rsaDecrypt(key *rsa.PrivateKey, ct []byte) ([]byte, error) {
	return rsa.DecryptPKCS1v15(nil, key, ct)
}

type ecdsaSigner struct{ key *ecdsa.PrivateKey }

func (s ecdsaSigner) sign(tbs []byte) ([]byte, error) {
	return ecdsa.SignASN1(rand.Reader, s.key, tbs)
}
func (s ecdsaSigner) verify(tbs, sig []byte) bool {
	return ecdsa.VerifyASN1(&s.key.PublicKey, tbs, sig)
}
func (s ecdsaSigner) public() []byte {
	pk, err := s.key.PublicKey.ECDH()
	if err != nil {
		return nil
	}
	return pk.Bytes()
}

type ed25519Signer struct{ key ed25519.PrivateKey }

func (s ed25519Signer) sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }
func (s ed25519Signer) verify(msg, sig []byte) bool {
	return ed25519.Verify(s.key.Public().(ed25519.PublicKey), msg, sig)
}
func (s ed25519Signer) public() []byte { return []byte(s.key.Public().(ed25519.PublicKey)) }

type dsaSignature struct{ R, S *big.Int }

type dsaSigner struct{ key *dsa.PrivateKey }

// truncate keeps the leftmost bytes of a digest that fit the subgroup order (FIPS 186-4 4.6;
// crypto/dsa leaves this to the caller).
func truncate(digest []byte, q *big.Int) []byte {
	if n := (q.BitLen() + 7) / 8; len(digest) > n {
		return digest[:n]
	}
	return digest
}

func (s dsaSigner) sign(tbs []byte) ([]byte, error) {
	r, ss, err := dsa.Sign(rand.Reader, s.key, truncate(tbs, s.key.Q))
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(dsaSignature{r, ss})
}
func (s dsaSigner) verify(tbs, sig []byte) bool {
	return dsaVerify(&s.key.PublicKey, tbs, sig)
}
func (s dsaSigner) public() []byte { return nil }

func dsaVerify(pub *dsa.PublicKey, digest, sig []byte) bool {
	var rs dsaSignature
	rest, err := asn1.Unmarshal(sig, &rs)
	if err != nil || len(rest) > 0 || rs.R == nil || rs.S == nil {
		return false
	}
	return dsa.Verify(pub, truncate(digest, pub.Q), rs.R, rs.S)
}

// dsaFromPKCS8 reads a DSA PKCS#8 key, which crypto/x509 does not parse: the domain
// parameters from the algorithm identifier, x from the private key octets, y = g^x mod p.
func dsaFromPKCS8(der []byte) (*dsa.PrivateKey, error) {
	var info struct {
		Version    int
		Algorithm  pkix.AlgorithmIdentifier
		PrivateKey []byte
	}
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, fmt.Errorf("not a PKCS#8 key: %v", err)
	}
	if !info.Algorithm.Algorithm.Equal(asn1.ObjectIdentifier{1, 2, 840, 10040, 4, 1}) {
		return nil, errors.New("not a DSA PKCS#8 key")
	}
	var params dsa.Parameters
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("bad DSA parameters: %v", err)
	}
	x := new(big.Int)
	if _, err := asn1.Unmarshal(info.PrivateKey, &x); err != nil {
		return nil, fmt.Errorf("bad DSA private key: %v", err)
	}
	y := new(big.Int).Exp(params.G, x, params.P)
	return &dsa.PrivateKey{PublicKey: dsa.PublicKey{Parameters: params, Y: y}, X: x}, nil
}

func curveOf(p *prim) elliptic.Curve {
	switch p.Name {
	case "P-256":
		return elliptic.P256()
	case "P-384":
		return elliptic.P384()
	case "P-521":
		return elliptic.P521()
	}
	return nil
}

// signerOf sets up a key pair: key is PKCS#8 DER for RSA and DSA, the seed for EdDSA, and
// nil for ECDSA, which gets a fresh key pair.
func signerOf(p *prim, key []byte) (signer, error) {
	switch p.Family {
	case "rsa":
		k, err := x509.ParsePKCS8PrivateKey(key)
		if err != nil {
			return nil, err
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, errors.New("the shipped key is not an RSA key")
		}
		rk.Precompute()
		return rsaSigner{rk}, nil
	case "dsa":
		k, err := dsaFromPKCS8(key)
		if err != nil {
			return nil, err
		}
		return dsaSigner{k}, nil
	case "ecdsa":
		curve := curveOf(p)
		if curve == nil {
			return nil, fmt.Errorf("Go's crypto/ecdsa has no curve %s", p.Name)
		}
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			return nil, err
		}
		return ecdsaSigner{k}, nil
	case "eddsa":
		if p.Name != "ED25519" {
			return nil, fmt.Errorf("Go's crypto has no %s", p.Name)
		}
		if len(key) != ed25519.SeedSize {
			return nil, errors.New("an Ed25519 seed is 32 bytes")
		}
		return ed25519Signer{ed25519.NewKeyFromSeed(key)}, nil
	}
	return nil, fmt.Errorf("Go's crypto has no %s", p.ID)
}

// timingSigner is the timing key pair, as in the Rust suite: the shipped key for RSA and DSA,
// the agreement seed for EdDSA, a fresh pair for ECDSA.
func timingSigner(p *prim) (signer, error) {
	switch p.Family {
	case "rsa", "dsa":
		der, err := hexBytes(p.PrivateKey)
		if err != nil || len(der) == 0 {
			return nil, fmt.Errorf("no shipped key for %s", p.ID)
		}
		return signerOf(p, der)
	case "eddsa":
		return signerOf(p, p.agreementCase().key)
	}
	return signerOf(p, nil)
}

// digestOf hashes a message with a named digest (the catalog's signature digests).
func digestOf(name string, msg []byte) ([]byte, error) {
	switch name {
	case "SHA256":
		s := sha256.Sum256(msg)
		return s[:], nil
	case "SHA384":
		s := sha512.Sum384(msg)
		return s[:], nil
	case "SHA512":
		s := sha512.Sum512(msg)
		return s[:], nil
	case "SHA1":
		s := sha1.Sum(msg)
		return s[:], nil
	}
	return nil, fmt.Errorf("no digest %q", name)
}

// verifyForeign checks a signature made elsewhere over msg hashed with digest (none for
// EdDSA). public is a SEC1 point (ECDSA), a raw key (EdDSA) or a SubjectPublicKeyInfo (DSA).
func verifyForeign(p *prim, public []byte, digest string, msg, sig []byte) (bool, error) {
	switch p.Family {
	case "ecdsa":
		curve := curveOf(p)
		if curve == nil {
			return false, fmt.Errorf("Go's crypto/ecdsa has no curve %s", p.Name)
		}
		x, y := elliptic.Unmarshal(curve, public) //nolint:staticcheck // the SEC1 point is given
		if x == nil {
			return false, errors.New("not an uncompressed point on the curve")
		}
		d, err := digestOf(digest, msg)
		if err != nil {
			return false, err
		}
		return ecdsa.VerifyASN1(&ecdsa.PublicKey{Curve: curve, X: x, Y: y}, d, sig), nil
	case "eddsa":
		if p.Name != "ED25519" || len(public) != ed25519.PublicKeySize {
			return false, fmt.Errorf("Go cannot verify %s signatures", p.ID)
		}
		return ed25519.Verify(ed25519.PublicKey(public), msg, sig), nil
	case "dsa":
		k, err := x509.ParsePKIXPublicKey(public)
		if err != nil {
			return false, err
		}
		pub, ok := k.(*dsa.PublicKey)
		if !ok {
			return false, errors.New("not a DSA public key")
		}
		d, err := digestOf(digest, msg)
		if err != nil {
			return false, err
		}
		return dsaVerify(pub, d, sig), nil
	}
	return false, fmt.Errorf("Go cannot verify %s signatures over %s", p.ID, digest)
}

// deriveOf is key agreement between a raw private key and a peer's public key (SEC1 point or
// X25519 u-coordinate), both parsed once.
func deriveOf(p *prim, private, peer []byte) (func() ([]byte, error), error) {
	var curve ecdh.Curve
	switch p.Name {
	case "P-256":
		curve = ecdh.P256()
	case "P-384":
		curve = ecdh.P384()
	case "P-521":
		curve = ecdh.P521()
	case "X25519":
		curve = ecdh.X25519()
	default:
		return nil, fmt.Errorf("Go's crypto/ecdh has no %s", p.Name)
	}
	sk, err := curve.NewPrivateKey(private)
	if err != nil {
		return nil, err
	}
	pk, err := curve.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return func() ([]byte, error) { return sk.ECDH(pk) }, nil
}
