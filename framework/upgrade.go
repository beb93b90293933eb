package framework

import (
	"crypto/rand"
	"encoding/base64"

	"k8s.io/client-go/rest"
)

// UpgradeHeaders are the two ways clients switch protocols, by name: SPDY (kubectl and
// client-go exec, attach, port-forward) and websockets (newer kubectl exec, and watches).
// Each call makes a fresh websocket key.
func UpgradeHeaders() map[string]map[string][]string {
	key := make([]byte, 16)
	rand.Read(key)
	return map[string]map[string][]string{
		"SPDY": {"Connection": {"Upgrade"}, "Upgrade": {"SPDY/3.1"}, "X-Stream-Protocol-Version": {"v4.channel.k8s.io"}},
		"websocket": {"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"},
			"Sec-Websocket-Key": {base64.StdEncoding.EncodeToString(key)}, "Sec-Websocket-Protocol": {"v5.channel.k8s.io"},
			// The apiserver's websocket handlers refuse a handshake without an Origin.
			"Origin": {"https://skewcheck.local"}},
	}
}

// OverHTTP1 is e reached over HTTP/1.1 only. Connection-specific headers (Connection,
// Upgrade) exist only in HTTP/1.1: Go's HTTP/2 client refuses to send them, so the tests
// that send them, and every SPDY upgrade (kubectl exec, attach, port-forward), use this.
func OverHTTP1(e *Endpoint) *Endpoint {
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
