package gateway

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func testUpstream(endpoint string, healthy bool, serves ...string) *upstream {
	u := newUpstream("c", &connector{key: "c"}, endpoint, nil)
	u.healthy.Store(healthy)
	if serves != nil {
		set := discovery.Set{}
		for _, k := range serves {
			g, v, r, _ := discovery.ParseKey(k)
			set[k] = discovery.GVR{Group: g, Version: v, Resource: r}
		}
		u.served.Store(&set)
	}
	return u
}

// TestRoundRobinFair: over N requests each healthy server gets N/servers, exactly.
func TestRoundRobinFair(t *testing.T) {
	a, b, c := testUpstream("https://a:1", true), testUpstream("https://b:1", true), testUpstream("https://c:1", false)
	p := &policy{subset: []*upstream{a, b, c}}
	counts := map[*upstream]int{}
	for range 300 {
		out, _ := p.candidates(req("GET", "/api/v1/namespaces/d/configmaps"))
		counts[out[0]]++
		if len(out) != 2 {
			t.Fatalf("candidates %d, want the 2 healthy servers (the rest are for retries)", len(out))
		}
	}
	if counts[a] != 150 || counts[b] != 150 || counts[c] != 0 {
		t.Errorf("picks a %d b %d unhealthy c %d, want 150 150 0", counts[a], counts[b], counts[c])
	}
}

// TestDiscoveryRouting: a GVR only one server serves goes only there; one nobody serves
// goes anywhere (its 404 is then true); with the defect it goes anywhere too.
func TestDiscoveryRouting(t *testing.T) {
	old := testUpstream("https://old:1", true, "core/v1/configmaps", "admissionregistration.k8s.io/v1/validatingadmissionpolicies")
	neu := testUpstream("https://new:1", true, "core/v1/configmaps", "admissionregistration.k8s.io/v1/mutatingadmissionpolicies")
	p := &policy{subset: []*upstream{old, neu}}
	for range 10 {
		out, _ := p.candidates(req("GET", "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"))
		if len(out) != 1 || out[0] != neu {
			t.Fatalf("a GVR only new serves went to %v", out)
		}
		out, _ = p.candidates(req("GET", "/apis/admissionregistration.k8s.io/v1"))
		if len(out) != 2 {
			t.Fatalf("group-version discovery both serve: %d candidates", len(out))
		}
		if out, _ = p.candidates(req("GET", "/apis/example.com/v1/widgets")); len(out) != 2 {
			t.Fatalf("a GVR nobody serves: %d candidates, want both", len(out))
		}
	}
	p.ignoreDiscovery = true
	seen := map[*upstream]bool{}
	for range 4 {
		out, _ := p.candidates(req("GET", "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"))
		seen[out[0]] = true
	}
	if !seen[old] {
		t.Error("with the ignore-discovery defect the old server must be picked too")
	}
}

func TestNoHealthyServerSaysWhy(t *testing.T) {
	a := testUpstream("https://a:1", false)
	a.setHealthy(false, errString("connection refused"))
	out, why := (&policy{subset: []*upstream{a}}).candidates(req("GET", "/api/v1/pods"))
	if len(out) != 0 || why != "no server of its upstreamSubset is healthy (https://a:1: connection refused)" {
		t.Errorf("candidates %v, why %q", out, why)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestBalanceDefects: first-server-only sends every request to the first server;
// keep-killed-upstream picks a dead server in turn, alone, with no other to retry on.
func TestBalanceDefects(t *testing.T) {
	a, b := testUpstream("https://a:1", true), testUpstream("https://b:1", true)
	p := &policy{subset: []*upstream{a, b}, firstServerOnly: true}
	for range 10 {
		if out, _ := p.candidates(req("GET", "/api/v1/namespaces/d/configmaps")); out[0] != a || len(out) != 2 {
			t.Fatalf("with first-server-only: candidates %v, want a first, then b to retry on", out)
		}
	}
	dead := testUpstream("https://dead:1", false)
	p = &policy{subset: []*upstream{a, dead}, ignoreHealth: true}
	picked := map[*upstream]int{}
	for range 10 {
		out, _ := p.candidates(req("GET", "/api/v1/namespaces/d/configmaps"))
		if len(out) != 1 {
			t.Fatalf("with keep-killed-upstream: %d candidates, want the pick alone", len(out))
		}
		picked[out[0]]++
	}
	if picked[dead] != 5 {
		t.Errorf("with keep-killed-upstream the dead server got %d of 10 requests, want 5 (the defect)", picked[dead])
	}
}
