package framework

import (
	"context"
	"net"
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
