package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The reference dataplane is the running binary re-executed on a node, so both binaries
// that may run it, the CLI and this test binary, must become the dataplane when re-executed
// so: main and TestMain call reexec.RunIfCalled first, which runs the dataplane's hook. A bad config shows it
// without a cluster: the dataplane refuses it (exit 2) instead of the CLI or the tests
// running again.
func TestReexecutedBinaryIsTheReferenceDataplane(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Without the hook, the test binary would run its tests again: -test.run=^$ makes that
	// none, so a missing hook fails here instead of recursing.
	for name, argv := range map[string][]string{"the CLI": {cli}, "this test binary": {self, "-test.run=^$"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "SKEWCHECK_REFERENCE_IPMODE={not json")
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "skewcheck reference ipmode: bad SKEWCHECK_REFERENCE_IPMODE") {
			t.Errorf("%s re-executed as the reference dataplane with a bad config: %v, output:\n%s\nwant exit 2 and the dataplane refusing the config", name, err, tail(string(out), 10))
		}
	}
}
