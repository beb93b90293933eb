package framework

import "context"

// FeatureGateway: an API gateway under test stands in front of the target's endpoints
// (which are then the apiservers behind it), and the suite may change its configuration.
const FeatureGateway Feature = "Gateway"

// Gateway is an API gateway in front of all of the target's apiservers, configured with
// UpstreamCluster documents (proxy.kubegateway.io/v1alpha1). The target's Endpoints are
// the apiservers themselves, reached directly: their audit logs show which one a request
// through the gateway reached, and their Nodes stop, kill and freeze them.
type Gateway struct {
	// Name is the gateway's name in the report.
	Name string
	// Endpoint reaches the gateway as a client of the cluster ServerName selects: Admin
	// and User are the same identities as the apiserver endpoints', through the gateway.
	Endpoint *Endpoint
	// ServerName is the TLS server name (SNI) of Template's cluster. The gateway's serving
	// certificate also covers every name under ServerDomain, for tests that add clusters.
	ServerName, ServerDomain string
	// Template is an UpstreamCluster document (YAML) for the target's apiservers, in
	// Endpoints order, with the gateway's client identity, serving certificate and one
	// catch-all dispatch policy. Tests change its policies and flow control and Apply it.
	Template []byte
	// Apply replaces the gateway's configuration with docs (each one YAML document) and
	// returns once the gateway has applied them, or with the gateway's reason for refusing
	// them.
	Apply func(ctx context.Context, docs [][]byte) error
	// Connections counts the TCP connections the gateway's processes hold open now to each
	// of the given addresses (host:port); nil when they cannot be counted.
	Connections func(addrs []string) (map[string]int, error)
}

func missingGateway(t *Target) string {
	if t.Gateway == nil {
		return "no API gateway under test (run with --gateway reference or --gateway-command)"
	}
	return ""
}
