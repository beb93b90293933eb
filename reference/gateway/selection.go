package gateway

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// A request names the cluster it is for twice: the TLS server name (SNI) of its
// connection and its Host header. Clients that follow a kubeconfig send the same name in
// both (kubectl puts the server's host in each); the gateway selects the UpstreamCluster
// by one of them: the server name by default, the Host with Config.RouteByHost (as
// KubeGateway does; the server name then only picks the certificate and client CA).
//
// When both name a cluster and the clusters differ, the request is refused with 421
// Misdirected Request (RFC 9110 15.5.20, what a server answers a request its connection
// is not for; clients retry on a new connection), whichever name routes: the connection's
// TLS was the SNI cluster's, its client certificate verified against that cluster's
// client CA, so serving another cluster's request on it would let one cluster's clients
// into the other. A Host that names no cluster (an IP address: a kubeconfig with
// tls-server-name) leaves the choice to the server name; with RouteByHost such a request
// selects nothing.

// clusterFor is the cluster the request selects and the name that selected it (or failed
// to); misdirected says why the request is refused when its two names disagree.
func (g *Gateway) clusterFor(r *http.Request) (c *cluster, name, misdirected string) {
	sni := ""
	if r.TLS != nil {
		sni = strings.ToLower(r.TLS.ServerName)
	}
	if sni == "" {
		sni = g.cfg.DefaultServerName
	}
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	st := g.state.Load()
	if g.cfg.Defects.IgnoreSNI {
		if c := st.bySNI[g.cfg.DefaultServerName]; c != nil {
			return c, sni, ""
		}
		return st.clusters[0], sni, ""
	}
	bySNI, byHost := st.bySNI[sni], st.bySNI[host]
	if g.cfg.Defects.HostRoutesSNIAuthenticates && byHost != nil {
		return byHost, host, ""
	}
	if g.cfg.RouteByHost {
		c, name = byHost, host
		if c != nil && bySNI != c {
			misdirected = misdirection(sni, host)
		}
		return c, name, misdirected
	}
	c, name = bySNI, sni
	if c != nil && byHost != nil && byHost != c {
		misdirected = misdirection(sni, host)
	}
	return c, name, misdirected
}

// misdirection is the 421's message. It names what the client sent, not the clusters
// its names select: their names are the operator's, and one is another cluster's.
func misdirection(sni, host string) string {
	return fmt.Sprintf("the TLS server name %q and the Host %q do not select the same cluster: send the same name in both (open a new connection for %q)", sni, host, host)
}

// serveUnselected answers a request that selects no cluster: the gateway's own health
// endpoints and its own /version (as KubeGateway answers them), else 503 as KubeGateway
// answers ("not being proxied"), naming no cluster's server names: the client may be
// anybody, and they are other tenants'. The log has the name and those known.
func (g *Gateway) serveUnselected(w http.ResponseWriter, r *http.Request, name string) {
	switch r.URL.Path {
	case "/healthz", "/livez", "/readyz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok"))
		return
	case "/version":
		b, _ := json.Marshal(ownVersion)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	what := "TLS server name"
	if g.cfg.RouteByHost {
		what = "Host"
	}
	g.errorLog.Printf("%s %q from %s: the %s %q selects no UpstreamCluster (known: %s): answered 503",
		r.Method, r.URL.Path, r.RemoteAddr, what, name, strings.Join(g.state.Load().serverNames(), ", "))
	writeStatus(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, unavailableNoCluster, 0)
}

// ownVersion is the gateway's own /version, for requests no cluster takes.
var ownVersion = version.Info{GitVersion: "v0.0.0-skewcheck-reference-gateway", GoVersion: runtime.Version(),
	Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH}
