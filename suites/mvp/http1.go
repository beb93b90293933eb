package mvp

import (
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// overHTTP1 is e reached over HTTP/1.1 only. Connection-specific headers (Connection,
// Upgrade) exist only in HTTP/1.1: Go's HTTP/2 client refuses to send them, so the tests
// that send them, and every SPDY upgrade (kubectl exec, attach, port-forward), use this.
func overHTTP1(e *framework.Endpoint) *framework.Endpoint {
	c := *e
	c.Admin, c.User = http1(e.Admin), http1(e.User)
	return &c
}

func http1(cfg *rest.Config) *rest.Config {
	if cfg == nil {
		return nil
	}
	c := rest.CopyConfig(cfg)
	c.NextProtos = []string{"http/1.1"}
	return c
}
