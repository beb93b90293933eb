package gateway

import (
	"net/http"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// The user and group kube-apiserver gives a request without credentials.
const (
	anonymousUser   = "system:anonymous"
	unauthenticated = "system:unauthenticated"
)

// anonymous is who a client without credentials (authn's nil user) is in a cluster that
// lets anonymous in (spec.anonymous): the upstream's authorizer then decides what
// anonymous may do (/readyz, /version), exactly as if it asked directly.
func anonymous() *authn.User {
	return &authn.User{Name: anonymousUser, Groups: []string{unauthenticated}}
}

// impersonationHeaders are the impersonation headers, as kube-apiserver reads them; all
// begin with headerImpersonatePrefix.
var impersonationHeaders = authn.Headers{User: "Impersonate-User", Group: "Impersonate-Group", UID: "Impersonate-Uid", ExtraPrefix: "Impersonate-Extra-"}

const headerImpersonatePrefix = "Impersonate-"

// headerPeerProxied is the Mixed Version Proxy's loop marker: an apiserver serves a request
// carrying it locally. Only an apiserver forwarding to its peer sets it.
const headerPeerProxied = "X-Kubernetes-Peer-Proxied"

// stripClientIdentity removes every header that could claim an identity upstream: the
// client's own credentials (the gateway presents its own), its impersonation headers
// (already authorized and turned into the user by then, see impersonation.go), and
// front-proxy X-Remote-* headers, which an apiserver would trust only from its front proxy
// but which must never pass through a gateway that might be one. The peer-proxied marker
// goes too: a client has no business telling an apiserver how it was reached.
func stripClientIdentity(h http.Header) {
	authn.StripIdentity(h, headerImpersonatePrefix, "X-Remote-", headerPeerProxied)
}

// protectedHopByHop returns the first header the request's Connection names among those
// the gateway sets or strips for identity (impersonation, X-Remote-*, Authorization, the
// peer-proxied marker), or "". Named there, they are removed from the request the gateway
// forwards: a gateway that set the impersonation before that removal would send the
// request as itself. The gateway sets it after (forward.go), and still refuses such a
// request rather than guess what its client meant: no client has a reason to send it.
func protectedHopByHop(h http.Header) string {
	return authn.NamedHopByHop(h, headerImpersonatePrefix, "X-Remote-", "Authorization", headerPeerProxied)
}

// setImpersonation asks the upstream to act as u: it authorizes the gateway to
// impersonate, then authorizes the request as u, so u's own RBAC decides.
func setImpersonation(h http.Header, u *authn.User) {
	impersonationHeaders.Set(h, u)
}
