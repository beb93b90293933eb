package framework

import (
	"strings"
	"testing"
)

func TestProfileNeeds(t *testing.T) {
	gw := []Feature{FeatureGateway}
	p := Profile{Name: "p", Tests: []Test{{ID: "A", Profile: "p", Features: gw}, {ID: "B", Profile: "p", Features: append(gw, FeatureDataplane)}}}
	if !p.NeedsGateway() || !p.NeedsDataplane() {
		t.Errorf("every test needs a gateway and one a dataplane: NeedsGateway %v, NeedsDataplane %v", p.NeedsGateway(), p.NeedsDataplane())
	}
	p.Tests = append(p.Tests, Test{ID: "C", Profile: "p"})
	if p.NeedsGateway() {
		t.Error("a test needs no gateway, yet the profile is said to test a gateway")
	}
	if (Profile{Name: "empty"}).NeedsGateway() {
		t.Error("a profile of no test is said to test a gateway")
	}
}

func TestProfileValidate(t *testing.T) {
	ok := Profile{Name: "p", Tests: []Test{{ID: "A", Profile: "p"}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a valid profile: %v", err)
	}
	for want, p := range map[string]Profile{
		"no name":          {Tests: ok.Tests},
		"has no test":      {Name: "p"},
		"of profile \"q\"": {Name: "p", Tests: []Test{{ID: "A", Profile: "q"}}},
		"is a default":     {Name: "p", Tests: ok.Tests, Soak: true, Default: true},
	} {
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: got %v, want an error saying %q", p, err, want)
		}
	}
}
