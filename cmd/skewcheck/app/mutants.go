//go:build !incluster

package app

import (
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/reference/gateway"

	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites/discovery"
	gatewaysuite "github.com/skewcheck/skewcheck/suites/gateway"
	ipmodesuite "github.com/skewcheck/skewcheck/suites/ipmode"
	"github.com/skewcheck/skewcheck/suites/mvp"
)

// mutantFamily is one reference implementation and its deliberately wrong variants (the
// mutants): the profiles that must catch them, and the `skewcheck conformance` flags
// that run the reference as shipped (the family's baseline) or one variant. The variants
// come from the reference's own registry, the one its CLI flag selects from, so a flaw
// added there joins the matrix with no edit here.
type mutantFamily struct {
	name     string
	profiles []string
	// cluster is the local cluster each run gets, from the older and newer version.
	cluster  func(older, newer string) []string
	variants func() []string
	// front puts the reference, or the variant named, in front of the cluster.
	front func(variant string) []string
}

var mutantFamilies = []mutantFamily{
	{
		name:     "peerproxy",
		profiles: []string{mvp.Profile, discovery.Profile},
		cluster:  highlyAvailable,
		variants: func() []string {
			var out []string
			for _, f := range peerproxy.Flaws() {
				out = append(out, string(f))
			}
			return out
		},
		front: func(v string) []string {
			if v == "" {
				return []string{"--reference", "peerproxy"}
			}
			return []string{"--reference", "peerproxy", "--reference-flaw", v}
		},
	},
	{
		name:     "gateway",
		profiles: []string{gatewaysuite.Profile},
		cluster: func(older, newer string) []string {
			return []string{"--versions", older + "," + newer}
		},
		variants: gateway.DefectNames,
		front: func(v string) []string {
			if v == "" {
				return []string{"--gateway", "reference"}
			}
			return []string{"--gateway", "reference", "--gateway-defect", v}
		},
	},
	{
		name:     "ipmode",
		profiles: []string{ipmodesuite.Profile},
		cluster: func(older, newer string) []string {
			return []string{"--versions", older + "," + newer}
		},
		variants: func() []string {
			var out []string
			for _, s := range dataplane.ReferenceFlawed() {
				out = append(out, s.Name())
			}
			return out
		},
		front: func(v string) []string {
			if v == "" {
				return []string{"--dataplane", "reference"}
			}
			return []string{"--dataplane", v}
		},
	},
}
