package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// The soak's mixed load through the gateway, all in namespace default: clients that GET
// one configmap and LIST a few, each on a client connection of its own that it closes
// and opens again every soakChurn requests (so connections come and go as well as
// requests); watchers on one shared connection (as an informer's watches share
// client-go's) whose watches end, by the server's timeoutSeconds or by the client giving
// up, and are opened again; and a writer whose patches give the watches events.
const (
	soakClients  = 16
	soakWatchers = 8
	soakChurn    = 100
	soakPause    = 10 * time.Millisecond // between a client's requests
	soakWrites   = 200 * time.Millisecond
	soakListed   = 20 // configmaps the LISTs return

	soakWatched  = "soak-watched"
	soakGetPath  = "/api/v1/namespaces/default/configmaps/" + soakWatched
	soakListPath = "/api/v1/namespaces/default/configmaps?labelSelector=soak%3Dlisted"
	soakWatch    = "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3D" + soakWatched
)

// soakTally is the load done so far. A failure is any request or watch that did not get
// a 200 (a restart's 503s and broken streams among them): counted and shown, not a
// verdict, since the soak is about what the gateway holds.
type soakTally struct {
	gets, lists, patches, watches, events, failed int64
}

func (t soakTally) requests() int64 { return t.gets + t.lists + t.patches + t.watches }

type soakLoad struct {
	gw                                    *framework.Endpoint
	base                                  *http.Transport
	gets, lists, patches, watches, events atomic.Int64
	failed                                atomic.Int64
	mu                                    sync.Mutex
	firstFailures                         []string
}

func newSoakLoad(gw *framework.Gateway) (*soakLoad, error) {
	base, err := gw.Transport(gw.Endpoint.Admin)
	if err != nil {
		return nil, fmt.Errorf("a transport to the gateway: %w", err)
	}
	return &soakLoad{gw: gw.Endpoint, base: base}, nil
}

// objects makes what the load reads, through direct (an apiserver itself).
func (l *soakLoad) objects(ctx context.Context, direct *framework.Endpoint) error {
	create := func(name, label string) error {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"soak":%q}},"data":{"n":"0"}}`, name, label)
		if r := direct.Do(ctx, framework.Request{Method: http.MethodPost, Path: "/api/v1/namespaces/default/configmaps", Body: []byte(body)}); r.Status != http.StatusCreated {
			return fmt.Errorf("creating configmap %s for the soak: %s", name, r)
		}
		return nil
	}
	for i := range soakListed {
		if err := create(fmt.Sprintf("soak-listed-%d", i), "listed"); err != nil {
			return err
		}
	}
	return create(soakWatched, "watched")
}

func (l *soakLoad) tally() soakTally {
	return soakTally{gets: l.gets.Load(), lists: l.lists.Load(), patches: l.patches.Load(), watches: l.watches.Load(),
		events: l.events.Load(), failed: l.failed.Load()}
}

// failures is the first few distinct failures, for the log.
func (l *soakLoad) failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.firstFailures...)
}

func (l *soakLoad) fail(what string, err error) {
	l.failed.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.firstFailures) < 5 {
		l.firstFailures = append(l.firstFailures, fmt.Sprintf("%s: %v", what, err))
	}
}

// run drives the load until ctx ends, and returns once every driver has stopped.
func (l *soakLoad) run(ctx context.Context) {
	var wg sync.WaitGroup
	watchers := l.base.Clone()
	defer watchers.CloseIdleConnections()
	for i := range soakClients {
		wg.Go(func() { l.client(ctx, i) })
	}
	for i := range soakWatchers {
		wg.Go(func() { l.watcher(ctx, watchers, i) })
	}
	wg.Go(func() { l.writer(ctx) })
	wg.Wait()
}

// client sends GETs and LISTs (one in four), on a connection of its own for soakChurn
// requests at a time.
func (l *soakLoad) client(ctx context.Context, i int) {
	for n := 0; ctx.Err() == nil; {
		tr := l.base.Clone()
		c, err := l.httpClient(tr)
		if err != nil {
			l.fail("a client of the gateway", err)
			return
		}
		for end := n + soakChurn; n < end && ctx.Err() == nil; n++ {
			path, done := soakGetPath, &l.gets
			if (n+i)%4 == 0 {
				path, done = soakListPath, &l.lists
			}
			l.do(ctx, c, http.MethodGet, path, nil, done)
			sleep(ctx, soakPause)
		}
		tr.CloseIdleConnections()
	}
}

// writer patches the watched configmap every soakWrites.
func (l *soakLoad) writer(ctx context.Context) {
	tr := l.base.Clone()
	defer tr.CloseIdleConnections()
	c, err := l.httpClient(tr)
	if err != nil {
		l.fail("the writer's client", err)
		return
	}
	for n := 0; ctx.Err() == nil; n++ {
		l.do(ctx, c, http.MethodPatch, soakGetPath, []byte(fmt.Sprintf(`{"data":{"n":"%d"}}`, n)), &l.patches)
		sleep(ctx, soakWrites)
	}
}

// watcher opens watches one after another: an even one ends by the server's
// timeoutSeconds (5 to 15 s), an odd one by the client hanging up after 2 to 10 s.
func (l *soakLoad) watcher(ctx context.Context, tr *http.Transport, i int) {
	c, err := l.httpClient(tr)
	if err != nil {
		l.fail("a watcher's client", err)
		return
	}
	for n := i; ctx.Err() == nil; n++ {
		path, bound := soakWatch, time.Minute
		if n%2 == 0 {
			path += fmt.Sprintf("&timeoutSeconds=%d", 5+rand.IntN(11))
		} else {
			bound = time.Duration(2+rand.IntN(9)) * time.Second
		}
		wctx, cancel := context.WithTimeout(ctx, bound)
		l.watch(wctx, c, path)
		cancel()
		sleep(ctx, 100*time.Millisecond) // a broken watch is not reopened in a busy loop
	}
}

// watch reads one watch until it ends, counting its events.
func (l *soakLoad) watch(ctx context.Context, c *http.Client, path string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.gw.URL+path, nil)
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			l.fail("opening a watch", err)
		}
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		l.fail("opening a watch", fmt.Errorf("HTTP %d", resp.StatusCode))
		return
	}
	l.watches.Add(1)
	dec := json.NewDecoder(resp.Body)
	for {
		var ev struct{ Type string }
		if err := dec.Decode(&ev); err != nil {
			if err != io.EOF && ctx.Err() == nil {
				l.fail("reading a watch", err)
			}
			return
		}
		l.events.Add(1)
	}
}

// do sends one request and reads its answer, counting it in done when it is 200.
func (l *soakLoad) do(ctx context.Context, c *http.Client, method, path string, body []byte, done *atomic.Int64) {
	bounded, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(bounded, method, l.gw.URL+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() == nil { // not the soak's end
			l.fail(method+" "+path, err)
		}
		return
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil && ctx.Err() != nil:
	case err != nil:
		l.fail(method+" "+path, err)
	case resp.StatusCode != http.StatusOK: // who answered it, for the log: the gateway's body says
		l.fail(method+" "+path, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, answer))
	default:
		done.Add(1)
	}
}

// httpClient is a client of the gateway on tr, authenticated as the gateway endpoint's
// admin.
func (l *soakLoad) httpClient(tr *http.Transport) (*http.Client, error) {
	rt, err := rest.HTTPWrappersForConfig(l.gw.Admin, tr)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: rt}, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
