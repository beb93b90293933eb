// Package upgrade bounds how long a proxied upgrade (exec, attach, port-forward over SPDY
// or websockets) may stay silent. Once a server answers 101 Switching Protocols, a reverse
// proxy only copies bytes both ways until one side closes: a session whose server froze,
// or whose path to it went black (the kernel there still acknowledges, so TCP keepalives
// see nothing wrong), would hold its client's connection, the server's and two goroutines
// for ever, and a client can open as many such sessions as it likes.
//
// Upstream has no bound at the apiserver: its upgrade-aware proxy copies until one side
// ends (k8s.io/apimachinery v0.36.3 pkg/util/proxy/upgradeaware.go:412-453), and its
// http.Server sets no read or write timeout (k8s.io/apiserver v0.36.3
// pkg/server/secure_serving.go:168-176). The bound is further on, where the stream ends:
// the container runtime's streaming server closes a stream after StreamIdleTimeout with no
// frame either way, 4 h by default (k8s.io/cri-streaming v0.36.3 pkg/streaming/server.go:98,
// applied at remotecommand/httpstream.go:143 and websocket.go:97, portforward/httpstream.go:53
// and websocket.go:114; SPDY's idle timer restarts on every frame read or written,
// github.com/moby/spdystream v0.5.1 connection.go:150-177). The kubelet's
// --streaming-connection-idle-timeout has the same 4 h default (k8s.io/kubernetes v1.36.3
// pkg/kubelet/apis/config/v1beta1/defaults.go:135-136) but nothing in v1.36.3 reads it any
// more. A proxy gets that bound from upstream only while the stream's far end is alive to
// enforce it; this package enforces the same bound at the proxy, so it holds when the far
// end is what froze.
package upgrade

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is the container runtime's StreamIdleTimeout default (see the package
// comment): a session idle for less is never ended by the proxy where upstream would keep it.
const DefaultIdleTimeout = 4 * time.Hour

// CloseWhenIdle makes resp's connection, when resp is a 101 Switching Protocols about to be
// spliced to the client by httputil.ReverseProxy (call it from ModifyResponse), close once
// no byte has passed either way for idle. Closing the server's side ends ReverseProxy's
// copy, which then closes the client's. Every byte of the session passes through this one
// connection (read: to the client; written: from it), so watching it watches both ways.
// An idle of 0 or less sets no bound.
func CloseWhenIdle(resp *http.Response, idle time.Duration) {
	if resp.StatusCode != http.StatusSwitchingProtocols || idle <= 0 {
		return
	}
	conn, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		return // ReverseProxy refuses a 101 it cannot write to, without copying anything
	}
	resp.Body = watch(conn, idle)
}

// watchedConn is a connection closed by a timer once silent for idle.
type watchedConn struct {
	io.ReadWriteCloser
	idle  time.Duration
	start time.Time    // with a monotonic reading: a wall clock step does not end a session
	last  atomic.Int64 // when the latest byte passed, as time since start
	mu    sync.Mutex   // guards timer against the first check running before it is set
	timer *time.Timer
}

func watch(conn io.ReadWriteCloser, idle time.Duration) *watchedConn {
	c := &watchedConn{ReadWriteCloser: conn, idle: idle, start: time.Now()}
	c.mu.Lock()
	c.timer = time.AfterFunc(idle, c.check)
	c.mu.Unlock()
	return c
}

// check closes the connection if it has been silent for idle, else looks again when it
// would have been.
func (c *watchedConn) check() {
	c.mu.Lock()
	defer c.mu.Unlock()
	silent := time.Since(c.start) - time.Duration(c.last.Load())
	if silent >= c.idle {
		c.ReadWriteCloser.Close()
		return
	}
	c.timer.Reset(c.idle - silent)
}

func (c *watchedConn) touch() { c.last.Store(int64(time.Since(c.start))) }

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *watchedConn) Write(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Write(p)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *watchedConn) Close() error {
	c.mu.Lock()
	c.timer.Stop()
	c.mu.Unlock()
	return c.ReadWriteCloser.Close()
}
