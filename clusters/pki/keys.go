package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// serviceAccountKeyBits is the size of the service-account RSA key. 2048 is
// the smallest size every supported kube-apiserver and every JWT library
// accepts, and the largest that is still quick to generate per run.
const serviceAccountKeyBits = 2048

// newCertKey generates the private key of a CA or leaf certificate. ECDSA
// P-256 because a bundle is made for every run and P-256 keys take
// microseconds, where RSA keys take tens of milliseconds each; Go's TLS
// stack, which kube-apiserver and etcd use, supports it everywhere.
func newCertKey() (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate ECDSA P-256 key: %w", err)
	}
	return k, nil
}

// newServiceAccountKey generates the key that signs service-account tokens.
// RSA rather than ECDSA: kube-apiserver accepts both, but RS256 is what every
// client and every older apiserver version verifying tokens is sure to know.
func newServiceAccountKey() (*rsa.PrivateKey, error) {
	k, err := rsa.GenerateKey(rand.Reader, serviceAccountKeyBits)
	if err != nil {
		return nil, fmt.Errorf("generate RSA %d key: %w", serviceAccountKeyBits, err)
	}
	return k, nil
}

// privateKeyPEM encodes key the way kubeadm does ("EC PRIVATE KEY" or
// "RSA PRIVATE KEY"), the forms the oldest apiserver versions still read.
func privateKeyPEM(key crypto.Signer) ([]byte, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return nil, fmt.Errorf("encode ECDSA private key: %w", err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
	case *rsa.PrivateKey:
		return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), nil
	default:
		return nil, fmt.Errorf("encode private key: unsupported key type %T", key)
	}
}

// publicKeyPEM encodes a public key as PKIX "PUBLIC KEY", the form
// --service-account-key-file expects.
func publicKeyPEM(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// parsePrivateKeyPEM reads the first private key in data. It accepts PKCS#8
// as well as the forms privateKeyPEM writes, so a bundle whose keys were
// replaced by hand (with openssl, say) still loads.
func parsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM private key block found (want EC PRIVATE KEY, RSA PRIVATE KEY or PRIVATE KEY)")
		}
		var (
			key any
			err error
		)
		switch block.Type {
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		default:
			continue // e.g. "EC PARAMETERS", which openssl writes first
		}
		if err != nil {
			return nil, fmt.Errorf("parse %s block: %w", block.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("%s block holds a %T, which cannot sign", block.Type, key)
		}
		return signer, nil
	}
}

// parseCertificatePEM reads the first certificate in data.
func parseCertificatePEM(data []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM CERTIFICATE block found")
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse CERTIFICATE block: %w", err)
		}
		return cert, nil
	}
}

// certificatePEM encodes a DER certificate as PEM.
func certificatePEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// parsePublicKeyPEM reads the first PKIX "PUBLIC KEY" in data.
func parsePublicKeyPEM(data []byte) (crypto.PublicKey, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM PUBLIC KEY block found")
		}
		if block.Type != "PUBLIC KEY" {
			continue
		}
		pub, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse PUBLIC KEY block: %w", err)
		}
		return pub, nil
	}
}
