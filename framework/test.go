package framework

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/mod/semver"
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
	// Holds is how long the test waits by design, whatever the target does (an upstream
	// grace period it must see out): added to the bound on the whole test (the report's
	// `spec` timeout is the bound of a test that holds nothing).
	Holds time.Duration
	// Makes are the test's writes, everything it creates, changes or deletes on the
	// cluster (NoWrites when it only reads): what a run on a cluster skewcheck does not own
	// declares before it starts (--dry-run).
	Makes []Write
	Run   func(ctx context.Context, env *Env)
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

// InRange reports whether version (v1.36.3) is within since..until (minor versions). A
// prerelease is its minor: v1.38.0-beta.0 is 1.38, inside "1.36".."1.38" and above "1.37".
func InRange(version, since, until string) bool {
	if since != "" && CompareMinor(version, since) < 0 {
		return false
	}
	if until != "" && CompareMinor(version, until) > 0 {
		return false
	}
	return true
}

// CompareMinor compares the minor versions of a and b ("v1.32.13" and "1.33" give -1;
// "v1.38.0-beta.0" and "1.38" give 0).
func CompareMinor(a, b string) int {
	return semver.Compare(semver.MajorMinor(canonical(a)), semver.MajorMinor(canonical(b)))
}

// IsPrerelease reports whether v is a Kubernetes prerelease, as its tags and /version name
// them: v1.38.0-alpha.1, v1.38.0-beta.0, v1.38.0-rc.0 (with or without the v, and with
// what a build from between tags adds: v1.38.0-beta.0.12+0123abcd). A distribution's
// suffix (v1.30.2-eks-a1b2c3) is no prerelease: the release it names is out.
func IsPrerelease(v string) bool {
	pre := semver.Prerelease(canonical(v))
	for _, p := range []string{"-alpha.", "-beta.", "-rc."} {
		if n, ok := strings.CutPrefix(pre, p); ok && n != "" && n[0] >= '0' && n[0] <= '9' {
			return true
		}
	}
	return false
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
			if why, ok := strings.CutPrefix(r, notApplicable); ok {
				return notApplicable + "needs " + string(f) + ", which " + why
			}
			return Missing(f, r)
		}
	}
	return ""
}

// NotHere is a feature's reason for lacking it on a target that by its nature never has
// it (a cluster skewcheck does not own has no node control): the test does not apply there
// and never counts against the run, unlike a feature a user could have given.
func NotHere(why string) string { return notApplicable + why }

// Missing is the skip reason of a test the target lacks f for: "missing <f>: <why>".
func Missing(f Feature, why string) string { return "missing " + string(f) + ": " + why }

// MissingFeatureOf is the feature a skip reason of Missing names, or false for any other
// reason.
func MissingFeatureOf(reason string) (Feature, bool) {
	rest, ok := strings.CutPrefix(reason, "missing ")
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, ": ")
	if !ok || name == "" || strings.ContainsAny(name, " ,") {
		return "", false
	}
	return Feature(name), true
}

// IsNotApplicable reports whether a skip reason says the test does not apply.
func IsNotApplicable(reason string) bool { return strings.HasPrefix(reason, notApplicable) }
