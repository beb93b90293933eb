package peerproxy

import (
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// A lease's renewTime is written by its holder's clock, and clocks between servers are off
// by seconds, sometimes by hours. Compared with this proxy's clock, a peer whose clock is
// an hour behind looks expired at every renewal, and its resources would get 404 while it
// serves them; one whose clock is ahead looks alive long after it crashed. So, as client-go's
// leader election does, liveness is measured on this proxy's own clock: a lease lives while
// its renewTime last changed less than its duration ago, as this proxy saw it change. The
// value of a renewTime is trusted only where nothing else is known: a lease read for the
// first time is live if it says it was renewed within its duration (a lease left behind
// long ago by a crashed proxy is not a peer) and, like every lease, if it changes again
// within its duration of being first read.
type renewals struct {
	mu   sync.Mutex
	seen map[string]sighting // by lease name
}

// sighting is what this proxy knows of one lease's renewals.
type sighting struct {
	renewTime time.Time // as last read
	at        time.Time // when this proxy first read that renewTime, by its own clock
	renewing  bool      // read with another renewTime before: its holder renews
}

// live says whether l is a live registration at now (this proxy's clock), and remembers
// its renewTime. Call it once per lease per sync, then forget the leases no longer listed.
func (s *renewals) live(l coordinationv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]sighting{}
	}
	renewed := l.Spec.RenewTime.Time
	prev, known := s.seen[l.Name]
	cur := prev
	if !known || !prev.renewTime.Equal(renewed) {
		cur = sighting{renewTime: renewed, at: now, renewing: known}
		s.seen[l.Name] = cur
	}
	duration := time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	if now.Sub(cur.at) >= duration {
		return false
	}
	return cur.renewing || leaseLive(l, now)
}

// forgetExcept drops what is known of every lease not named in listed: a lease deleted and
// made again is read afresh.
func (s *renewals) forgetExcept(listed map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.seen {
		if !listed[name] {
			delete(s.seen, name)
		}
	}
}

// live says whether a peer's lease is live at now: by this proxy's clock (renewals), or,
// for FlawTrustRenewTime, by the lease's renewTime alone.
func (r *registry) live(l coordinationv1.Lease, now time.Time) bool {
	if r.flaw == FlawTrustRenewTime {
		return leaseLive(l, now)
	}
	return r.renewals.live(l, now)
}
