// Package integration marks the tests that need root: real kube-apiservers, network
// namespaces, nftables, Docker. They run in `make test`
// and are skipped by `go test -short` (the fast unit loop).
package integration

import (
	"os"
	"testing"
)

// SkipEnv, set to 1, skips the integration tests knowingly (a machine without root).
const SkipEnv = "SKEWCHECK_SKIP_INTEGRATION"

// Require skips t under -short or when SkipEnv asks for it, and fails it when not root
// (local clusters need UTS and network namespaces): a `make test` that silently skipped
// every integration test would go green having tested nothing real.
func Require(t testing.TB) {
	t.Helper()
	skip, fail := decide(testing.Short(), os.Geteuid(), os.Getenv(SkipEnv))
	if skip != "" {
		t.Skip(skip)
	}
	if fail != "" {
		t.Fatal(fail)
	}
}

// decide says whether an integration test is skipped, failed before it starts, or run.
func decide(short bool, euid int, skipEnv string) (skip, fail string) {
	switch {
	case short:
		return "integration test: needs root for real apiservers, network namespaces, nftables or Docker; run without -short (make test)", ""
	case skipEnv == "1":
		return "integration test skipped as asked by " + SkipEnv + "=1", ""
	case euid != 0:
		return "", "integration test: needs root for UTS and network namespaces; run make test as root (sudo make test), " +
			"or set " + SkipEnv + "=1 to skip the integration tests knowingly"
	}
	return "", ""
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
