package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"
)

// user is who a client is, decided as kube-apiserver decides it.
type user struct {
	name, uid string
	groups    []string
	extra     map[string][]string
}

const (
	anonymousUser      = "system:anonymous"
	unauthenticated    = "system:unauthenticated"
	authenticatedGroup = "system:authenticated"
	// credentialIDKey is the extra key kube-apiserver records the credential under.
	credentialIDKey = "authentication.kubernetes.io/credential-id"
)

// anonymous is who a client without credentials is: the upstream's authorizer then
// decides what anonymous may do (/readyz, /version), exactly as if it asked directly.
func anonymous() *user { return &user{name: anonymousUser, groups: []string{unauthenticated}} }

// certUser is who a verified client certificate names, as kube-apiserver's x509
// authenticator decides (CommonNameUserConversion): CN is the user, O the groups, the
// subject's UID attribute the UID, and the certificate's fingerprint the credential ID.
// No CN names nobody.
func certUser(cert *x509.Certificate) *user {
	if cert.Subject.CommonName == "" {
		return nil
	}
	u := &user{name: cert.Subject.CommonName, groups: slices.Clone(cert.Subject.Organization)}
	for _, n := range cert.Subject.Names {
		if v, ok := n.Value.(string); ok && n.Type.Equal(k8sasn1.X509UID()) {
			u.uid = v
		}
	}
	fp := sha256.Sum256(cert.Raw)
	u.extra = map[string][]string{credentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}
	return withAuthenticated(u)
}

func withAuthenticated(u *user) *user {
	if !slices.Contains(u.groups, authenticatedGroup) {
		u.groups = append(u.groups, authenticatedGroup)
	}
	return u
}

func userFromReview(ui authnv1.UserInfo) *user {
	u := &user{name: ui.Username, uid: ui.UID, groups: slices.Clone(ui.Groups), extra: map[string][]string{}}
	for k, v := range ui.Extra {
		u.extra[k] = slices.Clone(v)
	}
	return withAuthenticated(u)
}

// authenticator decides who a client is: a client certificate the TLS handshake verified
// against the cluster's client CA, else a bearer token, which only an apiserver can judge
// (a TokenReview, sent by the gateway as itself), else anonymous.
type authenticator struct {
	// review asks an upstream about a token: the user, or nil when it is not valid.
	review func(ctx context.Context, token string) (*user, error)
	mu     sync.Mutex
	cache  map[string]cachedReview // by the token's SHA-256: tokens are not kept
}

type cachedReview struct {
	user    *user
	expires time.Time
}

// tokenCacheTTL bounds how long a revoked token keeps working through the gateway;
// maxCachedTokens bounds the memory a flood of distinct (or bogus) tokens can take.
const (
	tokenCacheTTL   = 10 * time.Second
	maxCachedTokens = 4096
)

// errInvalidToken: the client sent a bearer token no apiserver accepts; the answer is 401.
type errInvalidToken struct{}

func (errInvalidToken) Error() string { return "Unauthorized" }

func (a *authenticator) authenticate(ctx context.Context, r *http.Request) (*user, error) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		if u := certUser(r.TLS.VerifiedChains[0][0]); u != nil {
			return u, nil
		}
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "bearer") || token == "" {
		return anonymous(), nil
	}
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:])
	a.mu.Lock()
	c, ok := a.cache[key]
	a.mu.Unlock()
	if !ok || time.Now().After(c.expires) {
		u, err := a.review(ctx, token)
		if err != nil {
			return nil, err
		}
		c = cachedReview{user: u, expires: time.Now().Add(tokenCacheTTL)}
		a.mu.Lock()
		if a.cache == nil || len(a.cache) >= maxCachedTokens {
			a.cache = pruneReviews(a.cache)
		}
		a.cache[key] = c
		a.mu.Unlock()
	}
	if c.user == nil {
		return nil, errInvalidToken{}
	}
	return c.user, nil
}

// pruneReviews keeps the unexpired reviews; if they still fill the cache, it starts afresh.
func pruneReviews(cache map[string]cachedReview) map[string]cachedReview {
	out := map[string]cachedReview{}
	now := time.Now()
	for k, v := range cache {
		if now.Before(v.expires) {
			out[k] = v
		}
	}
	if len(out) >= maxCachedTokens {
		return map[string]cachedReview{}
	}
	return out
}

// Impersonation headers, as kube-apiserver reads them.
const (
	headerImpersonateUser   = "Impersonate-User"
	headerImpersonateGroup  = "Impersonate-Group"
	headerImpersonateUID    = "Impersonate-Uid"
	headerImpersonateExtra  = "Impersonate-Extra-"
	headerImpersonatePrefix = "Impersonate-"
)

// stripClientIdentity removes every header that could claim an identity upstream: the
// client's own credentials (the gateway presents its own), its impersonation headers
// (already authorized and turned into the user by then, see impersonation.go), and
// front-proxy X-Remote-* headers, which an apiserver would trust only from its front proxy
// but which must never pass through a gateway that might be one.
func stripClientIdentity(h http.Header) {
	for k := range h {
		ck := http.CanonicalHeaderKey(k)
		if strings.HasPrefix(ck, headerImpersonatePrefix) || strings.HasPrefix(ck, "X-Remote-") {
			h.Del(k)
		}
	}
	h.Del("Authorization")
}

// setImpersonation asks the upstream to act as u: it authorizes the gateway to
// impersonate, then authorizes the request as u, so u's own RBAC decides.
func setImpersonation(h http.Header, u *user) {
	h.Set(headerImpersonateUser, u.name)
	for _, g := range u.groups {
		h.Add(headerImpersonateGroup, g)
	}
	if u.uid != "" {
		h.Set(headerImpersonateUID, u.uid)
	}
	for k, vs := range u.extra {
		for _, v := range vs {
			h.Add(headerImpersonateExtra+url.PathEscape(k), v)
		}
	}
}
