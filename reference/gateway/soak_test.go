package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// soakForEnv sets how long TestGatewaySoak drives its load (a Go duration); without it,
// 10 minutes in make soak (integration.Soak), and elsewhere the test is skipped.
const soakForEnv = "SKEWCHECK_SOAK_FOR"

// soakCurveEnv, set, is a file TestGatewaySoak also writes its curve to: make soak's
// summary shows a passing test's log to no one.
const soakCurveEnv = "SKEWCHECK_SOAK_CURVE"

// TestGatewaySoak: the reference gateway does not leak under a long mixed load (issue
// 57). On a local v1.35.4+v1.36.3 cluster, with the gateway in front as a process of its
// own (TestBenchGatewayProcess), it drives for soakFor the load of soakload_test.go (GETs
// and LISTs from 16 clients churning their connections, 8 watchers whose watches end and
// reopen, a writer), slow clients coming and going (scenarios/faults.SlowClient: 4 of each
// kind, held for a sixth of the run at most 30 s, then as long away), and restarts each
// upstream apiserver in turn every third of the run, at most 2 minutes. It samples what the
// gateway process holds (its debug server's /stats: goroutines, live heap, descriptors)
// about 40 times, at most every 5 s, logs the curve and fails when it grows
// (soakGrowth, soakAllowed: the last third's median against the second's), when the
// gateway still holds more than before once the load has ended and its connections have
// closed (soakLeft, soakLeftAllowed), or when a third of the run passed with no request
// or no watch event answered (a load that stopped measures nothing). It is make soak's:
// make test skips it (its budget has no room for minutes of load), and its verdict's logic
// is tested in -short (soakcurve_test.go). A short run (SKEWCHECK_SOAK_FOR=45s) is a smoke
// run: the thirds of so short a run tell a leak from the load's noise only when it is
// fast, while what is left after the load shows a slow one too.
//
// Run: SKEWCHECK_SOAK_FOR=2m go test -run '^TestGatewaySoak$' -v ./reference/gateway
func TestGatewaySoak(t *testing.T) {
	integration.Require(t)
	d := soakFor(t)
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "gwsoak", Servers: localtest.WithoutPeerProxy(localtest.Pair()...)})
	target, debug := gatewayProcess(t, c)
	load, err := newSoakLoad(target.Gateway)
	if err != nil {
		t.Fatal(err)
	}
	if err := load.objects(ctx, target.Endpoints[0]); err != nil {
		t.Fatal(err)
	}
	before := gatewayStats(t, debug)
	var marks soakMarks
	run, stop := context.WithTimeout(ctx, d)
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait() // after stop, also when the test fails early
	defer stop()
	wg.Go(func() { load.run(run) })
	wg.Go(func() { restartInTurn(run, t, c, min(2*time.Minute, d/3), &marks) })
	slow := faults.SlowClient(target.Gateway.Endpoint, framework.Route{Entry: target.Gateway.Endpoint,
		GVR: discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}}, 4)
	wg.Go(func() { slowInTurn(run, t, slow, min(30*time.Second, d/6), &marks) })

	start := time.Now()
	var samples []soakSample
	tick := time.NewTicker(min(5*time.Second, max(time.Second, d/40)))
	defer tick.Stop()
	for run.Err() == nil {
		select {
		case <-run.Done():
		case <-tick.C:
			samples = append(samples, soakSample{at: time.Since(start), held: gatewayStats(t, debug), done: load.tally(), marks: marks.take()})
		}
	}
	wg.Wait()
	after := releasedStats(t, debug, before)

	curve := fmt.Sprintf("before the load: %v\n%s after the load: %v\n", before, soakCurve(samples, 12), after)
	done := load.tally()
	summary := fmt.Sprintf("%v of load: %d GETs, %d LISTs, %d patches, %d watches (%d events), %d failed; first failures: %s",
		d, done.gets, done.lists, done.patches, done.watches, done.events, done.failed, strings.Join(load.failures(), "; "))
	if o, ok := slow.(faults.Observer); ok {
		summary += "; slow clients over all rounds: " + strings.Join(o.Observed().Notes, "; ")
	}
	t.Logf("the gateway process over the soak (medians per row):\n%s%s", curve, summary)
	if path := os.Getenv(soakCurveEnv); path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, []byte(curve+summary+"\n"), 0o644)
		}
		if err != nil {
			t.Errorf("writing the curve to %s (%s): %v", path, soakCurveEnv, err)
		}
	}
	grew, err := soakGrowth(samples, soakAllowed)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range append(grew, soakLeft(before, after, soakLeftAllowed)...) {
		t.Errorf("the gateway leaks: %s", g)
	}
	n := len(samples) / 3
	for i, third := range [][2]soakSample{{{}, samples[n-1]}, {samples[n-1], samples[2*n-1]}, {samples[2*n-1], samples[len(samples)-1]}} {
		from, to := third[0].done, third[1].done
		if to.requests()-from.requests() == 0 || to.events-from.events == 0 {
			t.Errorf("third %d of the soak (to %v) answered %d requests and %d watch events: the load stopped (%s)",
				i+1, third[1].at.Round(time.Second), to.requests()-from.requests(), to.events-from.events, summary)
		}
	}
}

