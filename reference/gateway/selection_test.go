package gateway

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"
)

// Which cluster a request selects, by its TLS server name and Host, in both modes: the
// names agree (or the Host names no cluster, in SNI mode) and it is served; they name two
// different clusters and it is misdirected (421); a name no cluster lists selects nothing.
func TestClusterFor(t *testing.T) {
	a, b := &cluster{name: "a"}, &cluster{name: "b"}
	st := &state{clusters: []*cluster{a, b}, bySNI: map[string]*cluster{"a.test": a, "b.test": b}}
	for _, tc := range []struct {
		byHost          bool
		sni, host       string
		want            *cluster
		wantMisdirected bool
	}{
		{false, "a.test", "a.test:443", a, false},
		{false, "b.test", "B.test", b, false},
		{false, "a.test", "127.0.0.1:443", a, false}, // kubectl with tls-server-name
		{false, "", "127.0.0.1:443", a, false},       // no SNI: the default server name
		{false, "a.test", "b.test:443", a, true},
		{false, "unknown.test", "b.test:443", nil, false},
		{true, "a.test", "a.test:443", a, false},
		{true, "b.test", "b.test", b, false},
		{true, "a.test", "127.0.0.1:443", nil, false}, // KubeGateway: the Host selects nothing
		{true, "a.test", "b.test:443", b, true},
		{true, "unknown.test", "b.test:443", b, true}, // the connection's TLS was not b's
		{true, "unknown.test", "unknown.test:443", nil, false},
	} {
		g := &Gateway{cfg: Config{DefaultServerName: "a.test", RouteByHost: tc.byHost}}
		g.state.Store(st)
		r := httptest.NewRequest("GET", "/version", nil)
		r.Host = tc.host
		r.TLS = &tls.ConnectionState{ServerName: tc.sni}
		c, _, misdirected := g.clusterFor(r)
		if c != tc.want || (misdirected != "") != tc.wantMisdirected {
			t.Errorf("by host %v, SNI %q, Host %q: cluster %v, misdirected %q; want %v, misdirected %v", tc.byHost, tc.sni, tc.host, c, misdirected, tc.want, tc.wantMisdirected)
		}
	}
}

// The host-routes-sni-authenticates defect serves a request whose Host names another
// cluster than its TLS server name on the Host's cluster, unrefused; names that agree, or
// a Host that names no cluster, select as without it.
func TestHostRoutesSNIAuthenticates(t *testing.T) {
	a, b := &cluster{name: "a"}, &cluster{name: "b"}
	g := &Gateway{cfg: Config{DefaultServerName: "a.test", Defects: Defects{HostRoutesSNIAuthenticates: true}}}
	g.state.Store(&state{clusters: []*cluster{a, b}, bySNI: map[string]*cluster{"a.test": a, "b.test": b}})
	for _, tc := range []struct {
		sni, host string
		want      *cluster
	}{{"a.test", "b.test:443", b}, {"b.test", "a.test", a}, {"b.test", "127.0.0.1:443", b}} {
		r := httptest.NewRequest("GET", "/version", nil)
		r.Host = tc.host
		r.TLS = &tls.ConnectionState{ServerName: tc.sni}
		if c, _, misdirected := g.clusterFor(r); c != tc.want || misdirected != "" {
			t.Errorf("SNI %q, Host %q: cluster %v, misdirected %q; want %v, served", tc.sni, tc.host, c, misdirected, tc.want)
		}
	}
}
