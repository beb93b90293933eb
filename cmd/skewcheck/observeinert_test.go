package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestKindObserveInertUpgrade is the common case the kind provider's own clusters never
// meet: a cluster made exactly as kubeadm makes it (no --peer-ca-file, kubernetes/kubeadm#3301),
// so the Mixed Version Proxy is inert on every apiserver. From outside, skewcheck observe
// first names that one cause with kubeadm's fix (within 10 s of starting), then watches the
// kind provider's rolling upgrade of both nodes; it fails, with the 404s its clients saw
// counted, and its confirmed restarts are the driven upgrade's, one per server. The same upgrade with the
// proxy active passes inside TestKindClusterAsItRuns (watchAnUpgradeFromInside), and both
// states run on local apiservers in make test (scenarios/upgrade
// TestObserveCountsTheHarmOfAnInertProxy); this second kind cluster (about 3 minutes) runs
// in make soak, outside make test's budget.
func TestKindObserveInertUpgrade(t *testing.T) {
	integration.Require(t)
	if !integration.Soak() {
		t.Skip("SKIPPED: make soak runs this second kind cluster (about 3 minutes), which make test's 12-minute budget has no room for; " +
			"make test runs the same watch on local apiservers (scenarios/upgrade TestObserveCountsTheHarmOfAnInertProxy)")
	}
	t.Parallel()
	requireKind(t)
	oldV, newV := integration.Versions()
	name := fmt.Sprintf("%s%di", kind.RunPrefix, os.Getpid())
	spec := clusters.Spec{Name: name, Dir: t.TempDir(), Progress: logWriter{t}, Servers: clusters.SpecsFor([]string{oldV, oldV})}
	for i := range spec.Servers {
		spec.Servers[i].KubeadmPeerProxy = true
	}
	c, err := clusters.New(context.Background(), "kind", spec)
	if err != nil {
		t.Fatalf("creating the kind cluster as kubeadm leaves it: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Delete(); err != nil {
			t.Errorf("deleting the kind cluster %s: %v", name, err)
		}
	})
	rec := c.(registry.Recorded).Record()
	reportDir := t.TempDir()
	observe := exec.Command(cli, "observe", "--kubeconfig", rec.Kubeconfig, "--context", rec.LoadBalancer.Admin,
		"--for", "5m", "--until", newV, "--seed", "12", "--report-dir", reportDir)
	observe.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+t.TempDir())
	pr, pw := io.Pipe()
	observe.Stdout, observe.Stderr = pw, pw
	started := time.Now()
	if err := observe.Start(); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	observing := make(chan time.Duration, 1)
	var copied sync.WaitGroup
	copied.Add(1)
	go func() {
		defer copied.Done()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			fmt.Fprintln(&out, sc.Text())
			if strings.Contains(sc.Text(), "observing 2 apiservers") {
				observing <- time.Since(started)
			}
		}
	}()
	ended := make(chan error, 1)
	go func() { err := observe.Wait(); pw.Close(); ended <- err }()
	select {
	case d := <-observing:
		t.Logf("observe read the proxy's state and started watching %.1fs after it started", d.Seconds())
		if d > 10*time.Second {
			t.Errorf("observe took %.1fs to name the proxy's state and start, want under 10 s", d.Seconds())
		}
	case err := <-ended:
		t.Fatalf("observe ended before watching: %v\n%s", err, out.String())
	case <-time.After(2 * time.Minute):
		observe.Process.Kill()
		t.Fatalf("observe did not start watching within 2 minutes:\n%s", out.String())
	}
	driven, err := upgrade.RunOn(context.Background(), c, upgrade.Options{Path: []string{oldV, newV}, Seed: 13,
		Interval: 100 * time.Millisecond, Settle: 8 * time.Second, Window: 5 * time.Second, Progress: logWriter{t}})
	if err != nil {
		observe.Process.Kill()
		<-ended
		t.Fatalf("the kind provider's rolling upgrade: %v\nobserve:\n%s", err, out.String())
	}
	<-ended
	copied.Wait()
	text := out.String()
	t.Logf("skewcheck observe, from outside:\n%s", text)
	if code := observe.ProcessState.ExitCode(); code != 1 {
		t.Errorf("observe: exit %d, want 1 (its clients saw 404s outside every step window)", code)
	}
	// Before the upgrade both servers run one release, so no request has a peer to go to:
	// the state still names the cause, from the gate in /metrics and the proxy's missing
	// post-start hook (1.35: the alpha gate off; 1.36: on, no --peer-ca-file), with the fix
	// for a cluster kubeadm made.
	if !strings.Contains(text, "The Mixed Version Proxy is off on ") && !strings.Contains(text, "The Mixed Version Proxy is inert on ") {
		t.Errorf("the proxy's state does not name it off or inert")
	}
	for _, want := range []string{"fix: kubeadm sets no --peer-ca-file", "--peer-ca-file=/etc/kubernetes/pki/ca.crt"} {
		if !strings.Contains(text, want) {
			t.Errorf("the proxy's state does not say %q", want)
		}
	}
	if strings.Contains(text, "(not matched)") {
		t.Errorf("a server was not matched to its identity lease (by its node, where the lease names no address)")
	}
	var watched upgrade.Result
	if b, err := os.ReadFile(filepath.Join(reportDir, "upgrade.json")); err != nil || json.Unmarshal(b, &watched) != nil {
		t.Fatalf("observe wrote no upgrade.json: %v", err)
	}
	if watched.Counts.NotFoundOutside == 0 || watched.Passed() {
		t.Errorf("the watch counted %d 404s outside the windows (violations %v): want some, and a failure", watched.Counts.NotFoundOutside, watched.Violations)
	}
	if !strings.Contains(text, fmt.Sprintf("%d", watched.Counts.NotFoundOutside)) {
		t.Errorf("observe's output does not give the count of 404s its clients saw (%d)", watched.Counts.NotFoundOutside)
	}
	// One confirmed restart per server, in the driven upgrade's order (its steps name the
	// members, the watcher's the nodes' hostnames, as their identity leases do).
	if len(watched.Steps) != len(rec.Servers) || len(driven.Steps) != len(rec.Servers) || len(watched.Gaps) != 0 {
		t.Errorf("watched steps %+v (gaps %+v), driven %+v: want one confirmed restart per server", watched.Steps, watched.Gaps, driven.Steps)
	} else {
		for i, st := range watched.Steps {
			if st.Server != rec.Servers[i].Hostname || st.Confirmed == "" {
				t.Errorf("watched step %d: %s (%q), want the confirmed restart of %s", i+1, st.Server, st.Confirmed, rec.Servers[i].Hostname)
			}
		}
	}
	if driven.Passed() {
		t.Errorf("the driven upgrade's own judge passed an upgrade through an inert proxy")
	}
	expectNothingOfARunLeft(t, rec)
}
