package pki

import (
	"fmt"
	"os"
	"path/filepath"
)

// New creates a fresh bundle in dir (creating dir, mode 0700). Keys: ECDSA P-256 for certs (fast), RSA 2048 for the service-account key (kube-apiserver accepts both; RSA is the most compatible).
//
// Files already in dir under the bundle's names are replaced; anything else
// there is left alone. Serving certificates are not part of the bundle:
// each apiserver asks for its own with ServingCert, once it knows its
// address.
func New(dir string) (*Bundle, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pki: create bundle in %q: make the path absolute: %w", dir, err)
	}
	if err := os.MkdirAll(abs, dirMode); err != nil {
		return nil, fmt.Errorf("pki: create bundle directory %s: %w; pass a directory you can write, such as one from os.MkdirTemp or t.TempDir", abs, err)
	}
	b := layout(abs)
	if err := b.create(); err != nil {
		return nil, fmt.Errorf("pki: create bundle in %s: %w", abs, err)
	}
	return b, nil
}

// create writes every file of the bundle: the two CAs first, then what
// they sign, then the service-account keys.
func (b *Bundle) create() error {
	ca, err := newAuthority("skewcheck-ca", b.CA)
	if err != nil {
		return err
	}
	frontProxyCA, err := newAuthority("skewcheck-front-proxy-ca", b.FrontProxyCA)
	if err != nil {
		return err
	}
	clients := []struct {
		ca     *authority
		p      Pair
		user   string
		groups []string
	}{
		{frontProxyCA, b.FrontProxyClient, FrontProxyClientName, nil},
		{ca, b.Admin, AdminUser, []string{mastersGroup}},
		{ca, b.User, UnprivilegedUser, []string{UnprivilegedGroup}},
	}
	for _, c := range clients {
		if err := c.ca.issue(clientTemplate(c.user, c.groups), c.p); err != nil {
			return fmt.Errorf("issue client certificate for %q: %w", c.user, err)
		}
	}
	return writeServiceAccountKeys(b.ServiceAccountKey, b.ServiceAccountPub)
}
