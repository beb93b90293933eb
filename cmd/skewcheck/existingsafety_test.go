package main

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// madeSince lists every namespace, CRD, ClusterRole, ClusterRoleBinding and APIService
// of the cluster made at or after since and not being deleted: what a run left, found by
// when it was made rather than by the label it should carry.
func madeSince(t *testing.T, rec registry.Record, since time.Time) []string {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(loadBalancerAdmin(t, rec))
	var left []string
	for _, r := range []schema.GroupVersionResource{
		{Version: "v1", Resource: "namespaces"},
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
	} {
		l, err := dyn.Resource(r).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", r.Resource, err)
		}
		for _, o := range l.Items {
			if !o.GetCreationTimestamp().Time.Before(since) && o.GetDeletionTimestamp() == nil {
				left = append(left, r.Resource+"/"+o.GetName())
			}
		}
	}
	return left
}

// expectNothingMadeSince fails, listing them, when objects made since are left.
func expectNothingMadeSince(t *testing.T, rec registry.Record, since time.Time, what string) {
	t.Helper()
	if left := madeSince(t, rec, since); len(left) > 0 {
		t.Errorf("%s left %d objects: %s", what, len(left), strings.Join(left, ", "))
	} else {
		t.Logf("%s left nothing (every namespace, CRD, ClusterRole(Binding) and APIService made since %s listed)", what, since.Format(time.TimeOnly))
	}
}

// runsInTheSameSecond: two conformance runs from outside and one certify, started
// together, each its own run: all pass and, between them, leave nothing. Before run IDs
// carried a random part, runs of one second shared a name, and the one whose namespace
// came second deleted the other's.
func runsInTheSameSecond(t *testing.T, rec registry.Record, state, image string, lb []string) {
	since := time.Now().Truncate(time.Second)
	outside := append([]string{"conformance", "--upstream", "--profiles", "mvp", "--focus", "MVP-010"}, lb...)
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	runs := [][]string{
		append(append([]string{}, outside...), "--report-dir", dirs[0]),
		append(append([]string{}, outside...), "--report-dir", dirs[1]),
		append([]string{"certify", "--image", image, "--profiles", "mvp", "--focus", "MVP-010",
			"--report-dir", dirs[2], "--conformance-flag=--upstream"}, lb...),
	}
	outs := make([]string, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code := run(t, state, args...)
			outs[i] = out
			if code != 0 {
				t.Errorf("%s beside two others: exit %d, want 0:\n%s", args[0], code, tail(out, 30))
			}
		}()
	}
	wg.Wait()
	// Exit 0 alone could hide a run that selected nothing: each must have run MVP-010 and
	// seen it pass, its report read back from its own directory.
	for i, dir := range dirs {
		expectSelectedPassed(t, runs[i][0]+" beside two others", readReport(t, dir, outs[i]), "^MVP-010$")
	}
	// certify's pod, off its node's network and reading no audit log, ran where Pod
	// Security's restricted level was enforced: the cluster checked its shape.
	if !strings.Contains(outs[2], "the namespace enforces Pod Security restricted") {
		t.Errorf("certify beside two others did not run under Pod Security restricted:\n%s", tail(outs[2], 20))
	}
	expectNothingMadeSince(t, rec, since, "three runs started in the same second")
}

// certifyInterrupted: certify ended by SIGINT while its tests run and again while it
// cleans up (make test), and before its pod starts and mid-test alone (make soak), each
// time leaving nothing: the pod is stopped (its own clean-up runs with its rights), then
// certify's rights and namespace go.
func certifyInterrupted(t *testing.T, rec registry.Record, state, image string, lb []string) {
	type interrupt struct {
		name string
		// after is the line of certify's output after which it is interrupted, and again
		// the line after which it is interrupted a second time ("" for none).
		after, again string
	}
	// "•" is the in-cluster run's line for a test that ended: its footprint is made.
	cases := []interrupt{{"mid-test and during clean-up", "•", "cleaning up"}}
	if integration.Soak() {
		cases = append(cases, interrupt{"before its pod starts", "making namespace", ""}, interrupt{"mid-test", "•", ""})
	}
	for _, tc := range cases {
		since := time.Now().Truncate(time.Second)
		cmd := exec.Command(cli, append([]string{"certify", "--image", image, "--profiles", "mvp",
			"--focus", "MVP-00[1-9]|MVP-01", "--report-dir", t.TempDir(), "--conformance-flag=--upstream"}, lb...)...)
		cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state)
		out := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !out.waitFor(tc.after, 3*time.Minute) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("certify %s: no %q line within 3 minutes:\n%s", tc.name, tc.after, out)
		}
		cmd.Process.Signal(syscall.SIGINT)
		if tc.again != "" && out.waitFor(tc.again, 3*time.Minute) {
			cmd.Process.Signal(syscall.SIGINT)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Minute):
			cmd.Process.Kill()
			t.Errorf("certify %s: still running 5 minutes after SIGINT:\n%s", tc.name, out)
			<-done
		}
		t.Logf("certify interrupted %s:\n%s", tc.name, tail(out.String(), 15))
		expectNothingMadeSince(t, rec, since, "certify interrupted "+tc.name)
	}
}

// waitFor says whether the output holds s within bound.
func (w *syncBuffer) waitFor(s string, bound time.Duration) bool {
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if strings.Contains(w.String(), s) {
			return true
		}
	}
	return false
}
