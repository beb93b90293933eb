package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// readyzServer answers /readyz as told: "ok", "slow" (past the check's timeout) or
// "not-ready" (500, as a stopping kube-apiserver does).
func readyzServer(t *testing.T, mode *atomic.Value) *httptest.Server {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load().(string) {
		case "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second):
			}
		case "not-ready":
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// TestSlowHealthChecks: a live upstream that answers /readyz slowly stays in the rotation
// until slowChecksToEvict checks in a row have timed out; one answer in between resets
// the count. A "not ready" answer, and a refused connection, take it out at once.
func TestSlowHealthChecks(t *testing.T) {
	var mode atomic.Value
	mode.Store("ok")
	s := readyzServer(t, &mode)
	const timeout = 100 * time.Millisecond
	var changes []bool
	u := newUpstream("c", newConnector("c", resolvedClientConfig{insecure: true}, timeout), s.URL,
		func(_ *upstream, healthy bool) { changes = append(changes, healthy) })
	check := func(want bool, why string) {
		t.Helper()
		u.healthCheck(context.Background(), timeout)
		if got := u.healthy.Load(); got != want {
			t.Fatalf("%s: healthy %v, want %v (last error %q)", why, got, want, u.status().LastError)
		}
	}
	check(true, "answers /readyz")

	mode.Store("slow")
	for i := 1; i < slowChecksToEvict; i++ {
		check(true, "a slow check short of the threshold")
	}
	mode.Store("ok")
	check(true, "an answer in between")
	mode.Store("slow")
	for i := 1; i < slowChecksToEvict; i++ {
		check(true, "slow again, counted from zero")
	}
	check(false, "the threshold of slow checks in a row")
	mode.Store("ok")
	check(true, "back once it answers")

	mode.Store("not-ready")
	check(false, "a server that says it is not ready leaves at once")
	mode.Store("ok")
	check(true, "ready again")

	s.Close() // nothing listens any more: refused
	check(false, "a refused connection leaves at once")

	if want := []bool{true, false, true, false, true, false}; len(changes) != len(want) {
		t.Errorf("health changes %v, want %v", changes, want)
	}
}

// TestSlowFirstCheck: an upstream that has never answered is not in the rotation, and a
// timeout does not put it there.
func TestSlowFirstCheck(t *testing.T) {
	var mode atomic.Value
	mode.Store("slow")
	s := readyzServer(t, &mode)
	u := newUpstream("c", newConnector("c", resolvedClientConfig{insecure: true}, 100*time.Millisecond), s.URL, nil)
	u.healthCheck(context.Background(), 100*time.Millisecond)
	if u.healthy.Load() || !u.checked.Load() {
		t.Errorf("healthy %v checked %v after a first check that timed out, want false true", u.healthy.Load(), u.checked.Load())
	}
}
