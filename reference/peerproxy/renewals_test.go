package peerproxy

import (
	"testing"
	"time"
)

// Liveness by this proxy's clock: a lease whose holder renews lives however far its clock
// is off; one that stops renewing dies a duration after its last renewal as seen here,
// whatever its renewTime says; a lease read once is judged by its renewTime alone.
func TestRenewalsJudgeByTheProxysClock(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	const secs = 3600
	var s renewals
	steps := []struct {
		what    string
		renewed time.Time // the lease's renewTime
		at      time.Time // this proxy's clock
		want    bool
	}{
		{"first read of a lease 2 h behind: left behind, as far as anyone can tell", now.Add(-2 * time.Hour), now, false},
		{"renewed again, still 2 h behind: its holder renews", now.Add(10*time.Second - 2*time.Hour), now.Add(10 * time.Second), true},
		{"no renewal for 59 min on this proxy's clock", now.Add(10*time.Second - 2*time.Hour), now.Add(59 * time.Minute), true},
		{"no renewal for an hour on this proxy's clock", now.Add(10*time.Second - 2*time.Hour), now.Add(10*time.Second + time.Hour), false},
		{"renewed 2 h ahead", now.Add(2 * time.Hour), now.Add(2 * time.Hour), true},
		{"ahead, and silent for an hour: dead, though its renewTime says it lives 2 h more", now.Add(2 * time.Hour), now.Add(3*time.Hour + time.Second), false},
	}
	for _, st := range steps {
		if got := s.live(*lease("peer", "", st.renewed, secs), st.at); got != st.want {
			t.Errorf("%s: live %v, want %v", st.what, got, st.want)
		}
	}
	if got := s.live(*lease("fresh", "", now, secs), now); !got {
		t.Error("a lease read once, renewed just now, is not live")
	}
	if got := s.live(*lease("other", "", now, 0), now); got {
		t.Error("a lease with no duration is live")
	}
	s.forgetExcept(map[string]bool{"other": true})
	if _, ok := s.seen["peer"]; ok {
		t.Error("a lease no longer listed is still remembered")
	}
	if got := s.live(*lease("peer", "", now.Add(-2*time.Hour), secs), now.Add(4*time.Hour)); got {
		t.Error("a lease deleted and made again is read afresh: 2 h behind at first read, not live")
	}
}

// The flaw trust-renew-time judges by the renewTime alone: a renewing peer 2 h behind is
// dead to it, live to the reference.
func TestFlawTrustRenewTime(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		flaw Flaw
		want bool
	}{{NoFlaw, true}, {FlawTrustRenewTime, false}} {
		r := &registry{flaw: c.flaw}
		r.live(*lease("peer", "", now.Add(-2*time.Hour-10*time.Second), 3600), now.Add(-10*time.Second))
		if got := r.live(*lease("peer", "", now.Add(-2*time.Hour), 3600), now); got != c.want {
			t.Errorf("flaw %q: a peer renewing 2 h behind is live %v, want %v", c.flaw, got, c.want)
		}
	}
}
