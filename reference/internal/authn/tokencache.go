package authn

import (
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/utils/clock"
)

// tokenCacheTTL bounds how long a revoked token keeps working through a proxy;
// maxCachedTokens bounds the memory a flood of distinct (or bogus) tokens can take, per
// kind of answer (accepted, rejected). kube-apiserver's own token cache has no count
// bound at all, only a TTL (k8s.io/apiserver v0.36.3
// pkg/authentication/token/cache/cached_token_authenticator.go:118, 32 stripes of an
// Expiring cache): a proxy in front of it needs one, as every entry is a client's to make.
const (
	tokenCacheTTL   = 10 * time.Second
	maxCachedTokens = 4096
)

// reviewCache holds TokenReview answers, by tokenKey, for tokenCacheTTL. When a part is
// full it evicts the answer used least recently, never everything: a client sending many
// distinct tokens then pushes out the entries it made, not every other client's, and does
// not force a TokenReview per request on everyone. Rejected tokens are held apart from
// accepted ones, as anyone can make up a bad token but not a good one: a flood of bad
// tokens evicts only bad tokens.
type reviewCache struct {
	clock              clock.PassiveClock
	accepted, rejected *cache.LRUExpireCache
}

// cachedReview is a review's answer (a nil user is a rejected token) and when it expires,
// kept beside the answer so that keepAll can carry the remaining TTL over.
type cachedReview struct {
	user    *User
	expires time.Time
}

func newReviewCache(c clock.PassiveClock) *reviewCache {
	return &reviewCache{
		clock:    c,
		accepted: cache.NewLRUExpireCacheWithClock(maxCachedTokens, c),
		rejected: cache.NewLRUExpireCacheWithClock(maxCachedTokens, c),
	}
}

// get is the cached answer for key: the user (nil: rejected) and whether there was one.
func (rc *reviewCache) get(key string) (*User, bool) {
	for _, part := range []*cache.LRUExpireCache{rc.accepted, rc.rejected} {
		if v, ok := part.Get(key); ok {
			return v.(cachedReview).user, true
		}
	}
	return nil, false
}

// add caches u (nil: rejected) as the answer for key for tokenCacheTTL.
func (rc *reviewCache) add(key string, u *User) {
	rc.put(key, cachedReview{user: u, expires: rc.clock.Now().Add(tokenCacheTTL)})
}

func (rc *reviewCache) put(key string, c cachedReview) {
	part := rc.accepted
	if c.user == nil {
		part = rc.rejected
	}
	part.Add(key, c, c.expires.Sub(rc.clock.Now()))
}

// keepAll copies into rc every answer prev still holds, each with the TTL it has left,
// least recently used first, so that the order of eviction carries over too.
func (rc *reviewCache) keepAll(prev *reviewCache) {
	for _, part := range []*cache.LRUExpireCache{prev.accepted, prev.rejected} {
		for _, k := range part.Keys() {
			if v, ok := part.Get(k); ok {
				rc.put(k.(string), v.(cachedReview))
			}
		}
	}
}
