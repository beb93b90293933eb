package faults

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// A slow client connects to the entry of the load: without a route it is Missing that,
// and skipped, not made against nothing. Both slow faults last long enough to outlast
// kube-apiserver's header (32 s) and request (60 s) timeouts.
func TestSlowFaultsNeedTheLoad(t *testing.T) {
	cluster := localCluster()
	_, err := ByName("slow-client", NewSubject(cluster, cluster[1], cluster[0]))
	var missing *Missing
	if !errors.As(err, &missing) || missing.Capability != Entry {
		t.Errorf("slow-client without the load's route: want Missing %q, got %v", Entry, err)
	}
	if AtLeast("slow-client") <= 60*time.Second || AtLeast("slow-body") <= 75*time.Second || AtLeast("crash") != 0 {
		t.Errorf("AtLeast: slow-client %v, slow-body %v, crash %v", AtLeast("slow-client"), AtLeast("slow-body"), AtLeast("crash"))
	}
	if Expected("slow-client") != Unnoticed || Expected("slow-body") != Measured {
		t.Error("slow-client must go unnoticed; what a slow body does is measured")
	}
	f := SlowBody(&node.PeerPath{Address: "127.77.0.2:6443"}, framework.Route{}, 1)
	if err := f.Inject(t.Context()); err == nil || !strings.Contains(err.Error(), "route") {
		t.Errorf("slow-body without a route: want an error naming it, got %v", err)
	}
}

func TestSlowNote(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{slowNote("headers", 8, 65*time.Second, []time.Duration{32 * time.Second, 32100 * time.Millisecond}, nil, nil, 0),
			"slow headers: 2 of 8 cut after 32.0-32.1 s (closed)"},
		{slowNote("body", 8, 65*time.Second, []time.Duration{60 * time.Second}, []string{"HTTP/1.1 504 Gateway Timeout"}, nil, 0),
			"slow bodies: 1 of 8 cut after 60.0-60.0 s (HTTP/1.1 504 Gateway Timeout)"},
		{slowNote("reader", 8, 65*time.Second, nil, nil, []string{"connection refused"}, 300),
			"slow readers: 7 of 8 held 65 s, none cut, 300 bytes read, 1 never opened (connection refused)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// What the long list got becomes a note, and a 200 that broke off counts as broken.
func TestSlowBodyObserved(t *testing.T) {
	entry := &framework.Endpoint{Name: "apiserver-1"}
	for _, c := range []struct {
		read   longRead
		want   string
		broken int
	}{
		{longRead{status: 200, headers: time.Second, ended: 60 * time.Second, bytes: 50_000, err: "stream error: INTERNAL_ERROR"},
			"200 after 1.0 s, then the body broke off at 60.0 s after 50000 bytes (stream error: INTERNAL_ERROR)", 1},
		{longRead{status: 200, headers: time.Second, ended: 61 * time.Second, bytes: 50_000},
			"it ended cleanly but is not the whole list", 1},
		{longRead{status: 200, headers: time.Second, ended: 80 * time.Second, bytes: 76_000, whole: true}, "whole at 80.0 s", 0},
		{longRead{status: 504, headers: 60 * time.Second, ended: 60 * time.Second}, "504 after 60.0 s", 0},
		{longRead{status: 200, headers: time.Second, bytes: 9000}, "still streaming when healed", 0},
	} {
		s := &slowBody{route: framework.Route{Entry: entry}, read: c.read, written: 19, size: 76_000}
		o := s.Observed()
		if len(o.Notes) != 1 || !strings.Contains(o.Notes[0], c.want) || !strings.HasPrefix(o.Notes[0], "a list of 19 objects (76 KB) through apiserver-1: ") || o.Broken200 != c.broken {
			t.Errorf("%+v: got %q (broken %d), want a note saying %q (broken %d)", c.read, o.Notes, o.Broken200, c.want, c.broken)
		}
	}
}
