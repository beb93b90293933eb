package app

import (
	"fmt"
	"strings"

	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// checkProfiles refuses profiles a run cannot test: none at all (a run of nothing), or a
// profile whose every test is of an API gateway with no gateway given, where each of its
// tests would skip for the missing gateway after the cluster was made. Only a flag can give
// a gateway (unlike a dataplane, which a local cluster gets by default), so the refusal
// names the flags. Listing needs no gateway.
func checkProfiles(f *conformanceFlags) error {
	if len(f.run.Profiles) == 0 {
		return fmt.Errorf("--profiles is empty: name the profiles to run, e.g. --profiles %s (the default; skewcheck conformance --list shows every profile)", strings.Join(suites.DefaultProfiles, ","))
	}
	if f.list || f.gateway.enabled() {
		return nil
	}
	if need := suites.Where(f.run.Profiles, framework.Profile.NeedsGateway); len(need) > 0 {
		return fmt.Errorf("--profiles %s tests an API gateway in front of the apiservers, and none is given: give --gateway %s (skewcheck's), or yours with --gateway-command or --gateway-image and --gateway-apply-command",
			strings.Join(need, ","), strings.Join(clustersgateway.ReferenceNames(), " or --gateway "))
	}
	return nil
}
