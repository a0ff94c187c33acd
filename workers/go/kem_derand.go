//go:build go1.26

// Derandomised ML-KEM encapsulation for the known-answer test (crypto/mlkem/mlkemtest, Go 1.26).

package main

import (
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
)

const haveDerandomisedEncapsulation = true

func encapsulate768With(ek, m []byte) ([]byte, []byte, error) {
	k, err := mlkem.NewEncapsulationKey768(ek)
	if err != nil {
		return nil, nil, err
	}
	return mlkemtest.Encapsulate768(k, m)
}

func encapsulate1024With(ek, m []byte) ([]byte, []byte, error) {
	k, err := mlkem.NewEncapsulationKey1024(ek)
	if err != nil {
		return nil, nil, err
	}
	return mlkemtest.Encapsulate1024(k, m)
}
