package peerproxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
	"github.com/skewcheck/skewcheck/reference/internal/reqbody"
	"github.com/skewcheck/skewcheck/reference/internal/upgrade"
)

// ServeHTTP authenticates the client, decides where the request goes, and forwards it with
// the client's identity. Routing, in order:
//  1. requests a peer already forwarded (marked) go to the local apiserver: at most one hop;
//     so do non-resource paths, but for discovery: aggregated /apis is merged
//     (discovery.go), legacy /apis and /apis/<group>/<version> answered for the control
//     plane (groupversion.go);
//  2. a resource the local apiserver serves is served locally;
//  3. else the live peers that serve it, one after another for idempotent requests;
//  4. else no live server serves it, and the local apiserver's own 404 is the answer.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if named := protectedHopByHop(r.Header); named != "" {
		p.fail(w, http.StatusBadRequest, string(metav1.StatusReasonBadRequest),
			fmt.Sprintf("the Connection header names %s, which the proxy sets itself and will not drop: remove it from Connection", named))
		return
	}
	u, err := p.auth.Authenticate(r.Context(), r)
	if errors.Is(err, authn.ErrInvalidToken) && p.cfg.Flaw.servesRejectedTokens() && len(p.peersFor(r, r.Header.Get(headerMarked) != "")) > 0 {
		u, err = nil, nil
		r.Header.Del("Authorization")
	}
	if errors.Is(err, authn.ErrInvalidToken) {
		p.fail(w, http.StatusUnauthorized, string(metav1.StatusReasonUnauthorized), "Unauthorized")
		return
	}
	if err != nil {
		p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "could not review the bearer token with the apiserver: "+err.Error())
		return
	}
	marked := r.Header.Get(headerMarked) != "" && !p.cfg.Flaw.ignoresMarker()
	// The identity flaws bend only what goes to a peer: a request served locally, the
	// "directly at the peer" question every identity test asks first included, is right,
	// so a test catches them at the assertion about the proxied request.
	if len(p.peersFor(r, marked)) > 0 {
		u = p.cfg.Flaw.apply(r, u)
	}
	if err := p.cfg.Flaw.readInTurn(r, &p.turn); err != nil {
		return // the client's body never came: no one is left to answer
	}
	stripIdentity(r.Header)
	if r.URL.Path == "/apis" && r.Method == http.MethodGet && isAggregatedV2(r) && u != nil && !marked {
		p.serveDiscovery(w, !noPeer(r) || p.cfg.Flaw.mergesNopeer())
		return
	}
	if legacyDiscovery(r, marked) && !p.cfg.Flaw.localDocuments() {
		p.serveLegacyDiscovery(w, r, u)
		return
	}
	peers := p.peersFor(r, marked)
	if len(peers) == 0 && !marked && p.cfg.Flaw.answersNotFound() && p.servedByNone(r) {
		p.cfg.Flaw.writeNotFound(w, r)
		return
	}
	if len(peers) == 0 {
		p.forward(w, r, u, []string{p.cfg.APIServer}, false)
		return
	}
	p.forward(w, r, p.cfg.Flaw.peerUser(u), peers, true)
}

// peersFor are the live peers a request goes to: for a resource the local apiserver does
// not serve, unless a peer already forwarded it (marked); none when it is served locally.
func (p *Proxy) peersFor(r *http.Request, marked bool) []string {
	info := parsePath(r.URL.Path)
	if !info.isResource || marked || p.reg.localServes(info.key()) && !p.cfg.Flaw.peersFirst() {
		return nil
	}
	return p.reg.capablePeers(info.key())
}

// servedByNone says whether r names a resource neither the local apiserver nor a live
// peer serves (only FlawNotFoundStatus and FlawNotFoundText ask).
func (p *Proxy) servedByNone(r *http.Request) bool {
	info := parsePath(r.URL.Path)
	return info.isResource && !p.reg.localServes(info.key()) && len(p.reg.capablePeers(info.key())) == 0
}

// forward sends r to the first of targets that answers. Authenticated users travel as
// front-proxy headers over the front-proxy client certificate, for every kind of request
// including upgrades; anonymous clients travel with no credentials at all, so the proxy's
// own never stand in for theirs. Each request is counted once, by where its answer came
// from: local, peer, or unavailable (no target could be reached: 503).
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, u *authn.User, targets []string, toPeer bool) {
	p.forwardThen(w, r, u, targets, toPeer, nil)
}

