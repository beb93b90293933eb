package app

import (
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// The framework says what a target lacks in its own words; these say how a user of this
// CLI gives it, so a skip reason in a report names the flag to use.
func init() {
	framework.SetRemedy(framework.FeatureGateway, always("run with --gateway reference or --gateway-command"))
	framework.SetRemedy(framework.FeatureDataplane, func(t *framework.Target) string {
		if t.NoDataplane != "" { // the user asked for one, and it cannot run here
			return ""
		}
		return "run with --dataplane kube-proxy-nftables, reference, exec, ..."
	})
	framework.SetRemedy(framework.FeatureSkew, always("a cluster skewcheck makes gets skew by default; with --server-flag, switch a group-version off on one server, e.g. 1=--runtime-config=batch/v1=false"))
	framework.SetRemedy(framework.FeatureSkewedStatus, always("a cluster skewcheck makes has one by default: batch/v1 off on the first server, for jobs/status"))
	framework.SetRemedy(framework.FeatureUnprivileged, always("give --user-contexts with --contexts"))
	framework.SetRemedy(faults.PeerPath, always("skewcheck chaos, or conformance with the chaos profile on a cluster skewcheck makes, gives the servers peer paths"))
}

// always is a remedy that does not depend on the target.
func always(how string) func(*framework.Target) string {
	return func(*framework.Target) string { return how }
}
