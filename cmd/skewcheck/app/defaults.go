package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// applyDefaultSkew implies the default skew (clusters.SkewedPair) on the first two servers
// when the user chose no skew of their own and there are two servers or more, and returns
// the line that says so ("" when it did nothing).
// An --emulated-version is no choice of skew: a server emulating an older release gets the
// same default skew as the real older release would, so the two can be compared.
func (f *serverFlags) applyDefaultSkew() string {
	if len(f.versions) < 2 || slices.ContainsFunc(f.extra, func(kv string) bool {
		_, flag, _ := strings.Cut(kv, "=")
		_, emulation := emulatedVersionFlag(flag)
		return !emulation
	}) {
		return ""
	}
	given := "no --server-flag"
	if len(f.extra) > 0 {
		given = "no --server-flag but --emulated-version"
	}
	f.implied = nil
	for i, s := range clusters.SkewedPair(f.versions[0], f.versions[1]) {
		for _, flag := range s.ExtraFlags {
			f.implied = append(f.implied, fmt.Sprintf("%d=%s", i+1, flag))
		}
	}
	return given + ": batch/v1 is off on apiserver-1 and autoscaling/v2 on apiserver-2, so each serves a GVR the other lacks (give --server-flag to choose the skew)"
}

// applyDefaultDataplane implies the registry's default dataplane (dataplane.Default) when a
// selected test needs a dataplane (FeatureDataplane: the ipmode profile's) on a cluster
// skewcheck makes without a dataplane, and returns the line that says so ("" when it did
// nothing). A provider that cannot run a dataplane gets none, nor does an existing
// cluster: its Services would be programmed by its own kube-proxies, so its ipmode tests
// skip, saying what is missing.
func (f *conformanceFlags) applyDefaultDataplane() string {
	if len(suites.Where(f.run.Profiles, framework.Profile.NeedsDataplane)) == 0 || f.dataplane.chosen() != "" ||
		!f.makesCluster() || lacks(f.provider.name, clusters.NodeProxiers) {
		return ""
	}
	f.dataplane.implied = dataplane.Default
	return fmt.Sprintf("--profiles %s without --dataplane: testing skewcheck's %s dataplane (give --dataplane kube-proxy-nftables, exec, ... for another)", strings.Join(f.run.Profiles, ","), dataplane.Default)
}
