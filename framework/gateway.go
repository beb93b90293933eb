package framework

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"k8s.io/client-go/rest"
)

// FeatureGateway: an API gateway under test stands in front of the target's endpoints
// (which are then the apiservers behind it), and the suite may change its configuration.
var FeatureGateway = DeclareFeature("Gateway", func(t *Target) string {
	if t.Unowned {
		return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a gateway under test runs in front of the apiservers of a cluster skewcheck makes")
	}
	if t.Gateway == nil {
		return "no API gateway under test"
	}
	return ""
})

// Gateway is an API gateway in front of all of the target's apiservers, configured with
// UpstreamCluster documents (proxy.kubegateway.io/v1alpha1). The target's Endpoints are
// the apiservers themselves, reached directly: their audit logs show which one a request
// through the gateway reached, and their Nodes stop, kill and freeze them.
type Gateway struct {
	// Name is the gateway's name in the report.
	Name string
	// Endpoint reaches the gateway as a client of the cluster ServerName selects: Admin
	// and User are the same identities as the apiserver endpoints', through the gateway.
	// Its URL names the gateway by ServerName, so every client sends that name both as the
	// TLS server name (SNI) and as the Host header, as kubectl does with a kubeconfig whose
	// server is https://<name>:<port>; its configs dial Address whatever the URL names.
	Endpoint *Endpoint
	// ServerName is the server name (SNI and Host) of Template's cluster. The gateway's
	// serving certificate also covers every name under ServerDomain, for tests that add
	// clusters.
	ServerName, ServerDomain string
	// Address is where the gateway listens, ip:port: what its clients dial.
	Address string
	// Identity is the user name the gateway's own client certificate (the template's
	// spec.clientConfig) authenticates as upstream: an audit event whose user is this
	// records the request where the gateway sent it.
	Identity string
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

// As is the gateway reached with another server name, sent as both SNI and Host, by the
// same admin and user as Endpoint.
func (g *Gateway) As(serverName string) *Endpoint {
	return g.AsMismatched(serverName, serverName)
}

// AsMismatched is the gateway reached with the TLS server name sni and the Host header
// host: a kubeconfig whose server is https://<host>:<port> and whose tls-server-name is
// sni.
func (g *Gateway) AsMismatched(sni, host string) *Endpoint {
	e := g.Endpoint
	u, err := url.Parse(e.URL)
	if err != nil {
		panic(fmt.Sprintf("the gateway's URL %q: %v", e.URL, err))
	}
	u.Host = net.JoinHostPort(host, u.Port())
	with := func(cfg *rest.Config) *rest.Config {
		c := rest.CopyConfig(cfg)
		c.Host = u.String()
		c.TLSClientConfig.ServerName = ""
		if sni != host {
			c.TLSClientConfig.ServerName = sni
		}
		return c
	}
	name := "gateway as " + host
	if sni != host {
		name = fmt.Sprintf("gateway as SNI %s, Host %s", sni, host)
	}
	return &Endpoint{Name: name, URL: u.String(), Admin: with(e.Admin), User: with(e.User), Log: e.Log, RequestTimeout: e.RequestTimeout}
}

// Transport is a transport of its own to the gateway, as client-go builds one from cfg
// (TLS, HTTP/2) dialing Address: for tests that need many client connections.
func (g *Gateway) Transport(cfg *rest.Config) (*http.Transport, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	return &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true, DialContext: cfg.Dial}, nil
}

// ConnectTo dials addr whatever address a client asks for (curl's --connect-to): a client
// config whose URL names a server by a name no resolver knows, with ConnectTo as its
// rest.Config.Dial, sends that name as SNI and Host and reaches addr.
func ConnectTo(addr string) func(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
}
