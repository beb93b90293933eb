package framework

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// Feature is something a test needs from the target beyond talking to its endpoints.
type Feature string

const (
	// FeatureSkew: at least one GVR is served by some endpoints and not by others.
	FeatureSkew Feature = "Skew"
	// FeatureSkewedStatus: a GVR served by some endpoints and not by others has a status
	// subresource, and skewcheck can create an object of it.
	FeatureSkewedStatus Feature = "SkewedStatus"
	// FeatureNodeControl: the suite may stop, kill and freeze the servers.
	FeatureNodeControl Feature = "NodeControl"
	// FeatureAuditLog: the suite can read every server's audit log.
	FeatureAuditLog Feature = "AuditLog"
	// FeatureUnprivileged: every endpoint has a client identity that RBAC grants nothing.
	FeatureUnprivileged Feature = "Unprivileged"
	// FeatureDataplane: the target has a service dataplane under test, in a network of
	// hosts skewcheck built around it.
	FeatureDataplane Feature = "Dataplane"
	// FeatureRegistration: the suite knows how the proxies register their servers with one
	// another, so it can race with that: kube-apiserver identity leases on upstream
	// targets, or what the target declares (Target.Registrar).
	FeatureRegistration Feature = "Registration"
	// FeaturePeerPath: the network path from the other servers into each server passes a
	// point where the suite can fault it (a local or containers cluster made with peer
	// paths; a kind cluster, in its nodes' network namespaces).
	FeaturePeerPath Feature = "PeerPath"
)

// Test is one conformance test, as data: listing tests needs no cluster.
type Test struct {
	ID          string // stable: MVP-001; never reused for another meaning
	Profile     string // mvp, discovery, ...
	Description string
	Features    []Feature
	// Since and Until bound the versions of the target's endpoints the behaviour exists
	// in (minor versions, inclusive; "" is open).
	Since, Until string
	Deviation    *Deviation
	// SpecVsCode are the points where the feature's specification and upstream's code
	// disagree about what the test checks; the test asserts the code's side of each.
	SpecVsCode []SpecVsCode
	Run        func(ctx context.Context, env *Env)
}

// VersionRange prints Since..Until for listings.
func (t Test) VersionRange() string { return versionRange(t.Since, t.Until) }

func versionRange(since, until string) string {
	switch {
	case since == "" && until == "":
		return "all"
	case until == "":
		return since + "+"
	case since == "":
		return "up to " + until
	}
	return since + "-" + until
}

// InRange reports whether version (v1.36.3) is within since..until (minor versions).
func InRange(version, since, until string) bool {
	mm := semver.MajorMinor(canonical(version))
	if since != "" && semver.Compare(mm, canonical(since)) < 0 {
		return false
	}
	if until != "" && semver.Compare(mm, canonical(until)) > 0 {
		return false
	}
	return true
}

// CompareMinor compares the minor versions of a and b ("v1.32.13" and "1.33" give -1).
func CompareMinor(a, b string) int {
	return semver.Compare(semver.MajorMinor(canonical(a)), semver.MajorMinor(canonical(b)))
}

// CompareVersions compares two versions, with or without their "v" ("1.33", "v1.32.13").
func CompareVersions(a, b string) int { return semver.Compare(canonical(a), canonical(b)) }

func canonical(v string) string {
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return semver.Canonical(v)
}

// notApplicable prefixes the skip reason of a test that does not apply to the target:
// the report tells such skips (which never count against a run) from the others by it.
const notApplicable = "not applicable: "

// SkipReason says why the test does not run on the target, or "" when it does: "not
// applicable: ..." when the behaviour is not in the target's versions or mechanism, and
// "missing <Feature>: ..." when the target lacks something the test needs.
func (t Test) SkipReason(target *Target) string {
	for _, e := range target.Endpoints {
		if !InRange(e.Version, t.Since, t.Until) {
			return fmt.Sprintf(notApplicable+"applies to Kubernetes %s; endpoint %s is %s", t.VersionRange(), e.Name, e.Version)
		}
	}
	for _, f := range t.Features {
		if r := missingFeature(target, f); r != "" {
			return Missing(f, r)
		}
	}
	return ""
}

// Missing is the skip reason of a test the target lacks f for: "missing <f>: <why>".
func Missing(f Feature, why string) string { return "missing " + string(f) + ": " + why }

// IsNotApplicable reports whether a skip reason says the test does not apply.
func IsNotApplicable(reason string) bool { return strings.HasPrefix(reason, notApplicable) }

func missingFeature(t *Target, f Feature) string {
	switch f {
	case FeatureNodeControl:
		for _, e := range t.Endpoints {
			if e.Node == nil {
				return "the suite cannot stop or kill " + e.Name + " (only local clusters allow it)"
			}
		}
	case FeatureAuditLog:
		for _, e := range t.Endpoints {
			if e.AuditLog == "" {
				return "no readable audit log for " + e.Name
			}
		}
	case FeatureUnprivileged:
		for _, e := range t.Endpoints {
			if e.User == nil {
				return "no unprivileged identity for " + e.Name + " (give --user-contexts)"
			}
		}
	case FeatureDataplane:
		if t.Dataplane == nil && t.NoDataplane != "" {
			return t.NoDataplane
		}
		if t.Dataplane == nil {
			return "no service dataplane under test (run with --dataplane kube-proxy-nftables, reference, exec, ...)"
		}
	case FeatureRegistration:
		if !t.Upstream && t.Registrar == nil {
			return "the target (" + t.Kind + ") does not say how its proxies register with one another, and they are not kube-apiservers, which use identity leases: declare it (framework.Registrar on the target)"
		}
	case FeaturePeerPath:
		for _, e := range t.Endpoints {
			if n, ok := e.Node.(PeerPathNode); !ok || !n.HasPeerPath() {
				return "the network path into " + e.Name + " cannot be faulted (local and containers clusters made with peer paths, and kind clusters, can: skewcheck chaos, or conformance with the chaos profile)"
			}
		}
	case FeatureGateway:
		return missingGateway(t)
	case FeatureSkew:
		if len(SkewedGVRs(t)) == 0 {
			return "every endpoint serves the same GVRs, so nothing is ever proxied (a local cluster gets skew by default; with --server-flag, switch a group-version off on one server, e.g. 1=--runtime-config=batch/v1=false)"
		}
	case FeatureSkewedStatus:
		if len(StatusRoutes(t)) == 0 {
			return "no GVR one endpoint lacks and another serves has a status subresource skewcheck can create an object of (" +
				describeSkew(t) + "); a local cluster has one by default (batch/v1 off on the first server: jobs/status)"
		}
	}
	return ""
}
