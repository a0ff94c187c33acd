//go:build !go1.26

// Before Go 1.26 there is no derandomised ML-KEM encapsulation, so ML-KEM's known answers cannot
// be checked and the primitive is listed unavailable (kemProbe).

package main

import "errors"

const haveDerandomisedEncapsulation = false

var errNoDerandomised = errors.New("derandomised ML-KEM encapsulation needs Go ≥ 1.26")

func encapsulate768With(ek, m []byte) ([]byte, []byte, error)  { return nil, nil, errNoDerandomised }
func encapsulate1024With(ek, m []byte) ([]byte, []byte, error) { return nil, nil, errNoDerandomised }
