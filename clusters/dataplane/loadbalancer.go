package dataplane

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/framework"
)

// loadBalancer is the cloud's load balancer: an HTTP proxy on the lb host that owns the
// load-balancer IPs, forwards to the node's NodePort (as cloud load balancers do), marks
// each request with framework.ViaHeader and remembers every probe it forwarded.
type loadBalancer struct {
	host *netns.Host
	mu   sync.Mutex
	seen map[string]bool
}

func (lb *loadBalancer) Forward(lbIP string, port, nodePort int) (func(), error) {
	l, err := lb.host.Listen("tcp", net.JoinHostPort(lbIP, fmt.Sprint(port)))
	if err != nil {
		return nil, err
	}
	target := &url.URL{Scheme: "http", Host: net.JoinHostPort(nodeIP, fmt.Sprint(nodePort))}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Set(framework.ViaHeader, "load-balancer "+lbIP)
			if p := r.In.Header.Get(framework.ProbeHeader); p != "" {
				lb.mu.Lock()
				lb.seen[p] = true
				lb.mu.Unlock()
			}
		},
		// A new connection per request: a kept-alive one would pin the first path the
		// dataplane chose and hide a change.
		Transport: &http.Transport{DialContext: lb.host.DialContext, DisableKeepAlives: true},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "load balancer "+lbIP+": "+err.Error(), http.StatusBadGateway)
		},
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

func (lb *loadBalancer) Forwarded(probe string) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.seen[probe]
}

// client is an HTTP client on host, a new connection per request for the same reason.
func client(h *netns.Host) *http.Client {
	return &http.Client{Timeout: 5 * time.Second,
		Transport: &http.Transport{DialContext: h.DialContext, DisableKeepAlives: true}}
}
