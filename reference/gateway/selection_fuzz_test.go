package gateway

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
)

// FuzzClusterFor: whatever TLS server name and Host a client sends, in either routing
// mode, a request is served only by the cluster its connection's TLS was for (the server
// name's, or the default's without one): its certificate and client CA are that
// cluster's. Otherwise it selects nothing or is misdirected (TestClusterFor: "the
// connection's TLS was not b's").
func FuzzClusterFor(f *testing.F) {
	for _, s := range []struct {
		byHost    bool
		sni, host string
	}{
		{false, "a.test", "a.test:443"}, {false, "b.test", "B.test"}, {false, "a.test", "127.0.0.1:443"}, {false, "", "127.0.0.1:443"},
		{false, "a.test", "b.test:443"}, {false, "unknown.test", "b.test:443"}, {true, "a.test", "a.test:443"}, {true, "b.test", "b.test"},
		{true, "a.test", "127.0.0.1:443"}, {true, "a.test", "b.test:443"}, {true, "unknown.test", "b.test:443"},
		{true, "unknown.test", "unknown.test:443"}, {true, "", "b.test"}, {false, "A.TEST", "[::1]:443"}, {true, "b.test", "b.test:"},
	} {
		f.Add(s.byHost, s.sni, s.host)
	}
	a, b := &cluster{name: "a"}, &cluster{name: "b"}
	st := &state{clusters: []*cluster{a, b}, bySNI: map[string]*cluster{"a.test": a, "b.test": b}}
	f.Fuzz(func(t *testing.T, byHost bool, sni, host string) {
		g := &Gateway{cfg: Config{DefaultServerName: "a.test", RouteByHost: byHost}}
		g.state.Store(st)
		r := &http.Request{Method: http.MethodGet, Host: host, TLS: &tls.ConnectionState{ServerName: sni}}
		c, _, misdirected := g.clusterFor(r)
		name := strings.ToLower(sni)
		if name == "" {
			name = g.cfg.DefaultServerName
		}
		if c != nil && misdirected == "" && c != st.bySNI[name] {
			t.Fatalf("by host %v, SNI %q, Host %q: served by cluster %q, but the connection's TLS was %v's", byHost, sni, host, c.name, st.bySNI[name])
		}
	})
}
