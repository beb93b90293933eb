// Package integration marks tests that start real kube-apiservers. They run in `make test`
// and are skipped by `go test -short` (the fast unit loop).
package integration

import (
	"os"
	"testing"
)

// Require skips t under -short and when not root (local clusters need UTS namespaces);
// `make test` runs as root and without -short, so there they always run.
func Require(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts real kube-apiservers; run without -short (make test)")
	}
	if os.Geteuid() != 0 {
		t.Skip("integration test: needs root for UTS and network namespaces")
	}
}

// Versions are the default skewed pair the integration tests use: the newest 1.35 and 1.36
// patch releases known to build here. SKEWCHECK_TEST_OLD and SKEWCHECK_TEST_NEW override them.
func Versions() (old, new string) {
	if v := os.Getenv("SKEWCHECK_TEST_OLD"); v != "" {
		old = v
	} else {
		old = "v1.35.4"
	}
	if v := os.Getenv("SKEWCHECK_TEST_NEW"); v != "" {
		new = v
	} else {
		new = "v1.36.3"
	}
	return old, new
}
