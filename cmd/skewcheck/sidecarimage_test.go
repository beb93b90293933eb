package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites"
)

// TestSidecarImage certifies the reference peer proxy shipped as an image, the way a vendor
// ships theirs: built FROM scratch from a static skewcheck (`skewcheck images reference`),
// run with --sidecar-image in front of each apiserver of a local cluster. The tests run
// pass, the sidecars' logs are in the report directory, and no container outlives the run.
// make test runs sidecarImageFocus, a test for each thing the container gets from the run;
// make soak every mvp and discovery test (each runs through the same proxy as a command
// in TestSidecarCommand, and in process in reference/peerproxy's TestReferenceIsConformant).
func TestSidecarImage(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	tag := fmt.Sprintf("skewcheck-test/reference-peerproxy:%d", os.Getpid())
	removeImageWhenDone(t, rt, tag)
	if out, code := run(t, t.TempDir(), "images", "reference", "--binary", staticCLI(t), "--tag", tag); code != 0 {
		t.Fatalf("images reference: exit %d\n%s", code, tail(out, 20))
	}
	before := skewcheckContainers(t, rt)
	oldV, newV := integration.Versions()
	dir := t.TempDir()
	focus := makeTestFocus(sidecarImageFocus)
	out, code := run(t, t.TempDir(), withFocus([]string{"conformance", "--versions", oldV + "," + newV, "--server-flag", "1=--runtime-config=batch/v1=false",
		"--sidecar-name", "reference-image", "--sidecar-image", tag, "--report-dir", dir}, focus)...)
	expectNoNewContainers(t, rt, before)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, tail(out, 40))
	}
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Conformance
	json.Unmarshal(b, &rep)
	want, _ := framework.Select(suites.All(), []string{"mvp", "discovery"})
	if rep.Target != "sidecar:reference-image" || len(rep.Tests) != len(want) {
		t.Errorf("report: target %q, %d tests, want sidecar:reference-image and %d", rep.Target, len(rep.Tests), len(want))
	}
	expectSelectedPassed(t, "reference image", rep, focus)
	expectSidecarLogs(t, dir)
}

// sidecarImageFocus is TestSidecarImage's instance in make test, a test for each thing the
// container gets from the run: the apiserver's URL and CA, and its peers' (MVP-010,
// proxying to the other server), the front-proxy client certificate that carries the user
// (MVP-043, into the peer's audit log), a container stopped with its node (MVP-022: 503
// for the crashed peer) and started again when the node restarts (MVP-051), and the
// control identity it reads the peers' discovery with (DISC-001, merged discovery).
const sidecarImageFocus = `MVP-0(10|22|43|51)|DISC-001`

// TestSidecarImageBadInput: a missing image is refused before any apiserver starts, saying
// skewcheck does not pull; an image whose process exits at once fails the run with the end
// of its log. Neither leaves a container behind.
func TestSidecarImageBadInput(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	before := skewcheckContainers(t, rt)

	out, code := run(t, t.TempDir(), "conformance", "--sidecar-image", "skewcheck-test/no-such-image:1", "--report-dir", t.TempDir())
	if code == 0 || !strings.Contains(out, "is not in the local Docker engine") || !strings.Contains(out, "does not pull") || strings.Contains(out, "starting") {
		t.Errorf("a missing image: exit %d, want a refusal before the cluster starts, saying it is not pulled:\n%s", code, out)
	}
	expectNoNewContainers(t, rt, before)

	tag := exitsAtOnceImage(t, rt)
	oldV, _ := integration.Versions()
	out, code = run(t, t.TempDir(), "conformance", "--versions", oldV+","+oldV, "--sidecar-image", tag, "--report-dir", t.TempDir())
	if code == 0 || !strings.Contains(out, "exited with status 1") || !strings.Contains(out, `unknown command "no-such-command"`) {
		t.Errorf("an image that exits at once: exit %d, want the exit status and the end of its log:\n%s", code, tail(out, 30))
	}
	expectNoNewContainers(t, rt, before)
}

// requireDocker is the Docker engine the image tests work on, closed at their end: they
// fail, saying why, where none answers (integration.RequireDocker).
func requireDocker(t *testing.T) *containers.Runtime {
	t.Helper()
	var rt *containers.Runtime
	integration.RequireDocker(t, func() (err error) { rt, err = containers.Connect(context.Background()); return err })
	t.Cleanup(func() { rt.Close() })
	return rt
}

// staticCLI builds the CLI with CGO_ENABLED=0, as a FROM scratch image needs it, once.
func staticCLI(t *testing.T) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(cli), "skewcheck-static")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	cmd := exec.Command("go", "build", "-o", path, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a static CLI: %v\n%s", err, out)
	}
	return path
}

// removeImageWhenDone removes ref once every test of the package has ended (TestMain), not
// when t ends: removing an image prunes its untagged parent layers, and the legacy builder
// shares those between images of one binary (FROM scratch, COPY entrypoint), so a removal
// while another test built from that cache failed its build: "failed to set parent ...:
// unknown parent image ID" (make test, 2026-12-02).
func removeImageWhenDone(t *testing.T, _ *containers.Runtime, ref string) {
	t.Helper()
	builtImages.Lock()
	defer builtImages.Unlock()
	builtImages.refs = append(builtImages.refs, ref)
}

// builtImages are the images the package's tests built, for removeBuiltImages.
var builtImages struct {
	sync.Mutex
	refs []string
}

// removeBuiltImages removes every image removeImageWhenDone was given, through a client of
// its own (each test closes its own when it ends).
func removeBuiltImages() {
	builtImages.Lock()
	defer builtImages.Unlock()
	if len(builtImages.refs) == 0 {
		return
	}
	rt, err := containers.Connect(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "removing the images the tests built (%v): %v\n", builtImages.refs, err)
		return
	}
	defer rt.Close()
	for _, ref := range builtImages.refs {
		rt.Provider().Client().ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	}
	builtImages.refs = nil
}

// skewcheckContainers lists the IDs of the containers skewcheck made, running or not,
// whose owner is gone: what a run left behind. A container whose owner lives belongs to a
// run still going, such as another package's test under go test -p, and is not this
// test's leftover: the CLI runs these tests check have exited before they look.
func skewcheckContainers(t *testing.T, rt *containers.Runtime) []string {
	t.Helper()
	list, err := rt.Provider().Client().ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", containers.OwnerLabel)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list.Items {
		if ownerGone(c.Labels) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// ownerGone reports whether the run named by a container's or network's owner labels has
// ended: made on this machine by a process that no longer exists.
func ownerGone(labels map[string]string) bool {
	host, _ := os.Hostname()
	pid, err := strconv.Atoi(labels[containers.OwnerLabel])
	return err == nil && labels[containers.HostLabel] == host && !registry.Alive(pid)
}

func expectNoNewContainers(t *testing.T, rt *containers.Runtime, before []string) {
	t.Helper()
	for _, id := range skewcheckContainers(t, rt) {
		if !slices.Contains(before, id) {
			t.Errorf("container %s left behind", id)
		}
	}
}
