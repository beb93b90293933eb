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
// then got 503). client is who the request counts for in the upstreams' stream shares
// (fairshare.go): the authenticated user, before any impersonation it asked for.
func (g *Gateway) forward(w http.ResponseWriter, r *http.Request, c *cluster, client string, u *authn.User, targets []*upstream, answered func(*upstream)) {
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
		claim: streamClaim{client: client, wait: g.cfg.StreamWait, shared: g.cfg.Defects.SharedLanes},
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
		// 0, not -1: an answer of known length (a GET, a small LIST) goes through the
		// client connection's buffer and out whole when the handler ends, where -1 flushed
		// after every write and held each request on the connection's frame writer (the
		// gateway's top lock wait under the bench's load, docs/measurements.md
		// 2026-12-02). An answer of unknown length (a watch, a followed log, a chunked
		// LIST) ReverseProxy still flushes after every write, event by event.
		FlushInterval: 0,
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
			if errors.As(err, new(errBusy)) {
				g.errorLog.Printf("%s: %s %q from %s: no server had a stream free for the client: %v: answered 503", c, r.Method, r.URL.Path, r.RemoteAddr, err)
				writeUnavailable(w, unavailableBusy)
				return
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
// have taken effect. A target without a stream free for the client within the claim's
// wait (errNoStream) was sent nothing: any request moves on, to targets that have one free
// at once, and the target stays in the rotation (it is busy, not failed). When no target
// had a stream, the error is errBusy.
type retrying struct {
	next       http.RoundTripper
	targets    []*upstream
	idempotent bool
	claim      streamClaim
	onError    func(*upstream, error)
	answered   func(*upstream)
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	var errs []error
	claim, busy := t.claim, 0
	for i, u := range t.targets {
		out := req
		if i > 0 {
			out = req.Clone(req.Context())
			out.URL.Scheme, out.URL.Host, out.Host = u.url.Scheme, u.url.Host, ""
		}
		out = out.WithContext(withClaim(out.Context(), claim))
		resp, err := t.next.RoundTrip(out)
		if err == nil {
			t.answered(u)
			return resp, nil
		}
		if req.Context().Err() != nil {
			return nil, err // the client gave up: not the server's fault
		}
		errs = append(errs, fmt.Errorf("%s: %w", u.endpoint, err))
		if errors.As(err, new(errNoStream)) {
			busy++
			claim.wait = tryOnly
			continue
		}
		t.onError(u, err)
		claim.wait = t.claim.wait
		if !t.idempotent {
			break
		}
	}
	if busy == len(errs) {
		return nil, errBusy{errors.Join(errs...)}
	}
	return nil, errors.Join(errs...)
}

// errBusy: every target tried was without a stream free for the client.
type errBusy struct{ error }

func (e errBusy) Unwrap() error { return e.error }
