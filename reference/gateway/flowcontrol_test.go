package gateway

import (
	"testing"
	"time"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

func TestInflight(t *testing.T) {
	l := newLimiter(gwapi.FlowControlSchema{MaxRequestsInflight: &gwapi.MaxRequestsInflightFlowControlSchema{Max: 2}}, Defects{}).(*inflight)
	r1, _, ok1 := l.admit(false)
	_, _, ok2 := l.admit(false)
	_, retry, ok3 := l.admit(false)
	if !ok1 || !ok2 || ok3 || retry < time.Second {
		t.Fatalf("admit: %v %v %v (retry %v), want two in and the third refused with a Retry-After", ok1, ok2, ok3, retry)
	}
	// Watches do not take a slot: any number gets in while the slots are full...
	for range 100 {
		if _, _, ok := l.admit(true); !ok {
			t.Fatal("a long-running request was refused")
		}
	}
	if l.inFlight() != 2 {
		t.Fatalf("in flight %d, want 2: long-running requests must not hold slots", l.inFlight())
	}
	// ...and a finished request frees its slot, once however often release is called.
	r1()
	r1()
	if l.inFlight() != 1 {
		t.Fatalf("in flight %d after one release (called twice), want 1", l.inFlight())
	}
	if _, _, ok := l.admit(false); !ok {
		t.Fatal("a freed slot was not given out")
	}
}

func TestTokenBucket(t *testing.T) {
	l := newLimiter(gwapi.FlowControlSchema{TokenBucket: &gwapi.TokenBucketFlowControlSchema{QPS: 10, Burst: 5}}, Defects{}).(*tokenBucket)
	clock := time.Now()
	l.now = func() time.Time { return clock }
	admitted := 0
	var retry time.Duration
	for range 20 {
		if _, r, ok := l.admit(false); ok {
			admitted++
		} else {
			retry = r
		}
	}
	if admitted != 5 || retry <= 0 || retry > 100*time.Millisecond {
		t.Fatalf("a burst of 20: %d admitted (want the burst, 5), retry after %v (want at most 1/qps)", admitted, retry)
	}
	if retryAfterSeconds(retry) != 1 {
		t.Errorf("Retry-After %d, want 1 (whole seconds, at least 1)", retryAfterSeconds(retry))
	}
	// Over 0.5 s at 10 qps, tried every millisecond, exactly 5 more tokens come back.
	for range 500 {
		clock = clock.Add(time.Millisecond)
		if _, _, ok := l.admit(false); ok {
			admitted++
		}
	}
	if admitted != 10 {
		t.Errorf("after 0.5 s at 10 qps with burst 5: %d admitted, want 10", admitted)
	}
}

func TestExemptAdmitsAll(t *testing.T) {
	l := newLimiter(gwapi.FlowControlSchema{Exempt: &gwapi.ExemptFlowControlSchema{}}, Defects{})
	for range 1000 {
		if _, _, ok := l.admit(false); !ok {
			t.Fatal("exempt refused a request")
		}
	}
}

// TestFlowControlDefects: inflight-counts-watches gives watches slots, no-token-bucket
// admits a whole burst beyond the bucket, refuse-exempt refuses an Exempt schema's first
// request.
func TestFlowControlDefects(t *testing.T) {
	l := newLimiter(gwapi.FlowControlSchema{MaxRequestsInflight: &gwapi.MaxRequestsInflightFlowControlSchema{Max: 2}}, Defects{InflightCountsWatches: true})
	l.admit(true)
	l.admit(true)
	if _, _, ok := l.admit(false); ok {
		t.Error("with inflight-counts-watches, two watches must fill a limit of 2 (the defect)")
	}
	l = newLimiter(gwapi.FlowControlSchema{TokenBucket: &gwapi.TokenBucketFlowControlSchema{QPS: 1, Burst: 1}}, Defects{NoTokenBucket: true})
	for range 100 {
		if _, _, ok := l.admit(false); !ok {
			t.Fatal("with no-token-bucket, a token bucket must admit everything (the defect)")
		}
	}
	l = newLimiter(gwapi.FlowControlSchema{Exempt: &gwapi.ExemptFlowControlSchema{}}, Defects{RefuseExempt: true})
	if _, retry, ok := l.admit(false); ok || retry <= 0 {
		t.Error("with refuse-exempt, an Exempt schema must refuse its first request, with a Retry-After (the defect)")
	}
}
