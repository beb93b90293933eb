package front

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// The reference peer proxy is registered, replaces the apiservers' own proxy, lists its
// flaws as variants and makes a front with the one asked for; an unknown name or variant
// is an error naming the known ones.
func TestReferences(t *testing.T) {
	if got := ReferenceNames(); !slices.Equal(got, []string{"peerproxy"}) {
		t.Errorf("references %v", got)
	}
	ref, err := LookupReference("peerproxy")
	if err != nil || !ref.ReplacesPeerProxy || !slices.Contains(ref.Variants(), string(peerproxy.FlawHedgeReads)) ||
		!slices.Equal(ref.Needs, []clusters.Capability{clusters.Fronts}) {
		t.Fatalf("peerproxy: %+v, %v", ref, err)
	}
	f, err := ref.Make(ReferenceChoice{PeerTimeout: time.Second, Variant: string(peerproxy.FlawHedgeReads)})
	if p, ok := f.(PeerProxy); err != nil || !ok || p.Flaw != peerproxy.FlawHedgeReads || p.PeerTimeout != time.Second {
		t.Errorf("made %#v, %v", f, err)
	}
	if _, err := ref.Make(ReferenceChoice{Variant: "bogus"}); err == nil || !strings.Contains(err.Error(), "hedge-reads") {
		t.Errorf("a bogus variant: %v", err)
	}
	if _, err := LookupReference("bogus"); err == nil || !strings.Contains(err.Error(), "are peerproxy") {
		t.Errorf("a bogus reference: %v", err)
	}
}
