package gateway

import (
	"net/http"
	"reflect"
	"testing"
	"time"
)

// The gateway's server holds a client to no more than kube-apiserver would hold it to in
// its place (k8s.io/apiserver v0.36.3 pkg/server/secure_serving.go:168-202).
func TestServerBoundedAsAPIServer(t *testing.T) {
	s := (&Gateway{}).newServer()
	if s.MaxHeaderBytes != 1<<20 || s.IdleTimeout != 90*time.Second || s.ReadHeaderTimeout != 32*time.Second {
		t.Errorf("MaxHeaderBytes %d, IdleTimeout %s, ReadHeaderTimeout %s; want 1 MiB, 90s and 32s", s.MaxHeaderBytes, s.IdleTimeout, s.ReadHeaderTimeout)
	}
	want := http.HTTP2Config{MaxConcurrentStreams: 100, MaxReadFrameSize: 256 << 10, MaxReceiveBufferPerStream: 256 << 10, MaxReceiveBufferPerConnection: 100 * 256 << 10}
	if s.HTTP2 == nil || !reflect.DeepEqual(*s.HTTP2, want) {
		t.Errorf("HTTP2 %+v, want %+v", s.HTTP2, want)
	}
	if s.Handler == nil || s.TLSConfig == nil || s.TLSConfig.GetConfigForClient == nil {
		t.Errorf("the server serves no handler, or no TLS chosen by server name: %+v", s)
	}
}
