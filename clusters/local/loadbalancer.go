package local

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// loadBalancer is a round-robin TCP load balancer in front of every apiserver, as many
// managed and hand-made clusters put one in front of their control plane (haproxy or a
// cloud's network load balancer in TCP mode). It does not terminate TLS: a client sees the
// serving certificate of whichever server its connection reached, so it verifies a name
// every server's certificate carries (kubernetes.default.svc), and authenticates to that
// server with its own certificate. Each new connection goes to the next server; a server
// that refuses is skipped for that connection, as a health-checking balancer would.
type loadBalancer struct {
	listener net.Listener
	backends []string

	mu    sync.Mutex
	next  int
	conns map[net.Conn]struct{}
	done  bool
	wg    sync.WaitGroup
}

// startLoadBalancer listens on listen and forwards every connection to the next of backends.
func startLoadBalancer(listen string, backends []string) (*loadBalancer, error) {
	ip, port := splitHostPort(listen)
	if err := checkPortFree("load balancer", ip, port); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("starting the load balancer in front of %v on %s: %w", backends, listen, err)
	}
	lb := &loadBalancer{listener: l, backends: backends, conns: map[net.Conn]struct{}{}}
	lb.wg.Add(1)
	go lb.serve()
	return lb, nil
}

// Address is where clients connect.
func (lb *loadBalancer) Address() string { return lb.listener.Addr().String() }

func (lb *loadBalancer) serve() {
	defer lb.wg.Done()
	for {
		c, err := lb.listener.Accept()
		if err != nil {
			return // closed
		}
		if !lb.track(c) {
			c.Close()
			return
		}
		lb.wg.Add(1)
		go func() {
			defer lb.wg.Done()
			lb.forward(c)
		}()
	}
}

// forward dials the next backend that answers and copies both ways until either side closes.
func (lb *loadBalancer) forward(c net.Conn) {
	defer lb.untrack(c)
	up, err := lb.dial()
	if err != nil {
		return // the client sees its connection closed, as behind a balancer with no healthy server
	}
	if !lb.track(up) {
		up.Close()
		return
	}
	defer lb.untrack(up)
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		// Half-close, so the other direction can finish what it was sending.
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go pipe(up, c)
	go pipe(c, up)
	wg.Wait()
}

// dial tries every backend once, from the next in turn.
func (lb *loadBalancer) dial() (net.Conn, error) {
	lb.mu.Lock()
	first := lb.next
	lb.next = (lb.next + 1) % len(lb.backends)
	lb.mu.Unlock()
	var errs []error
	for i := range lb.backends {
		b := lb.backends[(first+i)%len(lb.backends)]
		up, err := net.DialTimeout("tcp", b, 2*time.Second)
		if err == nil {
			return up, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (lb *loadBalancer) track(c net.Conn) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if lb.done {
		return false
	}
	lb.conns[c] = struct{}{}
	return true
}

func (lb *loadBalancer) untrack(c net.Conn) {
	c.Close()
	lb.mu.Lock()
	delete(lb.conns, c)
	lb.mu.Unlock()
}

// Close stops listening, cuts every connection and waits for the forwarders to end.
func (lb *loadBalancer) Close() {
	lb.mu.Lock()
	lb.done = true
	for c := range lb.conns {
		c.Close()
	}
	lb.mu.Unlock()
	lb.listener.Close()
	lb.wg.Wait()
}
