// Package serving bounds a reference proxy's server as kube-apiserver bounds its own: a
// proxy in front of an apiserver that let a client hold more (bigger headers, more
// streams, bigger buffers, connections idle for longer) would be the weak point of the
// path, and would pass load the server behind it turns away.
package serving

import (
	"net/http"
	"time"
)

// The bounds kube-apiserver's SecureServingInfo.Serve sets, k8s.io/apiserver v0.36.3
// pkg/server/secure_serving.go: the http.Server's at lines 168-176, HTTP/2's at 178-202
// (MaxConcurrentStreams as without --http2-max-streams-per-connection, line 198).
const (
	maxHeaderBytes = 1 << 20
	// idleTimeout is http.DefaultTransport's keep-alive (line 174); HTTP/2 takes the same
	// (line 185), which net/http gives it from the http.Server's.
	idleTimeout = 90 * time.Second
	// readHeaderTimeout is "just shy of requestTimeoutUpperBound" (line 175).
	readHeaderTimeout = 32 * time.Second
	// maxConcurrentStreams is what x/net's client assumes of a server before its SETTINGS
	// say (http2.initialMaxConcurrentStreams, lines 195-198).
	maxConcurrentStreams = 100
	// frameSize is resourceBody99Percentile (line 182), HTTP/2's frame size and each
	// stream's upload buffer: most API bodies fit one frame, and a connection's buffer is
	// this for each of its streams (line 202).
	frameSize = 256 << 10
)

// Bounded is s with kube-apiserver's bounds. Upstream configures x/net's http2.Server;
// these are the same settings in net/http's own HTTP/2, which a server served with TLS
// speaks and which reads them from s.HTTP2 (its idle timeout from s.IdleTimeout).
func Bounded(s *http.Server) *http.Server {
	s.MaxHeaderBytes = maxHeaderBytes
	s.IdleTimeout = idleTimeout
	s.ReadHeaderTimeout = readHeaderTimeout
	s.HTTP2 = &http.HTTP2Config{
		MaxConcurrentStreams:          maxConcurrentStreams,
		MaxReadFrameSize:              frameSize,
		MaxReceiveBufferPerStream:     frameSize,
		MaxReceiveBufferPerConnection: frameSize * maxConcurrentStreams,
	}
	return s
}
