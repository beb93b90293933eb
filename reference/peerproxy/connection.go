package peerproxy

import (
	"net/http"
	"strings"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// connectionTokens are the header names and options a request lists in Connection: what
// every proxy removes from the request it forwards (hop-by-hop, RFC 9110 section 7.6.1).
func connectionTokens(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Connection") {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// protectedHopByHop returns the first header among the proxy's own (identity, impersonation,
// loop marker) that the request names in Connection, or "". Naming them would have them
// removed on the way to the apiserver: a request forwarded with the proxy's certificate and
// no user, impersonation silently dropped, or a marked request marked no more. The proxy
// refuses such a request rather than guess what the client meant.
func protectedHopByHop(h http.Header) string {
	return authn.NamedHopByHop(h, "X-Remote-", "Impersonate-", headerMarked)
}

// isUpgrade reports whether the request asks to switch protocols (websocket, SPDY for
// exec, attach and port-forward).
func isUpgrade(r *http.Request) bool {
	if r.Header.Get("Upgrade") == "" {
		return false
	}
	for _, t := range connectionTokens(r.Header) {
		if strings.EqualFold(t, "upgrade") {
			return true
		}
	}
	return false
}
