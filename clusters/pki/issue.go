package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"slices"
)

// inClusterDNSNames are the names clients inside a cluster use for the
// apiserver. Every serving certificate carries them so any apiserver can
// stand in for any other, and so peers (which verify one another with
// ServerName kubernetes.default.svc) need not know each other's addresses.
// localhost is there for tools run by hand on the machine.
var inClusterDNSNames = []string{
	"kubernetes",
	"kubernetes.default",
	"kubernetes.default.svc",
	"kubernetes.default.svc.cluster.local",
	"localhost",
}

// ServingCert issues a serving certificate signed by the cluster CA, written as <name>.crt/<name>.key in Dir.
// SANs always include the DNS names kubernetes, kubernetes.default, kubernetes.default.svc,
// kubernetes.default.svc.cluster.local and localhost (peers verify each other with ServerName kubernetes.default.svc),
// plus the given extra DNS names and IPs. ExtKeyUsage ServerAuth.
//
// Issuing again under the same name replaces the files, atomically each.
// Names of the bundle's own files (ca, admin, ...) are refused.
func (b *Bundle) ServingCert(name string, dnsNames []string, ips []net.IP) (Pair, error) {
	if err := checkName(name); err != nil {
		return Pair{}, fmt.Errorf("pki: issue serving certificate: %w", err)
	}
	sans := slices.Clone(inClusterDNSNames)
	for _, n := range dnsNames {
		if n != "" && !slices.Contains(sans, n) {
			sans = append(sans, n)
		}
	}
	var addrs []net.IP
	for i, ip := range ips {
		if len(ip) != net.IPv4len && len(ip) != net.IPv6len {
			return Pair{}, fmt.Errorf("pki: issue serving certificate %q: IP #%d (%v) is not a valid IPv4 or IPv6 address; pass addresses made by net.ParseIP or net.IPv4", name, i, ip)
		}
		if !slices.ContainsFunc(addrs, ip.Equal) {
			addrs = append(addrs, ip)
		}
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		DNSNames:    sans,
		IPAddresses: addrs,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	p := pairIn(b.Dir, name)
	if err := b.issue(b.CA, tmpl, p); err != nil {
		return Pair{}, fmt.Errorf("pki: issue serving certificate %q in %s: %w", name, b.Dir, err)
	}
	return p, nil
}

// ClientCert issues a client certificate (ExtKeyUsage ClientAuth) signed by the cluster CA for user with groups, written as <name>.crt/<name>.key.
//
// Names of the bundle's own files (ca, admin, ...) are refused.
func (b *Bundle) ClientCert(name, user string, groups []string) (Pair, error) {
	if err := checkName(name); err != nil {
		return Pair{}, fmt.Errorf("pki: issue client certificate: %w", err)
	}
	if user == "" {
		return Pair{}, fmt.Errorf("pki: issue client certificate %q: user name is empty; kube-apiserver would not authenticate it, pass a user such as %q", name, UnprivilegedUser)
	}
	p := pairIn(b.Dir, name)
	if err := b.issue(b.CA, clientTemplate(user, groups), p); err != nil {
		return Pair{}, fmt.Errorf("pki: issue client certificate %q for user %q in %s: %w", name, user, b.Dir, err)
	}
	return p, nil
}

// clientTemplate describes a client certificate for user in groups.
// kube-apiserver takes the user name from the CommonName and the groups from
// the Organization entries.
func clientTemplate(user string, groups []string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: slices.Clone(groups)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// issue loads the CA in ca and signs tmpl with it into p.
func (b *Bundle) issue(ca Pair, tmpl *x509.Certificate, p Pair) error {
	if b.Dir == "" {
		return fmt.Errorf("bundle has no directory; make bundles with pki.New or pki.Load")
	}
	a, err := loadAuthority(ca)
	if err != nil {
		return err
	}
	return a.issue(tmpl, p)
}

// ServingCertFiles is ServingCert returning the files' paths, as a front is handed them
// (clusters.FrontSite's ServingCert).
func (b *Bundle) ServingCertFiles(name string, dnsNames []string, ips []net.IP) (certFile, keyFile string, err error) {
	p, err := b.ServingCert(name, dnsNames, ips)
	return p.CertFile, p.KeyFile, err
}

// ClientCertFiles is ClientCert returning the files' paths (clusters.FrontSite's ClientCert).
func (b *Bundle) ClientCertFiles(name, user string, groups []string) (certFile, keyFile string, err error) {
	p, err := b.ClientCert(name, user, groups)
	return p.CertFile, p.KeyFile, err
}
