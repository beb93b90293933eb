package gateway

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Defects are deliberate mistakes a gateway could make, switched on to show that the
// gateway profile catches them (each makes named tests fail). Never for real use.
type Defects struct {
	// NegationOred: a list of negated entries matches what any one of them allows, so
	// ["-pods", "-deployments"] matches both (KubeGateway's code does this).
	NegationOred bool
	// NoImpersonation: requests reach the upstreams as the gateway itself, with the
	// gateway's rights instead of the client's.
	NoImpersonation bool
	// IgnoreDiscovery: any server of the policy takes any request, so a GVR only some of
	// them serve gets 404 from the others.
	IgnoreDiscovery bool
}

var defectNames = map[string]func(*Defects){
	"negation-or":      func(d *Defects) { d.NegationOred = true },
	"no-impersonation": func(d *Defects) { d.NoImpersonation = true },
	"ignore-discovery": func(d *Defects) { d.IgnoreDiscovery = true },
}

// DefectNames lists what ParseDefects accepts.
func DefectNames() []string {
	var out []string
	for n := range defectNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseDefects reads defect names (negation-or, no-impersonation, ignore-discovery).
func ParseDefects(names []string) (Defects, error) {
	var d Defects
	for _, n := range names {
		set, ok := defectNames[strings.TrimSpace(n)]
		if !ok {
			return d, fmt.Errorf("unknown defect %q: the defects are %s", n, strings.Join(DefectNames(), ", "))
		}
		set(&d)
	}
	return d, nil
}

// Any reports whether any defect is on.
func (d Defects) Any() bool {
	return slices.Contains([]bool{d.NegationOred, d.NoImpersonation, d.IgnoreDiscovery}, true)
}
