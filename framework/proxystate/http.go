package proxystate

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
)

// answer is what one GET got: its status, content type and body (up to bodyLimit), or the
// error that kept it from answering.
type answer struct {
	code        int
	contentType string
	body        []byte
	err         error
}

// bodyLimit bounds what get keeps of a body: discovery documents and a verbose readyz fit;
// /metrics, which does not, is read as a stream.
const bodyLimit = 4 << 20

// get asks cfg's server for path as a plain client: no header of the proxy's own (a
// request carrying x-kubernetes-peer-proxied is served locally, which would hide an active
// proxy), redirects not followed (what a server answers is what it says itself), bounded by
// RequestTimeout. read, when given, consumes the body of a 200 instead.
func get(ctx context.Context, cfg *rest.Config, path, accept string, read func(io.Reader) error) answer {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return answer{err: fmt.Errorf("a client for %s: %w", cfg.Host, err)}
	}
	// On a copy: for a config with nothing to add to the transport (plain http),
	// HTTPClientFor returns http.DefaultClient, which is everyone's.
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
	if err != nil {
		return answer{err: err}
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	a := answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type")}
	if read != nil && resp.StatusCode == http.StatusOK {
		a.err = read(resp.Body)
		return a
	}
	a.body, a.err = io.ReadAll(io.LimitReader(resp.Body, bodyLimit))
	return a
}

// String quotes the answer for evidence: "HTTP 404 text/plain: 404 page not found".
func (a answer) String() string {
	if a.err != nil && a.code == 0 {
		return a.err.Error()
	}
	if a.err != nil {
		return fmt.Sprintf("HTTP %d, then %v", a.code, a.err)
	}
	s := fmt.Sprintf("HTTP %d", a.code)
	if mt, _, _ := strings.Cut(a.contentType, ";"); mt != "" {
		s += " " + mt
	}
	if quote := strings.Join(strings.Fields(string(a.body)), " "); quote != "" {
		if len(quote) > 120 {
			quote = quote[:120] + "..."
		}
		s += ": " + quote
	}
	return s
}
