package local

import (
	"context"

	"github.com/skewcheck/skewcheck/framework"
)

// extensionAddress is the harness address (Hosts.HarnessAddress) where an aggregated API
// server the suites run listens: every apiserver reaches it, as it reaches the fronts.
// The APIService's ExternalName Service names it (an ExternalName may be an address).
const extensionAddress = 60

// Target describes the running cluster for the suites: every server is an endpoint the
// suite can also stop, kill and freeze, with a readable audit log.
func (c *Cluster) Target(ctx context.Context) (*framework.Target, error) {
	t := &framework.Target{Kind: c.hosts.Kind(), Upstream: true, Converge: c.WaitConverged, RelearnPeers: c.NudgePeerDiscovery}
	for _, s := range c.Servers {
		t.Endpoints = append(t.Endpoints, &framework.Endpoint{
			Name: s.Name, URL: s.URL(),
			Admin: c.RestConfig(s, Admin), User: c.RestConfig(s, Unprivileged),
			AuditLog: s.AuditLog(), Log: s.Log(), Node: s,
		})
	}
	if ip, err := c.hosts.HarnessAddress(extensionAddress); err != nil {
		t.NoExtensionHost = err.Error()
	} else {
		t.ExtensionHost, t.NoExtensionHost = framework.ExtensionHostAt(ip)
	}
	return t, t.Refresh(ctx)
}
