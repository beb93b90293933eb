package local

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters"
)

// Emulation (KEP-4330, kube-apiserver's --emulated-version) makes a binary serve the APIs
// and feature-gate defaults of an older release; its code stays its own. Facts from
// kubernetes v1.36.3 and its staging modules:
//   - the flag takes major.minor, optionally for a component ("1.35", "kube=1.35"); a patch
//     is refused (k8s.io/component-base compatibility/registry.go toVersionMap, 306-330);
//   - it must lie between the binary's minor minus 3 and the binary's minor, and never
//     below 1.31 (k8s.io/apiserver pkg/util/compatibility/version.go 27 and 43-49;
//     component-base compatibility/version.go Validate, 163-166);
//   - APIs introduced after the emulated version are not installed: the expiration
//     evaluator's current version is the emulation version (kubernetes
//     pkg/controlplane/apiserver/apis.go 93);
//   - feature gates take their defaults at the emulated version (component-base
//     featuregate/feature_gate.go SetEmulationVersionAndMinCompatibilityVersion), so
//     UnknownVersionInteroperabilityProxy is alpha and off at 1.35 and must be switched on,
//     which an alpha gate may be (only PreAlpha gates are refused, feature_gate.go 435-437);
//   - /version keeps the binary's gitVersion, major and minor and adds emulationMajor and
//     emulationMinor (component-base compatibility/version.go Info, 176-199; installed by
//     k8s.io/apiserver pkg/server/config.go 1150);
//   - the identity lease carries no version at all (kubernetes
//     pkg/controlplane/apiserver/server.go labelAPIServerHeartbeatFunc, 307-336): a peer
//     learns what a server serves from its discovery, which is the emulated set.

// emulationFloor is the oldest release any kube-apiserver emulates (k8s.io/apiserver
// pkg/util/compatibility/version.go minimumKubeEmulationVersion).
const emulationFloor = 31

// CheckEmulation says whether a kube-apiserver of binary (a resolved version, v1.36.3)
// can emulate emulated (a minor, "1.35"), and if not, what it can emulate, so the
// mistake is reported before a server starts and exits with a flag error.
func CheckEmulation(binary, emulated string) error {
	v := "v" + strings.TrimPrefix(emulated, "v")
	if !semver.IsValid(v) || semver.MajorMinor(v) != v {
		return fmt.Errorf("emulated version %q: want a minor version such as 1.35 (kube-apiserver refuses a patch release)", emulated)
	}
	floor := max(minor(binary)-3, emulationFloor)
	if strings.TrimPrefix(semver.Major(v), "v") != strings.TrimPrefix(semver.Major(binary), "v") ||
		minor(v) > minor(binary) || minor(v) < floor {
		return fmt.Errorf("kube-apiserver %s cannot emulate %s: it emulates 1.%d to %s (three minor releases back, never before 1.%d)",
			binary, emulated, floor, strings.TrimPrefix(semver.MajorMinor(binary), "v"), emulationFloor)
	}
	return nil
}

// featureVersion is the release whose feature-gate defaults a server has: the one it
// emulates, else its binary's.
func featureVersion(s *Server) string { return featureRelease(s.Version, s.Spec) }

// featureRelease is featureVersion of a server of a resolved version and its spec.
func featureRelease(version string, spec clusters.ServerSpec) string {
	if e := spec.EmulatedVersion; e != "" {
		return "v" + strings.TrimPrefix(e, "v")
	}
	return version
}

// DescribeVersion says what a server is, for progress lines: "v1.36.3" or "v1.36.3 emulating 1.35".
func (s *Server) DescribeVersion() string {
	if e := s.Spec.EmulatedVersion; e != "" {
		return s.Version + " emulating " + strings.TrimPrefix(e, "v")
	}
	return s.Version
}
