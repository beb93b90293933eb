package gateway

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// An upstream's streams are shared between the gateway's clients, per authenticated user,
// not handed to whoever asks first. The gateway holds a fixed number of HTTP/2 streams to
// each server (lanes.go): without shares, one client holding every one of them with slow
// requests (bodies that trickle in, responses read a byte at a time) made every other
// client's requests wait in the gateway, where kube-apiserver's API Priority and Fairness,
// which would have kept that client to its own priority level's seats and queued it apart
// from the others, never sees them.
//
// The rule, per upstream and kind of request (short or long-running), with C streams in
// all and a reserve R of them (C/10):
//   - a client's fair share is C divided by the clients holding or waiting for a stream
//     there, and never more than C-R;
//   - a client below its share takes any free stream, the reserve included;
//   - a client at or above it takes a stream only while more than R are free: idle streams
//     are used, but the last R stay for the clients below their share.
//
// So one client alone holds at most C-R; a newcomer finds the reserve free at once and
// never waits behind it; as streams come free, the waiting clients below their share get
// them first, in turn, one at a time. Nothing is taken back: a stream held stays held
// until its request ends (a slow request ends when its client or the apiserver's own
// timeouts end it). Which user, not which connection or address, is the client: one user
// with many connections is one client, as APF sees it.
//
// The gateway cannot tell cheaply which priority level kube-apiserver will put a request
// in (that needs its FlowSchemas and their matching), so the shares are per user only.
// They compose with APF: the gateway keeps any one user from filling the streams to a
// server, so every user's requests reach the apiserver, whose APF then orders and limits
// them by priority level and flow as if they had come directly. The gateway never queues
// a request longer than its wait bound (Config.StreamWait); past it the request tries the
// cluster's other servers and else is answered 503 with Retry-After.
type fairStreams struct {
	capacity, reserve int

	mu      sync.Mutex
	inUse   int
	clients map[string]*clientStreams // those holding or waiting for a stream
	waiting []*clientStreams          // those waiting, in turn
}

// clientStreams is one client's streams on one upstream, and its requests waiting for one
// in the order they came.
type clientStreams struct {
	name    string
	held    int
	waiters []chan struct{}
}

func newFairStreams(capacity int) *fairStreams {
	return &fairStreams{capacity: capacity, reserve: max(1, capacity/10), clients: map[string]*clientStreams{}}
}

// tryOnly is a wait that takes a stream only if one is free for the client now.
const tryOnly time.Duration = -1

// errNoStream: no stream to the upstream came free for the client within the wait bound.
// Nothing was sent, so any request may try another upstream.
type errNoStream struct {
	client         string
	waited         time.Duration
	inUse, mine    int
	capacity       int
	clientsSharing int
}

func (e errNoStream) Error() string {
	return fmt.Sprintf("no stream free for %q within %v: %d of %d in use, %d of them its own, shared by %d clients",
		e.client, e.waited, e.inUse, e.capacity, e.mine, e.clientsSharing)
}

// acquire takes a stream for client, waiting at most wait (0: until ctx ends; tryOnly:
// not at all). release gives it back; call it once.
func (s *fairStreams) acquire(ctx context.Context, client string, wait time.Duration) (release func(), err error) {
	s.mu.Lock()
	c := s.client(client)
	if len(c.waiters) == 0 && s.mayTake(c) { // a client's own requests keep their order
		s.take(c)
		s.mu.Unlock()
		return s.releaser(c), nil
	}
	if wait == tryOnly {
		err := s.noStream(c, 0)
		s.forgetIfIdle(c)
		s.mu.Unlock()
		return nil, err
	}
	granted := make(chan struct{})
	c.waiters = append(c.waiters, granted)
	if len(c.waiters) == 1 {
		s.waiting = append(s.waiting, c)
	}
	s.mu.Unlock()

	var expired <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-granted:
		return s.releaser(c), nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-granted: // granted as it gave up: the stream goes to the next
		s.put(c)
	default:
		s.dropWaiter(c, granted)
	}
	if err == nil {
		err = s.noStream(c, wait)
	}
	s.dispatch()
	return nil, err
}

func (s *fairStreams) noStream(c *clientStreams, waited time.Duration) error {
	return errNoStream{client: c.name, waited: waited, inUse: s.inUse, mine: c.held, capacity: s.capacity, clientsSharing: len(s.clients)}
}

// client is the client's entry, made when it first asks.
func (s *fairStreams) client(name string) *clientStreams {
	c := s.clients[name]
	if c == nil {
		c = &clientStreams{name: name}
		s.clients[name] = c
	}
	return c
}

// share is each client's fair share of the streams now.
func (s *fairStreams) share() int {
	return min(s.capacity/max(1, len(s.clients)), s.capacity-s.reserve)
}

// mayTake: c may take a free stream now (the rule above).
func (s *fairStreams) mayTake(c *clientStreams) bool {
	free := s.capacity - s.inUse
	return free > 0 && (c.held < s.share() || free > s.reserve)
}

func (s *fairStreams) take(c *clientStreams) {
	s.inUse++
	c.held++
}

// put gives back one of c's streams (the lock held).
func (s *fairStreams) put(c *clientStreams) {
	s.inUse--
	c.held--
	s.forgetIfIdle(c)
	s.dispatch()
}

func (s *fairStreams) releaser(c *clientStreams) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.put(c)
		})
	}
}

// forgetIfIdle drops a client that holds and waits for nothing: it no longer counts in
// the others' shares.
func (s *fairStreams) forgetIfIdle(c *clientStreams) {
	if c.held == 0 && len(c.waiters) == 0 && s.clients[c.name] == c {
		delete(s.clients, c.name)
	}
}

// dropWaiter removes a request that gave up.
func (s *fairStreams) dropWaiter(c *clientStreams, w chan struct{}) {
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			break
		}
	}
	if len(c.waiters) == 0 {
		s.unqueue(c)
	}
	s.forgetIfIdle(c)
}

func (s *fairStreams) unqueue(c *clientStreams) {
	for i, x := range s.waiting {
		if x == c {
			s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
			return
		}
	}
}

// dispatch grants free streams to the waiting clients that may take them, one per client
// in turn, until none may (the lock held).
func (s *fairStreams) dispatch() {
	for granted := true; granted; {
		granted = false
		for i := 0; i < len(s.waiting); i++ {
			c := s.waiting[i]
			if !s.mayTake(c) {
				continue
			}
			close(c.waiters[0])
			c.waiters = c.waiters[1:]
			s.take(c)
			granted = true
			if len(c.waiters) == 0 {
				s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
				i--
			}
		}
	}
}

// streamClaim is what a request tells the lanes about itself (in its context): whom it is
// for and how long it may wait for a stream. A request without one (the gateway's own
// health checks and discovery reads) is the gateway's, and waits as long as its context.
type streamClaim struct {
	client string
	wait   time.Duration
	// shared is the SharedLanes defect: no shares, no bound.
	shared bool
}

type claimKey struct{}

func withClaim(ctx context.Context, c streamClaim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

func claimOf(ctx context.Context) streamClaim {
	c, _ := ctx.Value(claimKey{}).(streamClaim)
	return c
}
