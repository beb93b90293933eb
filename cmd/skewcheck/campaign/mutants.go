package campaign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/reference/gateway"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites"
)

// mutantFamily is one reference implementation and its deliberately wrong variants (the
// mutants), and the `skewcheck conformance` flags that run the reference as shipped (the
// family's baseline) or one variant. The variants come from the reference's own registry,
// the one its CLI flag selects from, so a flaw added there joins the matrix with no edit
// here; the profiles that must catch them name the family (profiles).
type mutantFamily struct {
	name string
	// cluster is the local cluster each run gets, from the older and newer version.
	cluster  func(older, newer string) []string
	variants func() []string
	// front puts the reference, or the variant named, in front of the cluster.
	front func(variant string) []string
	// ranWith is the variant a run's report says it ran with ("" as shipped).
	ranWith func(*report.Conformance) string
	// endpointPerServer: a run's report has an endpoint per server of its --versions, in
	// front of that server, so it shows each server's version (foreignReport holds it).
	endpointPerServer bool
}

// reportVariant is the variant of a reference's flaw or defects, as the report records it.
func reportVariant(c *report.Conformance) string { return c.Variant }

var mutantFamilies = []mutantFamily{
	{
		// Every profile of a peer proxy, the held faults and registration races included:
		// a proxy that forgets a crashed peer or lets a slow client hold up others is
		// caught only there. Faults are held 20 s, as in make test, not the CLI's 60 s:
		// past every timeout and refresh of the reference (internal/integration/timeouts.go
		// says why 20 s still catches a 404 after a refresh), at a third of the time.
		// The soak profile's tests wait minutes whatever the hold: only the baseline and
		// the mutants claiming them run them.
		name:              "peerproxy",
		ranWith:           reportVariant,
		endpointPerServer: true,
		cluster: func(older, newer string) []string {
			return append(serverArgs(clusters.HighlyAvailable(older, newer)), "--fault-hold", "20s")
		},
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
		name:    "gateway",
		ranWith: reportVariant,
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
		name: "ipmode",
		// The baseline is the reference dataplane; each mutant a flawed one by its name.
		ranWith: func(c *report.Conformance) string {
			if c.Dataplane == dataplane.Default {
				return ""
			}
			return c.Dataplane
		},
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
	controllersFamily,
}

// profiles are the profiles whose tests must catch the family's mutants, those that name
// it (framework.Profile.MutationFamily), in suites.Profiles' order.
func (f mutantFamily) profiles() []string { return suites.JudgedBy(f.name) }

// mutationFamilies are the families of the mutation matrix, in its order: a night runs
// each as a job of its own.
func mutationFamilies() []string {
	var out []string
	for _, f := range mutantFamilies {
		out = append(out, f.name)
	}
	return out
}

// foreignReport says why c is not the report of run r of a matrix of that seed and those
// versions, "" when it is: a report left by another run (another variant, seed, pair or
// focus) proves nothing of this one. Every version the report shows must be one of the
// run's own --versions; a family with an endpoint per server must show each of them, as
// many times as the run has servers of it.
func foreignReport(r *matrix.MutationRun, c *report.Conformance, seed int64, versions []string) string {
	perServer := false
	for _, f := range mutantFamilies {
		if f.name == r.Family && f.ranWith(c) != r.Mutant {
			return fmt.Sprintf("its report ran variant %q, not %q: it is another run's", f.ranWith(c), r.Mutant)
		}
		perServer = perServer || f.name == r.Family && f.endpointPerServer
	}
	if seed != 0 && c.Seed != seed {
		return fmt.Sprintf("its report ran with seed %d, not the matrix's %d: it is another run's", c.Seed, seed)
	}
	if want := focusOf(r.Args); c.Focus != want {
		return fmt.Sprintf("its report ran with focus %q, not the run's %q: it is another run's", c.Focus, want)
	}
	servers := versionsOf(r.Args)
	if len(servers) == 0 {
		servers = versions
	}
	var ran []string
	for _, e := range c.Endpoints {
		if e.Version != "" && !slices.Contains(servers, e.Version) {
			return fmt.Sprintf("its report's %s runs %s, not one of the run's %v: it is another run's", e.Name, e.Version, servers)
		}
		ran = append(ran, e.Version)
	}
	if perServer && !slices.Equal(slices.Sorted(slices.Values(ran)), slices.Sorted(slices.Values(servers))) {
		return fmt.Sprintf("its report's servers run %v, not the run's %v: it is another run's", ran, servers)
	}
	return ""
}

// versionsOf is the --versions of a run's flags, a version per server; nil without one.
func versionsOf(args []string) []string {
	if v := argOf(args, "--versions"); v != "" {
		return strings.Split(v, ",")
	}
	return nil
}
