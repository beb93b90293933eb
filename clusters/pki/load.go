package pki

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Load reads a bundle that New wrote earlier into dir (for a CLI that attaches to a running cluster). Error if files are missing.
//
// Beyond existence, Load checks what would otherwise fail late and far away:
// every certificate parses and matches its key, the leaves chain to their
// CAs, and the service-account public key belongs to the private key.
// Serving certificates made with ServingCert are not looked at.
func Load(dir string) (*Bundle, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pki: load bundle from %q: make the path absolute: %w", dir, err)
	}
	b := layout(abs)
	if missing := b.missingFiles(); len(missing) > 0 {
		return nil, fmt.Errorf("pki: load bundle from %s: missing %s; was the cluster started with this directory? Recreate the bundle with pki.New if it is gone",
			abs, strings.Join(missing, ", "))
	}
	if err := b.check(); err != nil {
		return nil, fmt.Errorf("pki: load bundle from %s: %w; recreate the bundle with pki.New (and restart the cluster)", abs, err)
	}
	return b, nil
}

// files lists every file of the bundle.
func (b *Bundle) files() []string {
	var fs []string
	for _, p := range []Pair{b.CA, b.FrontProxyCA, b.FrontProxyClient, b.Admin, b.User} {
		fs = append(fs, p.CertFile, p.KeyFile)
	}
	return append(fs, b.ServiceAccountKey, b.ServiceAccountPub)
}

// missingFiles returns the base names of the bundle files that do not exist,
// so one error can report them all at once. Files that exist but cannot be
// read are left for check to report with the real reason.
func (b *Bundle) missingFiles() []string {
	var missing []string
	for _, f := range b.files() {
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, filepath.Base(f))
		}
	}
	return missing
}

// check verifies the bundle's files belong together.
func (b *Bundle) check() error {
	leaves := []struct {
		ca, leaf Pair
	}{
		{b.FrontProxyCA, b.FrontProxyClient},
		{b.CA, b.Admin},
		{b.CA, b.User},
	}
	for _, l := range leaves {
		ca, err := loadAuthority(l.ca)
		if err != nil {
			return err
		}
		if err := verifyClientPair(l.leaf, ca.cert); err != nil {
			return err
		}
	}
	return checkServiceAccountKeys(b.ServiceAccountKey, b.ServiceAccountPub)
}

// verifyClientPair checks that the client certificate in p matches its key
// and chains to ca.
func verifyClientPair(p Pair, ca *x509.Certificate) error {
	pair, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
	if err != nil {
		return fmt.Errorf("certificate %s and key %s: %w", p.CertFile, p.KeyFile, err)
	}
	leaf := pair.Leaf
	if leaf == nil { // only with GODEBUG x509keypairleaf=0
		if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return fmt.Errorf("certificate %s: %w", p.CertFile, err)
		}
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{
		Roots:     roots,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return fmt.Errorf("certificate %s does not verify against CA %q: %w", p.CertFile, ca.Subject.CommonName, err)
	}
	return nil
}
