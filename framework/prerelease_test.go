package framework

import (
	"testing"

	"github.com/onsi/ginkgo/v2"

	"github.com/skewcheck/skewcheck/framework/report"
)

// The report marks each endpoint that ran a Kubernetes prerelease, from the version it
// answered /version with.
func TestReportMarksPrereleaseEndpoints(t *testing.T) {
	env := &Env{Target: &Target{Kind: "local", Upstream: true, Endpoints: []*Endpoint{
		fullEndpoint("apiserver-1", "v1.37.2", nil), fullEndpoint("apiserver-2", "v1.38.0-beta.0", nil),
	}}}
	c := buildReport(ginkgo.Report{}, env, nil, RunOptions{})
	if len(c.Endpoints) != 2 || c.Endpoints[0].Prerelease || !c.Endpoints[1].Prerelease {
		t.Fatalf("endpoints %+v: want only apiserver-2 marked a prerelease", c.Endpoints)
	}
	if report.PrereleaseNote(c) == "" {
		t.Error("no console note for a run on a prerelease")
	}
}
