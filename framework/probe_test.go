package framework

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestProbeIsBounded: a proxy that accepts connections and never answers costs a probe
// its endpoint's RequestTimeout, or the request's own Timeout, never more.
func TestProbeIsBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // a black hole: accept, read nothing, answer nothing
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	e := &Endpoint{Name: "blackhole", URL: "http://" + l.Addr().String(), Admin: &rest.Config{Host: "http://" + l.Addr().String()},
		RequestTimeout: 300 * time.Millisecond}
	for _, c := range []struct {
		name string
		req  Request
		want time.Duration
	}{
		{"the endpoint's bound", Request{Path: "/version"}, 300 * time.Millisecond},
		{"the request's own bound", Request{Path: "/version", Timeout: 600 * time.Millisecond}, 600 * time.Millisecond},
	} {
		start := time.Now()
		r := e.Do(context.Background(), c.req)
		took := time.Since(start)
		if r.Status != 0 || r.Err == "" {
			t.Errorf("%s: status %d err %q, want no answer and an error", c.name, r.Status, r.Err)
		}
		if took < c.want || took > c.want+2*time.Second {
			t.Errorf("%s: the probe took %v, want about %v", c.name, took, c.want)
		}
	}
}

// TestBodyCutShortIsNoAnswer: an answer whose body breaks off before its declared end (the
// connection closed mid-body, over HTTP/1.1 or HTTP/2) is no answer, whatever its status:
// a test counting 200s must not count a 200 cut short, nor one counting 503s a 503. What
// arrived stays in the evidence, and the error names the status and how much came.
func TestBodyCutShortIsNoAnswer(t *testing.T) {
	const whole = `{"kind":"Status"}`
	cut := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(status)
			w.Write([]byte(whole))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the server ends the connection (HTTP/2: the stream) 983 bytes early
		}
	}
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		http2   bool
		status  int    // want: the status counted
		err     string // want: in the error ("" for none)
	}{
		{"a whole 200", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(whole)) }, false, 200, ""},
		{"a 200 cut short over HTTP/1.1", cut(200), false, 0, "HTTP 200, but its body broke off after 17 of 1000 bytes"},
		{"a 503 cut short over HTTP/1.1", cut(503), false, 0, "HTTP 503, but its body broke off after 17 of 1000 bytes"},
		{"a whole 200 over HTTP/2", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(whole)) }, true, 200, ""},
		{"a 200 cut short over HTTP/2", cut(200), true, 0, "HTTP 200, but its body broke off after 17 of 1000 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			proto := make(chan int, 1)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proto <- r.ProtoMajor
				c.handler(w, r)
			}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the aborted handler's panic is the point
			cfg := &rest.Config{}
			if c.http2 {
				srv.EnableHTTP2 = true
				srv.StartTLS()
				cfg.TLSClientConfig.CAData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
			} else {
				srv.Start()
			}
			defer srv.Close()
			cfg.Host = srv.URL
			e := &Endpoint{Name: "apiserver-1", URL: srv.URL, Admin: cfg, RequestTimeout: 5 * time.Second}
			r := e.Do(context.Background(), Request{Path: "/api"})
			if r.Status != c.status || (c.err == "") != (r.Err == "") || !strings.Contains(r.Err, c.err) {
				t.Errorf("status %d, error %q: want status %d and an error with %q", r.Status, r.Err, c.status, c.err)
			}
			if string(r.Body) != whole {
				t.Errorf("body %q: want what arrived, %q, kept as evidence", r.Body, whole)
			}
			if want := map[bool]int{false: 1, true: 2}[c.http2]; len(proto) == 0 || <-proto != want {
				t.Errorf("the request did not come over HTTP/%d, so the case tests nothing", want)
			}
			if ok, _ := HaveStatus(200).Match(r); ok != (c.status == 200) {
				t.Errorf("HaveStatus(200) says %v for %s", ok, r)
			}
		})
	}
}
