package peerproxy

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// user is who a client is, as the apiservers would have decided.
type user struct {
	name, uid string
	groups    []string
	extra     map[string][]string
}

// authenticator decides who a client is the way kube-apiserver does for the two
// credentials the reference accepts: a client certificate signed by the cluster's client CA
// (CN is the user, O the groups; the TLS handshake already verified it) or a bearer token,
// which only the apiserver can judge, through a TokenReview. No credential is anonymous;
// a rejected token is errInvalidToken, as the apiserver answers 401 and not anonymous.
type authenticator struct {
	reviews kubernetes.Interface
	mu      sync.Mutex
	cache   map[string]cachedReview
}

// cachedReview is a TokenReview's answer; a nil user is a rejected token.
type cachedReview struct {
	user    *user
	expires time.Time
}

// errInvalidToken: the apiserver rejected the bearer token. The client gets the 401 the
// apiserver gives (a client-go credential plugin refreshes on it), never anonymous access.
var errInvalidToken = errors.New("invalid bearer token")

// tokenKey is what the cache is keyed by: a hash, as upstream's token cache does, so a
// heap dump of the proxy holds no usable credential.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// tokenCacheTTL bounds how long a revoked token keeps working through the proxy;
// maxCachedTokens bounds the memory a flood of distinct (or bogus) tokens can take.
const (
	tokenCacheTTL   = 10 * time.Second
	maxCachedTokens = 4096
)

// prune keeps the unexpired reviews; if they still fill the cache, it starts afresh.
func prune(cache map[string]cachedReview) map[string]cachedReview {
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

func (a *authenticator) authenticate(ctx context.Context, r *http.Request) (*user, error) {
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
	a.mu.Lock()
	if c, ok := a.cache[key]; ok && time.Now().Before(c.expires) {
		a.mu.Unlock()
		return reviewed(c.user)
	}
	a.mu.Unlock()
	review, err := a.reviews.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	var u *user
	if review.Status.Authenticated {
		ui := review.Status.User
		u = &user{name: ui.Username, uid: ui.UID, groups: ui.Groups, extra: map[string][]string{}}
		for k, v := range ui.Extra {
			u.extra[k] = v
		}
		u = withAuthenticated(u)
	}
	a.mu.Lock()
	if a.cache == nil || len(a.cache) >= maxCachedTokens {
		a.cache = prune(a.cache)
	}
	a.cache[key] = cachedReview{user: u, expires: time.Now().Add(tokenCacheTTL)}
	a.mu.Unlock()
	return reviewed(u)
}

// reviewed turns a review's answer (nil: rejected) into the authenticate result.
func reviewed(u *user) (*user, error) {
	if u == nil {
		return nil, errInvalidToken
	}
	return u, nil
}

// certUser is who a verified client certificate names, exactly as kube-apiserver's x509
// authenticator decides (k8s.io/apiserver request/x509 CommonNameUserConversion): no CN
// means the certificate names nobody; the UID comes from the subject's UID attribute; the
// certificate's fingerprint is the credential ID, in the user's extra.
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

// credentialIDKey is the extra key upstream uses for the credential a user authenticated with.
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// withAuthenticated adds system:authenticated, as the apiserver does for every
// authenticated user, so groups read the same at the peer as asking directly.
func withAuthenticated(u *user) *user {
	if !slices.Contains(u.groups, "system:authenticated") {
		u.groups = append(u.groups, "system:authenticated")
	}
	return u
}

// identityHeaders are the front-proxy headers kube-apiserver trusts only from a client
// certificate signed by its --requestheader-client-ca-file with an allowed name.
const (
	headerUser   = "X-Remote-User"
	headerGroup  = "X-Remote-Group"
	headerUID    = "X-Remote-Uid"
	headerExtra  = "X-Remote-Extra-"
	headerMarked = "X-Kubernetes-Peer-Proxied"
)

// stripIdentity removes every header that could claim an identity: a client never chooses
// who it is by sending headers, and its own credentials are not passed on.
func stripIdentity(h http.Header) {
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Remote-") {
			h.Del(k)
		}
	}
	h.Del("Authorization")
}

// setIdentity writes u as front-proxy headers.
func setIdentity(h http.Header, u *user) {
	h.Set(headerUser, u.name)
	for _, g := range u.groups {
		h.Add(headerGroup, g)
	}
	if u.uid != "" {
		h.Set(headerUID, u.uid)
	}
	for k, vs := range u.extra {
		for _, v := range vs {
			h.Add(headerExtra+url.PathEscape(k), v)
		}
	}
}

// statusBody is a metav1.Status as JSON, for the proxy's own answers.
func statusBody(code int, reason, message string) []byte {
	b, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: metav1.StatusReason(reason), Message: message})
	return b
}
