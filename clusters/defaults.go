package clusters

// DefaultVersions is the pair of kube-apiserver releases a cluster skewcheck makes gets
// when the user names none (conformance, chaos, races and cluster create's --versions,
// binaries ensure, upgrade's --from and --to, the e2e-framework providers): one value, so
// that moving it to the next releases is one change. The Makefile's VERSIONS says the same
// for make conformance.
var DefaultVersions = []string{"v1.35.4", "v1.36.3"}