// forwardThen is forward with edit, when not nil, applied to the answer before the client
// gets it (legacymerge.go).
func (p *Proxy) forwardThen(w http.ResponseWriter, r *http.Request, u *authn.User, targets []string, toPeer bool, edit func(*http.Response) error) {
	breaks := toPeer && p.cfg.Flaw.breaks()
	if now := time.Now(); breaks && p.breaker.open(targets, now) {
		if p.breaker.probeDue(targets[0], now) {
			go p.probe(targets)
		}
		p.metrics.route("unavailable")
		p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the peers that serve "+r.URL.Path+" failed recently and are not tried")
		return
	}
	first, _ := url.Parse(targets[0])
	served := "local"
	if toPeer {
		served = "peer"
	}
	counted := false // an upgrade that fails after its response came must not count twice
	count := func(route string) {
		if !counted {
			counted = true
			p.metrics.route(route)
		}
	}
	rp := &httputil.ReverseProxy{
		// Rewrite runs after the hop-by-hop headers (and those the client names in
		// Connection) are removed from the outgoing request: what is set here arrives.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(first)
			if u != nil {
				setIdentity(pr.Out.Header, u)
			}
			if toPeer {
				// An apiserver with the upstream proxy on must not forward it again.
				pr.Out.Header.Set(headerMarked, "true")
			}
		},
		FlushInterval: -1, // watches stream event by event
		Transport: &failover{next: p.transportFor(u != nil, isUpgrade(r), toPeer), targets: targets, idempotent: idempotent(r.Method),
			hedge: toPeer && p.cfg.Flaw.hedges(r.Method), onError: p.errorCounter(toPeer)},
		ModifyResponse: func(resp *http.Response) error {
			count(served)
			upgrade.CloseWhenIdle(resp, p.cfg.UpgradeIdleTimeout)
			reqbody.EndOnAnswer(r, resp)
			if err := p.cfg.Flaw.buffer(resp); err != nil || edit == nil {
				return err
			}
			return edit(resp)
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			count("unavailable")
			if breaks {
				p.breaker.trip(targets, time.Now())
			}
			if toPeer && p.cfg.Flaw.notFoundFor(err) {
				p.fail(w, http.StatusNotFound, "NotFound", fmt.Sprintf("no peer that can be trusted serves %s: %v", r.URL.Path, err))
				return
			}
			if toPeer {
				p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable",
					fmt.Sprintf("the peers that serve %s could not be reached: %v", r.URL.Path, err))
				return
			}
			p.fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the local apiserver could not be reached: "+err.Error())
		},
	}
	rp.ServeHTTP(w, r)
}

// transportFor picks how to reach the apiservers: with the front-proxy certificate for an
// authenticated user or none for anonymous, and over HTTP/1.1 for an upgrade (Go cannot
// switch protocols over HTTP/2, and an HTTP/2 transport refuses SPDY's Upgrade header).
func (p *Proxy) transportFor(authenticated, upgrade, toPeer bool) http.RoundTripper {
	asItself := p.cfg.Flaw == FlawForwardAsItself && toPeer
	switch {
	case asItself && upgrade:
		return p.asItselfUpgrade
	case asItself:
		return p.asItself
	case authenticated && upgrade:
		return p.identityUpgrade
	case authenticated:
		return p.identity
	case upgrade:
		return p.anonUpgrade
	}
	return p.anon
}

// errorCounter counts failed attempts to reach peers; the local apiserver's are not peer errors.
func (p *Proxy) errorCounter(toPeer bool) func() {
	if toPeer {
		return p.metrics.peerError
	}
	return func() {}
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
// come. How long an attempt may take to fail is the transport's business (transport.go):
// a frozen or unreachable peer fails it within the peer timeout; a healthy peer that is
// slow to answer is waited for.
type failover struct {
	next       http.RoundTripper
	targets    []string
	idempotent bool
	hedge      bool // FlawHedgeReads: a copy goes to the next target too
	onError    func()
}

func (f *failover) RoundTrip(req *http.Request) (*http.Response, error) {
	var errs []error
	for i, t := range f.targets {
		u, _ := url.Parse(t)
		out := req
		if i > 0 {
			out = retarget(req, u)
		}
		resp, err := f.next.RoundTrip(out)
		if err == nil {
			if f.hedge && i+1 < len(f.targets) {
				next, _ := url.Parse(f.targets[i+1])
				if copied, err := f.next.RoundTrip(retarget(req, next)); err == nil {
					io.Copy(io.Discard, copied.Body)
					copied.Body.Close()
				}
			}
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

// retarget is a copy of req sent to the server at u.
func retarget(req *http.Request, u *url.URL) *http.Request {
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = u.Scheme, u.Host, u.Host
	return out
}
