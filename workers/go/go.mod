// The Go worker's module (workers/go): Go's crypto behind cryptospeed's worker protocol. go 1.24 is
// the oldest toolchain it builds with (crypto/sha3); x/crypto v0.48.0 is the newest release
// that still asks for no more, and circl v1.6.4 (SLH-DSA: slh.go) the newest circl that does.
module cryptospeed/workers/go

go 1.24.0

require (
	github.com/cloudflare/circl v1.6.4
	golang.org/x/crypto v0.48.0
)

require golang.org/x/sys v0.41.0 // indirect
