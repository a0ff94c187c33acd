//go:build go1.26

// TLS 1.3 handshake cells (the catalog's tls13-handshake primitives) in Go's crypto/tls: a
// client and a server of one process, each in its own goroutine, joined by in-memory pipes (no
// sockets), one fresh pair of connections per handshake. Certificates are made at set-up with
// crypto/x509 (a root and a server certificate for localhost issued by it, of the cell's key
// type). crypto/tls runs a handshake to completion in one blocking call per end, so a side's
// steps are clocked by its own connection: from when its goroutine starts or its read returns
// with data to when it blocks for the other's next flight or finishes. With GOMAXPROCS 1 (the
// worker is pinned to one CPU in a run) the two sides never run at once.

// SecP256r1MLKEM768 is offered only with the Go 1.26 default, which go.mod (go 1.24) would not
// give this program.
//go:debug tlssecpmlkem=1

package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var goGroups = map[string]tls.CurveID{
	"X25519":            tls.X25519,
	"X25519MLKEM768":    tls.X25519MLKEM768,
	"SecP256r1MLKEM768": tls.SecP256r1MLKEM768,
}

var goSchemes = map[string]tls.SignatureScheme{
	"ECDSA-P256": tls.ECDSAWithP256AndSHA256,
	"Ed25519":    tls.Ed25519,
	"RSA-2048":   tls.PSSWithSHA256,
}

// schemeNames are RFC 8446's names of the schemes above.
var schemeNames = map[tls.SignatureScheme]string{
	tls.ECDSAWithP256AndSHA256: "ecdsa_secp256r1_sha256",
	tls.Ed25519:                "ed25519",
	tls.PSSWithSHA256:          "rsa_pss_rsae_sha256",
}

// handshakeParams splits the primitive's protocol name, GROUP/CERT.
func handshakeParams(p *prim) (tls.CurveID, tls.SignatureScheme, error) {
	group, cert, _ := strings.Cut(p.Name, "/")
	g, ok := goGroups[group]
	if !ok {
		return 0, 0, fmt.Errorf("Go's crypto/tls has no %s key exchange", group)
	}
	s, ok := goSchemes[cert]
	if !ok {
		return 0, 0, fmt.Errorf("Go's crypto/tls has no %s certificates", cert)
	}
	return g, s, nil
}

// recordingSigner signs for the server and remembers the scheme it signed with.
type recordingSigner struct {
	crypto.Signer
	used *atomic.Uint32
}

func (r recordingSigner) Sign(rnd io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	var s tls.SignatureScheme
	switch r.Public().(type) {
	case ed25519.PublicKey:
		s = tls.Ed25519
	case *ecdsa.PublicKey:
		s = tls.ECDSAWithP256AndSHA256
	case *rsa.PublicKey:
		if pss, ok := opts.(*rsa.PSSOptions); ok && pss.Hash == crypto.SHA256 {
			s = tls.PSSWithSHA256
		}
	}
	r.used.Store(uint32(s))
	return r.Signer.Sign(rnd, digest, opts)
}

func newKey(s tls.SignatureScheme) (crypto.Signer, error) {
	switch s {
	case tls.ECDSAWithP256AndSHA256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case tls.Ed25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	default:
		return rsa.GenerateKey(rand.Reader, 2048)
	}
}

// tlsPair is one cell's configurations and the scheme the server last signed with.
type tlsPair struct {
	client, server *tls.Config
	used           *atomic.Uint32
}

func newTLSPair(p *prim) (*tlsPair, error) {
	group, scheme, err := handshakeParams(p)
	if err != nil {
		return nil, err
	}
	rootKey, err := newKey(scheme)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	root := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cryptospeed root"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	rootDER, err := x509.CreateCertificate(rand.Reader, root, root, rootKey.Public(), rootKey)
	if err != nil {
		return nil, err
	}
	rootCert, _ := x509.ParseCertificate(rootDER)
	key, err := newKey(scheme)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), DNSNames: []string{"localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, rootCert, key.Public(), rootKey)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(rootCert)
	used := new(atomic.Uint32)
	cert := tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: recordingSigner{key, used},
		SupportedSignatureAlgorithms: []tls.SignatureScheme{scheme}}
	curves := []tls.CurveID{group}
	return &tlsPair{
		client: &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS13, CurvePreferences: curves},
		server: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13,
			CurvePreferences: curves, SessionTicketsDisabled: true},
		used: used,
	}, nil
}

// pipeEnd is one end of an in-memory duplex: writes never block; reads block until the other
// end writes. It clocks its side's active time when clocked is set.
type pipeEnd struct {
	in, out *pipeBuf
	clock   *sideClock
	written int
	// What this end had written when it first waited for the other's flight: the client's
	// ClientHello.
	waited, firstFlight int
}

// checkedFlights holds, per handshake primitive, the bytes each flight of its checked
// handshake wrote (ClientHello, the server's flight, the client's Finished, the server's
// tickets), sent with the verify reply so the figures carry them.
var checkedFlights = map[string][4]int{}

type pipeBuf struct {
	mu     sync.Mutex
	cond   *sync.Cond
	data   []byte
	closed bool
}

