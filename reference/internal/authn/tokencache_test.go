package authn

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// countingReviewer accepts every token that begins with "valid-" and counts the reviews
// of each token.
func countingReviewer() (func(context.Context, string) (*User, error), map[string]*atomic.Int32) {
	calls := map[string]*atomic.Int32{}
	return func(_ context.Context, token string) (*User, error) {
		if calls[token] == nil {
			calls[token] = &atomic.Int32{}
		}
		calls[token].Add(1)
		if strings.HasPrefix(token, "valid-") {
			return &User{Name: token}, nil
		}
		return nil, nil
	}, calls
}

// A flood of distinct bogus tokens, twice the bound, must not push out a legitimate
// client's review: before the fix a full cache was started afresh, so every client paid a
// TokenReview per request for as long as the flood went on.
func TestTokenCacheFloodOfBadTokensKeepsGoodOnes(t *testing.T) {
	review, calls := countingReviewer()
	a := &Authenticator{Review: review}
	ctx := context.Background()
	if _, err := a.Authenticate(ctx, bearer("valid-alice")); err != nil {
		t.Fatal(err)
	}
	for i := range 2 * maxCachedTokens {
		a.Authenticate(ctx, bearer(fmt.Sprint("junk-", i)))
	}
	if u, err := a.Authenticate(ctx, bearer("valid-alice")); err != nil || u.Name != "valid-alice" {
		t.Fatalf("Authenticate after the flood = %+v, %v; want valid-alice", u, err)
	}
	if n := calls["valid-alice"].Load(); n != 1 {
		t.Errorf("valid-alice reviewed %d times, want once: the flood of bad tokens evicted her", n)
	}
}

// Past the bound, the cache evicts the review used least recently: a token in use stays
// cached while distinct tokens, valid ones too, fill the cache past its bound.
func TestTokenCacheEvictsLeastRecentlyUsed(t *testing.T) {
	review, calls := countingReviewer()
	a := &Authenticator{Review: review}
	ctx := context.Background()
	for i := range 2 * maxCachedTokens {
		a.Authenticate(ctx, bearer(fmt.Sprint("valid-other-", i)))
		if _, err := a.Authenticate(ctx, bearer("valid-alice")); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls["valid-alice"].Load(); n != 1 {
		t.Errorf("valid-alice, used on every request, reviewed %d times, want once", n)
	}
	if n := len(cachedKeys(a)); n > maxCachedTokens {
		t.Errorf("%d cached reviews, want at most the bound %d", n, maxCachedTokens)
	}
	// The oldest of the others was evicted, not kept at the expense of newer ones.
	a.Authenticate(ctx, bearer("valid-other-0"))
	if n := calls["valid-other-0"].Load(); n != 2 {
		t.Errorf("the least recently used token reviewed %d times, want 2 (evicted, then reviewed again)", n)
	}
}
