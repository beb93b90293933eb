package local

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestControllerManagerThroughLoadBalancer starts a real kube-controller-manager of the
// oldest release behind the round-robin load balancer: it must take its leader lease
// (waitLeading), log to the cluster's directory, and be gone with its balancer once the
// cluster is deleted.
func TestControllerManagerThroughLoadBalancer(t *testing.T) {
	integration.Require(t)
	old, newer := integration.Versions()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := New(ctx, Config{Name: "kcm", Progress: testWriter{t},
		Servers:           []clusters.ServerSpec{{Version: newer}, {Version: old}},
		ControllerManager: &clusters.ControllerManagerSpec{Connect: clusters.ConnectLoadBalancer}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Delete()
	m := c.ControllerManager
	if m.Version != old {
		t.Errorf("the controller manager is %s, want the oldest server's %s", m.Version, old)
	}
	if !strings.HasPrefix(m.Log(), c.Dir) {
		t.Errorf("its log %s is not in the cluster's directory %s", m.Log(), c.Dir)
	}
	// klog flushes every 5 s, so the log may say it a little after the lease does.
	var logged string
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && !strings.Contains(logged, "Successfully acquired lease"); time.Sleep(500 * time.Millisecond) {
		b, _ := os.ReadFile(m.Log())
		logged = string(b)
	}
	if !strings.Contains(logged, "Successfully acquired lease") {
		t.Errorf("its log %s does not say it took its lease; it holds:\n%s", m.Log(), logged)
	}
	pid, lb := m.pid, m.lb.Address()
	if err := c.Delete(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("kube-controller-manager (pid %d) still runs after the cluster was deleted", pid)
	}
	if err := checkPortFree("load balancer", strings.Split(lb, ":")[0], c.cfg.Port); err != nil {
		t.Errorf("the load balancer still listens at %s after the cluster was deleted: %v", lb, err)
	}
}

// TestControllerManagerRefusesANewerRelease: a controller manager newer than an apiserver
// is a skew upstream does not support, refused before anything starts.
func TestControllerManagerRefusesANewerRelease(t *testing.T) {
	integration.Require(t)
	old, newer := integration.Versions()
	_, err := New(context.Background(), Config{Name: "kcm-newer",
		Servers:           []clusters.ServerSpec{{Version: old}, {Version: newer}},
		ControllerManager: &clusters.ControllerManagerSpec{Version: newer}})
	if err == nil || !strings.Contains(err.Error(), "never newer") {
		t.Fatalf("New with a controller manager at %s over a %s apiserver: %v, want a refusal", newer, old, err)
	}
}
