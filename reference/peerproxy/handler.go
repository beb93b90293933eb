package peerproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// ServeHTTP authenticates the client, decides where the request goes, and forwards it with
// the client's identity. Routing, in order:
//  1. non-resource paths, and requests a peer already forwarded (marked), go to the local
//     apiserver: at most one hop;
//  2. a resource the local apiserver serves is served locally;
//  3. else the live peers that serve it, one after another for idempotent requests;
//  4. else no live server serves it, and the local apiserver's own 404 is the answer.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u, err := p.auth.authenticate(r.Context(), r)
	if err != nil {
		p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "could not review the bearer token with the apiserver: "+err.Error())
		return
	}
	marked := r.Header.Get(headerMarked) != ""
	stripIdentity(r.Header)
	if r.URL.Path == "/apis" && r.Method == http.MethodGet && isAggregatedV2(r) && u != nil && !marked {
		p.serveDiscovery(w, !noPeer(r))
		return
	}
	info := parsePath(r.URL.Path)
	if !info.isResource || marked || p.reg.localServes(info.key()) {
		p.metrics.route("local")
		p.forward(w, r, u, []string{p.cfg.APIServer}, false)
		return
	}
	peers := p.reg.capablePeers(info.key())
	if len(peers) == 0 {
		p.metrics.route("local")
		p.forward(w, r, u, []string{p.cfg.APIServer}, false)
		return
	}
	p.metrics.route("peer")
	p.forward(w, r, u, peers, true)
}

// forward sends r to the first of targets that answers. Authenticated users travel as
// front-proxy headers over the front-proxy client certificate, for every kind of request
// including upgrades; anonymous clients travel with no credentials at all, so the proxy's
// own never stand in for theirs.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, u *user, targets []string, toPeer bool) {
	rt := p.anon
	if u != nil {
		rt = p.identity
		setIdentity(r.Header, u)
	}
	if toPeer {
		// An apiserver with the upstream proxy on must not forward it again.
		r.Header.Set(headerMarked, "true")
	}
	first, _ := url.Parse(targets[0])
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(first) },
		FlushInterval: -1, // watches stream event by event
		Transport:     &failover{next: rt, targets: targets, bound: p.peerBound(toPeer), idempotent: idempotent(r.Method), onError: p.errorCounter(toPeer)},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if toPeer {
				p.metrics.route("unavailable")
				p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable",
					fmt.Sprintf("the peers that serve %s could not be reached: %v", r.URL.Path, err))
				return
			}
			p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the local apiserver could not be reached: "+err.Error())
		},
	}
	rp.ServeHTTP(w, r)
}

// errorCounter counts failed attempts to reach peers; the local apiserver's are not peer errors.
func (p *Proxy) errorCounter(toPeer bool) func() {
	if toPeer {
		return p.metrics.peerError
	}
	return func() {}
}

func (p *Proxy) peerBound(toPeer bool) time.Duration {
	if toPeer {
		return p.cfg.PeerTimeout
	}
	return 0
}

// fail answers with a JSON Status; a 503 says when to retry.
func (p *Proxy) fail(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(code)
	w.Write(statusBody(code, reason, message))
}

func idempotent(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// failover tries each target in turn while the request is idempotent and no response has
// come, and bounds the wait for response headers from a peer (a frozen peer accepts TCP
// and then says nothing).
type failover struct {
	next       http.RoundTripper
	targets    []string
	bound      time.Duration
	idempotent bool
	onError    func()
}

func (f *failover) RoundTrip(req *http.Request) (*http.Response, error) {
	var errs []error
	for i, t := range f.targets {
		u, _ := url.Parse(t)
		out := req
		if i > 0 {
			out = req.Clone(req.Context())
			out.URL.Scheme, out.URL.Host, out.Host = u.Scheme, u.Host, u.Host
		}
		resp, err := f.roundTrip(out)
		if err == nil {
			return resp, nil
		}
		f.onError()
		errs = append(errs, fmt.Errorf("%s: %w", u.Host, err))
		if !f.idempotent || req.Context().Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func (f *failover) roundTrip(req *http.Request) (*http.Response, error) {
	if f.bound == 0 {
		return f.next.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	timer := time.AfterFunc(f.bound, cancel)
	resp, err := f.next.RoundTrip(req.WithContext(ctx))
	if !timer.Stop() {
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		return nil, fmt.Errorf("no response within %v", f.bound)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	}
	return resp, nil
}

// cancelOnClose releases the bounded request's context once the body is done.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
