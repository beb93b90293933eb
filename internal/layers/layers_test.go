package layers

import (
	"strings"
	"testing"
)

// TestImportsPointOneWay is the rule itself, on the module as it is.
func TestImportsPointOneWay(t *testing.T) {
	pkgs, err := modulePackages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; the check would pass on nothing", len(pkgs))
	}
	for _, p := range check(pkgs, knownWrongWay) {
		t.Error(p)
	}
}

// TestCheck shows the check catches what it is for, on made-up modules.
func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		pkgs  []pkg
		known map[edge]string
		want  []string // a substring of each problem, in order; none: no problem
	}{
		{name: "the layers as drawn", pkgs: []pkg{
			{rel: "cmd/skewcheck", name: "main", imports: []string{"suites", "scenarios/faults", "clusters/local", "reference/peerproxy", "framework"}},
			{rel: "internal/catalogue", name: "main", imports: []string{"suites"}},
			{rel: "suites", name: "suites", imports: []string{"suites/chaos", "framework"}},
			{rel: "suites/chaos", name: "chaos", imports: []string{"scenarios/faults", "clusters/local", "framework", "internal/interrupt"}},
			{rel: "scenarios/faults", name: "faults", imports: []string{"clusters/local", "framework"}},
			{rel: "clusters/local", name: "local", imports: []string{"reference/peerproxy", "framework", "internal/interrupt"}},
			{rel: "reference/peerproxy", name: "peerproxy", imports: []string{"reference/internal/authn"}},
			{rel: "reference/internal/authn", name: "authn"},
			{rel: "framework", name: "framework", imports: []string{"internal/interrupt"}},
			{rel: "internal/interrupt", name: "interrupt"},
		}},
		{name: "clusters importing a scenario", pkgs: []pkg{
			{rel: "clusters/kind", name: "kind", imports: []string{"scenarios/faults"}}, {rel: "scenarios/faults", name: "faults"},
		}, want: []string{"clusters/kind imports scenarios/faults, the wrong way: a package of clusters may import only reference, framework, internal"}},
		{name: "the stack over the providers and fronts", pkgs: []pkg{
			{rel: "clusters/stack", name: "stack", imports: []string{"clusters/providers", "clusters/front", "clusters/dataplane", "framework/proxystate"}},
			{rel: "clusters/providers", name: "providers"}, {rel: "clusters/front", name: "front"}, {rel: "clusters/dataplane", name: "dataplane"},
			{rel: "framework/proxystate", name: "proxystate"},
		}},
		{name: "the stack importing a command", pkgs: []pkg{
			{rel: "clusters/stack", name: "stack", imports: []string{"cmd/skewcheck/app"}}, {rel: "cmd/skewcheck/app", name: "app"},
		}, want: []string{"clusters/stack imports cmd/skewcheck/app, the wrong way: a package of clusters may import only reference, framework, internal"}},
		{name: "a suite importing a reference", pkgs: []pkg{
			{rel: "suites/gateway", name: "gateway", imports: []string{"reference/gateway"}}, {rel: "reference/gateway", name: "gateway"},
		}, want: []string{"suites/gateway imports reference/gateway, the wrong way"}},
		{name: "a reference importing the framework", pkgs: []pkg{
			{rel: "reference/gateway", name: "gateway", imports: []string{"framework/discovery"}}, {rel: "framework/discovery", name: "discovery"},
		}, want: []string{"reference/gateway imports framework/discovery, the wrong way: a package of reference may import only framework/apis besides"}},
		{name: "a scenario importing a suite", pkgs: []pkg{
			{rel: "scenarios/chaos", name: "chaos", imports: []string{"suites/chaos"}}, {rel: "suites/chaos", name: "chaos"},
		}, want: []string{"scenarios/chaos imports suites/chaos, the wrong way"}},
		{name: "an internal helper importing the framework", pkgs: []pkg{
			{rel: "internal/interrupt", name: "interrupt", imports: []string{"framework"}}, {rel: "framework", name: "framework"},
		}, want: []string{"internal/interrupt imports framework, the wrong way"}},
		{name: "a known wrong-way import is let through", pkgs: []pkg{
			{rel: "suites/gateway", name: "gateway", imports: []string{"reference/gateway"}}, {rel: "reference/gateway", name: "gateway"},
		}, known: map[edge]string{{"suites/gateway", "reference/gateway"}: "step 3"}},
		{name: "a known wrong-way import that is gone", pkgs: []pkg{
			{rel: "suites/gateway", name: "gateway"}, {rel: "reference/gateway", name: "gateway"},
		}, known: map[edge]string{{"suites/gateway", "reference/gateway"}: "step 3"},
			want: []string{"suites/gateway no longer imports reference/gateway (step 3): delete its line"}},
		{name: "a known import the rule allows", pkgs: []pkg{
			{rel: "clusters/front", name: "front", imports: []string{"reference/peerproxy"}}, {rel: "reference/peerproxy", name: "peerproxy"},
		}, known: map[edge]string{{"clusters/front", "reference/peerproxy"}: "step 2"},
			want: []string{"clusters/front imports reference/peerproxy, which the rule allows"}},
		{name: "neutral API types, imported by a reference and a suite", pkgs: []pkg{
			{rel: "reference/gateway", name: "gateway", imports: []string{"framework/apis/gateway/v1alpha1"}},
			{rel: "suites/gateway", name: "gateway", imports: []string{"framework/apis/gateway/v1alpha1", "framework"}},
			{rel: "framework/apis/gateway/v1alpha1", name: "v1alpha1"}, {rel: "framework", name: "framework"},
		}},
		{name: "a reference importing the framework beside its API types", pkgs: []pkg{
			{rel: "reference/gateway", name: "gateway", imports: []string{"framework/apis/gateway/v1alpha1", "framework"}},
			{rel: "framework/apis/gateway/v1alpha1", name: "v1alpha1"}, {rel: "framework", name: "framework"},
		}, want: []string{"reference/gateway imports framework, the wrong way: a package of reference may import only framework/apis"}},
		{name: "neutral API types importing the framework", pkgs: []pkg{
			{rel: "framework/apis/gateway/v1alpha1", name: "v1alpha1", imports: []string{"framework"}}, {rel: "framework", name: "framework"},
		}, want: []string{"framework/apis/gateway/v1alpha1 imports framework, the wrong way: a package of framework/apis may import only nothing else of the module"}},
		{name: "a directory in no layer", pkgs: []pkg{{rel: "apis/gateway", name: "gateway"}},
			want: []string{"package apis/gateway is in no layer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(tt.pkgs, tt.known)
			if len(got) != len(tt.want) {
				t.Fatalf("problems:\n%s\nwant %d: %q", strings.Join(got, "\n"), len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}
