package gateway

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// Many clients must converge on a few TCP connections per upstream. Go's http.Transport
// does not do that by itself against kube-apiserver: the apiserver allows 100 concurrent
// streams on one HTTP/2 connection (--http2-max-streams-per-connection, default 0 = 100),
// and when every connection is full the Transport dials a new one for every request that
// finds them full, before any of those dials has finished (it does not de-duplicate dials,
// it only closes the surplus afterwards). Measured: 200 concurrent clients, 101 TCP
// connections to one server at the peak, 3 afterwards (lanes_test.go shows it).
//
// So the gateway spreads requests over lanes itself. A lane is a Transport that holds at
// most one connection to each server (MaxConnsPerHost 1) and queues requests beyond the
// server's stream limit on it instead of dialing (StrictMaxConcurrentRequests). A lane
// is given streamsPerLane requests before the next lane is used, and a new lane is opened
// only when every lane is that busy; at maxLanes the least busy lane takes the request and
// it waits for a free stream. Connections of lanes nobody uses any more close when idle
// (IdleConnTimeout).
//
// Before a lane is picked, the request takes one of the set's streams from its fair share
// (fairshare.go): the set has as many as its lanes can carry (max x streamsPerLane), so
// a picked lane always has a stream free and the wait, bounded and fair between clients,
// is there and not in a Transport (which would make it wait, first come first served,
// for as long as its context). That holds while the server allows streamsPerLane streams
// per connection, kube-apiserver's default; one that allows fewer makes requests wait in
// the Transport again, bounded by their context only.

// streamsPerLane is how many requests a lane carries before another is opened: kube-
// apiserver's default stream limit, so a lane's requests never wait for a stream while
// there is room for another lane.
const streamsPerLane = 100

// laneSet spreads requests to one server over lanes.
type laneSet struct {
	newLane func() *http.Transport
	max     int
	streams *fairStreams

	mu    sync.Mutex
	lanes []*lane
}

// lane is one Transport and how many of its requests are still in flight (from the
// round trip until the response body is closed).
type lane struct {
	t        *http.Transport
	inFlight atomic.Int64
}

// pick returns the lane for the next request, counting the request on it.
func (s *laneSet) pick() *lane {
	s.mu.Lock()
	defer s.mu.Unlock()
	var least *lane
	for _, l := range s.lanes {
		n := l.inFlight.Load()
		if n < streamsPerLane {
			l.inFlight.Add(1)
			return l
		}
		if least == nil || n < least.inFlight.Load() {
			least = l
		}
	}
	if len(s.lanes) < s.max {
		least = &lane{t: s.newLane()}
		s.lanes = append(s.lanes, least)
	}
	least.inFlight.Add(1)
	return least
}

func newLaneSet(newLane func() *http.Transport, max int) *laneSet {
	return &laneSet{newLane: newLane, max: max, streams: newFairStreams(max * streamsPerLane)}
}

// RoundTrip takes a stream of the client's share, then sends the request on a lane; the
// request holds both until its response body is closed (a watch as long as it streams).
// Without a stream within the claim's wait it fails with errNoStream, sending nothing.
func (s *laneSet) RoundTrip(req *http.Request) (*http.Response, error) {
	release := func() {}
	if claim := claimOf(req.Context()); !claim.shared {
		var err error
		if release, err = s.streams.acquire(req.Context(), claim.client, claim.wait); err != nil {
			return nil, err
		}
	}
	l := s.pick()
	resp, err := l.t.RoundTrip(req)
	if err != nil {
		l.inFlight.Add(-1)
		release()
		return nil, err
	}
	resp.Body = &laneBody{ReadCloser: resp.Body, done: func() { l.inFlight.Add(-1); release() }}
	return resp, nil
}

// size is how many lanes the set has opened.
func (s *laneSet) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lanes)
}

func (s *laneSet) closeIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lanes {
		l.t.CloseIdleConnections()
	}
}

// laneBody ends the request's count on its lane when the body is closed, once.
type laneBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *laneBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}
