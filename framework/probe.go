package framework

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"

	"k8s.io/client-go/rest"
)

// Identity picks which of an endpoint's client configs a probe uses.
type Identity string

const (
	AsAdmin Identity = "admin"
	AsUser  Identity = "user"
	// AsAnonymous sends no credentials at all.
	AsAnonymous Identity = "anonymous"
)

// Request is one HTTP request a probe sends, exactly as given: the point is to see what a
// server or proxy does with it, so nothing is retried or rewritten.
type Request struct {
	Method string
	Path   string // with query, e.g. /apis/batch/v1/jobs?limit=1
	Body   []byte
	Header http.Header
	As     Identity
	// Timeout bounds this request instead of the endpoint's RequestTimeout: for a probe
	// that must see how long a proxy takes to fail (upstream: 45 s on a frozen peer).
	Timeout time.Duration
}

// Response is everything a probe saw. AuditID is the Audit-ID the probe sent; an
// apiserver records it, so the audit logs show which servers a request really reached.
type Response struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	// Status is the answer's HTTP status; 0 when no whole answer came: no response at all,
	// or one whose body broke off (Err says which, and the status its headers gave).
	Status      int         `json:"status"`
	ContentType string      `json:"contentType"`
	Body        []byte      `json:"-"`
	BodyText    string      `json:"body"`
	Header      http.Header `json:"header"`
	// RequestHeader and RequestBody are what the probe sent, credentials redacted.
	RequestHeader http.Header   `json:"requestHeader,omitempty"`
	RequestBody   string        `json:"requestBody,omitempty"`
	Latency       time.Duration `json:"latencyNanos"`
	AuditID       string        `json:"auditID"`
	Err           string        `json:"error,omitempty"`
}

// GomegaString is how matchers print a response in a failure: readable, not a byte dump.
func (r Response) GomegaString() string {
	return fmt.Sprintf("%s\n    audit ID %s, headers %v", r.String(), r.AuditID, r.Header)
}

func (r Response) String() string {
	if r.Err != "" {
		return fmt.Sprintf("%s %s via %s: error %s", r.Method, r.Path, r.Endpoint, r.Err)
	}
	return fmt.Sprintf("%s %s via %s: HTTP %d %s (%v) %s", r.Method, r.Path, r.Endpoint, r.Status, r.ContentType, r.Latency.Round(time.Millisecond), abbreviate(r.BodyText, 300))
}

