package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// ServeHTTP takes a request through the gateway, in order:
//  1. the TLS server name (SNI), or with RouteByHost the Host header, selects the
//     UpstreamCluster; a Host that names another cluster than the SNI is refused (421,
//     selection.go); a Connection header that names the identity headers is refused
//     (400, identity.go);
//  2. the client is authenticated (certificate, else bearer token); one with neither is
//     refused 401 unless its cluster lets anonymous in (spec.anonymous), and goes on as
//     system:anonymous if it does; its own Impersonate-* headers, if any, are authorized
//     (impersonation.go);
//  3. the first dispatch policy whose rules match takes it; none: refused with 403
//     Forbidden naming what no policy matched. The request is the client's mistake (or
//     the configuration's), not a server failure: a 5xx would make client-go and kubectl
//     retry it in vain and count in every error-rate alert;
//  4. the policy's flow-control schema admits it or answers 429 with Retry-After;
//  5. it goes to a healthy server of the policy that serves what it asks for (balance.go),
//     as the user (impersonation), retried elsewhere if idempotent and unanswered; no
//     server: 503 with Retry-After.
//
// A 503 says what failed in words that name nothing of the gateway's (status.go); what
// failed where goes to the log.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w}
	clusterName, policyName, answered := "none", "none", "none"
	defer func() { g.metrics.request(clusterName, policyName, answered, rec.code()) }()

	c, serverName, misdirected := g.clusterFor(r)
	switch {
	case misdirected != "":
		writeStatus(rec, http.StatusMisdirectedRequest, "Misdirected", misdirected, 0)
		return
	case c == nil:
		g.serveUnselected(rec, r, serverName)
		return
	}
	clusterName = c.name
	if named := protectedHopByHop(r.Header); named != "" && !g.cfg.Defects.ImpersonationBeforeHopByHop {
		writeStatus(rec, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(
			"%s: the Connection header names %s, a header the gateway sets or removes for the client's identity: naming it there asks every proxy on the way to drop it; remove it from Connection",
			c, named), 0)
		return
	}
	u, err := c.auth.Authenticate(r.Context(), r)
	switch {
	case errors.Is(err, authn.ErrInvalidToken):
		writeUnauthorized(rec, r)
		return
	case err != nil:
		g.errorLog.Printf("%s: %s %q from %s: could not authenticate the client: %v: answered 503", c, r.Method, r.URL.Path, r.RemoteAddr, err)
		writeUnavailable(rec, "could not authenticate the request: "+unavailableUpstream)
		return
	case u == nil && !c.anonymous:
		// What kube-apiserver with --anonymous-auth=false answers. Going on as
		// system:anonymous, with the gateway's own credentials, would let anonymous in
		// behind servers that keep it out: the cluster must say it wants that.
		writeUnauthorized(rec, r)
		return
	case u == nil:
		u = anonymous()
	}
	client := u.Name // who counts in the stream shares: the one who sent it (fairshare.go)
	if u, err = g.impersonate(r, c, u); err != nil {
		g.writeImpersonationError(rec, r, c, err)
		return
	}
	stripClientIdentity(r.Header)

	info := parseRequestInfo(r)
	p := c.match(attributes{user: u.Name, groups: u.Groups, info: info})
	if p == nil {
		code, reason := http.StatusForbidden, metav1.StatusReasonForbidden
		if g.cfg.Defects.NoPolicyInternalError {
			code, reason = http.StatusInternalServerError, metav1.StatusReasonInternalError
		}
		writeStatus(rec, code, reason, fmt.Sprintf(
			"%s: no dispatch policy matches this request (verb %q, %s, user %q); the gateway sends a request only where a policy says: add a policy with a rule that matches it, or a last catch-all policy (verbs, apiGroups, resources and nonResourceURLs all [\"*\"])",
			c, info.Verb, describeTarget(info), u.Name), 0)
		return
	}
	policyName = p.label
	release, retryAfter, ok := p.limiter.admit(info.longRunning())
	if !ok {
		g.metrics.rejected.WithLabelValues(c.name, p.label, p.schema, p.limiter.kind()).Inc()
		writeStatus(rec, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, fmt.Sprintf(
			"%s: too many requests: dispatch policy %s is limited by flow control schema %q (%s); try again later",
			c, p.label, p.schema, p.limiter.kind()), retryAfter)
		return
	}
	defer release()
	if g.cfg.Defects.BodiesInTurn && !g.readInTurn(r) { // the defect: GW-090 must catch it
		return // the client's body never came: no one is left to answer
	}
	targets, why := p.candidates(info)
	if len(targets) == 0 {
		g.errorLog.Printf("%s: %s %q from %s: dispatch policy %s: %s: answered 503", c, r.Method, r.URL.Path, r.RemoteAddr, p.label, why)
		writeUnavailable(rec, unavailableUpstream)
		return
	}
	if g.cfg.Defects.DropUID && u.UID != "" {
		dropped := *u
		dropped.UID = ""
		u = &dropped
	}
	g.forward(rec, r, c, client, u, targets, func(up *upstream) { answered = up.endpoint })
}

// impersonate returns whom the request acts as: the client, or whom the client asked to
// impersonate if it may.
func (g *Gateway) impersonate(r *http.Request, c *cluster, u *authn.User) (*authn.User, error) {
	req, err := readImpersonation(r.Header)
	if err != nil || req == nil {
		return u, err
	}
	denied, err := c.impersonation.denied(r.Context(), u, req)
	if err != nil {
		return nil, err
	}
	if denied != nil {
		return nil, errImpersonationDenied{check: *denied, actor: u.Name}
	}
	return req.asUser(), nil
}

type errImpersonationDenied struct {
	check impersonationCheck
	actor string
}

func (e errImpersonationDenied) Error() string { return e.check.describe(e.actor) }

func (g *Gateway) writeImpersonationError(w http.ResponseWriter, r *http.Request, c *cluster, err error) {
	var denied errImpersonationDenied
	var bad errBadImpersonation
	switch {
	case errors.As(err, &denied):
		writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, denied.Error(), 0)
	case errors.As(err, &bad):
		writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: "+bad.Error(), 0)
	default:
		g.errorLog.Printf("%s: %s %q from %s: could not authorize the requested impersonation: %v: answered 503", c, r.Method, r.URL.Path, r.RemoteAddr, err)
		writeUnavailable(w, "could not authorize the requested impersonation: "+unavailableUpstream)
	}
}

func describeTarget(info requestInfo) string {
	if !info.IsResourceRequest {
		return fmt.Sprintf("non-resource URL %q", info.Path)
	}
	res := info.Resource
	if info.Subresource != "" {
		res += "/" + info.Subresource
	}
	return fmt.Sprintf("apiGroup %q, resource %q, name %q", info.APIGroup, res, info.Name)
}

// recorder remembers the status code for metrics. Unwrap lets http.ResponseController
// (which ReverseProxy uses to flush and to hijack for upgrades) reach the real writer.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	if code == http.StatusSwitchingProtocols {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// readInTurn is the BodiesInTurn defect: the request's body read whole (so that it could
// be sent again) under the gateway's one lock, so a body that trickles in holds up every
// other request. False when the body could not be read.
func (g *Gateway) readInTurn(r *http.Request) bool {
	g.turn.Lock()
	defer g.turn.Unlock()
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	return err == nil
}
