//go:build !incluster

package app

import (
	"strings"
	"testing"
)

// TestDefaultDataplane: --profiles ipmode with no --dataplane tests the reference
// dataplane on a cluster skewcheck makes; never on an existing cluster or over a choice.
func TestDefaultDataplane(t *testing.T) {
	f := conformanceFlags{}
	f.run.Profiles = []string{"ipmode"}
	line := f.applyDefaultDataplane()
	if f.dataplane.chosen() != "reference" || f.dataplane.name != "" || line == "" || strings.Contains(line, "\n") || !strings.Contains(line, "reference") {
		t.Errorf("dataplane %q (--dataplane %q), line %q; want the reference, said in one line, the flag left empty", f.dataplane.chosen(), f.dataplane.name, line)
	}
	cases := map[string]func(*conformanceFlags){
		"not asked for ipmode": func(f *conformanceFlags) { f.run.Profiles = []string{"mvp"} },
		"a dataplane named":    func(f *conformanceFlags) { f.dataplane.name = "kube-proxy-nftables" },
		"a dataplane image":    func(f *conformanceFlags) { f.dataplane.image = "acme:1" },
		"an existing cluster":  func(f *conformanceFlags) { f.kubeconfig = "/k" },
		"containers provider":  func(f *conformanceFlags) { f.provider.name = "containers" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			f := conformanceFlags{}
			f.run.Profiles = []string{"mvp", "ipmode"}
			mutate(&f)
			before := f.dataplane.chosen()
			if line := f.applyDefaultDataplane(); line != "" || f.dataplane.chosen() != before {
				t.Errorf("dataplane %q, line %q; want it left alone", f.dataplane.chosen(), line)
			}
		})
	}
}
