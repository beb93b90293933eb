package gateway

import (
	"crypto/tls"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// TestSubsetDefects: as shipped a policy's servers are its upstreamSubset less the
// disabled ones; ignore-subset gives it every enabled server, disabled-chosen keeps the
// disabled one.
func TestSubsetDefects(t *testing.T) {
	d := &document{source: "clusters.yaml"}
	if err := yaml.UnmarshalStrict([]byte(validDoc), &d.cluster); err != nil {
		t.Fatal(err)
	}
	yes := true
	d.cluster.Spec.Servers = append(d.cluster.Spec.Servers, gwapi.UpstreamClusterServer{Endpoint: "https://127.0.0.3:6443", Disabled: &yes})
	d.cluster.Spec.DispatchPolicies[0].UpstreamSubset = []string{"https://127.0.0.2:6443", "https://127.0.0.3:6443"}
	subset := func(defects Defects) []string {
		c, ps := compile(d, servingDefaults{cert: &tls.Certificate{}}, nil, newPool(time.Second, timings{}, nil, nil).begin(), defects)
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		var out []string
		for _, u := range c.policies[0].subset {
			out = append(out, u.endpoint)
		}
		return out
	}
	for _, tc := range []struct {
		defects Defects
		want    []string
	}{
		{Defects{}, []string{"https://127.0.0.2:6443"}},
		{Defects{IgnoreSubset: true}, []string{"https://127.0.0.1:6443", "https://127.0.0.2:6443"}},
		{Defects{DisabledChosen: true}, []string{"https://127.0.0.2:6443", "https://127.0.0.3:6443"}},
	} {
		if got := subset(tc.defects); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: the policy's servers are %v, want %v", tc.defects, got, tc.want)
		}
	}
}

// TestAnonymousIsPerCluster: spec.anonymous is read (strictly: a field this gateway adds)
// into the cluster it is set on, and off where it is left out.
func TestAnonymousIsPerCluster(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{{validDoc, false}, {validDoc + "  anonymous: true\n", true}} {
		d := &document{source: "clusters.yaml"}
		if err := yaml.UnmarshalStrict([]byte(tc.doc), &d.cluster); err != nil {
			t.Fatal(err)
		}
		c, ps := compile(d, servingDefaults{cert: &tls.Certificate{}}, nil, newPool(time.Second, timings{}, nil, nil).begin(), Defects{})
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		if c.anonymous != tc.want {
			t.Errorf("spec.anonymous %v: the compiled cluster lets anonymous in: %v", tc.want, c.anonymous)
		}
	}
}
