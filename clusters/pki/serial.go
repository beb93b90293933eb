package pki

import (
	"crypto/rand"
	"fmt"
	"math/big"
)

// serialLimit is 2^128: serial numbers are drawn uniformly below it.
var serialLimit = new(big.Int).Lsh(big.NewInt(1), 128)

// randomSerial returns a random positive 128-bit serial number.
//
// Serials must be unique per CA. A fresh bundle is made for every run, and
// clients cache TLS sessions and certificates by issuer and serial, so a
// counter restarting at 1 could make two different certificates look alike.
// 128 random bits make a collision impossible in practice and stay within
// RFC 5280's 20-octet limit.
func randomSerial() (*big.Int, error) {
	for {
		n, err := rand.Int(rand.Reader, serialLimit)
		if err != nil {
			return nil, fmt.Errorf("draw a random certificate serial number: %w", err)
		}
		if n.Sign() > 0 { // RFC 5280 wants serials positive; zero is merely unlikely
			return n, nil
		}
	}
}
