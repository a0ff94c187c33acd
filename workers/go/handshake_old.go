//go:build !go1.26

// Before Go 1.26 crypto/tls has no SecP256r1MLKEM768 and its ConnectionState no CurveID, which
// the handshake check reads, so the TLS handshake cells are unavailable (handshake.go).

package main

import "errors"

var errHandshakeGo = errors.New("TLS handshake cells need Go ≥ 1.26")

// checkedFlights stays empty: no handshake is checked (main.go reads it).
var checkedFlights = map[string][4]int{}

func handshakeParams(*prim) (int, int, error)    { return 0, 0, errHandshakeGo }
func handshakeKnownAnswer(*prim) error           { return errHandshakeGo }
func handshakeCell(*prim, string) (*cell, error) { return nil, errHandshakeGo }
