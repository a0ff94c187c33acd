//go:build go1.26

// Resumed TLS 1.3 handshakes (`handshake-resumed`) in Go's crypto/tls, apart from the full ones
// (handshake.go) because the server must issue tickets here and must not there. Go's server,
// tickets on, issues a new ticket in every handshake whose client offers psk_dhe_ke
// (crypto/tls handshake_server_tls13.go, shouldSendSessionTickets) and has no setting that
// stops it, so each timed call also issues one ticket, which the client reads (its cache then
// holds it, and the next call offers it): the column's declared deviation from the catalog's
// definition, whose server issues none.

package main

import (
	"crypto/tls"
	"errors"
)

// newResumedPair: the cell's configurations with tickets on and a client session cache, and
// one full handshake made (outside any clock) so the cache holds a ticket.
func newResumedPair(p *prim) (*tlsPair, error) {
	t, err := newTLSPair(p)
	if err != nil {
		return nil, err
	}
	t.server = t.server.Clone()
	t.server.SessionTicketsDisabled = false
	t.client = t.client.Clone()
	t.client.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	if resumed, err := t.ticketedOnce(); err != nil {
		return nil, err
	} else if resumed {
		return nil, errors.New("the first handshake resumed with an empty session cache")
	}
	return t, nil
}

// ticketedOnce runs one handshake, then has the client read the server's new ticket (the
// server's end closed under it, so the read ends once the ticket is in); reports whether both
// ends resumed.
func (t *tlsPair) ticketedOnce() (bool, error) {
	client, server, _, err := t.handshakeOnce(nil, nil)
	if err != nil {
		return false, err
	}
	server.NetConn().Close()
	var one [1]byte
	if n, _ := client.Read(one[:]); n != 0 {
		return false, errors.New("the server sent application data after its handshake")
	}
	cs, ss := client.ConnectionState(), server.ConnectionState()
	if cs.DidResume != ss.DidResume {
		return false, errors.New("one end resumed and the other did not")
	}
	return cs.DidResume, nil
}

// resumedCell times resumed handshakes, each checked to have resumed on both ends.
func resumedCell(p *prim) (*cell, error) {
	t, err := newResumedPair(p)
	if err != nil {
		return nil, err
	}
	run := func(iters uint64) error {
		for i := uint64(0); i < iters; i++ {
			resumed, err := t.ticketedOnce()
			if err != nil {
				return err
			}
			if !resumed {
				return errors.New("a handshake offered a ticket and did not resume")
			}
		}
		return nil
	}
	if err := run(1); err != nil {
		return nil, err
	}
	return &cell{run: run}, nil
}
