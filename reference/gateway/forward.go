package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
	"github.com/skewcheck/skewcheck/reference/internal/reqbody"
	"github.com/skewcheck/skewcheck/reference/internal/upgrade"
)

// forward sends the request to the first candidate that takes it, as the user, and copies
// the answer back (streamed: watches flush event by event; upgrades are spliced).
// answered is called with the upstream that answered, as soon as it has: ReverseProxy
// aborts the handler with a panic when the client goes while the body is copied, and
// the request still counts as that upstream's. No call means none answered (the client
// then got 503).
func (g *Gateway) forward(w http.ResponseWriter, r *http.Request, c *cluster, u *authn.User, targets []*upstream, answered func(*upstream)) {
	impersonate := !g.cfg.Defects.NoImpersonation && !(g.cfg.Defects.UpgradeAsItself && isUpgrade(r.Header))
	if impersonate && g.cfg.Defects.ImpersonationBeforeHopByHop {
		setImpersonation(r.Header, u)
		impersonate = false
	}
	next := c.conn.rt
	switch {
	case isUpgrade(r.Header):
	case g.cfg.Defects.ConnectionPerClient:
		next = c.conn.perClientTransport(r.RemoteAddr)
	case g.cfg.Defects.GoTransport:
		next = c.conn.sharedTransport()
	}
	rt := &retrying{next: next, targets: targets, idempotent: replayable(r), answered: answered,
		onError: func(up *upstream, err error) {
			up.markFailed(err)
			g.metrics.errors.WithLabelValues(c.name, up.endpoint).Inc()
		}}
	rp := &httputil.ReverseProxy{
		// Rewrite runs after the hop-by-hop headers, and those the client's Connection
		// names, are removed from the outgoing request: what is set here arrives.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[0].url)
			pr.SetXForwarded() // the upstream's audit log records the client's address
			if impersonate {
				setImpersonation(pr.Out.Header, u)
			}
		},
		FlushInterval: -1,
		Transport:     rt,
		ModifyResponse: func(resp *http.Response) error {
			upgrade.CloseWhenIdle(resp, g.cfg.UpgradeIdleTimeout)
			reqbody.EndOnAnswer(r, resp)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client has gone; nobody reads an answer
			}
			g.errorLog.Printf("%s: %s %q from %s: no server could be reached: %v: answered 503", c, r.Method, r.URL.Path, r.RemoteAddr, err)
			writeUnavailable(w, unavailableUpstream)
		},
		ErrorLog: g.errorLog,
	}
	rp.ServeHTTP(w, r)
}

// replayable: a request that changes nothing, with no body to send again, may be retried
// on another server when the first failed before answering anything.
func replayable(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0
}

// retrying tries the targets in turn. Only a failure before any response byte moves on
// (RoundTrip returned no response), and only for replayable requests: anything else may
// have taken effect.
type retrying struct {
	next       http.RoundTripper
	targets    []*upstream
	idempotent bool
	onError    func(*upstream, error)
	answered   func(*upstream)
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	var errs []error
	for i, u := range t.targets {
		out := req
		if i > 0 {
			out = req.Clone(req.Context())
			out.URL.Scheme, out.URL.Host, out.Host = u.url.Scheme, u.url.Host, ""
		}
		resp, err := t.next.RoundTrip(out)
		if err == nil {
			t.answered(u)
			return resp, nil
		}
		if req.Context().Err() != nil {
			return nil, err // the client gave up: not the server's fault
		}
		t.onError(u, err)
		errs = append(errs, fmt.Errorf("%s: %w", u.endpoint, err))
		if !t.idempotent {
			break
		}
	}
	return nil, errors.Join(errs...)
}
