package pki

import (
	"crypto"
	"fmt"
	"os"
)

// writeServiceAccountKeys writes the key pair that signs and verifies
// service-account tokens. Every apiserver in the cluster gets the same pair,
// so a token minted by one version is accepted by every other, which is
// exactly what a version-skew test needs to observe.
func writeServiceAccountKeys(keyFile, pubFile string) error {
	key, err := newServiceAccountKey()
	if err != nil {
		return fmt.Errorf("create service-account key: %w", err)
	}
	keyPEM, err := privateKeyPEM(key)
	if err != nil {
		return fmt.Errorf("create service-account key: %w", err)
	}
	pubPEM, err := publicKeyPEM(key.Public())
	if err != nil {
		return fmt.Errorf("create service-account key: %w", err)
	}
	if err := writeFileAtomic(keyFile, keyPEM, keyFileMode); err != nil {
		return fmt.Errorf("create service-account key: %w", err)
	}
	// The public key is public; it gets certificate permissions.
	if err := writeFileAtomic(pubFile, pubPEM, certFileMode); err != nil {
		return fmt.Errorf("create service-account public key: %w", err)
	}
	return nil
}

// checkServiceAccountKeys checks the public key file holds the public half
// of the private key, as apiservers would otherwise reject every token.
func checkServiceAccountKeys(keyFile, pubFile string) error {
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("read service-account key: %w", err)
	}
	key, err := parsePrivateKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("read service-account key %s: %w", keyFile, err)
	}
	pubPEM, err := os.ReadFile(pubFile)
	if err != nil {
		return fmt.Errorf("read service-account public key: %w", err)
	}
	pub, err := parsePublicKeyPEM(pubPEM)
	if err != nil {
		return fmt.Errorf("read service-account public key %s: %w", pubFile, err)
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	if eq, ok := key.Public().(equaler); !ok || !eq.Equal(pub) {
		return fmt.Errorf("service-account public key %s does not belong to private key %s", pubFile, keyFile)
	}
	return nil
}
