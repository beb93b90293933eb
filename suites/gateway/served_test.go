package gateway

import (
	"slices"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// A request the gateway sent to a server whose peer proxy passed it on is in two audit
// logs; it is credited to the server the gateway chose (the event whose user is the
// gateway), whichever endpoint's log is read first; without the gateway's identity in
// any, to the server that received it first.
func TestEntryOf(t *testing.T) {
	t0 := time.Now()
	entry := auditRecord{endpoint: "apiserver-1", user: "skewcheck:gateway", received: t0}
	peer := auditRecord{endpoint: "apiserver-2", user: "skewcheck-user", received: t0.Add(3 * time.Millisecond)}
	for _, rs := range [][]auditRecord{{entry, peer}, {peer, entry}} {
		if got := entryOf(slices.Clone(rs), "skewcheck:gateway"); got.entry != "apiserver-1" || !slices.Equal(got.peers, []string{"apiserver-2"}) {
			t.Errorf("entryOf(%v) = %+v, want apiserver-1 with peer apiserver-2", rs, got)
		}
	}
	asItself := peer
	asItself.user = "skewcheck:gateway"
	if got := entryOf([]auditRecord{asItself, entry}, "skewcheck:gateway"); got.entry != "apiserver-1" {
		t.Errorf("the gateway's identity in both events: %+v, want the first received, apiserver-1", got)
	}
	if got := entryOf([]auditRecord{peer}, "skewcheck:gateway"); got.entry != "apiserver-2" || len(got.peers) != 0 {
		t.Errorf("one event: %+v, want apiserver-2 alone", got)
	}
}

// Eviction is when the first run of ten healthy requests began, by the time they were
// sent, however long an earlier request hung.
func TestEvictionIn(t *testing.T) {
	var samples []sample
	at := func(i int) time.Duration { return time.Duration(i) * probeEvery }
	samples = append(samples, sample{sent: at(0), resp: framework.Response{Err: "context deadline exceeded", Latency: 15 * time.Second}})
	for i := 1; i < 5; i++ {
		samples = append(samples, sample{sent: at(i), resp: framework.Response{Status: 503, Latency: time.Second}})
	}
	for i := 5; i < 15; i++ {
		samples = append(samples, sample{sent: at(i), resp: framework.Response{Status: 200, Latency: 10 * time.Millisecond}})
	}
	if got, ok := evictionIn(samples); !ok || got != at(5) {
		t.Errorf("evictionIn = %v, %v; want %v", got, ok, at(5))
	}
	if _, ok := evictionIn(samples[:14]); ok {
		t.Errorf("nine healthy requests in a row are not an eviction")
	}
}
