package upgrade_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/providers"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestObserveCountsTheHarmOfAnInertProxy watches the same rolling upgrade (two servers,
// the old version to the new, driven beside the watch as an operator's tooling would) on a
// cluster made as kubeadm makes it, where the Mixed Version Proxy is inert (1.35: the alpha
// gate off; 1.36: the gate on but no --peer-ca-file, kubernetes/kubeadm#3301), and on one
// with it active. Inert, the watcher fails, with the 404s clients saw outside every step
// window (in the mixed window, reads of what only the upgraded server serves, through the
// one not yet upgraded) counted; active, it passes. On both, the watcher's confirmed
// restarts are the driven upgrade's, one per server.
func TestObserveCountsTheHarmOfAnInertProxy(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	for _, inert := range []bool{true, false} {
		name := map[bool]string{true: "inert as kubeadm leaves it", false: "active"}[inert]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			watched, driven := observeAnUpgrade(t, oldV, newV, inert)
			c := watched.Counts
			t.Logf("watched: %d steps, reads %d, writes %d acked %d; 404 in/out %d/%d; violations %d",
				len(watched.Steps), c.Reads, c.Writes, c.AckedWrites, c.NotFoundInside, c.NotFoundOutside, len(watched.Violations))
			t.Logf("served by (watched) %v, (driven) %v\nwatched:\n%s\ndriven:\n%s", watched.ServedBy, driven.ServedBy, watched.Table(), driven.Table())
			if inert {
				if watched.Passed() || c.NotFoundOutside == 0 || !hasViolation(watched, "404 for ") {
					t.Errorf("inert proxy: the watch passed or counted no 404 outside the windows (%d): %v", c.NotFoundOutside, watched.Violations)
				}
				if !hasViolation(watched, "left at") {
					t.Errorf("inert proxy: no step ended unconverged when the next server left: %v", watched.Violations)
				}
				if driven.Passed() || driven.Counts.NotFoundOutside == 0 {
					t.Errorf("inert proxy: the driven upgrade's own judge passed it")
				}
			} else if !watched.Passed() {
				t.Errorf("active proxy: the watch failed: %v", watched.Violations)
			}
			var restarted []string
			for _, st := range watched.Steps {
				if st.Confirmed == "" {
					t.Errorf("watched step of %s: not a confirmed restart", st.Server)
				}
				restarted = append(restarted, st.Server)
			}
			var want []string
			for _, st := range driven.Steps {
				want = append(want, st.Server)
			}
			if strings.Join(restarted, ",") != strings.Join(want, ",") || len(watched.Gaps) != 0 {
				t.Errorf("the watcher restarted %v (gaps %+v), want the driven upgrade's %v", restarted, watched.Gaps, want)
			}
		})
	}
}

// observeAnUpgrade makes a cluster of two servers at oldV (kubeadm's flags when inert),
// watches it with Observe while RunOn moves it to newV, and returns both results.
func observeAnUpgrade(t *testing.T, oldV, newV string, inert bool) (watched, driven *upgrade.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	spec := clusters.Spec{Servers: clusters.SpecsFor([]string{oldV, oldV})}
	for i := range spec.Servers {
		spec.Servers[i].KubeadmPeerProxy = inert
	}
	c, err := clusters.New(ctx, providers.Default, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Delete()
	var progress, watchProgress syncWriter
	var wg sync.WaitGroup
	var watchErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		watched, watchErr = upgrade.Observe(ctx, c, upgrade.ObserveOptions{For: 3 * time.Minute, Until: newV, Seed: 8,
			Interval: 100 * time.Millisecond, Settle: 4 * time.Second, Window: 5 * time.Second, Progress: &watchProgress})
	}()
	// The watcher's load and polls under way before the first step: it says so once it
	// has read the target and started the load.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(watchProgress.String(), "observing 2 apiservers"); {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not start within a minute:\n%s", watchProgress.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A pause between the servers longer than the declared window, as an operator's
	// upgrade has (kubeadm's is minutes): the mixed window then has time outside every
	// step's window, where a 404 is what clients should never see.
	driven, err = upgrade.RunOn(ctx, c, upgrade.Options{Path: []string{oldV, newV}, Seed: 9,
		Interval: 100 * time.Millisecond, Settle: 10 * time.Second, Window: 5 * time.Second, Progress: &progress})
	wg.Wait()
	if err != nil || watchErr != nil {
		t.Fatalf("driven: %v\n%s\nwatched: %v\n%s", err, progress.String(), watchErr, watchProgress.String())
	}
	t.Logf("the watcher:\n%s", watchProgress.String())
	return watched, driven
}

func hasViolation(r *upgrade.Result, part string) bool {
	for _, v := range r.Violations {
		if strings.Contains(v, part) {
			return true
		}
	}
	return false
}

// syncWriter is a strings.Builder two goroutines may write to.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
