package clusters

// DefaultVersions is the pair of kube-apiserver releases a cluster skewcheck makes gets
// when the user names none (conformance, chaos, races and cluster create's --versions,
// binaries ensure, upgrade's --from and --to, the e2e-framework providers): one value, so
// that moving it to the next releases is one change. The Makefile's VERSIONS says the same
// for make conformance. They are the newest two stable releases: whoever runs skewcheck
// without naming versions is judging what users run today. The behaviour only 1.35 has
// stays covered by make test's pair (the Makefile's TEST_VERSIONS), the nightly and the
// ranges' far ends.
var DefaultVersions = []string{"v1.36.3", "v1.37.2"}

// NightlyVersions is the nightly's matrix when the user names none (nightly --versions,
// the Makefile's NIGHTLY_VERSIONS): every supported minor, each its newest patch release,
// and the release users are about to install, named exactly since a minor never means a
// prerelease. The nightly exists to catch the next release before users install it, so
// its last pair ends at the newest prerelease the builder can get.
var NightlyVersions = []string{"1.33", "1.34", "1.35", "1.36", "1.37", "v1.38.0-beta.0"}