// soakFor is how long the soak's load runs: soakForEnv, else 10 minutes in make soak;
// elsewhere it skips t.
func soakFor(t *testing.T) time.Duration {
	v := os.Getenv(soakForEnv)
	switch {
	case v != "":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("%s=%q: want a positive Go duration such as 10m", soakForEnv, v)
		}
		return d
	case integration.Soak():
		return 10 * time.Minute
	}
	t.Skipf("TestGatewaySoak is make soak's (10 minutes of mixed load): set %s=45s to run a short one here", soakForEnv)
	return 0
}

// gatewayStats is what the gateway process holds now (its debug server's /stats).
func gatewayStats(t *testing.T, debug string) stats {
	resp, err := http.Get("http://" + debug + "/stats")
	if err != nil {
		t.Fatalf("asking the gateway process what it holds: %v (did it exit? its log is in the cluster's gateway directory)", err)
	}
	defer resp.Body.Close()
	line, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the gateway process's /stats: %v", err)
	}
	s, err := parseStats(string(line))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// releasedStats is what the gateway process holds once the load's connections have
// closed: the first sample within soakLeftAllowed of before, or after 30 s the last.
func releasedStats(t *testing.T, debug string, before stats) stats {
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := gatewayStats(t, debug)
		if len(soakLeft(before, s, soakLeftAllowed)) == 0 || time.Now().After(deadline) {
			return s
		}
		time.Sleep(time.Second)
	}
}

// soakMarks are what happened since the last sample, for the curve's last column.
type soakMarks struct {
	mu    sync.Mutex
	since []string
}

func (m *soakMarks) add(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.since = append(m.since, fmt.Sprintf(format, args...))
}

func (m *soakMarks) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.since
	m.since = nil
	return out
}

// restartInTurn restarts c's servers one after another, one every every, until run ends.
func restartInTurn(run context.Context, t *testing.T, c *local.Cluster, every time.Duration, marks *soakMarks) {
	for i := 0; ; i++ {
		sleep(run, every)
		if run.Err() != nil {
			return
		}
		s := c.Servers[i%len(c.Servers)]
		began := time.Now()
		// Not bound by run: a restart cut short would leave the cluster with a server down.
		if err := s.Restart(context.Background(), ""); err != nil {
			t.Errorf("restarting %s in the soak: %v", s.Name, err)
			return
		}
		marks.add("restart %s (%.0f s)", s.Name, time.Since(began).Seconds())
	}
}

// slowInTurn holds slow clients for hold, takes them away for as long, and again, until
// run ends.
func slowInTurn(run context.Context, t *testing.T, slow faults.Fault, hold time.Duration, marks *soakMarks) {
	for run.Err() == nil {
		if err := slow.Inject(run); err != nil {
			t.Errorf("opening the soak's slow clients: %v", err)
			return
		}
		marks.add("slow clients")
		sleep(run, hold)
		slow.Heal(context.Background())
		sleep(run, hold)
	}
}
