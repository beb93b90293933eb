// Package authn decides who a client of a reference proxy is, the way kube-apiserver
// decides it for the two credentials the references accept: a client certificate signed
// by the cluster's client CA (the TLS handshake has verified it) or a bearer token, which
// only an apiserver can judge, through a TokenReview. Which headers then carry the
// identity upstream (front-proxy or impersonation) and which a client may not send are
// each reference's own; Headers and StripIdentity write and strip them by name.
package authn

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/http/httpguts"
	authnv1 "k8s.io/api/authentication/v1"
	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"
	"k8s.io/utils/clock"
)

// User is who a client is, as the apiservers would have decided.
type User struct {
	Name, UID string
	Groups    []string
	Extra     map[string][]string
}

// AuthenticatedGroup is the group the apiserver adds to every authenticated user.
const AuthenticatedGroup = "system:authenticated"

// credentialIDKey is the extra key kube-apiserver records a user's credential under.
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// certUser is who a verified client certificate names, exactly as kube-apiserver's x509
// authenticator decides (k8s.io/apiserver request/x509 CommonNameUserConversion): CN is
// the user, O the groups, the subject's UID attribute the UID, and the certificate's
// fingerprint the credential ID, in the user's extra. No CN names nobody.
func certUser(cert *x509.Certificate) *User {
	if cert.Subject.CommonName == "" {
		return nil
	}
	u := &User{Name: cert.Subject.CommonName, Groups: slices.Clone(cert.Subject.Organization)}
	for _, n := range cert.Subject.Names {
		if v, ok := n.Value.(string); ok && n.Type.Equal(k8sasn1.X509UID()) {
			u.UID = v
		}
	}
	fp := sha256.Sum256(cert.Raw)
	u.Extra = map[string][]string{credentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}
	return withAuthenticated(u)
}

// FromReview is the user a TokenReview authenticated, copied so that the user shares
// nothing with the review.
func FromReview(ui authnv1.UserInfo) *User {
	u := &User{Name: ui.Username, UID: ui.UID, Groups: slices.Clone(ui.Groups), Extra: map[string][]string{}}
	for k, v := range ui.Extra {
		u.Extra[k] = slices.Clone(v)
	}
	return withAuthenticated(u)
}

// withAuthenticated adds system:authenticated, as the apiserver does for every
// authenticated user, so groups read the same upstream as when asking directly.
func withAuthenticated(u *User) *User {
	if !slices.Contains(u.Groups, AuthenticatedGroup) {
		u.Groups = append(u.Groups, AuthenticatedGroup)
	}
	return u
}

// Headers name the request headers a user is sent upstream in. kube-apiserver reads its
// front-proxy headers (X-Remote-*) and its impersonation headers (Impersonate-*) alike:
// the user, a value per group, the UID if any, and a header per extra key, escaped
// (escapeExtraKey), after ExtraPrefix; which set a proxy uses, and what it strips first,
// is its own.
type Headers struct {
	User, Group, UID, ExtraPrefix string
}

// Set writes u into h as these headers.
func (hs Headers) Set(h http.Header, u *User) {
	h.Set(hs.User, u.Name)
	for _, g := range u.Groups {
		h.Add(hs.Group, g)
	}
	if u.UID != "" {
		h.Set(hs.UID, u.UID)
	}
	for k, vs := range u.Extra {
		for _, v := range vs {
			h.Add(hs.ExtraPrefix+escapeExtraKey(k), v)
		}
	}
}

// escapeExtraKey percent-encodes every byte of an extra key that a header name may not
// hold, and '%' itself, so that the apiserver's reading (lower-case, then path-unescape)
// gives the key back. url.PathEscape is not enough: it leaves ':', '=' and '@', and an
// HTTP client refuses to send a header named with them (client-go escapes the same set
// when it impersonates).
func escapeExtraKey(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '%' || !httpguts.IsTokenRune(rune(c)) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// StripIdentity removes every header a client could claim an identity upstream with: its
// Authorization, as a proxy sends its own credentials and never the client's, and every
// header that begins with one of prefixes (canonical: "X-Remote-"), whatever its case.
func StripIdentity(h http.Header, prefixes ...string) {
	for k := range h {
		ck := http.CanonicalHeaderKey(k)
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(ck, p) }) {
			h.Del(k)
		}
	}
	h.Del("Authorization")
}

// NamedHopByHop returns the first entry of the request's Connection header that names a
// header beginning with one of prefixes (canonical: "Impersonate-"), whatever its case, or
// "". Every proxy removes the headers Connection names from the request it forwards
// (RFC 9110 section 7.6.1), so a client naming the headers a proxy sets for identity asks
// to have them removed on the way out: a proxy that sets them before that removal then
// forwards the request with its own credentials and nobody's identity.
func NamedHopByHop(h http.Header, prefixes ...string) string {
	for _, v := range h.Values("Connection") {
		for _, t := range strings.Split(v, ",") {
			c := http.CanonicalHeaderKey(strings.TrimSpace(t))
			if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(c, p) }) {
				return strings.TrimSpace(t)
			}
		}
	}
	return ""
}

// ErrInvalidToken: no apiserver accepts the client's bearer token. The client gets the
// 401 the apiserver gives (a client-go credential plugin refreshes on it), never
// anonymous access.
var ErrInvalidToken = errors.New("invalid bearer token")

// Authenticator decides who a client is: a verified client certificate, else a bearer
// token, reviewed by Review and cached, else nobody.
type Authenticator struct {
	// Review asks an apiserver who a bearer token is: the user, or nil when the token is
	// not valid. Its errors are not cached: the next request asks again.
	Review func(ctx context.Context, token string) (*User, error)

	// clock is what the cache tells time by; nil is the real clock (tests set a fake one).
	clock clock.PassiveClock

	mu    sync.Mutex
	cache *reviewCache // made on first use, as an Authenticator is a struct literal
}

// tokenKey is what the cache is keyed by: a hash, as upstream's token cache does, so a
// heap dump of the proxy holds no usable credential.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Authenticate is who sent r. A client with no credentials is a nil user and a nil
// error: what that means (anonymous, or no identity at all) is the caller's decision. A
// rejected token is ErrInvalidToken, as the apiserver answers 401 and not anonymous.
func (a *Authenticator) Authenticate(ctx context.Context, r *http.Request) (*User, error) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		if u := certUser(r.TLS.VerifiedChains[0][0]); u != nil {
			return u, nil
		}
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "bearer") || token == "" {
		return nil, nil
	}
	key := tokenKey(token)
	if u, ok := a.reviews().get(key); ok {
		return reviewed(u)
	}
	u, err := a.Review(ctx, token)
	if err != nil {
		return nil, err
	}
	a.reviews().add(key, u)
	return reviewed(u)
}

// reviews is the Authenticator's cache, made on first use.
func (a *Authenticator) reviews() *reviewCache {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cache == nil {
		c := a.clock
		if c == nil {
			c = clock.RealClock{}
		}
		a.cache = newReviewCache(c)
	}
	return a.cache
}

// reviewed turns a review's answer (nil: rejected) into the Authenticate result.
func reviewed(u *User) (*User, error) {
	if u == nil {
		return nil, ErrInvalidToken
	}
	return u, nil
}

// KeepReviews takes over the reviews prev has cached, so that tokens already reviewed
// stay reviewed when a new Authenticator replaces prev (a gateway's configuration reload).
// The two caches share nothing afterwards.
func (a *Authenticator) KeepReviews(prev *Authenticator) {
	a.reviews().keepAll(prev.reviews())
}
