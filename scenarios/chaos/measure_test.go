package chaos

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// pathWorks ends within its bound whatever the server does: it answers 200 at once; it
// answers 503 at once, again and again (the last 503 is the answer, not the probe the
// deadline cut); it never answers; it answers 503 and never ends the body (no whole
// answer: the error says the 503 and the cut); it accepts the connection and never
// finishes the TLS handshake. The slack is generous for a loaded machine: a probe's own
// bound is 90 s, which is what an overrun would take.
func TestPathWorksEndsWithinItsBound(t *testing.T) {
	// The bound leaves room for a first probe's TLS handshake on a loaded machine (200 ms
	// did not, once, at a load of 17): the cases that never answer take all of it.
	const bound, slack = time.Second, 2 * time.Second
	hang := func(r *http.Request) { <-r.Context().Done() } // until the client goes, or the server closes its connection
	for _, c := range []struct {
		name     string
		endpoint func(t *testing.T) *framework.Endpoint
		want     func(framework.Response) bool
	}{
		{"answers 200", tlsEndpoint(func(w http.ResponseWriter, r *http.Request) {}), func(r framework.Response) bool { return r.Status == 200 }},
		{"answers 503 at once", tlsEndpoint(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }),
			func(r framework.Response) bool { return r.Status == 503 }},
		{"never answers", tlsEndpoint(func(w http.ResponseWriter, r *http.Request) { hang(r) }),
			func(r framework.Response) bool { return r.Status == 0 && r.Err != "" }},
		{"answers 503 and never ends the body", tlsEndpoint(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			w.Write([]byte(strings.Repeat("x", 100)))
			w.(http.Flusher).Flush()
			hang(r)
			// Not even then: a handler that returns ends the body, and on a loaded machine
			// its end can reach a client that is just giving up.
			panic(http.ErrAbortHandler)
		}), func(r framework.Response) bool {
			return r.Status == 0 && strings.Contains(r.Err, "HTTP 503, but its body broke off")
		}},
		{"never finishes the TLS handshake", silentEndpoint, func(r framework.Response) bool { return r.Status == 0 && r.Err != "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := c.endpoint(t)
			start := time.Now()
			r, waited := pathWorks(context.Background(), e, "/api", bound)
			took := time.Since(start)
			if took > bound+slack || waited > took {
				t.Errorf("pathWorks took %v (said %v), want at most its bound %v (+%v for a loaded machine)", took, waited, bound, slack)
			}
			if !c.want(r) {
				t.Errorf("the last answer: %s", r)
			}
		})
	}
}

// tlsEndpoint is an endpoint of an httptest TLS server that handles every request so.
func tlsEndpoint(h http.HandlerFunc) func(t *testing.T) *framework.Endpoint {
	return func(t *testing.T) *framework.Endpoint {
		srv := httptest.NewTLSServer(h)
		t.Cleanup(func() {
			srv.CloseClientConnections() // a hung handler's request ends with its connection
			srv.Close()
		})
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		return &framework.Endpoint{Name: "apiserver-1", URL: srv.URL, Admin: &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}}
	}
}

// silentEndpoint is an endpoint that accepts connections and never says a word, not even
// its half of the TLS handshake, until the test ends.
func silentEndpoint(t *testing.T) *framework.Endpoint {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	url := "https://" + l.Addr().String()
	return &framework.Endpoint{Name: "apiserver-1", URL: url, Admin: &rest.Config{Host: url, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}}
}