// Do sends req to the endpoint and records the response as evidence of the running test.
func (e *Endpoint) Do(ctx context.Context, req Request) Response {
	cfg := e.Admin
	switch req.As {
	case AsUser:
		cfg = e.User
	case AsAnonymous:
		cfg = rest.AnonymousClientConfig(e.Admin)
		if e.WrapAnonymous != nil {
			cfg.Wrap(e.WrapAnonymous)
		}
	}
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	if bound := cmp.Or(req.Timeout, e.RequestTimeout); bound > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	resp := Response{Endpoint: e.Name, Method: req.Method, Path: req.Path, AuditID: newAuditID()}
	defer func() { record(ctx, resp) }()
	client, err := httpClientFor(cfg)
	if err != nil {
		resp.Err = err.Error()
		return resp
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := newRequest(ctx, req.Method, e.URL+req.Path, body)
	if err != nil {
		resp.Err = err.Error()
		return resp
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	if hr.Header.Get("Content-Type") == "" && req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Audit-ID", resp.AuditID)
	resp.RequestHeader, resp.RequestBody = redacted(hr.Header), abbreviate(string(req.Body), 2000)
	start := time.Now()
	r, err := client.Do(hr)
	resp.Latency = time.Since(start)
	if err != nil {
		resp.Err = err.Error()
		return resp
	}
	defer r.Body.Close()
	if r.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection: its status is the answer; the stream is not read.
		resp.Status, resp.Header = r.StatusCode, r.Header
		return resp
	}
	got, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	resp.ContentType, resp.Header, resp.Body, resp.BodyText = r.Header.Get("Content-Type"), r.Header, got, string(got)
	if err != nil {
		// The body broke off (the connection ended, or the bound ran out, before its end):
		// what arrived is kept as evidence, but the status is not the answer's. client-go
		// gives its callers only an error here, whatever the status, so a 200 cut short
		// must not count as a 200 (nor a 503 cut short as a 503) in any verdict.
		resp.Err = cutShort(r, len(got), err)
		return resp
	}
	resp.Status = r.StatusCode
	return resp
}

// cutShort says what a response whose body broke off after got bytes was: its status, how
// much of its body came, and why it ended. Its words avoid those an error kind is told by
// (chaos.ErrorKind), so the kind is the read error's: "unexpected EOF" when the connection
// ended, a deadline when the bound ran out.
func cutShort(r *http.Response, got int, err error) string {
	of := fmt.Sprintf("%d of %d", got, r.ContentLength)
	if r.ContentLength < 0 {
		of = fmt.Sprintf("%d (no length declared)", got)
	}
	return fmt.Sprintf("HTTP %d, but its body broke off after %s bytes: %v (an answer cut short is no answer; its status is not counted)", r.StatusCode, of, err)
}

// dialClients keeps the HTTP client of each config with a Dial function, for as long as
// the config lives: client-go caches transports by their TLS settings, but a config's
// Dial makes a key of its own on every call, so each request would dial a new
// connection (and keep it idle) without this.
var dialClients sync.Map // weak.Pointer[rest.Config] -> *http.Client

func httpClientFor(cfg *rest.Config) (*http.Client, error) {
	if cfg.Dial == nil {
		return rest.HTTPClientFor(cfg)
	}
	key := weak.Make(cfg)
	if c, ok := dialClients.Load(key); ok {
		return c.(*http.Client), nil
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	if old, loaded := dialClients.LoadOrStore(key, c); loaded {
		return old.(*http.Client), nil
	}
	runtime.AddCleanup(cfg, func(k weak.Pointer[rest.Config]) {
		if c, ok := dialClients.LoadAndDelete(k); ok {
			c.(*http.Client).CloseIdleConnections()
		}
	}, key)
	return c, nil
}

func newRequest(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, method, url, body)
}

func newAuditID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "skewcheck-" + hex.EncodeToString(b)
}

// AuditEvent is what the suites read from an apiserver's audit log.
type AuditEvent struct {
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string              `json:"username"`
		UID      string              `json:"uid"`
		Groups   []string            `json:"groups"`
		Extra    map[string][]string `json:"extra"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// AuditEvents returns the ResponseComplete events with auditID in the endpoint's audit
// log, waiting up to wait for them to be written (the log is written as the request ends,
// which can be just after the client has its response).
func (e *Endpoint) AuditEvents(ctx context.Context, auditID string, wait time.Duration) ([]AuditEvent, error) {
	if e.AuditLog == "" {
		return nil, fmt.Errorf("endpoint %s has no readable audit log", e.Name)
	}
	deadline := time.Now().Add(wait)
	for {
		events, err := readAudit(e.AuditLog, auditID)
		if err != nil || len(events) > 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return events, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readAudit(path, auditID string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(auditID)) {
			continue
		}
		var ev AuditEvent
		if err := json.Unmarshal(line, &ev); err == nil && ev.AuditID == auditID && ev.Stage == "ResponseComplete" {
			out = append(out, ev)
		}
	}
	return out, sc.Err()
}

func abbreviate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// StreamRequest is a client and a GET request for a long-lived stream (a watch) through e
// as the admin, for callers that read the body as it comes instead of through Do.
func StreamRequest(ctx context.Context, e *Endpoint, path string) (*http.Client, *http.Request, error) {
	client, err := httpClientFor(e.Admin)
	if err != nil {
		return nil, nil, err
	}
	req, err := newRequest(ctx, http.MethodGet, e.URL+path, nil)
	return client, req, err
}
