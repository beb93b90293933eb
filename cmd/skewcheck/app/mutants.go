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

// peerproxyCluster is the older server with batch/v1 off, then the newer twice with
// autoscaling/v2 off, so requests are proxied both ways (as `make conformance` does): the
// GVRs only the newer serves (jobs among them, with a subresource) have two peers, where a
// proxy that sends a request to both (hedge-reads) shows, as `make conformance` checks
// MVP-014 on three servers; autoscaling/v2 has one, the older, whose failure must be 503.
func peerproxyCluster(older, newer string) []string {
	return []string{"--versions", older + "," + newer + "," + newer, "--server-flag", "1=--runtime-config=batch/v1=false",
		"--server-flag", "2=--runtime-config=autoscaling/v2=false", "--server-flag", "3=--runtime-config=autoscaling/v2=false"}
}

var mutantFamilies = []mutantFamily{
	{
		name:     "peerproxy",
		profiles: []string{mvp.Profile, discovery.Profile},
		cluster:  peerproxyCluster,
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
