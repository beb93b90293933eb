package local

import (
	"context"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// specCluster is a cluster of servers at versions, as New has it before anything starts,
// with every controller manager binary named (binaries.Options.Paths) so none is built.
func specCluster(t *testing.T, versions ...string) *Cluster {
	t.Helper()
	paths := map[string]string{}
	c := &Cluster{Name: "spec"}
	for i, v := range versions {
		c.Servers = append(c.Servers, &Server{Name: "apiserver-" + string(rune('1'+i)), Version: v})
		paths[string(binaries.KubeControllerManager)+"@"+v] = "/bin/true"
	}
	c.cfg.Binaries = binaries.Options{Paths: paths, Source: binaries.SourceCache}
	return c
}

// The controller manager's release and server are settled before anything starts: the
// oldest release by default, kubeadm's server (the first of its own release) by default,
// and a server that does not exist refused, naming those that do.
func TestControllerManagerSpec(t *testing.T) {
	ctx := context.Background()
	c := specCluster(t, "v1.36.3", "v1.35.4")
	m, err := c.newControllerManager(ctx, clusters.ControllerManagerSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != "v1.35.4" || m.Connect != "apiserver-2" || m.Binary != "/bin/true" {
		t.Errorf("default: %s connected to %s (%s), want v1.35.4 connected to apiserver-2, the server of its release", m.Version, m.Connect, m.Binary)
	}
	if m, err := c.newControllerManager(ctx, clusters.ControllerManagerSpec{Connect: clusters.ConnectLoadBalancer}); err != nil || m.Connect != clusters.ConnectLoadBalancer {
		t.Errorf("through the load balancer: %+v, %v", m, err)
	}
	_, err = c.newControllerManager(ctx, clusters.ControllerManagerSpec{Connect: "apiserver-3"})
	if err == nil || !strings.Contains(err.Error(), "apiserver-1, apiserver-2") {
		t.Errorf("an unknown server: %v, want a refusal naming apiserver-1, apiserver-2", err)
	}
}
