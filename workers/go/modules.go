// Which Go package serves each primitive, with its module's version, for the `library` field of
// the worker's availability answer (`cryptospeed list --impl go` shows it per cell): the
// standard library (at the toolchain's version), golang.org/x/crypto or CIRCL.

package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// xcrypto and circl are the module paths whose versions the build records.
const (
	xcrypto = "golang.org/x/crypto"
	circl   = "github.com/cloudflare/circl"
)

// packages names the package of the primitives whose family does not say it.
var packages = map[string]string{
	"md4":               xcrypto + "/md4",
	"ripemd160":         xcrypto + "/ripemd160",
	"blake2b-512":       xcrypto + "/blake2b",
	"chacha20-poly1305": xcrypto + "/chacha20poly1305",
	"bf-cbc":            xcrypto + "/blowfish",
	"cast-cbc":          xcrypto + "/cast5",
	"sha3-256":          "crypto/sha3",
	"shake128":          "crypto/sha3",
	"ghash":             "crypto/cipher",
	"rc4":               "crypto/rc4",
	"des-cbc":           "crypto/des",
	"des-ede3-cbc":      "crypto/des",
}

// packageOf is the import path of the package the primitive's calls are made through.
func packageOf(p *prim) string {
	if pkg, ok := packages[p.ID]; ok {
		return pkg
	}
	switch p.Family {
	case "digest":
		return "crypto/" + p.ID // md5, sha1, sha256, sha512
	case "hmac":
		return "crypto/hmac"
	case "cipher":
		return "crypto/aes"
	case "aead":
		return "crypto/cipher"
	case "ecdsa", "rsa", "dsa", "ecdh":
		return "crypto/" + p.Family
	case "eddsa":
		return "crypto/ed25519"
	case "ml-kem":
		if isKem512(p) {
			return circl + "/kem/mlkem/mlkem512"
		}
		return "crypto/mlkem"
	case "hybrid-kem":
		return "crypto/mlkem, crypto/ecdh"
	case "ml-dsa":
		return circl + "/sign/mldsa/mldsa" + strings.TrimPrefix(p.Name, "ML-DSA-")
	case "slh-dsa":
		return circl + "/sign/slhdsa"
	}
	return ""
}

// moduleOf is the package that serves the primitive and its module's version: "crypto/mlkem
// (go1.26.8)", "github.com/cloudflare/circl/sign/mldsa/mldsa65 (v1.6.4)".
func moduleOf(p *prim) string {
	pkg := packageOf(p)
	if pkg == "" {
		return ""
	}
	version := runtime.Version()
	for _, m := range []string{xcrypto, circl} {
		if strings.HasPrefix(pkg, m+"/") {
			version = moduleVersion(m)
		}
	}
	return pkg + " (" + version + ")"
}

// moduleVersion is the version of module path this executable was built with.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "unknown version"
}
