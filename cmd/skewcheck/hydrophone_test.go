package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

// hydrophoneVersion is the hydrophone that drives skewcheck's image, as a user runs
// conformance images with it (sigs.k8s.io/hydrophone, served by the Go module proxy).
const hydrophoneVersion = "v0.8.0"

// hydrophoneFocus is what hydrophone runs in make test: one test of identity, which needs
// the in-cluster config (the kubernetes Service, through the pod network) and passes
// whatever the skew.
const hydrophoneFocus = "MVP-010"

// hydrophoneBound bounds one hydrophone run: its pod's start, the run, and the wait for its
// namespace to go (about a minute in all on a warm kind cluster).
const hydrophoneBound = 8 * time.Minute

// hydrophoneRuns drives skewcheck's image with real hydrophone on a kind cluster with a
// pod network: hydrophone's own pod (uid 65534, every capability dropped, not on its
// node's network), its progress read by exec'ing sh and cat in the image, its junit copied
// out and parsed; then `hydrophone --dry-run`, after which nothing the image would make is
// there.
func hydrophoneRuns(t *testing.T, rt *containers.Runtime, rec registry.Record, name, image string) {
	t.Helper()
	bin := hydrophoneBinary(t)
	busybox := testImageTag(t, "busybox")
	removeImageWhenDone(t, rt, busybox)
	// hydrophone's side container, as registry.k8s.io/e2e-test-images/busybox has it: sh
	// to sleep in, cat to copy the results out with.
	err := images.BuildImage(context.Background(), rt, images.Image{Ref: busybox, HostExecutables: []string{"/bin/busybox"},
		Links: map[string]string{"/bin/sh": "busybox", "/bin/cat": "busybox", "/bin/sleep": "busybox"}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := kind.LoadImage(context.Background(), rt, name, busybox); err != nil {
		t.Fatal(err)
	}
	kubeconfig := currentContextKubeconfig(t, rec.Kubeconfig, rec.LoadBalancer.Admin)
	hydrophone := func(ns string, args ...string) (string, string, int) {
		out := t.TempDir()
		// Bounded, and killed with this test's process (a test binary killed mid-run left
		// two hydrophones waiting on a cluster that was gone).
		ctx, cancel := context.WithTimeout(context.Background(), hydrophoneBound)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", kubeconfig, "--conformance-image", image, "--busybox-image", busybox,
			"--namespace", ns, "--output-dir", out, "--extra-args=--upstream=true"}, args...)...)
		cmd.Env = cliEnv(t)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		b, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Errorf("hydrophone %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return out, string(b), code
	}

	// Side by side, each in its own namespace: each ends waiting about 45 s for its
	// namespace to go (its busybox side container takes the whole 30 s grace).
	since := time.Now().Truncate(time.Second)
	var dir, log, dryLog string
	var code, dryCode int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		dir, log, code = hydrophone(fmt.Sprintf("hydrophone-%d", os.Getpid()), "--focus", hydrophoneFocus)
	}()
	go func() {
		defer wg.Done()
		_, dryLog, dryCode = hydrophone(fmt.Sprintf("hydrophone-dry-%d", os.Getpid()), "--dry-run", "--focus", "MVP-0")
	}()
	wg.Wait()

	t.Logf("hydrophone --focus %s:\n%s", hydrophoneFocus, tail(log, 25))
	if code != 0 {
		t.Errorf("hydrophone --focus %s: exit %d, want 0", hydrophoneFocus, code)
	}
	if passed, all := junitPassed(t, filepath.Join(dir, "junit_01.xml")); len(passed) != 1 || passed[0] != hydrophoneFocus {
		t.Errorf("hydrophone's junit_01.xml: passed %v of %d test cases, want exactly %s", passed, all, hydrophoneFocus)
	}
	if e2e, err := os.ReadFile(filepath.Join(dir, "e2e.log")); err != nil || !strings.Contains(string(e2e), "Will run 1 of") {
		t.Errorf("hydrophone's e2e.log (%v) lacks the line hydrophone counts progress by, \"Will run 1 of\":\n%s", err, tail(string(e2e), 10))
	}
	t.Logf("hydrophone --dry-run:\n%s", tail(dryLog, 15))
	if dryCode != 0 || !strings.Contains(dryLog, "MVP-010") || !strings.Contains(dryLog, "nothing is made in the cluster") {
		t.Errorf("hydrophone --dry-run: exit %d, want 0 listing the tests it would run (MVP-010 among them) and saying it makes nothing", dryCode)
	}
	// Both runs' footprints and hydrophone's own namespaces, ServiceAccounts and rights go
	// with their clean-ups.
	expectNothingMadeSince(t, rec, since, "hydrophone, a run and a --dry-run")
}

// hydrophoneBinary installs hydrophone from the Go module proxy, once per machine, into
// skewcheck's cache (outside the repository, so CI reuses it).
func hydrophoneBinary(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(binaries.DefaultCacheDir(), "tools")
	path := filepath.Join(dir, "hydrophone-"+hydrophoneVersion)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "sigs.k8s.io/hydrophone@"+hydrophoneVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installing hydrophone %s from the Go module proxy: %v\n%s", hydrophoneVersion, err, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(gobin, "hydrophone"), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// currentContextKubeconfig writes a copy of kubeconfig whose current context is context:
// hydrophone reads no --context.
func currentContextKubeconfig(t *testing.T, kubeconfig, context string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.CurrentContext = context
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// junitPassed reads a JUnit file as CI systems read it: the names of the test cases with
// neither a failure, an error nor a skip, and how many test cases there are.
func junitPassed(t *testing.T, path string) (passed []string, all int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("reading %s: %v", path, err)
		return nil, 0
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Errorf("parsing %s: %v", path, err)
		return nil, 0
	}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			all++
			if c.Failure == nil && c.Error == nil && c.Skipped == nil {
				id, _, _ := strings.Cut(strings.TrimPrefix(c.Name, "["), "]")
				passed = append(passed, id)
			}
		}
	}
	return passed, all
}
