package upgrade

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// fakeEndpoint is an endpoint served by h over TLS.
func fakeEndpoint(t *testing.T, name string, h http.HandlerFunc) *framework.Endpoint {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return &framework.Endpoint{Name: name, URL: srv.URL, Admin: &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}}
}

// A watch that runs to its own timeout broke nothing: the next stream's events are no
// resume. Only a stream cut short, then events again, is one.
func TestRoutineWatchTimeoutIsNoResume(t *testing.T) {
	const timeout = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var streams atomic.Int32
	e := fakeEndpoint(t, "a", func(w http.ResponseWriter, r *http.Request) {
		n := streams.Add(1)
		if n > 4 {
			cancel()
			<-r.Context().Done()
			return
		}
		fmt.Fprintf(w, `{"type":"ADDED","object":{"metadata":{"name":"cm-%d","resourceVersion":"%d"}}}`+"\n", n, 10+n)
		w.(http.Flusher).Flush()
		if n != 3 { // the third is cut short; the others run past the timeout, as a server ends them
			time.Sleep(timeout + 100*time.Millisecond)
		}
	})
	l := newLoad(&framework.Target{Endpoints: []*framework.Endpoint{e}}, Options{Seed: 1}, time.Now())
	l.watchTimeout = timeout
	l.watch(ctx, e)
	var ends []bool
	resumes := 0
	for _, ev := range l.events {
		switch ev.Kind {
		case "watch-end":
			ends = append(ends, ev.Early)
		case "watch-resume":
			resumes++
		}
	}
	if fmt.Sprint(ends) != "[false false true false]" || resumes != 1 {
		t.Errorf("streams ended early %v, %d resumes; want only the third early and one resume, after it", ends, resumes)
	}
	if l.lastRV["a"] != "14" {
		t.Errorf("the watch resumes from %q, want the last resourceVersion seen, 14", l.lastRV["a"])
	}
}

// A stream that resumed after a break and is still open when the run ends has resumed:
// the resume is recorded at its first event, not when it ends (it never does here).
func TestResumeStillOpenAtTheEndIsRecorded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var streams atomic.Int32
	e := fakeEndpoint(t, "a", func(w http.ResponseWriter, r *http.Request) {
		n := streams.Add(1)
		if n == 1 { // the server goes away: no stream
			http.Error(w, "restarting", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"type":"ADDED","object":{"metadata":{"name":"cm","resourceVersion":"%d"}}}`+"\n", 10+n)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open until the run ends
	})
	l := newLoad(&framework.Target{Endpoints: []*framework.Endpoint{e}}, Options{Seed: 1}, time.Now())
	l.watchTimeout = time.Minute
	resumes := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		n := 0
		for _, ev := range l.events {
			if ev.Kind == "watch-resume" {
				n++
			}
		}
		return n
	}
	// The run ends while the resumed stream is open: once its resume is recorded, or
	// after 10 s without one.
	go func() {
		defer cancel()
		wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) { return resumes() > 0, nil })
	}()
	l.watch(ctx, e)
	if n := resumes(); n != 1 {
		t.Errorf("%d resumes recorded, want the open stream's one: %+v", n, l.events)
	}
}