func newPipeBuf() *pipeBuf {
	b := &pipeBuf{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// sideClock sums a side's active stretches (wall, CPU, TSC).
type sideClock struct {
	on                bool
	start             cpuMark
	startTSC          uint64
	startWall         time.Time
	wall, cpu, cycles uint64
}

func (c *sideClock) resume() {
	if c != nil && c.on {
		c.start, c.startTSC, c.startWall = markCPU(), rdtsc(), time.Now()
	}
}

func (c *sideClock) pause() {
	if c != nil && c.on {
		c.wall += uint64(time.Since(c.startWall).Nanoseconds())
		c.cycles += rdtsc() - c.startTSC
		c.cpu += cpuSince(c.start)
	}
}

func (e *pipeEnd) Read(p []byte) (int, error) {
	b := e.in
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.data) == 0 && !b.closed {
		if e.waited++; e.waited == 1 {
			e.firstFlight = e.written
		}
		e.clock.pause()
		for len(b.data) == 0 && !b.closed {
			b.cond.Wait()
		}
		e.clock.resume()
	}
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (e *pipeEnd) Write(p []byte) (int, error) {
	b := e.out
	b.mu.Lock()
	b.data = append(b.data, p...)
	b.mu.Unlock()
	b.cond.Signal()
	e.written += len(p)
	return len(p), nil
}

func (e *pipeEnd) Close() error {
	e.out.mu.Lock()
	e.out.closed = true
	e.out.mu.Unlock()
	e.out.cond.Signal()
	return nil
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "memory" }
func (pipeAddr) String() string  { return "memory" }

func (e *pipeEnd) LocalAddr() net.Addr                { return pipeAddr{} }
func (e *pipeEnd) RemoteAddr() net.Addr               { return pipeAddr{} }
func (e *pipeEnd) SetDeadline(t time.Time) error      { return nil }
func (e *pipeEnd) SetReadDeadline(t time.Time) error  { return nil }
func (e *pipeEnd) SetWriteDeadline(t time.Time) error { return nil }

// handshakeOnce runs one handshake between fresh ends; the server in a goroutine of its own.
// It returns the bytes of each flight: ClientHello, the server's flight (with any tickets),
// the client's Finished, and 0 for tickets apart.
func (t *tlsPair) handshakeOnce(cc, sc *sideClock) (*tls.Conn, *tls.Conn, [4]int, error) {
	toServer, toClient := newPipeBuf(), newPipeBuf()
	ce := &pipeEnd{in: toClient, out: toServer, clock: cc}
	se := &pipeEnd{in: toServer, out: toClient, clock: sc}
	client, server := tls.Client(ce, t.client), tls.Server(se, t.server)
	done := make(chan error, 1)
	go func() {
		sc.resume()
		err := server.Handshake()
		sc.pause()
		if err != nil {
			se.Close() // the client's read then ends
		}
		done <- err
	}()
	cc.resume()
	err := client.Handshake()
	cc.pause()
	if err != nil {
		ce.Close() // the server's read then ends
	}
	if serr := <-done; err == nil {
		err = serr
	}
	flights := [4]int{ce.firstFlight, se.written, ce.written - ce.firstFlight, 0}
	return client, server, flights, err
}

// handshakeKnownAnswer: the handshake completes, group and scheme are the ones asked for, and
// both ends export the same keying material (RFC 8446 7.5).
func handshakeKnownAnswer(p *prim) error {
	t, err := newTLSPair(p)
	if err != nil {
		return err
	}
	group, scheme, _ := handshakeParams(p)
	client, server, flights, err := t.handshakeOnce(nil, nil)
	if err != nil {
		return err
	}
	checkedFlights[p.ID] = flights
	cs, ss := client.ConnectionState(), server.ConnectionState()
	if cs.CurveID != group || ss.CurveID != group {
		return fmt.Errorf("negotiated group %v where %v was asked for", cs.CurveID, group)
	}
	if got := tls.SignatureScheme(t.used.Load()); got != scheme {
		return fmt.Errorf("the server signed with %s where %s was asked for", schemeNames[got], schemeNames[scheme])
	}
	label, context := "EXPORTER-cryptospeed-handshake-check", []byte("cryptospeed")
	a, err1 := cs.ExportKeyingMaterial(label, context, 32)
	b, err2 := ss.ExportKeyingMaterial(label, context, 32)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if string(a) != string(b) {
		return errors.New("the ends' exported keying material differs (RFC 8446 7.5)")
	}
	return nil
}

// handshakeCell times whole handshakes, or one side's stretches of them; resumed ones are
// resumed.go's.
func handshakeCell(p *prim, op string) (*cell, error) {
	if op == "handshake-resumed" {
		runtime.GOMAXPROCS(1) // as below
		return resumedCell(p)
	}
	t, err := newTLSPair(p)
	if err != nil {
		return nil, err
	}
	run := func(iters uint64) error {
		for i := uint64(0); i < iters; i++ {
			if _, _, _, err := t.handshakeOnce(nil, nil); err != nil {
				return err
			}
		}
		return nil
	}
	c := &cell{run: run}
	switch op {
	case "handshake":
	case "handshake-client", "handshake-server":
		selfTimed[c] = func(iters uint64) (*sample, error) {
			var cc, sc sideClock
			timed := &cc
			if op == "handshake-server" {
				timed = &sc
			}
			timed.on = true
			for i := uint64(0); i < iters; i++ {
				if _, _, _, err := t.handshakeOnce(&cc, &sc); err != nil {
					return nil, err
				}
			}
			return &sample{Iters: iters, WallNs: max(timed.wall, 1), CPUNs: timed.cpu, TSC: timed.cycles}, nil
		}
	default:
		return nil, fmt.Errorf("a TLS handshake has no %s operation", op)
	}
	// Intended and process-wide: the two ends must never run at once (each side's clock would
	// hold the other's work), and a run pins the worker to one CPU anyway. Later cells of the
	// same worker keep it; `verify` (not pinned) runs them on one P too.
	runtime.GOMAXPROCS(1)
	return c, nil
}
