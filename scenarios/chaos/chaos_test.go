package chaos_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// cluster is a local cluster of servers with a peer path to each, for the faults between
// apiservers (localtest.Skewed: only apiserver-2 serves batch/v1).
func cluster(t *testing.T, servers []clusters.ServerSpec) *local.Cluster {
	t.Helper()
	return localtest.Start(t, local.Config{Name: "chaostest", PeerPaths: true, Servers: servers})
}

func jobsRoute(t *testing.T, target *framework.Target) framework.Route {
	t.Helper()
	for _, r := range framework.Routes(target, "create", "list") {
		if r.GVR.Key() == "batch/v1/jobs" {
			return r
		}
	}
	t.Fatalf("no route for batch/v1/jobs: %v", framework.SkewedGVRs(target))
	return framework.Route{}
}

// TestFaultsOnTheReference measures faults where the outcome is known: a crash and a
// refused peer path give 503 at once and no spurious 404; a frozen peer gives 503 within
// the reference's bound (1.5 times its peer timeout); writes acknowledged before are not
// lost; after healing, 200.
func TestFaultsOnTheReference(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := cluster(t, localtest.Skewed())
	target, _ := localtest.Reference(t, c, peerproxy.NoFlaw)
	route := jobsRoute(t, target)
	if reason := chaos.PathBypassed(ctx, route, faults.Refused(c.Servers[1].PeerPath)); reason != "" {
		t.Fatalf("the reference's peer traffic must pass the peer path: %s", reason)
	}
	opts := chaos.Options{For: 4 * time.Second, Interval: 200 * time.Millisecond, Recover: time.Minute, Seed: 11}
	for _, f := range []faults.Fault{faults.Crash(route.Peer), faults.Refused(c.Servers[1].PeerPath), faults.Freeze(route.Peer)} {
		o := chaos.Measure(ctx, "reference", route, f, opts)
		t.Logf("%s: 503 after %.2fs, recovered in %.2fs, statuses %v", o.Fault, o.TimeTo503, o.TimeToRecover, o.Statuses)
		if o.Error != "" || o.Skipped != "" {
			t.Fatalf("%s: %s%s", o.Fault, o.Error, o.Skipped)
		}
		// The reference's bound with localtest's 2 s peer timeout: 3 s on a warm HTTP/2
		// connection (a ping after 1 s of silence, 2 s for its answer:
		// reference/peerproxy/transport.go), plus a poll and a little for a loaded machine.
		if o.TimeTo503 < 0 || o.TimeTo503 > 3+opts.Interval.Seconds()+0.3 {
			t.Errorf("%s: time to 503 %.2fs, want within the reference's 3 s bound (plus a poll)", o.Fault, o.TimeTo503)
		}
		if o.Spurious404 != 0 || o.LostWrites != 0 {
			t.Errorf("%s: %d spurious 404s, %d lost writes", o.Fault, o.Spurious404, o.LostWrites)
		}
		if err := target.Converge(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpstreamTakesThePeerPath: upstream's own proxy dials a peer at its advertise address
// (1.35 and 1.36 ignore --peer-advertise-*), so the local cluster advertises the peer path
// there. The peer's identity lease names the path, closing the path stops proxied requests,
// and a refused path gives upstream's 503 at once, never a 404.
func TestUpstreamTakesThePeerPath(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := cluster(t, localtest.Skewed())
	target := localtest.Upstream(t, c)
	path := c.Servers[1].PeerPath
	cs, err := kubernetes.NewForConfig(c.RestConfig(c.Servers[0], local.Admin))
	if err != nil {
		t.Fatal(err)
	}
	leases, err := cs.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	var advertised []string
	for _, l := range leases.Items {
		advertised = append(advertised, l.Annotations["kubernetes.io/peer-advertise-address"])
	}
	if !slices.Contains(advertised, path.Address) {
		t.Errorf("no identity lease advertises the peer path %s: %v", path.Address, advertised)
	}
	route := jobsRoute(t, target)
	if reason := chaos.PathBypassed(ctx, route, faults.Refused(path)); reason != "" {
		t.Fatalf("upstream's peer traffic must pass the peer path: %s", reason)
	}
	o := chaos.Measure(ctx, "upstream", route, faults.Refused(path),
		chaos.Options{For: 3 * time.Second, Interval: 200 * time.Millisecond, Recover: time.Minute, Seed: 12})
	t.Logf("refused: 503 after %.2fs, recovered in %.2fs, statuses %v", o.TimeTo503, o.TimeToRecover, o.Statuses)
	if o.Error != "" || o.TimeTo503 < 0 || o.TimeTo503 > 1 || o.Spurious404 != 0 {
		t.Errorf("a refused peer path: want 503 within 1s and no 404; got %+v", o)
	}
}

// TestExactPartitionOfThree cuts apiserver-1 from apiserver-2 and no one else: a GVR only
// apiserver-2 serves stays reachable through apiserver-3, and not through apiserver-1,
// until the partition heals.
func TestExactPartitionOfThree(t *testing.T) {
	integration.Require(t)
	integration.RequireNft(t)
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "pairtest", Servers: append(localtest.Skewed(), localtest.Older(clusters.WithoutBatch))})
	target := localtest.Upstream(t, c)
	one, three := target.Endpoint("apiserver-1"), target.Endpoint("apiserver-3")
	list := framework.Request{Path: "/apis/batch/v1/namespaces/default/jobs?limit=1"}
	answer := func(e *framework.Endpoint) int {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		return e.Do(ctx, list).Status
	}
	f := faults.PartitionPair(c.Servers[0].PeerDialer(), c.Servers[1].PeerDialer(), false)
	heal, err := faults.Inject(ctx, f)
	var unsupported faults.Unsupported
	if errors.As(err, &unsupported) {
		t.Fatalf("this machine cannot cut one server from another: %s", unsupported.Reason)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer heal(ctx)
	if got := answer(three); got != 200 {
		t.Errorf("during %s, apiserver-3 must still reach apiserver-2: HTTP %d", f.Description(), got)
	}
	if got := answer(one); got == 200 {
		t.Errorf("during %s, apiserver-1 still reached apiserver-2", f.Description())
	}
	if err := heal(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for answer(one) != 200 {
		if time.Now().After(deadline) {
			t.Fatal("apiserver-1 does not reach apiserver-2 again within 30s of healing")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestUnsupportedFaultIsSkipped: without nft on PATH a packet fault says so, and is skipped.
func TestUnsupportedFaultIsSkipped(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := faults.Loss(&node.PeerPath{Address: "127.77.250.1:6443"}, 10)
	_, err := faults.Inject(context.Background(), f)
	var u faults.Unsupported
	if !errors.As(err, &u) || !strings.Contains(u.Reason, "apt-get install nftables") {
		t.Fatalf("want an Unsupported error (which chaos skips) naming the fix, got %v", err)
	}
}

// TestInterruptDuringFaultLeavesNothing runs the chaos CLI, interrupts it while an
// nftables partition is in place, and checks the table, processes and cluster are gone.
func TestInterruptDuringFaultLeavesNothing(t *testing.T) {
	integration.Require(t)
	integration.RequireNft(t)
	bin := t.TempDir() + "/skewcheck"
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/skewcheck/skewcheck/cmd/skewcheck").CombinedOutput(); err != nil {
		t.Fatalf("build: %s", out)
	}
	tmp := t.TempDir()
	// make test's pair, whose binaries make test has built: the command's default pair may
	// not be built on a new machine, and building it here takes longer than the test may.
	oldV, newV := integration.Versions()
	cmd := exec.Command(bin, "chaos", "--versions", oldV+","+newV, "--fault", "partition", "--targets", "reference", "--for", "60s", "--report-dir", tmp+"/r")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 4096)
	var seen strings.Builder
	// The fault starts within a few minutes however loaded the machine; past that bound
	// the command is killed, which ends the read below, and the test says what it printed.
	stuck := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	for !strings.Contains(seen.String(), "dropped (nftables) for") {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("chaos ended, or was killed after 5 minutes, before the fault:\n%s", seen.String())
		}
		seen.Write(buf[:n])
	}
	stuck.Stop()
	var tables []byte
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(tables), "skewcheck_"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the partition's nftables table never appeared: %s", tables)
		}
		tables, _ = exec.Command("nft", "list", "tables").Output()
	}
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for {
			if _, err := out.Read(buf); err != nil {
				return
			}
		}
	}()
	cmd.Wait()
	if tables, _ = exec.Command("nft", "list", "tables").Output(); strings.Contains(string(tables), "skewcheck_") {
		t.Errorf("an interrupted run left its nftables table: %s", tables)
	}
	if left, _ := exec.Command("pgrep", "-af", tmp).Output(); len(left) > 0 {
		t.Errorf("processes left running:\n%s", left)
	}
}
