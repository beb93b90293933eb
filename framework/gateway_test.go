package framework

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// A gateway's clients send its server name as both SNI and Host and dial its address, as
// kubectl does with a kubeconfig naming the host; AsMismatched sends two different names;
// every request of one config shares one HTTP/2 connection (client-go cannot cache a
// transport with a Dial function; httpClientFor does).
func TestGatewayClients(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.TLS.ServerName+" "+r.Host+" "+r.Proto)
		mu.Unlock()
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.StartTLS()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	cfg := &rest.Config{Host: "https://a.gateway.test:" + port, Dial: ConnectTo(addr), TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	g := &Gateway{Endpoint: &Endpoint{Name: "gateway", URL: cfg.Host, Admin: cfg, User: cfg}, ServerName: "a.gateway.test", Address: addr}

	ctx := context.Background()
	for range 5 {
		if r := g.Endpoint.Do(ctx, Request{Path: "/version"}); r.Status != 200 {
			t.Fatalf("through the name: %s", r)
		}
	}
	g.As("b.gateway.test").Do(ctx, Request{Path: "/version"})
	g.AsMismatched("a.gateway.test", "b.gateway.test").Do(ctx, Request{Path: "/version"})

	want := []string{"a.gateway.test a.gateway.test:" + port + " HTTP/2.0"}
	for range 4 {
		want = append(want, want[0])
	}
	want = append(want, "b.gateway.test b.gateway.test:"+port+" HTTP/2.0", "a.gateway.test b.gateway.test:"+port+" HTTP/2.0")
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Fatalf("the server saw %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("request %d: the server saw SNI, Host, protocol %q, want %q", i+1, seen[i], want[i])
		}
	}
	if conns != 3 {
		t.Errorf("%d connections for three configs: each config's requests must share one", conns)
	}
}
