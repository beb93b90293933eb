package peerproxy

import (
	"fmt"
	"net/url"

	"k8s.io/client-go/rest"
)

// A peer is whatever a lease in kube-system says it is, and anyone allowed to create
// leases there (leader-election clients among them) can write one. So a lease's URL is
// trusted for nothing: the proxy reads a peer's discovery, routes to it and writes its own
// lease through it only over TLS that verifies the server with the apiservers' CA under
// the name every apiserver's certificate carries (Config.ServerName,
// kubernetes.default.svc, as upstream verifies its peers with --peer-ca-file). A server
// the cluster's CA did not vouch for never gets a request, so it can neither claim
// resources (added to /apis and routed to it) nor hold requests for them (503s).
//
// Upstream has no such URL to check: a peer's address is in an endpoint lease that only
// apiservers write, in etcd, outside the API, and is always dialled as https.

// peerURL is raw if it names a peer the proxy may dial: https, a host (and port), nothing
// else. Credentials, paths and queries are refused rather than dropped: the lease is not
// what a proxy wrote.
func peerURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "", fmt.Errorf("the lease has no %s annotation", LeaseURLAnnotation)
	case err != nil:
		return "", fmt.Errorf("%s %q is not a URL: %v", LeaseURLAnnotation, raw, err)
	case u.Scheme != "https":
		return "", fmt.Errorf("%s %s is not https: peers are read and reached over verified TLS only", LeaseURLAnnotation, u.Redacted())
	case u.Hostname() == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("%s %s is not https://<host>[:<port>]: a proxy advertises nothing else", LeaseURLAnnotation, u.Redacted())
	}
	// String escapes the host again: an IPv6 zone's "%" is "%25" in a URL.
	return (&url.URL{Scheme: "https", Host: u.Host}).String(), nil
}

// peerConfig is the configuration to reach the peer a lease names with the proxy's control
// identity, or why it may not be reached. Whatever peerCfg returns, the server is verified:
// a configuration that would skip it is refused.
func (r *registry) peerConfig(raw string) (*rest.Config, error) {
	u, err := peerURL(raw)
	if err != nil {
		return nil, err
	}
	if r.peerCfg == nil {
		return nil, fmt.Errorf("peer %s: the proxy has no configuration for peers", u)
	}
	cfg := r.peerCfg(u)
	if cfg.Insecure || (cfg.CAFile == "" && len(cfg.CAData) == 0) || cfg.Transport != nil || cfg.WrapTransport != nil {
		return nil, fmt.Errorf("peer %s: the proxy's configuration does not verify it with the apiservers' CA", u)
	}
	return cfg, nil
}
