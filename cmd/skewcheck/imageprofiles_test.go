package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites"
)

// TestDataplaneImage certifies the reference dataplane shipped as an image (`skewcheck
// images reference --component dataplane`: a static skewcheck and nft FROM scratch), run
// with --dataplane-image in the node's network namespace: every ipmode test passes, as it
// does as a command; its log is in the report directory; no container or namespace
// outlives the run. Then the bad input: a missing image is refused before any apiserver
// starts, and an image that exits at once fails the run with the end of its log.
func TestDataplaneImage(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	_, newV := integration.Versions()
	tag := buildReferenceImage(t, rt, "dataplane")
	before := skewcheckContainers(t, rt)

	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "conformance", "--versions", newV, "--profiles", "ipmode", "--dataplane-image", tag,
		"--dataplane-name", "reference-image", "--dataplane-sync-bound", "5s", "--report-dir", dir)
	expectNoNewContainers(t, rt, before)
	assertNoNamespaceLeft(t) // a container's processes are gone with it
	rep := readReport(t, dir, out)
	want, _ := framework.Select(suites.All(), []string{"ipmode"})
	if code != 0 || rep.Dataplane != "reference-image" || len(rep.Tests) != len(want) {
		t.Errorf("exit %d, dataplane %q, %d tests; want 0, reference-image, %d:\n%s", code, rep.Dataplane, len(rep.Tests), len(want), tail(out, 40))
	}
	for _, r := range rep.Tests {
		if r.Result != report.Passed {
			t.Errorf("%s: %s %s%s", r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "dataplane", "dataplane.log")); !strings.Contains(string(log), "reference ipmode dataplane on node") {
		t.Errorf("the dataplane's log in the report directory lacks its output:\n%s", tail(string(log), 10))
	}

	out, code = run(t, t.TempDir(), "conformance", "--profiles", "ipmode", "--dataplane-image", "skewcheck-test/no-such-image:1", "--report-dir", t.TempDir())
	if code == 0 || !strings.Contains(out, "is not in the local Docker engine") || strings.Contains(out, "starting") {
		t.Errorf("a missing image: exit %d, want a refusal before the cluster starts:\n%s", code, out)
	}
	exits := exitsAtOnceImage(t, rt)
	out, code = run(t, t.TempDir(), "conformance", "--versions", newV, "--profiles", "ipmode", "--dataplane-image", exits, "--report-dir", t.TempDir())
	expectNoNewContainers(t, rt, before)
	assertNoNamespaceLeft(t) // a container's processes are gone with it
	if code == 0 || !strings.Contains(out, "exited before serving") || !strings.Contains(out, `unknown command "no-such-command"`) {
		t.Errorf("an image that exits at once: exit %d, want its exit and the end of its log:\n%s", code, tail(out, 30))
	}
}

// gatewayImageFocus is TestGatewayImage's instance in make test: a test for each thing the
// image's container gets from the run. Its network reaching every apiserver and the
// discovery it routes by (GW-001), the configuration the apply command writes (GW-010,
// GW-061), the client CA it verifies users with (GW-030), upgrades through its connections
// (GW-032), the serving certificates of each server name (GW-070). make soak runs every
// gateway test, as TestGatewayProfile and TestGatewayHostRouting do in make test.
const gatewayImageFocus = `GW-0(01|10|30|32|61|70)`

// TestGatewayImage certifies the reference gateway shipped as an image, the vendor's way:
// --gateway-image, and an apply command that runs the gateway's own wait inside its
// container (docker exec "$SKEWCHECK_GATEWAY_CONTAINER"). Every test of gatewayImageFocus
// (make soak: every gateway test) passes, the log is in the report directory, nothing
// outlives the run; a missing image and an image that exits at once fail clearly.
func TestGatewayImage(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	oldV, newV := integration.Versions()
	tag := buildReferenceImage(t, rt, "gateway")
	before := skewcheckContainers(t, rt)
	apply := `docker exec "$` + "SKEWCHECK_GATEWAY_CONTAINER" + `" /entrypoint reference gateway wait`

	dir := t.TempDir()
	args := []string{"conformance", "--versions", oldV + "," + newV, "--gateway-image", tag, "--gateway-name", "reference-image",
		"--gateway-apply-command", apply, "--report-dir", dir}
	args = withFocus(args, makeTestFocus(gatewayImageFocus))
	out, code := run(t, t.TempDir(), args...)
	expectNoNewContainers(t, rt, before)
	rep := readReport(t, dir, out)
	want, _ := framework.Select(suites.All(), []string{"gateway"})
	if code != 0 || rep.Target != "gateway:reference-image" || len(rep.Tests) != len(want) {
		t.Errorf("exit %d, target %q, %d tests (want 0, gateway:reference-image, %d):\n%s", code, rep.Target, len(rep.Tests), len(want), tail(out, 40))
	}
	for _, r := range rep.Tests {
		if r.SkipKind == report.Deselected {
			continue
		}
		if r.Result != report.Passed {
			t.Errorf("%s: %s %s%s", r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "gateway", "gateway.log")); !strings.Contains(string(log), "reference gateway serving") {
		t.Errorf("the gateway's log in the report directory lacks its output:\n%s", tail(string(log), 10))
	}

	out, code = run(t, t.TempDir(), "conformance", "--gateway-image", "skewcheck-test/no-such-image:1", "--gateway-apply-command", "true", "--report-dir", t.TempDir())
	if code == 0 || !strings.Contains(out, "is not in the local Docker engine") || strings.Contains(out, "starting") {
		t.Errorf("a missing image: exit %d, want a refusal before the cluster starts:\n%s", code, out)
	}
	exits := exitsAtOnceImage(t, rt)
	out, code = run(t, t.TempDir(), "conformance", "--versions", newV, "--gateway-image", exits, "--gateway-apply-command", "true", "--report-dir", t.TempDir())
	expectNoNewContainers(t, rt, before)
	if code == 0 || !strings.Contains(out, "exited with status 1") || !strings.Contains(out, `unknown command "no-such-command"`) {
		t.Errorf("an image that exits at once: exit %d, want its exit status and the end of its log:\n%s", code, tail(out, 30))
	}
}

// buildReferenceImage builds a reference component's image through the CLI, as a user
// would, under a tag of this test run's own, removed when the test ends.
func buildReferenceImage(t *testing.T, rt *containers.Runtime, component string) string {
	t.Helper()
	tag := testImageTag(t, "reference-"+component)
	removeImageWhenDone(t, rt, tag)
	if out, code := run(t, t.TempDir(), "images", "reference", "--component", component, "--binary", staticCLI(t), "--tag", tag); code != 0 {
		t.Fatalf("images reference --component %s: exit %d\n%s", component, code, tail(out, 20))
	}
	return tag
}

// testImageTag is the tag of an image a test builds and removes. It names the test: tests
// that run side by side (TestDataplaneImage and TestKindDataplanes both build the reference
// dataplane) each build and remove their own, never one another's.
func testImageTag(t *testing.T, what string) string {
	return fmt.Sprintf("skewcheck-test/%s-%s:%d", what, strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), os.Getpid())
}

// exitsAtOnceImage is an image whose process fails at once with a message: skewcheck given
// a command it does not have.
func exitsAtOnceImage(t *testing.T, rt *containers.Runtime) string {
	t.Helper()
	tag := testImageTag(t, "exits-at-once")
	removeImageWhenDone(t, rt, tag)
	if err := images.Build(context.Background(), rt, staticCLI(t), tag, []string{"no-such-command"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	return tag
}
