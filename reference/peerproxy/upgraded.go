package peerproxy

import (
	"net"
	"sync"
)

// connTracker is a listener that remembers the client connections still open, so that
// the proxy can end those net/http lets go of. An upgrade (exec, attach, port-forward, a
// websocket watch) hijacks its connection: from then on http.Server neither waits for it
// in Shutdown nor closes it in Close, and the session, with its connection to the
// apiserver, would outlive the proxy.
type connTracker struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func trackConns(l net.Listener) *connTracker {
	return &connTracker{Listener: l, conns: map[*trackedConn]struct{}{}}
}

func (t *connTracker) Accept() (net.Conn, error) {
	c, err := t.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t}
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	return tc, nil
}

// closeAll closes every connection still open. After http.Server's Shutdown or Close those
// are the hijacked ones: closing the client's side ends the copy to the apiserver too.
func (t *connTracker) closeAll() {
	t.mu.Lock()
	open := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		open = append(open, c)
	}
	t.mu.Unlock()
	for _, c := range open {
		c.Close()
	}
}

// trackedConn leaves its tracker when closed, by whoever closes it.
type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.t.mu.Lock()
		delete(c.t.conns, c)
		c.t.mu.Unlock()
	})
	return c.Conn.Close()
}
