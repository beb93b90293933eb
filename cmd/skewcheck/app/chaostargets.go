//go:build !incluster

package app

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/front"
)

// upstreamTarget is the column of the chaos table with no front: the apiservers' own
// mixed version proxy.
const upstreamTarget = "upstream"

// chaosTargetAliases are the chaos table's names for reference fronts (front.References)
// that predate the registry; any registered reference is a target by its own name too.
var chaosTargetAliases = map[string]string{"reference": "peerproxy"}

// chaosTarget is one column of the chaos table: upstream's own proxy (front nil), or a
// reference front, with the variant asked for, in front of apiservers whose own proxy it
// replaces when it says so.
type chaosTarget struct {
	name              string
	front             front.Front
	variant           string
	replacesPeerProxy bool
}

// lookupChaosTarget resolves a --targets name through the reference registry.
func lookupChaosTarget(name string, c front.ReferenceChoice) (chaosTarget, error) {
	if name == upstreamTarget {
		return chaosTarget{name: name}, nil
	}
	ref, err := front.LookupReference(cmp.Or(chaosTargetAliases[name], name))
	if err != nil {
		return chaosTarget{}, fmt.Errorf("unknown target %q: the targets are %s", name, chaosTargetHelp())
	}
	f, err := ref.Make(c)
	if err != nil {
		return chaosTarget{}, fmt.Errorf("--reference-flaw: %w", err)
	}
	return chaosTarget{name: name, front: f, variant: c.Variant, replacesPeerProxy: ref.ReplacesPeerProxy}, nil
}

// chaosTargetHelp lists the targets.
func chaosTargetHelp() string {
	names := []string{upstreamTarget + " (the apiservers' own proxy)"}
	for alias, ref := range chaosTargetAliases {
		names = append(names, alias+" (the reference "+ref+")")
	}
	for _, r := range front.ReferenceNames() {
		names = append(names, r)
	}
	return strings.Join(names, ", ")
}
